package db_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
)

// TestImportArchiveAllOrNothing: a ZIP import whose documents pass the allowance only part way
// stores nothing — no lot, location or document row, and no file left (the first document's
// bytes were written before the second failed); within the allowance it stores the lots with
// their place, tags and documents (both engines).
func TestImportArchiveAllOrNothing(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		u, _ := s.InsertUser(ctx, "zip@example.com", "x", db.TierGold, false)
		rows := []db.Holding{
			{UserID: u.ID, Metal: "gold", ProductName: "Bar", Quantity: 1, WeightOz: decimal.NewFromInt(1), PurchasePrice: decimal.NewFromInt(2000), Fees: decimal.Zero},
			{UserID: u.ID, Metal: "silver", ProductName: "Eagle", Quantity: 5, WeightOz: decimal.NewFromInt(1), PurchasePrice: decimal.NewFromInt(30), Fees: decimal.Zero},
		}
		locs := []db.ArchiveLocation{{Name: "Home safe", Kind: "home", InsuredValue: sql.NullString{String: "5000.00", Valid: true}}}
		places := []db.ArchivePlace{{Row: 0, Location: 0, Tags: "bar,gift"}, {Row: 1, Location: -1, Tags: "tube"}}
		docs := []db.ArchiveDocument{
			{Row: 0, Name: "a.pdf", ContentType: "application/pdf", Body: []byte("%PDF-1.4 " + strings.Repeat("a", 600))},
			{Row: 1, Name: "b.pdf", ContentType: "application/pdf", Body: []byte("%PDF-1.4 " + strings.Repeat("b", 600))},
		}
		dir := filepath.Dir(s.DocumentPathForTest(u.ID, "x"))
		files := func() int {
			if s.Engine == db.Postgres {
				n, err := s.CountBlobsForTest(ctx, u.ID)
				if err != nil {
					t.Fatal(err)
				}
				return n
			}
			entries, _ := os.ReadDir(dir)
			return len(entries)
		}
		if _, err := s.ImportArchive(ctx, u.ID, totaled(rows), nil, nil, nil, locs, places, nil, docs, 1000); !errors.Is(err, db.ErrQuota) {
			t.Fatalf("past the allowance: %v", err)
		}
		hs, _ := s.AllHoldings(ctx, u.ID)
		ls, _ := s.LocationsByUser(ctx, u.ID)
		ds, _ := s.DocumentsByUser(ctx, u.ID)
		if len(hs) != 0 || len(ls) != 0 || len(ds) != 0 || files() != 0 {
			t.Fatalf("a failed import left %d lots, %d locations, %d documents, %d files", len(hs), len(ls), len(ds), files())
		}

		res, err := s.ImportArchive(ctx, u.ID, totaled(rows), nil, nil, nil, locs, places, nil, docs, 1<<20)
		if err != nil || res.Imported != 2 {
			t.Fatalf("import: %+v %v", res, err)
		}
		hs, _ = s.AllHoldings(ctx, u.ID)
		ls, _ = s.LocationsByUser(ctx, u.ID)
		ds, _ = s.DocumentsByUser(ctx, u.ID)
		if len(hs) != 2 || len(ls) != 1 || len(ds) != 2 || files() != 2 {
			t.Fatalf("import stored %d lots, %d locations, %d documents, %d files", len(hs), len(ls), len(ds), files())
		}
		for _, h := range hs {
			switch h.Metal {
			case "gold":
				if h.LocationID.String != ls[0].ID || h.Tags != "bar,gift" {
					t.Errorf("gold lot: location %v tags %q", h.LocationID, h.Tags)
				}
			case "silver":
				if h.LocationID.Valid || h.Tags != "tube" {
					t.Errorf("silver lot: location %v tags %q", h.LocationID, h.Tags)
				}
			}
		}
		for _, d := range ds {
			body, err := s.DocumentBody(ctx, u.ID, d.ID)
			want := docs[0].Body
			if d.Name == "b.pdf" {
				want = docs[1].Body
			}
			if err != nil || string(body) != string(want) || d.Size != int64(len(want)) {
				t.Errorf("%s: %d bytes, %v", d.Name, len(body), err)
			}
		}
	})
}
