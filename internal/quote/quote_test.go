package quote

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/fx"
	"github.com/ouncehq/ounce/internal/metals"
)

// fakeRates quotes EUR and USD per euro: a dollar is 1.25 per euro, so 0.8 euro.
type fakeRates struct{ asked []time.Time }

func (f *fakeRates) Supported(context.Context) []string { return []string{"EUR", "GBP", "USD"} }

func (f *fakeRates) Lookup(_ context.Context, code string, day time.Time) (fx.Rate, error) {
	f.asked = append(f.asked, day)
	per := map[string]string{"EUR": "1", "USD": "1.25", "GBP": "0.85"}[code]
	if day.Year() == 2020 { // a different rate on another day
		per = map[string]string{"EUR": "1", "USD": "1.1", "GBP": "0.9"}[code]
	}
	p := decimal.RequireFromString(per)
	return fx.Rate{Currency: code, Date: day, RateDate: time.Date(2026, 4, 13, 0, 0, 0, 0, time.UTC), PerEUR: &p, Stale: true}, nil
}

var now = time.Date(2026, 11, 20, 15, 0, 0, 0, time.UTC)

func TestResolveDefaultsParamsAndErrors(t *testing.T) {
	q, ctx := New(&fakeRates{}, func() time.Time { return now }), context.Background()
	// Anonymous, no parameters: USD per ounce, not named.
	tg, err := q.Resolve(ctx, nil, "", "", true)
	if err != nil || tg.Named || !tg.IsUSDOunce() {
		t.Fatalf("anonymous: %+v %v", tg, err)
	}
	// The member's settings count, and make the answer personal.
	u := &db.User{DisplayCurrency: "EUR", WeightUnit: "g"}
	tg, err = q.Resolve(ctx, u, "", "", true)
	if err != nil || tg.Currency != "EUR" || tg.Unit != metals.Gram || !tg.Named || !tg.Personal || !tg.Stale || !tg.PerUSD.Equal(decimal.RequireFromString("0.8")) {
		t.Fatalf("member: %+v %v", tg, err)
	}
	// Parameters win and are not personal.
	tg, err = q.Resolve(ctx, u, "usd", "OZ", true)
	if err != nil || !tg.IsUSDOunce() || !tg.Named || tg.Personal {
		t.Fatalf("params: %+v %v", tg, err)
	}
	// $3,110.34768/oz is €2,488.278144/oz, €80/g.
	tg, _ = q.Resolve(ctx, nil, "EUR", "g", true)
	if got := tg.Price(decimal.RequireFromString("3110.34768")); !got.Equal(decimal.NewFromInt(80)) {
		t.Errorf("EUR/g: %s, want 80", got)
	}
	for _, c := range []struct{ cur, unit, field, says string }{
		{"XYZ", "", "currency", "GBP"}, {"", "lb", "unit", "tola"}, {"EUR", "stone", "unit", "oz"},
	} {
		_, err := q.Resolve(ctx, nil, c.cur, c.unit, true)
		fs := apperr.FieldsOf(err)
		if len(fs) != 1 || fs[0].Field != c.field || !strings.Contains(err.Error()+fs[0].Message, c.says) {
			t.Errorf("%q %q: %v, want one error naming %s", c.cur, c.unit, err, c.field)
		}
	}
	// Without rates only the dollar is known.
	if _, err := New(nil, nil).Resolve(ctx, nil, "EUR", "", false); len(apperr.FieldsOf(err)) != 1 {
		t.Errorf("no rates, EUR: %v", err)
	}
}

func TestDailyUsesEachDaysRate(t *testing.T) {
	r := &fakeRates{}
	q, ctx := New(r, func() time.Time { return now }), context.Background()
	tg, _ := q.Resolve(ctx, nil, "EUR", "", true)
	d := q.Daily(ctx, tg)
	a, _ := d.PerUSD(time.Date(2020, 3, 2, 0, 0, 0, 0, time.UTC))
	b, _ := d.PerUSD(time.Date(2025, 3, 3, 0, 0, 0, 0, time.UTC))
	if !a.Equal(decimal.NewFromInt(1).DivRound(decimal.RequireFromString("1.1"), 20)) || !b.Equal(decimal.RequireFromString("0.8")) {
		t.Errorf("per USD 2020 %s, 2025 %s", a, b)
	}
	n := len(r.asked)
	_, _ = d.PerUSD(time.Date(2020, 3, 2, 0, 0, 0, 0, time.UTC))
	if len(r.asked) != n {
		t.Errorf("a day asked twice looked its rate up again")
	}
}

// TestUnitParam: the valuation routes' unit is the parameter, else the member's weight unit,
// else ounces; anything else is a 400 naming unit and listing the units.
func TestUnitParam(t *testing.T) {
	grams := &db.User{WeightUnit: "g"}
	for _, c := range []struct {
		u    *db.User
		raw  string
		want metals.Unit
	}{{nil, "", metals.Ounce}, {grams, "", metals.Gram}, {grams, "KG", metals.Kilogram}, {nil, " tola ", metals.Tola}} {
		got, err := Unit(c.u, c.raw)
		if err != nil || got != c.want {
			t.Errorf("Unit(%v, %q) = %s, %v; want %s", c.u, c.raw, got, err, c.want)
		}
	}
	_, err := Unit(grams, "lb")
	if fs := apperr.FieldsOf(err); len(fs) != 1 || fs[0].Field != "unit" || !strings.Contains(fs[0].Message, "tola") {
		t.Fatalf("unit lb: %v", err)
	}
	if got := PerUnit(decimal.RequireFromString("3110.34768"), metals.Gram); !got.Equal(decimal.NewFromInt(100)) {
		t.Errorf("3110.34768 per oz is %s per g, want 100", got)
	}
}
