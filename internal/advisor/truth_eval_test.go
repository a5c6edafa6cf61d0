package advisor

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/dealers"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/prices"
)

// The truth evaluation: questions of the kinds a reviewer found answered wrongly (break-even
// wording, several parts, named products, typos, windows, facts coverage). Each case lists
// the parts its reply must answer; the test works out every expected figure itself from the
// fixture's data (its holdings, live board, price history and dealer quotes) and never from
// the engine's code or output. testdata/eval_truth.json is the development set;
// testdata/eval_heldout.json is the held-out quarter, written with it but not run while the
// engine was changed.

// truthStack is what the evaluation's member holds: every metal, silver and palladium bought
// above today's spot, gold and platinum below it.
var truthStack = []struct {
	metal metals.Metal
	oz    int64
	price string
}{{metals.Gold, 5, "2400"}, {metals.Silver, 1000, "37.43"}, {metals.Platinum, 4, "850"}, {metals.Palladium, 3, "1212.20"}}

type truthPart struct {
	Kind    string           `json:"kind"`
	Metal   string           `json:"metal"`
	Range   string           `json:"range"`
	Coins   map[string]int64 `json:"coins"`
	Face    string           `json:"face"`
	Product string           `json:"product"`
	Weight  string           `json:"weight"`
	Target  string           `json:"target"`
	Part    string           `json:"part"`
}

type truthCase struct {
	Q     string      `json:"q"`
	Parts []truthPart `json:"parts"`
}

func loadTruth(t *testing.T, path string) []truthCase {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Cases []truthCase `json:"cases"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return f.Cases
}

// usd, pct2 and oz3 write figures the way a reader expects them ($1,234.50, 12.34%, 2.17 oz);
// the test has its own so a formatting bug in the engine cannot hide.
func usd(d decimal.Decimal) string {
	s := d.Abs().StringFixed(2)
	whole, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	out := "$" + b.String() + "." + frac
	if d.Round(2).IsNegative() {
		return "−" + out
	}
	return out
}

func pct2(d decimal.Decimal) string { return d.StringFixed(2) + "%" }

func hundred() decimal.Decimal { return decimal.NewFromInt(100) }

type truthEnv struct {
	f      *fixture
	member db.User
	spot   map[metals.Metal]decimal.Decimal
}

func newTruthEnv(t *testing.T) *truthEnv {
	f := newFixture(t, dbtest.SQLite(t), Config{}, true)
	e := &truthEnv{f: f, member: f.user(t, "truth@example.test", db.TierGold), spot: map[metals.Metal]decimal.Decimal{}}
	for _, h := range truthStack {
		f.hold(t, e.member, h.metal, h.oz, "1", h.price)
	}
	for m, q := range fixtureBoard {
		e.spot[m] = decimal.RequireFromString(q[0])
	}
	return e
}

func holdingOf(m metals.Metal) (oz, price decimal.Decimal, ok bool) {
	for _, h := range truthStack {
		if h.metal == m {
			return decimal.NewFromInt(h.oz), decimal.RequireFromString(h.price), true
		}
	}
	return decimal.Zero, decimal.Zero, false
}

// expect is what a reply must contain (and must not) for one part, and the function it calls.
func (e *truthEnv) expect(t *testing.T, p truthPart) (tool string, wants, bans []string) {
	ctx := context.Background()
	m := metals.Metal(p.Metal)
	switch p.Kind {
	case "break_even":
		wants, bans = e.breakEvenLines(m)
		return ToolBreakEven, wants, bans
	case "melt":
		return ToolJunkMelt, []string{"worth " + usd(meltOz(t, p).Mul(e.spot[metals.Silver]))}, nil
	case "ratio":
		return ToolRatio, []string{"ratio is " + e.spot[metals.Gold].Div(e.spot[metals.Silver]).StringFixed(2)}, nil
	case "spot":
		ms := []metals.Metal{m}
		if m == "" {
			ms = metals.All
		}
		for _, m := range ms {
			wants = append(wants, usd(e.spot[m])+" per ounce")
		}
		return ToolSpotPrice, wants, nil
	case "value":
		total := decimal.Zero
		for _, h := range truthStack {
			total = total.Add(decimal.NewFromInt(h.oz).Mul(e.spot[h.metal]))
		}
		return ToolStackValue, []string{"worth " + usd(total)}, nil
	case "profit":
		pl := decimal.Zero
		for _, h := range truthStack {
			oz := decimal.NewFromInt(h.oz)
			pl = pl.Add(oz.Mul(e.spot[h.metal])).Sub(oz.Mul(decimal.RequireFromString(h.price)))
		}
		sign := "+"
		if pl.IsNegative() {
			sign = ""
		}
		return ToolProfitLoss, []string{"(" + sign + usd(pl) + ")"}, nil
	case "allocation":
		for _, h := range truthStack {
			wants = append(wants, fmt.Sprintf("%s ", h.metal), "("+strings.TrimPrefix(strings.TrimSuffix(usd(decimal.NewFromInt(h.oz)), ".00"), "$")+" oz)")
		}
		return ToolAllocation, wants, nil
	case "what_if":
		oz, _, _ := holdingOf(m)
		return ToolWhatIf, []string{"would be worth " + usd(oz.Mul(decimal.RequireFromString(p.Target)))}, nil
	case "range":
		return ToolPriceRange, e.rangeLines(t, m, p.Range), []string{"too few"}
	case "premium":
		wants, bans = e.premiumLines(ctx, t, m, p.Product, p.Weight)
		return ToolPremiums, wants, bans
	case "signal":
		return ToolStackSignal, nil, nil
	case "comex":
		return ToolComex, []string{"COMEX registered " + p.Metal}, nil
	case "unanswered":
		return "", []string{`I cannot answer "` + p.Part + `"`}, nil
	}
	t.Fatalf("unknown kind %q", p.Kind)
	return "", nil, nil
}

// breakEvenLines are what a break-even reply must say (and must not) of one metal, or of
// every metal held when m is "".
func (e *truthEnv) breakEvenLines(m metals.Metal) (wants, bans []string) {
	ms := []metals.Metal{m}
	if m == "" {
		ms = nil
		for _, h := range truthStack {
			ms = append(ms, h.metal)
		}
	}
	for _, m := range ms {
		_, be, _ := holdingOf(m)
		spot := e.spot[m]
		wants = append(wants, fmt.Sprintf("breaks even at %s/oz", usd(be)))
		if spot.GreaterThan(be) {
			// Spot above break-even, as a share of break-even; break-even below spot, as a share of spot.
			above := spot.Sub(be).Mul(hundred()).Div(be)
			below := spot.Sub(be).Mul(hundred()).Div(spot)
			wants = append(wants, fmt.Sprintf("spot %s is %s above it", usd(spot), pct2(above)),
				fmt.Sprintf("break-even is %s below spot", pct2(below)))
			bans = append(bans, fmt.Sprintf("spot %s is %s above it", usd(spot), pct2(below)))
		} else {
			rise := be.Sub(spot).Mul(hundred()).Div(spot)
			wants = append(wants, fmt.Sprintf("spot %s would need to rise %s", usd(spot), pct2(rise)))
		}
	}
	return wants, bans
}

// meltOz is the silver in a melt question's coins and face value.
func meltOz(t *testing.T, p truthPart) decimal.Decimal {
	oz := decimal.Zero
	for coin, n := range p.Coins {
		found := false
		for _, c := range metals.Coins {
			if c.Param == coin {
				oz, found = oz.Add(c.SilverOz.Mul(decimal.NewFromInt(n))), true
			}
		}
		if !found {
			t.Fatalf("unknown coin %q in the evaluation file", coin)
		}
	}
	if p.Face != "" {
		// 90 % coins: a dime (0.07234 oz) per 10 cents of face.
		oz = oz.Add(decimal.RequireFromString(p.Face).Mul(decimal.RequireFromString("0.7234")))
	}
	return oz
}

// rangeLines are what a price-range reply must say of a metal's window.
func (e *truthEnv) rangeLines(t *testing.T, m metals.Metal, r string) []string {
	closes := e.window(m, r)
	if len(closes) < 2 {
		t.Fatalf("%s %s: the fixture has %d closes", m, r, len(closes))
	}
	hi, lo := closes[0].Price, closes[0].Price
	for _, c := range closes {
		hi, lo = decimal.Max(hi, c.Price), decimal.Min(lo, c.Price)
	}
	wants := []string{"The high was " + usd(hi)}
	if r != "ALL" {
		// ALL of the history route adds monthly averages before the daily data; the high is
		// a daily close either way, the first close and the low are compared for the others.
		wants = append(wants, "went from "+usd(closes[0].Price), "to "+usd(closes[len(closes)-1].Price), "the low "+usd(lo))
	}
	return wants
}

// window is the closes GET /v1/prices/history serves for a chart range (all of them, not
// downsampled); 1W and YTD, which the chart does not offer, are counted back the same way
// from the newest close when the data ends before the window would start.
func (e *truthEnv) window(m metals.Metal, r string) []prices.Close {
	switch r {
	case "1W", "YTD":
		all := e.f.market.History(m, prices.RangeAll, 1<<30).Points
		through := all[len(all)-1].Date
		today := time.Date(fixtureNow.Year(), fixtureNow.Month(), fixtureNow.Day(), 0, 0, 0, 0, time.UTC)
		from := today.AddDate(0, 0, -7)
		if r == "YTD" {
			from = time.Date(today.Year(), 1, 1, 0, 0, 0, 0, time.UTC)
		}
		if through.Before(from) {
			from = through.AddDate(0, 0, -7)
			if r == "YTD" {
				from = time.Date(through.Year(), 1, 1, 0, 0, 0, 0, time.UTC)
			}
		}
		var out []prices.Close
		for _, c := range all {
			if !c.Date.Before(from) {
				out = append(out, c)
			}
		}
		return out
	}
	return e.f.market.History(m, prices.Range(r), 1<<30).Points
}

// premiumLines are the lines a premium answer must hold: for each product of the named kind
// (or the three lowest premiums), the cheapest in-stock quote's price and that same quote's
// premium over spot; products of other kinds must not be answered instead.
func (e *truthEnv) premiumLines(ctx context.Context, t *testing.T, m metals.Metal, kind, weight string) (wants, bans []string) {
	w := decimal.Zero
	if weight != "" {
		w = decimal.RequireFromString(weight)
	}
	c, err := e.f.deal.Compare(ctx, dealers.Query{Metal: m, Weight: w})
	if err != nil {
		t.Fatal(err)
	}
	type line struct {
		text string
		prem decimal.Decimal
	}
	var lines []line
	for _, pq := range c.Products {
		if kind != "" && !strings.Contains(strings.ToLower(pq.Product.Name), kind) {
			bans = append(bans, pq.Product.Name+":")
			continue
		}
		var best *dealers.Quote
		for i := range pq.Quotes {
			q := pq.Quotes[i]
			if q.InStock && (best == nil || q.Price.LessThan(best.Price)) {
				best = &q
			}
		}
		if best == nil {
			continue
		}
		perOz := best.Price.Div(pq.Product.FineOz)
		prem := perOz.Sub(c.Spot.Price).Mul(hundred()).Div(c.Spot.Price)
		lines = append(lines, line{fmt.Sprintf("%s: best in-stock price %s at %s, %s over spot", pq.Product.Name, usd(best.Price), best.Dealer.Name, pct2(prem)), prem})
	}
	if len(lines) == 0 {
		t.Fatalf("no in-stock %s %s quotes in the fixture", m, kind)
	}
	sort.SliceStable(lines, func(i, j int) bool { return lines[i].prem.LessThan(lines[j].prem) })
	if kind == "" && len(lines) > 3 {
		lines = lines[:3]
	}
	for _, l := range lines {
		wants = append(wants, l.text)
	}
	return wants, bans
}

var truthNumberRe = regexp.MustCompile(`\d[\d,]*(?:\.\d+)?`)

// unfactual lists the numbers of a reply no fact shows, as written or as its date.
func unfactual(r Reply) []string {
	var shown []string
	for _, f := range r.Facts {
		shown = append(shown, f.Value, f.Label)
		if !f.AsOf.IsZero() {
			shown = append(shown, f.AsOf.Format("Jan 2, 2006"))
		}
	}
	all := " " + strings.Join(shown, " | ") + " "
	var bad []string
	for _, n := range truthNumberRe.FindAllString(r.Text, -1) {
		n = strings.TrimRight(n, ",")
		if !regexp.MustCompile(`(^|[^\d.,])` + regexp.QuoteMeta(n) + `($|[^\d])`).MatchString(all) {
			bad = append(bad, n)
		}
	}
	return bad
}

// judgeTruth says what is wrong with a reply ("" when right).
func (e *truthEnv) judgeTruth(t *testing.T, c truthCase, r Reply) string {
	var tools []string
	var problems []string
	for _, p := range c.Parts {
		tool, wants, bans := e.expect(t, p)
		if tool != "" {
			tools = append(tools, tool)
		}
		for _, w := range wants {
			if !strings.Contains(r.Text, w) {
				problems = append(problems, "lacks "+w)
			}
		}
		for _, b := range bans {
			if strings.Contains(r.Text, b) {
				problems = append(problems, "states "+b)
			}
		}
	}
	var called []string
	for _, tc := range r.ToolCalls {
		called = append(called, tc.Name)
	}
	if strings.Join(called, ",") != strings.Join(tools, ",") {
		problems = append(problems, fmt.Sprintf("called %v, want %v", called, tools))
	}
	if len(r.Unverified) > 0 {
		problems = append(problems, fmt.Sprintf("figure check left out %q", r.Unverified))
	}
	if bad := unfactual(r); len(bad) > 0 {
		problems = append(problems, fmt.Sprintf("numbers in no fact: %v", bad))
	}
	// Every price fact is dated with its own metal's price.
	for _, f := range r.Facts {
		for _, m := range metals.All {
			if strings.HasPrefix(f.Label, metalName(m)+" ") && !f.AsOf.IsZero() && strings.Contains(f.Source, "test-feed") && !f.AsOf.Equal(e.f.market.Snapshot().Prices[m].AsOf) {
				problems = append(problems, fmt.Sprintf("fact %q dated %s, the %s price is of %s", f.Label, f.AsOf, m, e.f.market.Snapshot().Prices[m].AsOf))
			}
		}
	}
	if len(problems) == 0 {
		return ""
	}
	return strings.Join(problems, "; ") + "\n      reply: " + r.Text
}

func runTruth(t *testing.T, path string) (right, n int) {
	e := newTruthEnv(t)
	for _, c := range loadTruth(t, path) {
		r, err := e.f.svc.Builtin(context.Background(), e.member, c.Q)
		if err != nil {
			t.Fatalf("%q: %v", c.Q, err)
		}
		n++
		if why := e.judgeTruth(t, c, r); why != "" {
			t.Logf("MISS %q: %s", c.Q, why)
			continue
		}
		right++
	}
	return right, n
}

// TestEvaluationTruth is the development set: every question must be answered right.
func TestEvaluationTruth(t *testing.T) {
	right, n := runTruth(t, "testdata/eval_truth.json")
	t.Logf("truth evaluation (development): %d/%d", right, n)
	if n < 45 {
		t.Fatalf("the development set has %d questions, want at least 45", n)
	}
	if right != n {
		t.Errorf("%d of %d development questions answered wrongly", n-right, n)
	}
}

// TestEvaluationTruthHeldOut is the held-out quarter; ACCURACY.md reports its result. It fails
// below 90 %.
func TestEvaluationTruthHeldOut(t *testing.T) {
	right, n := runTruth(t, "testdata/eval_heldout.json")
	t.Logf("truth evaluation (held out): %d/%d", right, n)
	if n == 0 || float64(right) < 0.9*float64(n) {
		t.Errorf("held-out accuracy %d/%d is below 90%%", right, n)
	}
}
