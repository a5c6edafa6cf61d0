package performance

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/fx"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/prices"
)

func day(s string) time.Time {
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		panic(err)
	}
	return t
}

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// fakeMarket holds daily closes per metal and a board.
type fakeMarket struct {
	closes map[metals.Metal][]prices.Close
	board  prices.Snapshot
}

func (f *fakeMarket) CloseOn(m metals.Metal, d time.Time) (decimal.Decimal, bool) {
	var p decimal.Decimal
	ok := false
	for _, c := range f.closes[m] {
		if c.Date.After(d) {
			break
		}
		p, ok = c.Price, true
	}
	return p, ok
}

func (f *fakeMarket) Closes(m metals.Metal, from, to time.Time) []prices.Close {
	var out []prices.Close
	for _, c := range f.closes[m] {
		if !c.Date.Before(from) && !c.Date.After(to) {
			out = append(out, c)
		}
	}
	return out
}

func (f *fakeMarket) Through(m metals.Metal) time.Time {
	c := f.closes[m]
	if len(c) == 0 {
		return time.Time{}
	}
	return c[len(c)-1].Date
}

func (f *fakeMarket) Snapshot() prices.Snapshot { return f.board }

func (f *fakeMarket) Generation() uint64 { return 1 }

type fakeStore []db.PerformanceDay

func (f fakeStore) PerformanceDays(context.Context, int64) ([]db.PerformanceDay, error) {
	return f, nil
}

func (f fakeStore) LedgerRevision(context.Context, int64) (int64, error) { return 1, nil }

// HasLotsOutside: the fake's lots are all in US dollars.
func (f fakeStore) HasLotsOutside(context.Context, int64, string) (bool, error) { return false, nil }

func (f fakeStore) PerformanceCurrencyDays(context.Context, int64) ([]db.PerformanceCurrencyDay, error) {
	out := make([]db.PerformanceCurrencyDay, len(f))
	for i, d := range f {
		out[i] = db.PerformanceCurrencyDay{Metal: d.Metal, Currency: "USD", Day: d.Day, Bought: d.Bought, Proceeds: d.Proceeds, Realized: d.Realized}
	}
	return out, nil
}

// currencyStore is a stack whose lots were bought in several currencies: the ledger's days
// (ounces; their money sums mix currencies and must not be used) and the flows per currency.
type currencyStore struct {
	fakeStore
	rows []db.PerformanceCurrencyDay
}

func (c currencyStore) HasLotsOutside(_ context.Context, _ int64, cur string) (bool, error) {
	for _, r := range c.rows {
		if r.Currency != cur {
			return true, nil
		}
	}
	return false, nil
}

func (c currencyStore) PerformanceCurrencyDays(context.Context, int64) ([]db.PerformanceCurrencyDay, error) {
	return c.rows, nil
}

// fakeRates quotes the dollar against the euro (USD per 1 EUR) from given days on; the euro
// is 1 per euro.
type fakeRates map[string]string

func (f fakeRates) Lookup(_ context.Context, cur string, d time.Time) (fx.Rate, error) {
	var at time.Time
	var v string
	for from, x := range f {
		if t := day(from); !t.After(d) && t.After(at) {
			at, v = t, x
		}
	}
	if v == "" {
		return fx.Rate{}, apperr.InvalidField("date", "no rate")
	}
	r := fx.Rate{Date: d, RateDate: at, Currency: cur}
	switch cur {
	case "EUR":
		o := dec("1")
		r.PerEUR, r.PerUSDExact = &o, one.DivRound(dec(v), 20)
	case "USD":
		pe := dec(v)
		r.PerEUR, r.PerUSDExact = &pe, one
	default:
		return fx.Rate{}, apperr.InvalidField("currency", "unknown")
	}
	r.PerUSD = r.PerUSDExact
	r.Stale = d.Sub(at) > fx.StaleAfter
	return r, nil
}

func (fakeRates) Supported(context.Context) []string { return []string{"EUR", "USD"} }

// mixedCase: gold bought in euros and in dollars, one sale of the dollar lot.
//
//	USD per EUR: 1.25 from Dec 31 (a dollar is €0.80), 2 from Jan 3 (€0.50), 1.25 from Jan 6 (€0.80)
//	Jan 2  buy 1 oz for €90 (a euro lot)                   close $110
//	Jan 3  buy 2 oz for $214 (a dollar lot)                 close $105
//	Jan 5  buy 1 oz for €60 (a euro lot)                    close $115
//	Jan 7  sell 1 oz of the dollar lot: net proceeds $128, basis $107, realized +$21   close $125
//	Jan 8                                                    close $140, 3 oz held
var mixedCase = currencyStore{
	fakeStore: fakeStore{
		// The ledger adds the lots' costs whatever their currency: 90 + 214 is no amount at all.
		buy("2025-01-02", "1", "90"), buy("2025-01-03", "2", "214"), buy("2025-01-05", "1", "60"), sell("2025-01-07", "1", "107", "21"),
	},
	rows: []db.PerformanceCurrencyDay{
		{Metal: metals.Gold, Currency: "EUR", Day: db.Date{Time: day("2025-01-02")}, Bought: dec("90"), Proceeds: decimal.Zero, Realized: decimal.Zero},
		{Metal: metals.Gold, Currency: "USD", Day: db.Date{Time: day("2025-01-03")}, Bought: dec("214"), Proceeds: decimal.Zero, Realized: decimal.Zero},
		{Metal: metals.Gold, Currency: "EUR", Day: db.Date{Time: day("2025-01-05")}, Bought: dec("60"), Proceeds: decimal.Zero, Realized: decimal.Zero},
		{Metal: metals.Gold, Currency: "USD", Day: db.Date{Time: day("2025-01-07")}, Bought: decimal.Zero, Proceeds: dec("128"), Realized: dec("21")},
	},
}

var mixedRates = fakeRates{"2024-12-31": "1.25", "2025-01-03": "2", "2025-01-06": "1.25"}

func TestMixedCurrencyStackHandComputed(t *testing.T) {
	s := New(Deps{Store: mixedCase, Rates: mixedRates, Now: func() time.Time { return day("2025-01-08").Add(15 * time.Hour) }})
	s.market = handMarket()

	// In euros. Values = oz × USD close × that day's rate:
	//   Dec 31 0; Jan 2 1 × 110 × 0.8 = 88; Jan 3 3 × 105 × 0.5 = 157.50; Jan 4 3 × 120 × 0.5 = 180;
	//   Jan 5 4 × 115 × 0.5 = 230; Jan 6 4 × 130 × 0.8 = 416; Jan 7 3 × 125 × 0.8 = 300; Jan 8 3 × 140 × 0.8 = 336.
	// Flows: €90 (exact, a euro lot), $214 × 0.5 = €107, €60, proceeds $128 × 0.8 = €102.40
	// (realized $21 × 0.8 = €16.80). Net flows 90 + 107 + 60 − 102.40 = 154.60; gain 336 − 0 − 154.60
	// = 181.40; unrealized 181.40 − 16.80 = 164.60.
	// TWR = 88/90 × 157.5/(88+107) × 180/157.5 × 230/(180+60) × 416/230 × (300+102.4)/416 × 336/300 − 1
	//     = 0.6948950427… → 69.4895 %.
	// MWR: −90 (Jan 2), −107 (Jan 3), −60 (Jan 5), +102.40 (Jan 7), +336 (Jan 8) from Dec 31: the
	// 8-day growth 1.4776029974 → 147.7603 %.
	// Benchmark (gold in euros: Dec 31 80, Jan 2 88, Jan 3 52.50, Jan 5 57.50, Jan 7 100, Jan 8 112):
	// 90/88 + 107/52.5 + 60/57.5 − 102.4/100 = 3.0803007717 oz × 112 = 344.99; gain 344.99 − 154.60 =
	// 190.39; TWR 112/80 − 1 = 40 %.
	r := get(t, s, Query{From: "2025-01-01", To: "2025-01-08", Currency: "eur"})
	if r.Currency != "EUR" {
		t.Fatalf("currency %s", r.Currency)
	}
	eq(t, "start", r.StartValue, "0")
	eq(t, "end", r.EndValue, "336")
	eq(t, "net flows", r.NetFlows, "154.6")
	eq(t, "gain", r.Gain, "181.4")
	eq(t, "realized", r.RealizedGain, "16.8")
	eq(t, "unrealized", r.UnrealizedGain, "164.6")
	eq(t, "twr", r.TWRPct, "69.4895")
	eq(t, "mwr", r.MWRPct, "147.7603")
	eq(t, "benchmark end", r.Benchmark.EndValue, "344.99")
	eq(t, "benchmark gain", r.Benchmark.Gain, "190.39")
	eq(t, "benchmark twr", r.Benchmark.TWRPct, "40")
	eq(t, "oz end", r.OzEnd, "3")
	want := []string{"2025-01-02 90 purchase", "2025-01-03 107 purchase", "2025-01-05 60 purchase", "2025-01-07 -102.4 sale"}
	var got []string
	for _, f := range r.Flows {
		got = append(got, isoDay(f.Date)+" "+f.Amount.String()+" "+f.Kind)
	}
	if !slices.Equal(got, want) {
		t.Errorf("flows %q, want %q", got, want)
	}
	for _, n := range r.Notes {
		if strings.Contains(n, "currency") || strings.Contains(n, "rate") {
			t.Errorf("a note withholds figures: %q", n)
		}
	}

	// The same stack in dollars: values are oz × close; the euro lots count at their day's
	// rate (€90 × 1.25 = $112.50, €60 × 2 = $120), the dollar lot and its sale exactly.
	// Net flows 112.50 + 214 + 120 − 128 = 318.50; gain 420 − 318.50 = 101.50, realized 21.
	r = get(t, s, Query{From: "2025-01-01", To: "2025-01-08", Currency: "USD"})
	eq(t, "usd end", r.EndValue, "420")
	eq(t, "usd net flows", r.NetFlows, "318.5")
	eq(t, "usd gain", r.Gain, "101.5")
	eq(t, "usd realized", r.RealizedGain, "21")

	// Unknown codes are refused naming the parameter and listing the codes.
	_, err := s.Performance(context.Background(), member, Query{Period: "YTD", Currency: "XYZ"})
	var ae *apperr.Error
	if !errors.As(err, &ae) || ae.Kind != apperr.Invalid || ae.Fields[0].Field != "currency" || !strings.Contains(ae.Fields[0].Message, "EUR, USD") {
		t.Errorf("unknown currency: %v", err)
	}
}

// TestNoRateWithholdsMoney: without exchange rates a stack with a lot bought in euros gets no
// money figures or percentages (a note says why) rather than adding amounts of two currencies;
// its ounces stay.
func TestNoRateWithholdsMoney(t *testing.T) {
	s := New(Deps{Store: mixedCase, Now: func() time.Time { return day("2025-01-08").Add(15 * time.Hour) }})
	s.market = handMarket()
	r := get(t, s, Query{From: "2025-01-03", To: "2025-01-08"})
	if r.TWRPct != nil || r.MWRPct != nil || r.EndValue != nil || r.Gain != nil || r.Benchmark.TWRPct != nil {
		t.Errorf("twr %v mwr %v end %v gain %v benchmark %v; want none", r.TWRPct, r.MWRPct, r.EndValue, r.Gain, r.Benchmark.TWRPct)
	}
	eq(t, "oz at the end", r.OzEnd, "3")
	if !strings.Contains(strings.Join(r.Notes, " "), "no EUR rate into USD for 2025-01-02") {
		t.Errorf("notes %q lack the missing rate", r.Notes)
	}
}

// The gold closes of the hand-computed case, one every calendar day.
var goldCloses = map[string]string{
	"2024-12-31": "100", "2025-01-01": "100", "2025-01-02": "110", "2025-01-03": "105", "2025-01-04": "120",
	"2025-01-05": "115", "2025-01-06": "130", "2025-01-07": "125", "2025-01-08": "140",
}

func handMarket() *fakeMarket {
	m := &fakeMarket{closes: map[metals.Metal][]prices.Close{}}
	for d := day("2024-12-31"); !d.After(day("2025-01-08")); d = d.AddDate(0, 0, 1) {
		m.closes[metals.Gold] = append(m.closes[metals.Gold], prices.Close{Date: d, Price: dec(goldCloses[d.Format("2006-01-02")])})
	}
	return m
}

func buy(d, oz, cost string) db.PerformanceDay {
	return db.PerformanceDay{Metal: metals.Gold, Day: db.Date{Time: day(d)}, Oz: dec(oz), Bought: dec(cost),
		Proceeds: decimal.Zero, Realized: decimal.Zero}
}

func sell(d, oz, basis, realized string) db.PerformanceDay {
	return db.PerformanceDay{Metal: metals.Gold, Day: db.Date{Time: day(d)}, Oz: dec(oz).Neg(), Bought: decimal.Zero,
		Proceeds: dec(basis).Add(dec(realized)), Realized: dec(realized)}
}

// handCase: four purchases and one sale of gold.
//
//	Jan 2  buy 1 oz for 112 (fees included)       close 110
//	Jan 3  buy 2 oz for 214                        close 105
//	Jan 5  buy 1 oz for 118                        close 115
//	Jan 6  buy 1 oz for 131                        close 130
//	Jan 7  sell the 2 oz of Jan 3: net proceeds 248 (2 × 125 less 2 fees), basis 214, realized +34
//	Jan 8                                          close 140, 3 oz held: 420
var handCase = fakeStore{
	buy("2025-01-02", "1", "112"), buy("2025-01-03", "2", "214"), buy("2025-01-05", "1", "118"),
	buy("2025-01-06", "1", "131"), sell("2025-01-07", "2", "214", "34"),
}

func service(store fakeStore, mk *fakeMarket, now string) *Service {
	s := New(Deps{Store: store, Now: func() time.Time { return day(now).Add(15 * time.Hour) }})
	s.market = mk
	return s
}

var member = db.User{ID: 7, Tier: db.TierGold}

func get(t *testing.T, s *Service, q Query) Result {
	t.Helper()
	r, err := s.Performance(context.Background(), member, q)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func eq(t *testing.T, what string, got *decimal.Decimal, want string) {
	t.Helper()
	if got == nil {
		t.Errorf("%s = null, want %s", what, want)
		return
	}
	if !got.Equal(dec(want)) {
		t.Errorf("%s = %s, want %s", what, got, want)
	}
}

func TestHandComputedPeriods(t *testing.T) {
	s := service(handCase, handMarket(), "2025-01-08")

	// Jan 1 – Jan 8: starts at the close of Dec 31 with nothing held.
	// Values: Jan 2 110, Jan 3 315, Jan 4 360, Jan 5 460, Jan 6 650, Jan 7 375, Jan 8 420.
	// Net flows 112 + 214 + 118 + 131 − 248 = 327; gain 420 − 0 − 327 = 93, realized 34,
	// unrealized 59 (= 420 − the 361 cost held).
	// TWR = 110/112 × 315/(110+214) × 360/315 × 460/(360+118) × 650/(460+131) × (375+248)/650 × 420/375 − 1
	//     = 0.23988291755851172 → 23.9883 %.
	// MWR: −112 (Jan 2), −214 (Jan 3), −118 (Jan 5), −131 (Jan 6), +248 (Jan 7), +420 (Jan 8) from Dec 31:
	// r = 2014888.91… a year (actual/365); the 8-day period's growth (1+r)^(8/365) − 1 = 0.37459693575797 → 37.4597 %.
	// Benchmark (gold): 112/110 + 214/105 + 118/115 + 131/130 − 248/125 = 3.10605632049110 oz × 140 = 434.85;
	// gain 434.85 − 327 = 107.85; its TWR 140/100 − 1 = 40 %.
	r := get(t, s, Query{From: "2025-01-01", To: "2025-01-08"})
	eq(t, "start", r.StartValue, "0")
	eq(t, "end", r.EndValue, "420")
	eq(t, "net flows", r.NetFlows, "327")
	eq(t, "gain", r.Gain, "93")
	eq(t, "realized", r.RealizedGain, "34")
	eq(t, "unrealized", r.UnrealizedGain, "59")
	eq(t, "twr", r.TWRPct, "23.9883")
	eq(t, "mwr", r.MWRPct, "37.4597")
	eq(t, "oz start", r.OzStart, "0")
	eq(t, "oz end", r.OzEnd, "3")
	eq(t, "benchmark end", r.Benchmark.EndValue, "434.85")
	eq(t, "benchmark gain", r.Benchmark.Gain, "107.85")
	eq(t, "benchmark twr", r.Benchmark.TWRPct, "40")
	if r.Annualized || r.Currency != "USD" || len(r.Flows) != 5 || r.Flows[4].Kind != "sale" || !r.Flows[4].Amount.Equal(dec("-248")) {
		t.Errorf("annualized %v currency %s flows %+v", r.Annualized, r.Currency, r.Flows)
	}

	// Jan 4 – Jan 8: starts at Jan 3's close, 3 oz × 105 = 315.
	// Net flows 118 + 131 − 248 = 1; gain 420 − 315 − 1 = 104; realized 34, unrealized 70.
	// TWR = 360/315 × 460/478 × 650/591 × 623/650 × 420/375 − 1 = 0.29849556457037 → 29.8496 %.
	// MWR: −315 (Jan 3), −118, −131, +248, +420: 5-day growth 0.26936020887241 → 26.9360 %.
	// Benchmark: 315/105 + 118/115 + 131/130 − 248/125 = 3.04935069… oz × 140 = 426.97; gain 110.97; TWR 140/105 − 1.
	r = get(t, s, Query{From: "2025-01-04", To: "2025-01-08"})
	eq(t, "start", r.StartValue, "315")
	eq(t, "net flows", r.NetFlows, "1")
	eq(t, "gain", r.Gain, "104")
	eq(t, "realized", r.RealizedGain, "34")
	eq(t, "unrealized", r.UnrealizedGain, "70")
	eq(t, "twr", r.TWRPct, "29.8496")
	eq(t, "mwr", r.MWRPct, "26.936")
	eq(t, "benchmark end", r.Benchmark.EndValue, "426.97")
	eq(t, "benchmark gain", r.Benchmark.Gain, "110.97")
	eq(t, "benchmark twr", r.Benchmark.TWRPct, "33.3333")
	eq(t, "oz start", r.OzStart, "3")
}

func TestXIRRWorkedExamples(t *testing.T) {
	// Closed form: 100 in, 121 out two years (730 days) later: 10 % a year.
	ann, _, ok := xirr([]cashFlow{{day("2020-01-01"), -100}, {day("2020-01-01").AddDate(0, 0, 730), 121}})
	if !ok || math.Abs(ann-0.1) > 1e-6 {
		t.Errorf("closed form: %v %v", ann, ok)
	}
	// The hand case's flows (see TestHandComputedPeriods), solved independently to 50 digits.
	ann, per, ok := xirr([]cashFlow{{day("2024-12-31"), 0}, {day("2025-01-02"), -112}, {day("2025-01-03"), -214},
		{day("2025-01-05"), -118}, {day("2025-01-06"), -131}, {day("2025-01-07"), 248}, {day("2025-01-08"), 420}})
	if !ok || math.Abs(per-0.37459693575796678) > 1e-6 || math.Abs(ann/2014888.9112089265-1) > 1e-6 {
		t.Errorf("hand case: annual %v period %v %v", ann, per, ok)
	}
	if _, _, ok := xirr([]cashFlow{{day("2020-01-01"), -100}, {day("2020-02-01"), -5}}); ok {
		t.Error("flows of one sign have no rate")
	}
}

func TestNoFlowsTWREqualsMWR(t *testing.T) {
	// One purchase on Jan 2; Jan 3 – Jan 8 has no flows: both returns are 140/110 − 1.
	s := service(fakeStore{buy("2025-01-02", "1", "112")}, handMarket(), "2025-01-08")
	r := get(t, s, Query{From: "2025-01-03", To: "2025-01-08"})
	eq(t, "twr", r.TWRPct, "27.2727")
	eq(t, "mwr", r.MWRPct, "27.2727")
	eq(t, "net flows", r.NetFlows, "0")
	eq(t, "gain", r.Gain, "30")
}

func TestStartBeforeFirstPurchase(t *testing.T) {
	// The period starts before any close or purchase: it starts at zero, divides by nothing.
	s := service(fakeStore{buy("2025-01-06", "1", "131")}, handMarket(), "2025-01-08")
	r := get(t, s, Query{From: "2024-06-01", To: "2025-01-08"})
	eq(t, "start", r.StartValue, "0")
	eq(t, "end", r.EndValue, "140")
	eq(t, "gain", r.Gain, "9")
	eq(t, "twr", r.TWRPct, "6.8702") // 130/131 × 140/130 − 1
	if r.MWRPct == nil {
		t.Error("mwr is null")
	}
}

func TestSoldOutKeepsRealizedGain(t *testing.T) {
	// Buy 1 oz on Jan 2 for 112, sell it all on Jan 4 for 118 net (basis 112, +6).
	s := service(fakeStore{buy("2025-01-02", "1", "112"), sell("2025-01-04", "1", "112", "6")}, handMarket(), "2025-01-08")
	r := get(t, s, Query{From: "2025-01-01", To: "2025-01-08"})
	eq(t, "end", r.EndValue, "0")
	eq(t, "realized", r.RealizedGain, "6")
	eq(t, "unrealized", r.UnrealizedGain, "0")
	eq(t, "gain", r.Gain, "6")
	eq(t, "twr", r.TWRPct, "5.3571") // 110/112 × 105/110 × 118/105 − 1 = 118/112 − 1
	eq(t, "oz end", r.OzEnd, "0")
}

func TestRealTWRDeflatesByUSCPI(t *testing.T) {
	// US CPI-U March 2024 312.332, March 2025 319.799 (BLS): a 10 % nominal return is
	// 1.1 × 312.332 / 319.799 − 1 = 7.4316 % real.
	v, note, ok := CPIFor("USD").realReturn(dec("0.1"), day("2024-03-31"), day("2025-03-15"))
	if !ok || note != "" {
		t.Fatal(ok, note)
	}
	eq(t, "real", pct(&v), "7.4316")
	if CPIFor("CHF") != nil {
		t.Error("CHF has no series here")
	}
}

func TestYTDOfflineIsStaleAndDated(t *testing.T) {
	mk := handMarket()
	mk.board = prices.Snapshot{Prices: map[metals.Metal]prices.Spot{metals.Gold: {Metal: metals.Gold, Price: dec("150"), Stale: true}}}
	s := service(handCase, mk, "2025-01-10")
	r := get(t, s, Query{Period: "YTD"})
	if !r.Stale || !r.AsOf.Equal(day("2025-01-08")) {
		t.Fatalf("stale %v as of %v", r.Stale, r.AsOf)
	}
	joined := strings.Join(r.Notes, " ")
	if !strings.Contains(joined, "2025-01-08") || strings.Contains(strings.ToLower(joined), "today") {
		t.Errorf("notes %q", joined)
	}
	eq(t, "end", r.EndValue, "420") // the newest close, not the stale board's 150
	// 1D is not answered without live prices.
	d, _ := s.Performance(context.Background(), member, Query{Period: "1D"})
	if d.EndValue != nil || len(d.Notes) == 0 || strings.Contains(strings.ToLower(strings.Join(d.Notes, " ")), "today") {
		t.Errorf("1D offline: %+v", d)
	}
	// Live, the end is the board's price.
	mk.board.Prices[metals.Gold] = prices.Spot{Metal: metals.Gold, Price: dec("150")}
	mk.board.Seq++ // as the board does when a price turns live
	r = get(t, s, Query{Period: "1D"})
	eq(t, "1D end", r.EndValue, "450")
	eq(t, "1D start", r.StartValue, "420")
}

func TestBadQueriesNameTheField(t *testing.T) {
	s := service(handCase, handMarket(), "2025-01-08")
	for q, field := range map[Query]string{
		{Period: "2W"}:                         "period",
		{From: "2025-13-01"}:                   "from",
		{From: "2025-01-05", To: "x"}:          "to",
		{From: "2025-01-05", To: "2025-01-01"}: "from",
		{To: "2025-01-05"}:                     "from",
		{From: "2025-01-01", To: "2026-01-01"}: "to",
		{Metal: "copper"}:                      "metal",
		{Benchmark: "tin"}:                     "benchmark",
	} {
		_, err := s.Performance(context.Background(), member, q)
		var ae *apperr.Error
		if !errors.As(err, &ae) || ae.Kind != apperr.Invalid || len(ae.Fields) != 1 || ae.Fields[0].Field != field {
			t.Errorf("%+v: %v, want %s", q, err, field)
		}
	}
}

func TestSummaryHasEveryPreset(t *testing.T) {
	s := service(handCase, handMarket(), "2025-01-08")
	rs, err := s.Summary(context.Background(), member, "", "")
	if err != nil || len(rs) != len(Presets) {
		t.Fatal(err, len(rs))
	}
	for i, r := range rs {
		if r.Period != Presets[i] || r.Currency != "USD" {
			t.Errorf("%d: %s %s", i, r.Period, r.Currency)
		}
	}
	if m := rs[len(rs)-1]; m.Gain == nil || !m.Gain.Equal(dec("93")) {
		t.Errorf("MAX gain %v", m.Gain)
	}
}

// TestXIRRMatchesBisection: the safeguarded Newton solver finds the same rate as plain
// bisection (the root of the same NPV in h) on random flows of every sign pattern.
func TestXIRRMatchesBisection(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 4))
	for n := 0; n < 500; n++ {
		start := day("2015-01-01")
		flows := []cashFlow{{start, -float64(rng.IntN(100000))}}
		d := start
		for k := rng.IntN(40); k >= 0; k-- {
			d = d.AddDate(0, 0, 1+rng.IntN(200))
			flows = append(flows, cashFlow{d, float64(rng.IntN(20000) - 12000)})
		}
		flows = append(flows, cashFlow{d.AddDate(0, 0, rng.IntN(30)+1), float64(rng.IntN(300000))})
		ann, per, ok := xirr(flows)
		// The reference: 200 halvings of the same bracket.
		span := flows[len(flows)-1].Day.Sub(start).Hours() / 24
		npv := func(h float64) float64 {
			s := 0.0
			for _, f := range flows {
				s += f.Amount * math.Exp(-h*f.Day.Sub(start).Hours()/24/span)
			}
			return s
		}
		lo, hi := -30.0, 30.0
		flo, fhi := npv(lo), npv(hi)
		if (flo > 0) == (fhi > 0) {
			if ok {
				t.Errorf("%d: no root in the bracket, yet ok (%v)", n, per)
			}
			continue
		}
		for range 200 {
			mid := (lo + hi) / 2
			if (npv(mid) > 0) == (flo > 0) {
				lo = mid
			} else {
				hi = mid
			}
		}
		want := math.Expm1((lo + hi) / 2)
		if !ok || math.Abs(per-want) > 1e-9*math.Max(1, math.Abs(want)) {
			t.Errorf("%d: period growth %v (annual %v, ok %v), bisection %v", n, per, ann, ok, want)
		}
	}
}

// TestStaleRateIsNamed: offline, with the newest euro rate a week old, an answer in euros says
// which rate date valued its end and that it is stale.
func TestStaleRateIsNamed(t *testing.T) {
	s := New(Deps{Store: mixedCase, Rates: fakeRates{"2024-12-31": "1.25"}, Now: func() time.Time { return day("2025-01-08").Add(15 * time.Hour) }})
	s.market = handMarket()
	r := get(t, s, Query{From: "2025-01-01", To: "2025-01-08", Currency: "EUR"})
	joined := strings.Join(r.Notes, " ")
	if !r.Stale || !strings.Contains(joined, "the EUR rate for 2025-01-08 is the newest held, of 2024-12-31 (stale)") {
		t.Errorf("stale %v notes %q", r.Stale, joined)
	}
	eq(t, "end at the old rate", r.EndValue, "336") // 3 oz × 140 × 0.8
	// With a rate of the day, no such note.
	s = New(Deps{Store: mixedCase, Rates: mixedRates, Now: func() time.Time { return day("2025-01-08").Add(15 * time.Hour) }})
	s.market = handMarket()
	if r := get(t, s, Query{From: "2025-01-01", To: "2025-01-08", Currency: "EUR"}); strings.Contains(strings.Join(r.Notes, " "), "stale") {
		t.Errorf("fresh rate: notes %q", r.Notes)
	}
}

// TestRealTWRCountsFromTheFirstPurchase: a period reaching years before the first purchase has
// that purchase's TWR, and inflation is counted over the same months, not over the years when
// nothing was held (a 2020–2025 period of a stack bought in January 2025 is not deflated by
// five years of CPI).
func TestRealTWRCountsFromTheFirstPurchase(t *testing.T) {
	s := service(fakeStore{buy("2025-01-06", "1", "131")}, handMarket(), "2025-01-08")
	long := get(t, s, Query{From: "2020-01-01", To: "2025-01-08"})
	short := get(t, s, Query{From: "2025-01-01", To: "2025-01-08"})
	eq(t, "twr", long.TWRPct, short.TWRPct.String())
	if long.RealTWRPct == nil || short.RealTWRPct == nil {
		t.Fatalf("real TWR missing: %v %v (%v)", long.RealTWRPct, short.RealTWRPct, long.Notes)
	}
	eq(t, "real", long.RealTWRPct, short.RealTWRPct.String())
}

// TestChainRoundedToZeroIsNoPanic: a return chain that rounds to nothing before a period (a
// loss past 16 decimal places, then money put in again) answers with a note, not a division
// by zero.
func TestChainRoundedToZeroIsNoPanic(t *testing.T) {
	x := &sums{pts: []point{{ok: true, value: dec("1")}, {ok: true, value: dec("1")}},
		chain: []decimal.Decimal{decimal.Zero, dec("1")}, linked: []int{0, 1}, zeros: []int{0, 0}, unknown: []int{0, 0},
		in: []decimal.Decimal{decimal.Zero, decimal.Zero}, out: []decimal.Decimal{decimal.Zero, decimal.Zero},
		realized: []decimal.Decimal{decimal.Zero, decimal.Zero}, benchOz: []decimal.Decimal{decimal.Zero, decimal.Zero},
		fin: []float64{0, 0}, fout: []float64{0, 0}}
	f := x.measure(0, 1)
	if f.twr != nil || len(f.notes) == 0 {
		t.Fatalf("twr %v notes %v", f.twr, f.notes)
	}
}
