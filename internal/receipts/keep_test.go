package receipts

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/apperr"
)

// failingDocs keeps the first ok files it is given and then refuses every other as the
// documents service refuses a full allowance.
type failingDocs struct {
	ok   int
	kept [][]byte
}

func (f *failingDocs) Upload(_ context.Context, _ db.User, holdingID, name string, body []byte) (db.Document, error) {
	if len(f.kept) >= f.ok {
		return db.Document{}, apperr.New(apperr.TooLarge, "your documents would take over 500 MB; delete some first")
	}
	f.kept = append(f.kept, body)
	return db.Document{HoldingID: holdingID, Name: name}, nil
}

// TestReceiptKeptPartly: when the allowance fills part-way, the lots are all added in the
// receipt's currency, the file is kept on those it fitted, the note says how many and why,
// and the scan's copy is forgotten.
func TestReceiptKeptPartly(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, st *db.Store) {
		ctx := t.Context()
		svc := newTestService(t, st, Config{}, nil)
		docs := &failingDocs{ok: 1}
		svc.docs = docs
		u := member(t, st, "part@example.com", db.TierGold)
		pdf := fixture(t, "edelmetall.pdf")
		r, err := svc.Scan(ctx, u, pdf)
		if err != nil || r.ScanID == 0 || r.Currency != "EUR" || !r.CurrencyRead {
			t.Fatalf("scan: %+v %v", r, err)
		}
		in := ConfirmInput{OrderNumber: r.OrderNumber, OrderDate: r.OrderDate.String(), Currency: r.Currency, ScanID: r.ScanID}
		for _, it := range r.Items {
			in.Lines = append(in.Lines, ConfirmLine{Metal: string(it.Metal), ProductName: it.ProductName, Quantity: fmt.Sprint(it.Quantity),
				WeightOz: it.WeightOz.String(), UnitPrice: it.UnitPrice.Decimal.StringFixed(2), Fees: it.Fees.StringFixed(2)})
		}
		res, err := svc.Confirm(ctx, u, in)
		if err != nil || res.Imported != 3 || len(res.HoldingIDs) != 3 || res.Currency != "EUR" || res.Kept != 1 {
			t.Fatalf("confirm: %+v %v", res, err)
		}
		if !strings.Contains(res.KeepNote, "kept on 1 of the 3") || !strings.Contains(res.KeepNote, "500 MB") {
			t.Fatalf("note %q", res.KeepNote)
		}
		if len(docs.kept) != 1 || !bytes.Equal(docs.kept[0], pdf) {
			t.Fatalf("kept %d files", len(docs.kept))
		}
		if _, err := st.ReceiptFile(ctx, u.ID, r.ScanID, testNow); err == nil {
			t.Fatal("the scan's copy outlived its confirmation")
		}
		// A free member's scan keeps no file (they cannot confirm it).
		free := member(t, st, "free@example.com", db.TierFree)
		if fr, err := svc.Scan(ctx, free, pdf); err != nil || fr.ScanID != 0 {
			t.Fatalf("free scan: %+v %v", fr, err)
		}
	})
}
