package portfolio

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/apperr"
)

// TestHoldingsCap: a member keeps at most MaxHoldings holdings; the next one, by hand or by
// import, is Unprocessable, and an import counts only the rows it would store. The rule is
// checked on both engines with a cap of 20 (web's TestHoldingsCap stores the real 50,000).
func TestHoldingsCap(t *testing.T) {
	if MaxHoldings != 50_000 {
		t.Fatalf("MaxHoldings = %d", MaxHoldings)
	}
	defer func(n int) { maxHoldings = n }(maxHoldings)
	maxHoldings = 20
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		svc := newService(t, s)
		u := member(t, s, "max@example.com", db.TierGold)
		rows := make([]db.Holding, maxHoldings-1)
		for i := range rows {
			rows[i] = WithTotals(db.Holding{Metal: "silver", ProductName: fmt.Sprintf("coin %d", i), Quantity: 1, WeightOz: d("1"), PurchasePrice: d("30"), Fees: d("0")})
		}
		if _, err := s.ImportHoldings(ctx, u.ID, rows); err != nil {
			t.Fatal(err)
		}
		// One more fits; the one after does not.
		create(t, svc, u, "gold", 1, "1", "2000", "0", "2026-01-02")
		_, err := svc.CreateHolding(ctx, u, holdingIn(t, `{"metal":"gold","quantity":1,"weight_oz":1,"purchase_price":2000}`))
		if e, ok := apperr.As(err); !ok || e.Kind != apperr.Unprocessable || !strings.Contains(e.Msg, "at most 20 holdings and have 20") {
			t.Fatalf("holding past the cap: %v", err)
		}
		// An import of rows that are all duplicates stores nothing, so it is not refused.
		res, err := svc.ImportHoldings(ctx, u, []byte("metal,product_name,quantity,weight_oz,purchase_price\nsilver,coin 7,1,1,30\n"))
		if err != nil || res.SkippedDuplicates != 1 {
			t.Fatalf("duplicate-only import: %+v %v", res, err)
		}
		_, err = svc.ImportHoldings(ctx, u, []byte("metal,product_name,quantity,weight_oz,purchase_price\nsilver,coin 7,1,1,30\nsilver,new coin,1,1,30\n"))
		e, ok := apperr.As(err)
		if !ok || e.Kind != apperr.Unprocessable {
			t.Fatalf("import past the cap: %v", err)
		}
		if rowsErr, _ := e.Details["errors"].([]ImportRowError); len(rowsErr) != 1 || rowsErr[0].Row != 2 {
			t.Fatalf("import past the cap names row %v", e.Details)
		}
		if n, _ := s.CountHoldings(ctx, u.ID); n != maxHoldings {
			t.Fatalf("%d holdings stored", n)
		}
	})
}

// TestSpeculationProjectsOnlyGoldStacks: a free member gets the market projection and a note;
// a Gold member gets their own stack projected too.
func TestSpeculationProjectsOnlyGoldStacks(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		svc := newService(t, s)
		free := member(t, s, "free@example.com", db.TierFree)
		gold := member(t, s, "gold@example.com", db.TierGold)
		for _, u := range []db.User{free, gold} {
			if _, err := s.InsertHolding(context.Background(), WithTotals(db.Holding{UserID: u.ID, Metal: "silver", Quantity: 10, WeightOz: d("1"), PurchasePrice: d("30"), Fees: d("0")})); err != nil {
				t.Fatal(err)
			}
		}
		sp, err := svc.Speculation(t.Context(), map[string]string{"silver": "100"}, &free)
		if err != nil || sp.Portfolio != nil || sp.Note != GoldProjectionNote || !sp.Targets["silver"].Equal(d("100")) {
			t.Fatalf("free member: %v %+v", err, sp)
		}
		sp, err = svc.Speculation(t.Context(), map[string]string{"silver": "100"}, &gold)
		if err != nil || sp.Portfolio == nil || sp.Note != "" || !sp.Portfolio.ProjectedValue.Equal(d("1000")) {
			t.Fatalf("gold member: %v %+v", err, sp)
		}
	})
}
