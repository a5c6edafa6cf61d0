package web_test

import (
	"sort"
	"strconv"
	"testing"

	"github.com/shopspring/decimal"
)

// historyPoints is a history body's points as date → value field (price or value).
func historyPoints(t *testing.T, body map[string]any, field string) ([]string, map[string]decimal.Decimal) {
	t.Helper()
	var dates []string
	vals := map[string]decimal.Decimal{}
	for _, p := range body["points"].([]any) {
		pt := p.(map[string]any)
		d := pt["date"].(string)
		dates = append(dates, d)
		vals[d] = decimal.RequireFromString(num(t, pt[field]))
	}
	return dates, vals
}

// TestPortfolioHistoryUsesThePriceWindows is issue 23, items 8 and 10: offline with the data
// ending in August, /v1/portfolio/history?range=1M|3M answered 0 points where the price history
// answered 22/65 closes; and ALL valued a platinum lot bought before 1990 flat at one monthly
// figure while the price history serves the monthly series.
func TestPortfolioHistoryUsesThePriceWindows(t *testing.T) {
	offlineEnv(t, func(t *testing.T, e *env) {
		_, gold := e.user("windows-gold@ounce.test", "gold")
		pfCreate(t, e, gold, pfH("gold", 2, "1", "1500.00", "0", "2020-01-02"))
		for _, rng := range []string{"1M", "3M", "6M", "1Y"} {
			ph := rawJSON(t, e.api("GET", "/v1/prices/history?metal=gold&max_points=10000&range="+rng, "", nil))
			h := rawJSON(t, e.api("GET", "/v1/portfolio/history?range="+rng, gold, nil))
			pDates, prices := historyPoints(t, ph, "price")
			hDates, values := historyPoints(t, h, "value")
			if len(hDates) < len(pDates) || len(pDates) < 15 || h["from"] != ph["from"] || h["to"] != ph["to"] || h["start"] != ph["start"] || h["through"] != "2026-08-17" || h["stale"] != true {
				t.Errorf("%s: %d points %v..%v (start %v, through %v, stale %v); the gold price history has %d, %v..%v (start %v)",
					rng, len(hDates), h["from"], h["to"], h["start"], h["through"], h["stale"], len(pDates), ph["from"], ph["to"], ph["start"])
				continue
			}
			// Every gold close is a point; days only other metals closed carry gold's last close.
			shown := map[string]bool{}
			for _, d := range hDates {
				shown[d] = true
				i := sort.SearchStrings(pDates, d+"~") - 1
				if i < 0 {
					t.Fatalf("%s: point %s before the first close %s", rng, d, pDates[0])
				}
				if want := prices[pDates[i]].Mul(decimal.NewFromInt(2)).Round(2); !values[d].Equal(want) {
					t.Errorf("%s: %s = %s; gold's close of %s is %s (× 2 oz = %s)", rng, d, values[d], pDates[i], prices[pDates[i]], want)
					break
				}
			}
			for _, d := range pDates {
				if !shown[d] {
					t.Errorf("%s: the close of %s is not a point", rng, d)
					break
				}
			}
		}

		// Three ounces of platinum bought in June 1985: until daily closes begin on 1990-04-02
		// the stack moves with the monthly averages the price history's ALL serves.
		_, pt := e.user("windows-platinum@ounce.test", "gold")
		pfCreate(t, e, pt, pfH("platinum", 3, "1", "300.00", "0", "1985-06-03"))
		ph := rawJSON(t, e.api("GET", "/v1/prices/history?metal=platinum&range=ALL&max_points=10000", "", nil))
		pDates, prices := historyPoints(t, ph, "price")
		if num(t, ph["count"]) != strconv.Itoa(len(pDates)) || len(pDates) >= 10000 {
			t.Fatalf("platinum ALL was downsampled: %v points", ph["count"])
		}
		h := rawJSON(t, e.api("GET", "/v1/portfolio/history?range=ALL", pt, nil))
		hDates, values := historyPoints(t, h, "value")
		distinct := map[string]bool{}
		checked := 0
		for _, d := range hDates {
			if d >= "1990-04-02" {
				break
			}
			i := sort.SearchStrings(pDates, d+"~") - 1 // the last price dated on or before d
			if i < 0 {
				t.Fatalf("no platinum price on or before %s", d)
			}
			want := prices[pDates[i]].Mul(decimal.NewFromInt(3)).Round(2)
			if !values[d].Equal(want) {
				t.Errorf("ALL %s = %s; the price history's %s is %s (× 3 oz = %s)", d, values[d], pDates[i], prices[pDates[i]], want)
			}
			distinct[values[d].String()] = true
			checked++
		}
		if checked < 20 || len(distinct) < 20 || h["through"] != "2026-05-29" || h["start"] != nil {
			t.Errorf("pre-1990 points: %d with %d distinct values; through %v start %v", checked, len(distinct), h["through"], h["start"])
		}
		// Platinum's data ends on 29 May: the platinum-only stack's 3M counts back from there.
		h3 := rawJSON(t, e.api("GET", "/v1/portfolio/history?range=3M", pt, nil))
		if h3["start"] != "2026-02-28" || h3["from"] != "2026-03-02" || h3["to"] != "2026-05-29" || h3["stale"] != true {
			t.Errorf("platinum 3M: start %v from %v to %v stale %v", h3["start"], h3["from"], h3["to"], h3["stale"])
		}
	})
}

// TestPriceHistoryMaxPointsFloor is issue 23, item 9 over HTTP: max_points below 4 is refused
// naming the parameter (2 and 3 lost the series' low and high), and 4 keeps both.
func TestPriceHistoryMaxPointsFloor(t *testing.T) {
	e := marketEnv(t, sqliteStore(t), false)
	for _, mp := range []string{"2", "3"} {
		r := e.api("GET", "/v1/prices/history?metal=gold&range=1Y&max_points="+mp, "", nil)
		errs, _ := r.JSON(t)["errors"].([]any)
		if r.Status != 400 || len(errs) == 0 || errs[0].(map[string]any)["field"] != "max_points" {
			t.Errorf("max_points=%s: %d %s", mp, r.Status, r.Body)
		}
	}
	full := rawJSON(t, e.api("GET", "/v1/prices/history?metal=gold&range=1Y&max_points=10000", "", nil))
	_, all := historyPoints(t, full, "price")
	four := rawJSON(t, e.api("GET", "/v1/prices/history?metal=gold&range=1Y&max_points=4", "", nil))
	dates, kept := historyPoints(t, four, "price")
	lo, hi := decimal.Zero, decimal.Zero
	for _, p := range all {
		if lo.IsZero() || p.LessThan(lo) {
			lo = p
		}
		hi = decimal.Max(hi, p)
	}
	hasLo, hasHi := false, false
	for _, p := range kept {
		hasLo, hasHi = hasLo || p.Equal(lo), hasHi || p.Equal(hi)
	}
	if len(dates) > 4 || len(all) <= 4 || !hasLo || !hasHi {
		t.Errorf("max_points=4 kept %v of %d closes; low %s kept %t, high %s kept %t", dates, len(all), lo, hasLo, hi, hasHi)
	}
}
