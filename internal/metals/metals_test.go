package metals

import (
	"testing"

	"github.com/shopspring/decimal"
)

func TestParseAndValid(t *testing.T) {
	for in, want := range map[string]Metal{"gold": Gold, " Silver ": Silver, "XPT": Platinum, "xpd": Palladium} {
		if got, err := Parse(in); err != nil || got != want {
			t.Errorf("Parse(%q) = %q, %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "tin", "XAUX", "go ld"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
	if !Gold.Valid() || Metal("XAU").Valid() || Metal("Gold").Valid() {
		t.Fatal("Valid accepts only the canonical identifiers")
	}
}

func TestCoinOunces(t *testing.T) {
	var dimes, kennedy Coin
	for _, c := range Coins {
		switch c.Param {
		case "dimes":
			dimes = c
		case "kennedy_40":
			kennedy = c
		}
	}
	if !dimes.OzPerCoin(false).Equal(decimal.RequireFromString("0.07234")) || !dimes.OzPerCoin(true).Equal(decimal.RequireFromString("0.0715")) {
		t.Fatalf("dime oz: %s %s", dimes.OzPerCoin(false), dimes.OzPerCoin(true))
	}
	if !kennedy.OzPerCoin(true).Equal(kennedy.SilverOz) {
		t.Fatal("40% halves keep their table content on the circulated basis")
	}
	if got := PctChange(decimal.NewFromInt(200), decimal.NewFromInt(210)); !got.Equal(decimal.NewFromInt(5)) {
		t.Fatalf("PctChange = %s", got)
	}
}
