package portfolio

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/prices"
)

// fakeMarket is a fixed price board and a few daily closes per metal.
type fakeMarket struct {
	board  prices.Snapshot
	gen    uint64
	closes map[metals.Metal][]prices.Close // oldest first
}

func (f fakeMarket) Snapshot() prices.Snapshot { return f.board }
func (f fakeMarket) Generation() uint64        { return f.gen }

func (f fakeMarket) DailyCloses(m metals.Metal, from, to time.Time) []prices.Close {
	var out []prices.Close
	for _, c := range f.closes[m] {
		if !c.Date.Before(from) && !c.Date.After(to) {
			out = append(out, c)
		}
	}
	return out
}

// Closes is DailyCloses: the fake has no monthly averages.
func (f fakeMarket) Closes(m metals.Metal, from, to time.Time) []prices.Close {
	return f.DailyCloses(m, from, to)
}

func (f fakeMarket) Through(m metals.Metal) time.Time {
	if cs := f.closes[m]; len(cs) > 0 {
		return cs[len(cs)-1].Date
	}
	return time.Time{}
}

func (f fakeMarket) CloseOn(m metals.Metal, day time.Time) (decimal.Decimal, bool) {
	cs := f.closes[m]
	i := sort.Search(len(cs), func(i int) bool { return cs[i].Date.After(day) })
	if i == 0 {
		return decimal.Zero, false
	}
	return cs[i-1].Price, true
}

func closes(pairs ...string) []prices.Close {
	var out []prices.Close
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, prices.Close{Date: day(pairs[i]).Time, Price: d(pairs[i+1])})
	}
	return out
}

// now is a Friday afternoon in New York: the session of 2026-11-20 is under way.
var now = time.Date(2026, 11, 20, 15, 0, 0, 0, time.UTC)

func newService(t *testing.T, s *db.Store) *Service {
	t.Helper()
	svc := New(Deps{Store: s, Now: func() time.Time { return now }})
	svc.market = fakeMarket{board: board(handQuotes, false), gen: 1, closes: map[metals.Metal][]prices.Close{
		metals.Gold:      closes("2025-01-10", "2687.45", "2025-05-30", "3277.55", "2025-06-02", "3370.85", "2025-12-31", "2600"),
		metals.Silver:    closes("2024-03-15", "25.22", "2025-12-31", "30"),
		metals.Platinum:  closes("2025-02-01", "1000", "2025-12-31", "950"),
		metals.Palladium: closes("2025-03-03", "950", "2025-12-31", "1000"),
	}}
	return svc
}

func member(t *testing.T, s *db.Store, email, tier string) db.User {
	t.Helper()
	u, err := s.InsertUser(context.Background(), email, "x", tier, false)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func holdingIn(t *testing.T, body string) HoldingInput {
	t.Helper()
	in, err := ParseHoldingJSON([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	return in
}

func saleIn(t *testing.T, body string) SaleInput {
	t.Helper()
	in, err := ParseSaleJSON([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	return in
}

func create(t *testing.T, svc *Service, u db.User, metal string, qty int, w, price, fees, date string) Holding {
	t.Helper()
	body := fmt.Sprintf(`{"metal":%q,"quantity":%d,"weight_oz":%s,"purchase_price":%s,"fees":%s,"purchase_date":%q}`, metal, qty, w, price, fees, date)
	h, err := svc.CreateHolding(t.Context(), u, holdingIn(t, body))
	if err != nil {
		t.Fatalf("create %s: %v", body, err)
	}
	return h
}

// TestTierAndOwnership: a free member is refused every use case with the membership error, and
// another member's holding is "not found", whichever use case asks.
func TestTierAndOwnership(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := t.Context()
		svc := newService(t, s)
		free := member(t, s, "free@example.com", db.TierFree)
		ann := member(t, s, "ann@example.com", db.TierGold)
		bob := member(t, s, "bob@example.com", db.TierGold)
		h := create(t, svc, ann, "gold", 2, "1", "2000", "0", "2025-01-10")
		csv := []byte("metal,quantity,weight_oz,purchase_price\ngold,1,1,2000\n")

		calls := map[string]func(u db.User, id string) error{
			"CreateHolding": func(u db.User, _ string) error {
				_, err := svc.CreateHolding(ctx, u, holdingIn(t, `{"metal":"gold","quantity":1,"weight_oz":1,"purchase_price":1}`))
				return err
			},
			"ListHoldings": func(u db.User, _ string) error { _, err := svc.ListHoldings(ctx, u, HoldingsQuery{}); return err },
			"GetHolding":   func(u db.User, id string) error { _, err := svc.GetHolding(ctx, u, id); return err },
			"UpdateHolding": func(u db.User, id string) error {
				_, err := svc.UpdateHolding(ctx, u, id, holdingIn(t, `{"quantity":1}`))
				return err
			},
			"DeleteHolding": func(u db.User, id string) error { return svc.DeleteHolding(ctx, u, id) },
			"RecordSale": func(u db.User, id string) error {
				_, err := svc.RecordSale(ctx, u, id, saleIn(t, `{"quantity":1,"price_per_unit":1}`))
				return err
			},
			"ListSales":      func(u db.User, _ string) error { _, err := svc.ListSales(ctx, u, SalesQuery{}); return err },
			"Portfolio":      func(u db.User, _ string) error { _, err := svc.Portfolio(ctx, u); return err },
			"Analytics":      func(u db.User, _ string) error { _, err := svc.Analytics(ctx, u); return err },
			"History":        func(u db.User, _ string) error { _, err := svc.History(ctx, u, ""); return err },
			"HeldLots":       func(u db.User, _ string) error { _, err := svc.HeldLots(ctx, u, "", "", 10); return err },
			"ImportHoldings": func(u db.User, _ string) error { _, err := svc.ImportHoldings(ctx, u, csv); return err },
			"PreviewImport":  func(u db.User, _ string) error { _, err := svc.PreviewImport(ctx, u, csv); return err },
			"ExportHoldings": func(u db.User, _ string) error { _, err := svc.ExportHoldings(ctx, u); return err },
		}
		for name, call := range calls {
			if err := call(free, h.ID); apperr.KindOf(err) != apperr.MembershipRequired || !errors.Is(err, apperr.ErrMembershipRequired) {
				t.Errorf("%s by a free member: %v", name, err)
			}
		}
		for _, name := range []string{"GetHolding", "UpdateHolding", "DeleteHolding", "RecordSale"} {
			for _, id := range []string{h.ID, "h_nothing"} {
				err := calls[name](bob, id)
				if apperr.KindOf(err) != apperr.NotFound || !strings.Contains(err.Error(), "holding not found") {
					t.Errorf("%s of %s by another member: %v", name, id, err)
				}
			}
		}
		// Bob's lists and totals hold nothing of Ann's; Ann's holding is untouched.
		if p, _ := svc.ListHoldings(ctx, bob, HoldingsQuery{}); p.Total != 0 {
			t.Errorf("bob lists %d holdings", p.Total)
		}
		if v, _ := svc.Portfolio(ctx, bob); v.Lots != 0 || !v.TotalCost.IsZero() {
			t.Errorf("bob's portfolio %+v", v)
		}
		if got, err := svc.GetHolding(ctx, ann, h.ID); err != nil || got.Quantity != 2 {
			t.Fatalf("ann's holding: %v %+v", err, got)
		}
	})
}

// TestServiceHandComputed builds the hand-computed stack through the use cases and checks the
// valuation, analytics and premiums over historical spot to the cent.
func TestServiceHandComputed(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := t.Context()
		svc := newService(t, s)
		u := member(t, s, "stacker@example.com", db.TierGold)
		create(t, svc, u, "gold", 2, "1", "2000.00", "30.50", "2025-01-10")
		create(t, svc, u, "gold", 10, "0.1", "215.25", "0", "2025-06-01")
		create(t, svc, u, "gold", 3, "0.03215", "80", "4.99", "2026-11-20") // bought today
		create(t, svc, u, "silver", 100, "0.7734", "18.40", "12.00", "2024-03-15")
		create(t, svc, u, "silver", 5, "1", "0", "0", "2023-12-25") // a gift
		pt := create(t, svc, u, "platinum", 4, "1", "950", "20", "2025-02-01")
		pd := create(t, svc, u, "palladium", 3, "1", "1000.01", "0.02", "2025-03-03")

		// One platinum unit of four: cost 3,820.00 / 4 = 955.00; realized 1,010 − 5 − 955 = 50.00.
		sale, err := svc.RecordSale(ctx, u, pt.ID, saleIn(t, `{"quantity":1,"price_per_unit":1010,"fees":5,"sold_on":"2025-09-01"}`))
		if err != nil {
			t.Fatal(err)
		}
		eq(t, "platinum sale cost", &sale.CostBasis, "955.00")
		eq(t, "platinum sale realized", &sale.RealizedPL, "50.00")
		// Two palladium units of three: 3,000.05 × 2/3 = 2,000.0333 → 2,000.03; realized 399.97.
		if sale, err = svc.RecordSale(ctx, u, pd.ID, saleIn(t, `{"quantity":2,"price_per_unit":1200,"sold_on":"2025-10-10"}`)); err != nil {
			t.Fatal(err)
		}
		eq(t, "palladium sale realized", &sale.RealizedPL, "399.97")
		// More than is held is a conflict naming the quantity.
		_, err = svc.RecordSale(ctx, u, pd.ID, saleIn(t, `{"quantity":2,"price_per_unit":1200}`))
		if e, ok := apperr.As(err); !ok || e.Kind != apperr.Conflict || len(e.Fields) != 1 || e.Fields[0].Field != "quantity" || !strings.Contains(e.Fields[0].Message, "at most 1") {
			t.Fatalf("oversell: %v", err)
		}
		// A holding with sales keeps its economics and cannot be deleted.
		if _, err := svc.UpdateHolding(ctx, u, pt.ID, holdingIn(t, `{"purchase_price":1}`)); apperr.KindOf(err) != apperr.Conflict {
			t.Fatalf("reprice with sales: %v", err)
		}
		if err := svc.DeleteHolding(ctx, u, pt.ID); apperr.KindOf(err) != apperr.Conflict || !strings.Contains(err.Error(), "recorded sales") {
			t.Fatalf("delete with sales: %v", err)
		}

		v, err := svc.Portfolio(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		eq(t, "total value", v.TotalValue, "14880.51")
		eq(t, "total cost", &v.TotalCost, "12145.01")
		eq(t, "day change", v.DayChange, "70.32") // 70.315 exact; 70.31 was the sum of rounded parts
		eq(t, "gold day change", v.Positions[0].DayChange, "60.90")
		eq(t, "realized", &v.Realized, "449.97")
		if v.Lots != 7 {
			t.Errorf("lots %d", v.Lots)
		}

		a, err := svc.Analytics(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			i                        int
			avg, be, premium, weight string
		}{
			// Gold: 6,152.50 against 2 × 2,687.45 + 3,277.55 (the close before Sunday 2025-06-01);
			// the lot bought today is past the last close by more than a week, so it is left out.
			{0, "2075.92", "2075.92", "-28.89", "3.46"},
			// Silver: 1,840.00 against 77.34 × 25.22; the gift is no purchase.
			{1, "22.49", "22.49", "-5.67", "92.07"},
			// Platinum: 3,800.00 for 4 oz against 4 × 1,000; palladium 3,000.03 against 3 × 950.
			{2, "955.00", "955.00", "-5.00", "3.35"},
			{3, "1000.02", "1000.02", "5.26", "1.12"},
		} {
			m := a.Metals[c.i]
			eq(t, string(m.Metal)+" avg cost", m.AvgCostPerOz(), c.avg)
			eq(t, string(m.Metal)+" break-even", m.BreakEven(), c.be)
			eq(t, string(m.Metal)+" premium", m.AvgPremiumPct, c.premium)
			eq(t, string(m.Metal)+" weight", &m.WeightPct, c.weight)
		}
		// Paid 6,152.50 + 1,840.00 + 3,800.00 + 3,000.03, worth 8,652.45 + 1,950.5148 + 4,000 + 2,850 at the closes.
		eq(t, "total premium", a.Totals.AvgPremiumPct, "-15.24") // 14,792.53 against 17,452.9648
		if a.Totals.FirstPurchase.String() != "2023-12-25" || a.Totals.LastPurchase.String() != "2026-11-20" || a.Totals.Purchases != 7 || a.Totals.Sales != 2 {
			t.Fatalf("totals %+v", a.Totals)
		}
	})
}

// TestPremiumsFollowEdits: the premium sums are cached per member, yet any edit is seen at once.
func TestPremiumsFollowEdits(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := t.Context()
		svc := newService(t, s)
		u := member(t, s, "edits@example.com", db.TierGold)
		h := create(t, svc, u, "gold", 1, "1", "2687.45", "0", "2025-01-10") // exactly that day's close
		for range 2 {
			a, err := svc.Analytics(ctx, u)
			if err != nil {
				t.Fatal(err)
			}
			eq(t, "premium at the close", a.Metals[0].AvgPremiumPct, "0.00")
		}
		// Only the date changes: 2,687.45 against 3,370.85 on 2025-06-02.
		if _, err := svc.UpdateHolding(ctx, u, h.ID, holdingIn(t, `{"purchase_date":"2025-06-02"}`)); err != nil {
			t.Fatal(err)
		}
		a, _ := svc.Analytics(ctx, u)
		eq(t, "premium after the edit", a.Metals[0].AvgPremiumPct, "-20.27")
		create(t, svc, u, "gold", 1, "1", "3370.85", "9.99", "2025-06-02")
		a, _ = svc.Analytics(ctx, u)
		eq(t, "premium of two lots", a.Metals[0].AvgPremiumPct, "-10.14")
	})
}

// TestHistoryReplaysPositions values the stack at each close: ounces held that day × that
// day's close, and the cost basis held.
func TestHistoryReplaysPositions(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := t.Context()
		svc := newService(t, s)
		svc.market = fakeMarket{board: board(handQuotes, false), closes: map[metals.Metal][]prices.Close{
			metals.Gold:   closes("2025-12-31", "2000", "2026-03-02", "2100", "2026-06-01", "2200", "2026-08-10", "2300"),
			metals.Silver: closes("2025-12-31", "20", "2026-03-02", "25", "2026-06-01", "30", "2026-08-10", "35"),
		}}
		u := member(t, s, "hist@example.com", db.TierGold)
		create(t, svc, u, "gold", 2, "1", "2000", "10", "2025-01-10")
		sv := create(t, svc, u, "silver", 100, "1", "25", "0", "2026-03-02")
		if _, err := svc.RecordSale(ctx, u, sv.ID, saleIn(t, `{"quantity":40,"price_per_unit":30,"sold_on":"2026-06-01"}`)); err != nil {
			t.Fatal(err)
		}
		hist, err := svc.History(ctx, u, "1Y")
		if err != nil {
			t.Fatal(err)
		}
		want := []struct{ date, value, cost string }{
			{"2025-12-31", "4000.00", "4010.00"}, // 2 × 2,000
			{"2026-03-02", "6700.00", "6510.00"}, // 2 × 2,100 + 100 × 25, bought that day
			{"2026-06-01", "6200.00", "5510.00"}, // 2 × 2,200 + 60 × 30: 1,000 of cost sold
			{"2026-08-10", "6700.00", "5510.00"}, // 2 × 2,300 + 60 × 35
		}
		if hist.Range != prices.Range1Y || len(hist.Points) != len(want) {
			t.Fatalf("history %+v", hist)
		}
		for i, w := range want {
			p := hist.Points[i]
			if p.Date.Format(db.DateLayout) != w.date {
				t.Errorf("point %d on %s, want %s", i, p.Date.Format(db.DateLayout), w.date)
			}
			eq(t, w.date+" value", &p.Value, w.value)
			eq(t, w.date+" cost", &p.Cost, w.cost)
		}
		if _, err := svc.History(ctx, u, "2Y"); apperr.KindOf(err) != apperr.Invalid || apperr.FieldsOf(err)[0].Field != "range" {
			t.Fatalf("bad range: %v", err)
		}
		// Without a price service there is no series, and no error.
		svc.market = nil
		if hist, err := svc.History(ctx, u, ""); err != nil || len(hist.Points) != 0 {
			t.Fatalf("history without prices: %v %d", err, len(hist.Points))
		}
	})
}

// TestHeldLotsValued: lots sorted in SQL, each valued at the live board.
func TestHeldLotsValued(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := t.Context()
		svc := newService(t, s)
		u := member(t, s, "lots@example.com", db.TierGold)
		create(t, svc, u, "gold", 2, "1", "2000", "0", "2025-01-10")
		create(t, svc, u, "platinum", 1, "1", "1100", "0", "2025-02-01")
		page, err := svc.HeldLots(ctx, u, "pl", "asc", 10)
		if err != nil {
			t.Fatal(err)
		}
		if page.Total != 2 || page.Order != LotsByPL || page.Desc || page.Lots[0].Metal != metals.Platinum {
			t.Fatalf("order: %+v", page)
		}
		eq(t, "platinum P/L", page.Lots[0].PL, "-100.00")
		eq(t, "gold value", page.Lots[1].Value, "5300.80")
		eq(t, "gold P/L %", page.Lots[1].PLPct, "32.52")
		// An unknown order falls back to value, largest first.
		if page, _ := svc.HeldLots(ctx, u, "nonsense", "sideways", 10); page.Order != LotsByValue || !page.Desc || page.Lots[0].Metal != metals.Gold {
			t.Fatalf("fallback order: %+v", page)
		}
	})
}

// TestImportThroughTheService: all or nothing, duplicates skipped, problems listed for the API.
func TestImportThroughTheService(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := t.Context()
		svc := newService(t, s)
		u := member(t, s, "import@example.com", db.TierGold)
		good := []byte("metal,product_name,quantity,weight_oz,purchase_price,fees,purchase_date\n" +
			"silver,1 oz Eagle,20,1,32.50,12.40,2026-11-02\ngold,'=SUM(A1),1,1,2000,0,\nsilver,1 oz Eagle,20,1,32.50,12.40,2026-11-02\n")
		pre, err := svc.PreviewImport(ctx, u, good)
		if err != nil || pre.New != 2 || pre.Duplicates != 1 || strings.Join(pre.Status, ",") != "new,new,duplicate" {
			t.Fatalf("preview: %v %+v", err, pre)
		}
		res, err := svc.ImportHoldings(ctx, u, good)
		if err != nil || res.Imported != 2 || res.SkippedDuplicates != 1 {
			t.Fatalf("import: %v %+v", err, res)
		}
		if res, _ := svc.ImportHoldings(ctx, u, good); res.Imported != 0 || res.SkippedDuplicates != 3 {
			t.Fatalf("second import: %+v", res)
		}
		list, _ := svc.ExportHoldings(ctx, u)
		if len(list) != 2 || list[1].ProductName != "=SUM(A1)" {
			t.Fatalf("export: %+v", list)
		}
		bad := []byte("metal,quantity,weight_oz,purchase_price\ngold,0,1,1\ncopper,1,1,1\ngold,1,1,1\n")
		_, err = svc.ImportHoldings(ctx, u, bad)
		e, ok := apperr.As(err)
		if !ok || e.Kind != apperr.Unprocessable || e.Details["error_count"] != 2 || !strings.Contains(e.Msg, "2 of 3 rows") {
			t.Fatalf("bad rows: %v", err)
		}
		rows, _ := e.Details["errors"].([]ImportRowError)
		if len(rows) != 2 || rows[0] != (ImportRowError{Row: 1, Field: "quantity", Message: "must be between 1 and 1000000"}) || rows[1].Row != 2 || rows[1].Field != "metal" {
			t.Fatalf("row errors: %+v", rows)
		}
		if list, _ := svc.ExportHoldings(ctx, u); len(list) != 2 {
			t.Fatalf("a refused import stored %d holdings", len(list)-2)
		}
	})
}
