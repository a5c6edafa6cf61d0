package format

import (
	"context"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/internal/fx"
)

// TestMinorUnitsCoverEveryRatedCurrency: every currency a rate can be asked for has its ISO
// 4217 minor units in the table (none falls back to the default unseen), and the currencies
// without minor units are exactly the yen, the won, the króna and the old Turkish lira.
func TestMinorUnitsCoverEveryRatedCurrency(t *testing.T) {
	zero := map[string]bool{"JPY": true, "KRW": true, "ISK": true, "TRL": true}
	codes := fx.New(fx.Deps{}).Supported(context.Background())
	if len(codes) < 30 {
		t.Fatalf("only %d currencies with rates: %v", len(codes), codes)
	}
	for _, c := range codes {
		p, ok := minorUnits[c]
		if !ok {
			t.Errorf("%s has rates but no ISO 4217 minor units in the table", c)
			continue
		}
		want := int32(2)
		if zero[c] {
			want = 0
		}
		if p != want || MinorUnits(c) != want {
			t.Errorf("%s: %d minor units, want %d", c, p, want)
		}
	}
	// Lower case is the same code; an unknown code counts cents.
	if MinorUnits("jpy") != 0 || MinorUnits("XYZ") != 2 || MinorUnits("HUF") != 2 {
		t.Errorf("jpy %d, XYZ %d, HUF %d", MinorUnits("jpy"), MinorUnits("XYZ"), MinorUnits("HUF"))
	}
	d := decimal.RequireFromString
	for _, c := range []struct{ in, cur, want string }{
		{"704196.4653", "JPY", "704196"}, {"704196.5", "JPY", "704197"}, {"1234.565", "EUR", "1234.57"},
		{"2650.40", "USD", "2650.4"}, {"-0.4", "KRW", "0"}, {"99.995", "HUF", "100"},
	} {
		if got := RoundMoney(d(c.in), c.cur); !got.Equal(d(c.want)) {
			t.Errorf("RoundMoney(%s, %s) = %s, want %s", c.in, c.cur, got, c.want)
		}
	}
}
