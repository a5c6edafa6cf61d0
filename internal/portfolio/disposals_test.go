package portfolio

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/apperr"
)

// The worked example: five lots of one product at different costs and dates.
//
//	lot  units  price  fees  bought      cost     per unit
//	A    10     20.00  0     2022-01-10  200.00   20.00
//	B    10     25.00  5.00  2023-03-01  255.00   25.50
//	C    10     30.00  0     2024-06-15  300.00   30.00
//	D    10     22.00  2.00  2025-02-01  222.00   22.20
//	E    10     28.00  0     2025-09-01  280.00   28.00
//	                                     1257.00 for 50 units (25.14 each)
//
// and three disposals:
//
//	1: 15 units at 32.00, fees 3.00, on 2025-10-01 (proceeds 480.00)
//	2: 12 units at 35.00, fees 0,    on 2025-11-01 (proceeds 420.00)
//	3:  8 units at 30.00, fees 1.60, on 2026-01-15 (proceeds 240.00)
var workedLots = []struct{ name, qty, price, fees, date string }{
	{"A", "10", "20.00", "0", "2022-01-10"},
	{"B", "10", "25.00", "5.00", "2023-03-01"},
	{"C", "10", "30.00", "0", "2024-06-15"},
	{"D", "10", "22.00", "2.00", "2025-02-01"},
	{"E", "10", "28.00", "0", "2025-09-01"},
}

var workedDisposals = []struct{ qty, price, fees, date string }{
	{"15", "32.00", "3.00", "2025-10-01"},
	{"12", "35.00", "0", "2025-11-01"},
	{"8", "30.00", "1.60", "2026-01-15"},
}

// slice is "lot units cost gain term".
type handDisposal struct {
	cost, gain string
	slices     []string
}

// The hand figures: a lot's share of its remaining cost is cost × units ÷ units left,
// rounded to the cent; fees split by units (the last slice takes the rest); gain is
// proceeds − fees − cost; long means held more than one year.
var workedHand = map[string][]handDisposal{
	// A, B, C, D, E in order bought.
	"fifo": {
		{"327.50", "149.50", []string{"A 10 200.00 118.00 long", "B 5 127.50 31.50 long"}}, // fees 2.00 + 1.00
		{"337.50", "82.50", []string{"B 5 127.50 47.50 long", "C 7 210.00 35.00 long"}},
		{"201.00", "37.40", []string{"C 3 90.00 -0.60 long", "D 5 111.00 38.00 short"}}, // fees 0.60 + 1.00
	},
	// E, D, C, B, A.
	"lifo": {
		{"391.00", "86.00", []string{"E 10 280.00 38.00 short", "D 5 111.00 48.00 short"}},
		{"321.00", "99.00", []string{"D 5 111.00 64.00 short", "C 7 210.00 35.00 long"}},
		{"217.50", "20.90", []string{"C 3 90.00 -0.60 long", "B 5 127.50 21.50 long"}},
	},
	// Highest cost per unit first: C 30.00, E 28.00, B 25.50, D 22.20, A 20.00.
	"hifo": {
		{"440.00", "37.00", []string{"C 10 300.00 18.00 long", "E 5 140.00 19.00 short"}},
		{"318.50", "101.50", []string{"E 5 140.00 35.00 short", "B 7 178.50 66.50 long"}},
		{"187.50", "50.90", []string{"B 3 76.50 12.90 long", "D 5 111.00 38.00 short"}},
	},
	// One pool at 25.14 a unit throughout (1257.00 / 50); units taken in the order bought.
	"average": {
		{"377.10", "99.90", []string{"A 10 251.40 66.60 long", "B 5 125.70 33.30 long"}},
		{"301.68", "118.32", []string{"B 5 125.70 49.30 long", "C 7 175.98 69.02 long"}},
		{"201.12", "37.28", []string{"C 3 75.42 13.98 long", "D 5 125.70 23.30 short"}},
	},
}

func workedSetup(t *testing.T, s *db.Store, svc *Service, email string) (db.User, map[string]string) {
	t.Helper()
	u := member(t, s, email, db.TierGold)
	names := map[string]string{}
	for _, l := range workedLots {
		h, err := svc.CreateHolding(context.Background(), u, holdingIn(t, fmt.Sprintf(
			`{"metal":"silver","product_name":"Silver Eagle 1 oz","quantity":%s,"weight_oz":1,"purchase_price":%s,"fees":%s,"purchase_date":"%s"}`,
			l.qty, l.price, l.fees, l.date)))
		if err != nil {
			t.Fatal(err)
		}
		names[h.ID] = l.name
	}
	return u, names
}

func disposalIn(t *testing.T, body string) DisposalInput {
	t.Helper()
	in, err := ParseDisposalJSON([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	return in
}

func TestDisposalWorkedExample(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		svc := newService(t, s)
		for _, method := range []string{"fifo", "lifo", "hifo", "average"} {
			t.Run(method, func(t *testing.T) {
				u, names := workedSetup(t, s, svc, method+"@example.com")
				realized := decimal.Zero
				for i, d := range workedDisposals {
					got, err := svc.RecordDisposal(ctx, u, disposalIn(t, fmt.Sprintf(
						`{"product_name":"Silver Eagle 1 oz","metal":"silver","quantity":%s,"price_per_unit":%s,"fees":%s,"sold_on":"%s","method":"%s"}`,
						d.qty, d.price, d.fees, d.date, method)))
					if err != nil {
						t.Fatalf("disposal %d: %v", i+1, err)
					}
					want := workedHand[method][i]
					var slices []string
					for _, sl := range got.Slices {
						slices = append(slices, fmt.Sprintf("%s %d %s %s %s", names[sl.HoldingID], sl.Quantity, sl.CostBasis.StringFixed(2), sl.Gain.StringFixed(2), sl.Term))
					}
					if strings.Join(slices, "; ") != strings.Join(want.slices, "; ") {
						t.Errorf("disposal %d slices:\n got %v\nwant %v", i+1, slices, want.slices)
					}
					if got.CostBasis.StringFixed(2) != want.cost || got.Gain.StringFixed(2) != want.gain {
						t.Errorf("disposal %d: cost %s gain %s, want %s %s", i+1, got.CostBasis, got.Gain, want.cost, want.gain)
					}
					if got.Method != method || got.Kind != KindSold || got.ID == "" || !strings.HasPrefix(got.ID, "d_") {
						t.Errorf("disposal %d: %+v", i+1, got)
					}
					realized = realized.Add(got.Gain)
				}
				// Truth: the sales list's realized P/L is the disposals' gains.
				page, err := svc.ListSales(ctx, u, SalesQuery{})
				if err != nil || !page.Realized.Equal(realized) || page.Total != 6 {
					t.Fatalf("realized %s over %d sales, want %s: %v", page.Realized, page.Total, realized, err)
				}
				// The report of each year sums to the same.
				sum := decimal.Zero
				for _, y := range []int{2025, 2026} {
					r, err := svc.TaxReport(ctx, u, y)
					if err != nil {
						t.Fatal(err)
					}
					sum = sum.Add(r.Totals.Total)
				}
				if !sum.Equal(realized) {
					t.Errorf("report total %s, realized %s", sum, realized)
				}
			})
		}
	})
}

// TestDisposalAveragePool checks the average method against the pool arithmetic directly:
// every disposal costs the pool's cost per unit × units, and what the lots still hold is the
// pool's cost less what was disposed of.
func TestDisposalAveragePool(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		svc := newService(t, s)
		u, _ := workedSetup(t, s, svc, "pool@example.com")
		poolCost, poolUnits := decimal.RequireFromString("1257.00"), int64(50)
		for i, d := range workedDisposals {
			got, err := svc.RecordDisposal(ctx, u, disposalIn(t, fmt.Sprintf(
				`{"product_name":"Silver Eagle 1 oz","metal":"silver","quantity":%s,"price_per_unit":%s,"fees":%s,"sold_on":"%s","method":"average"}`,
				d.qty, d.price, d.fees, d.date)))
			if err != nil {
				t.Fatal(err)
			}
			q := decimal.RequireFromString(d.qty)
			want := poolCost.Mul(q).Div(decimal.NewFromInt(poolUnits)).Round(2)
			if !got.CostBasis.Equal(want) {
				t.Errorf("disposal %d cost %s, pool says %s", i+1, got.CostBasis, want)
			}
			poolCost, poolUnits = poolCost.Sub(want), poolUnits-q.IntPart()
			lots, err := s.ProductLots(ctx, u.ID, "silver", "Silver Eagle 1 oz")
			if err != nil {
				t.Fatal(err)
			}
			held, units := decimal.Zero, int64(0)
			for _, l := range lots {
				held, units = held.Add(l.HeldCost), units+l.Remaining()
			}
			if !held.Equal(poolCost) || units != poolUnits {
				t.Errorf("after disposal %d the lots hold %s for %d units, the pool %s for %d", i+1, held, units, poolCost, poolUnits)
			}
		}
	})
}

func TestDisposalRefusalsAndUndo(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		svc := newService(t, s)
		u, names := workedSetup(t, s, svc, "undo@example.com")
		body := `{"product_name":"Silver Eagle 1 oz","metal":"silver","quantity":51,"price_per_unit":30,"sold_on":"2025-10-01"}`
		_, err := svc.RecordDisposal(ctx, u, disposalIn(t, body))
		if e, ok := err.(*apperr.Error); !ok || e.Kind != apperr.Unprocessable || len(e.Fields) != 1 || e.Fields[0].Field != "quantity" {
			t.Fatalf("oversold: %v", err)
		}
		// On 2025-08-01 lot E (bought 2025-09-01) is not yet held: 40 units.
		if _, err := svc.RecordDisposal(ctx, u, disposalIn(t, strings.Replace(strings.Replace(body, "51", "41", 1), "2025-10-01", "2025-08-01", 1))); err == nil {
			t.Fatal("sold a lot before it was bought")
		}
		var idOf = map[string]string{}
		for id, n := range names {
			idOf[n] = id
		}
		got, err := svc.RecordDisposal(ctx, u, disposalIn(t, fmt.Sprintf(
			`{"product_name":"Silver Eagle 1 oz","metal":"silver","price_per_unit":30,"sold_on":"2025-10-01","lots":[{"holding_id":"%s","quantity":4},{"holding_id":"%s","quantity":2}],"kind":"sold"}`,
			idOf["D"], idOf["A"])))
		if err != nil {
			t.Fatal(err)
		}
		if got.Method != MethodSpecific || got.Quantity != 6 || len(got.Slices) != 2 || names[got.Slices[0].HoldingID] != "D" {
			t.Fatalf("specific: %+v", got)
		}
		gift, err := svc.RecordDisposal(ctx, u, disposalIn(t, `{"product_name":"Silver Eagle 1 oz","metal":"silver","quantity":3,"kind":"gifted","method":"lifo","sold_on":"2025-10-02"}`))
		if err != nil || !gift.Proceeds.IsZero() || gift.Kind != KindGifted {
			t.Fatalf("gift: %+v %v", gift, err)
		}
		if _, err := svc.RecordDisposal(ctx, u, disposalIn(t, `{"product_name":"Silver Eagle 1 oz","metal":"silver","quantity":1,"kind":"traded","price_per_unit":30}`)); err == nil {
			t.Fatal("a trade without received")
		}
		// Undoing the specific disposal by its id removes both slices; by a slice's id, the gift.
		if _, err := svc.DeleteSale(ctx, u, got.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.DeleteSale(ctx, u, gift.Slices[0].SaleID); err != nil {
			t.Fatal(err)
		}
		page, _ := svc.ListSales(ctx, u, SalesQuery{})
		if page.Total != 0 || !page.Realized.IsZero() {
			t.Fatalf("after undo: %+v", page)
		}
		lots, _ := s.ProductLots(ctx, u.ID, "silver", "Silver Eagle 1 oz")
		cost := decimal.Zero
		for _, l := range lots {
			if l.SoldQuantity != 0 {
				t.Errorf("lot %s still sold %d", names[l.ID], l.SoldQuantity)
			}
			cost = cost.Add(l.HeldCost)
		}
		if cost.StringFixed(2) != "1257.00" {
			t.Errorf("cost held after undo %s", cost)
		}
	})
}

func TestDisposalPreview(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		svc := newService(t, s)
		u, _ := workedSetup(t, s, svc, "preview@example.com")
		p, err := svc.PreviewDisposal(ctx, u, disposalIn(t, `{"product_name":"Silver Eagle 1 oz","metal":"silver","quantity":15,"price_per_unit":32.00,"fees":3.00,"sold_on":"2025-10-01"}`))
		if err != nil {
			t.Fatal(err)
		}
		for m, want := range map[string]string{"fifo": "149.50", "lifo": "86.00", "hifo": "37.00", "average": "99.90"} {
			if got := p.Methods[m].Gain.StringFixed(2); got != want {
				t.Errorf("%s gain %s, want %s", m, got, want)
			}
		}
		if p.LeastGain != "hifo" {
			t.Errorf("least gain %s", p.LeastGain)
		}
		if page, _ := svc.ListSales(ctx, u, SalesQuery{}); page.Total != 0 {
			t.Fatal("a preview stored a sale")
		}
	})
}

func TestJurisdictionTerms(t *testing.T) {
	day := func(s string) db.Date { d, _ := db.ParseDate(s); return d }
	// 2025-01-10 + 365 days = 2026-01-10 (one year: short); + 366 = 2026-01-11 (long).
	if Term(day("2025-01-10"), day("2026-01-10")) != TermShort || Term(day("2025-01-10"), day("2026-01-11")) != TermLong {
		t.Fatal("one year is short, a year and a day long")
	}
	cases := []struct{ jur, term, product, want string }{
		{"us", TermLong, "Silver Eagle 1 oz", CategoryCollectible},
		{"us", TermShort, "Silver Eagle 1 oz", CategoryShort},
		{"uk", TermShort, "British Silver Britannia 1 oz", CategoryExempt},
		{"uk", TermLong, "Gold Sovereign", CategoryExempt},
		{"uk", TermLong, "Silver Eagle 1 oz", CategoryLong},
		{"de", TermLong, "Silver Eagle 1 oz", CategoryTaxFree},
		{"de", TermShort, "Silver Eagle 1 oz", CategoryShort},
		{"none", TermLong, "Silver Eagle 1 oz", CategoryLong},
	}
	for _, c := range cases {
		if got := Category(c.jur, c.term, c.product); got != c.want {
			t.Errorf("%s %s %s: %s, want %s", c.jur, c.term, c.product, got, c.want)
		}
	}
}

// TestDisposalLedgerRoundTrip: a ledger with disposals across lots of every kind and the
// average method exports and imports into an empty account with the same slices, figures,
// kinds, methods and lots.
func TestDisposalLedgerRoundTrip(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		svc := newService(t, s)
		u, names := workedSetup(t, s, svc, "export@example.com")
		idOf := map[string]string{}
		for id, n := range names {
			idOf[n] = id
		}
		for _, body := range []string{
			`{"product_name":"Silver Eagle 1 oz","metal":"silver","quantity":15,"price_per_unit":32,"fees":3,"sold_on":"2025-10-01","method":"average"}`,
			`{"product_name":"Silver Eagle 1 oz","metal":"silver","quantity":12,"price_per_unit":35,"sold_on":"2025-11-01","method":"hifo"}`,
			`{"product_name":"Silver Eagle 1 oz","metal":"silver","quantity":2,"sold_on":"2025-11-02","method":"lifo","kind":"gifted"}`,
			fmt.Sprintf(`{"product_name":"Silver Eagle 1 oz","metal":"silver","price_per_unit":30,"sold_on":"2025-11-03","kind":"traded","received":"%s","lots":[{"holding_id":"%s","quantity":1},{"holding_id":"%s","quantity":2}]}`, idOf["A"], idOf["E"], idOf["D"]),
			`{"product_name":"Silver Eagle 1 oz","metal":"silver","quantity":8,"price_per_unit":30,"fees":1.6,"sold_on":"2026-01-15","method":"average"}`,
		} {
			if _, err := svc.RecordDisposal(ctx, u, disposalIn(t, body)); err != nil {
				t.Fatalf("%s: %v", body, err)
			}
		}
		// And a per-lot sale beside them.
		if _, err := svc.RecordSale(ctx, u, idOf["E"], saleIn(t, `{"quantity":1,"price_per_unit":31,"sold_on":"2026-01-20"}`)); err != nil {
			t.Fatal(err)
		}
		ledger := func(u db.User) (string, string) {
			t.Helper()
			hs, err := svc.ExportHoldings(ctx, u)
			if err != nil {
				t.Fatal(err)
			}
			sales, err := svc.ExportSales(ctx, u)
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			if err := WriteLedgerCSV(&b, hs, sales); err != nil {
				t.Fatal(err)
			}
			var figs []string
			for _, x := range sales {
				figs = append(figs, fmt.Sprintf("%d %s %s %s %s %s %s", x.Quantity, x.Proceeds.StringFixed(2), x.Fees.StringFixed(2), x.CostBasis.StringFixed(2), x.RealizedPL.StringFixed(2), x.DisposalKind, x.DisposalMethod))
			}
			lots, _ := s.ProductLots(ctx, u.ID, "silver", "Silver Eagle 1 oz")
			sort.Slice(lots, func(i, j int) bool { return lots[i].PurchaseDate.Before(lots[j].PurchaseDate.Time) })
			for _, l := range lots {
				figs = append(figs, fmt.Sprintf("lot %s %d %s", l.PurchaseDate, l.Remaining(), l.HeldCost.StringFixed(2)))
			}
			return b.String(), strings.Join(figs, "\n")
		}
		csvText, before := ledger(u)
		if !strings.Contains(csvText, "disposal,kind,method,received_row") {
			t.Fatalf("the export lacks the disposal columns:\n%s", csvText)
		}
		v := member(t, s, "import@example.com", db.TierGold)
		res, err := svc.ImportHoldings(ctx, v, []byte(csvText))
		if err != nil || res.Sales != 10 {
			t.Fatalf("import: %+v %v", res, err)
		}
		again, after := ledger(v)
		if after != before {
			t.Errorf("figures after the round trip:\n%s\nwant\n%s", after, before)
		}
		if again != csvText {
			t.Errorf("the export of the import differs:\n%s\nwant\n%s", again, csvText)
		}
		pu, _ := svc.ListSales(ctx, u, SalesQuery{})
		pv, _ := svc.ListSales(ctx, v, SalesQuery{})
		if !pu.Realized.Equal(pv.Realized) || pu.Total != pv.Total {
			t.Errorf("realized %s/%d, imported %s/%d", pu.Realized, pu.Total, pv.Realized, pv.Total)
		}
		ds, _ := s.AllDisposals(ctx, v.ID)
		if len(ds) != 5 || ds[2].Kind != KindGifted || ds[3].Kind != KindTraded || ds[3].Received == "" || ds[0].Method != MethodAverage {
			t.Errorf("imported disposals: %+v", ds)
		}
	})
}

// TestTaxReportLeavesIRALotsApart: a sale from a lot kept at an IRA custodian is listed under
// excluded and left out of the totals; a sale from a lot at home is counted.
func TestTaxReportLeavesIRALotsApart(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := t.Context()
		svc := newService(t, s)
		ann := member(t, s, "ira@example.com", db.TierGold)
		ira, err := s.InsertLocation(ctx, db.Location{UserID: ann.ID, Name: "Custodian", Kind: "ira"})
		if err != nil {
			t.Fatal(err)
		}
		home, err := s.InsertLocation(ctx, db.Location{UserID: ann.ID, Name: "Safe", Kind: "home"})
		if err != nil {
			t.Fatal(err)
		}
		for _, loc := range []string{ira.ID, home.ID} {
			h, err := svc.CreateHolding(ctx, ann, holdingIn(t, `{"metal":"silver","product_name":"Silver bar","quantity":10,"weight_oz":1,"purchase_price":20.00,"purchase_date":"2024-03-15","location_id":"`+loc+`"}`))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := svc.RecordSale(ctx, ann, h.ID, saleIn(t, `{"quantity":2,"price_per_unit":30.00,"fees":0,"sold_on":"2025-06-02"}`)); err != nil {
				t.Fatal(err)
			}
		}
		r, err := svc.TaxReport(ctx, ann, 2025)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Rows) != 1 || len(r.Excluded) != 1 {
			t.Fatalf("rows %d, excluded %d; want 1 and 1", len(r.Rows), len(r.Excluded))
		}
		if r.Totals.Total.StringFixed(2) != "20.00" || r.Excluded[0].Gain.StringFixed(2) != "20.00" {
			t.Errorf("total %s (want 20.00, the home lot's only), excluded gain %s", r.Totals.Total.StringFixed(2), r.Excluded[0].Gain.StringFixed(2))
		}
	})
}
