package portfolio

import (
	"math/rand/v2"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/metals"
)

func TestMeltHandComputed(t *testing.T) {
	spot := SpotQuote{Price: d("31.25"), AsOf: asOf}
	// Circulated: 50 dimes and 40 quarters are $15 face at 0.715 oz per $1: 10.725 oz.
	qty, basis, err := ParseCoinCounts(map[string]string{"dimes": " 50 ", "quarters": "40"}, "Circulated")
	if err != nil || basis != BasisCirculated {
		t.Fatalf("parse: %v %q", err, basis)
	}
	r := Melt(qty, basis, spot)
	if len(r.Coins) != 2 || r.Coins[0].Type != "dimes" || !r.Coins[0].SilverOzPerCoin.Equal(d("0.0715")) || !r.Coins[1].SilverOz.Equal(d("7.15")) {
		t.Fatalf("coins %+v", r.Coins)
	}
	eq(t, "face", &r.TotalFaceValue, "15.00")
	if !r.TotalSilverOz.Equal(d("10.725")) {
		t.Errorf("silver oz %s", r.TotalSilverOz)
	}
	eq(t, "melt", &r.TotalMelt, "335.16")                   // 10.725 × 31.25 = 335.15625
	eq(t, "per face dollar", &r.MeltPerFaceDollar, "22.34") // 335.15625 / 15
	// Uncirculated: a Morgan dollar keeps its 0.77344 oz.
	qty, basis, _ = ParseCoinCounts(map[string]string{"dollars": "2"}, "")
	r = Melt(qty, basis, spot)
	eq(t, "dollars melt", &r.TotalMelt, "48.34") // 1.54688 × 31.25 = 48.34
	// Nothing counted: zeros, not a division by zero.
	r = Melt(map[string]int64{}, BasisUncirculated, spot)
	if len(r.Coins) != 0 || !r.MeltPerFaceDollar.IsZero() {
		t.Fatalf("empty melt %+v", r)
	}
}

func TestCoinCountsRefused(t *testing.T) {
	for _, c := range []struct {
		counts map[string]string
		basis  string
		field  string
	}{
		{map[string]string{"dimes": "1.5"}, "", "dimes"},
		{map[string]string{"quarters": "-1"}, "", "quarters"},
		{map[string]string{"dollars": "10000001"}, "", "dollars"},
		{map[string]string{"dimes": "abc"}, "", "dimes"},
		{nil, "worn", "basis"},
	} {
		_, _, err := ParseCoinCounts(c.counts, c.basis)
		if f := apperr.FieldsOf(err); len(f) == 0 || f[0].Field != c.field {
			t.Errorf("%v %q: %v", c.counts, c.basis, err)
		}
	}
}

func TestProjectHandComputed(t *testing.T) {
	cur := map[metals.Metal]decimal.Decimal{metals.Gold: d("2000"), metals.Silver: d("25"), metals.Platinum: d("1000"), metals.Palladium: d("1000")}
	tgt, err := ParseTargets(map[string]string{"gold": "3000", "silver": " 50 "})
	if err != nil {
		t.Fatal(err)
	}
	held := map[metals.Metal]decimal.Decimal{metals.Gold: d("2"), metals.Silver: d("100")}
	s := Project(cur, tgt, held)
	eq(t, "gold multiplier", ptr(s.Multipliers[metals.Gold]), "1.50")
	eq(t, "platinum target defaults to today", ptr(s.Targets[metals.Platinum]), "1000.00")
	eq(t, "moon gold", ptr(s.Scenarios["moon"][metals.Gold]), "4000.00")
	eq(t, "bull silver", ptr(s.Scenarios["bull"][metals.Silver]), "31.25")
	p := s.Portfolio
	// Today 2 × 2,000 + 100 × 25 = 6,500; at the targets 2 × 3,000 + 100 × 50 = 11,000.
	eq(t, "current", &p.CurrentValue, "6500.00")
	eq(t, "projected", &p.ProjectedValue, "11000.00")
	eq(t, "gain", &p.Gain, "4500.00")
	eq(t, "gain %", &p.GainPct, "69.23")
	eq(t, "silver line", ptr(p.Metals[metals.Silver].ProjectedValue), "5000.00")
	if Project(cur, tgt, nil).Portfolio != nil {
		t.Fatal("a projection without a member")
	}
	for _, bad := range []map[string]string{{"gold": "0"}, {"silver": "-3"}, {"platinum": "x"}, {"palladium": "10000000.01"}} {
		if _, err := ParseTargets(bad); apperr.KindOf(err) != apperr.Invalid {
			t.Errorf("%v accepted", bad)
		}
	}
}

func TestCalculatorsNeedAPrice(t *testing.T) {
	s := New(Deps{})
	if _, err := s.JunkSilver(t.Context(), map[string]string{"dimes": "1"}, ""); apperr.KindOf(err) != apperr.Unavailable {
		t.Fatalf("junk silver without a price: %v", err)
	}
	if _, err := s.Speculation(t.Context(), nil, nil); apperr.KindOf(err) != apperr.Unavailable {
		t.Fatalf("speculation without prices: %v", err)
	}
	s.market = fakeMarket{board: board(handQuotes, true)}
	r, err := s.JunkSilver(t.Context(), map[string]string{"dimes": "10"}, "")
	if err != nil || !r.Spot.Stale || !r.Spot.Price.Equal(d("31.25")) {
		t.Fatalf("junk silver at a stale price: %v %+v", err, r.Spot)
	}
	sp, err := s.Speculation(t.Context(), map[string]string{"gold": "5301.80"}, nil)
	if err != nil || !sp.Stale || sp.Portfolio != nil {
		t.Fatalf("public speculation: %v %+v", err, sp)
	}
	eq(t, "gold multiplier", ptr(sp.Multipliers[metals.Gold]), "2.00")
}

// Junk silver by face value: $10 face of worn 90 % coins is 7.15 oz, of uncirculated 7.234;
// $10 face of 40 % halves is 2.9584 oz on either basis; totals add the coins counted too.
func TestMeltByFaceHandComputed(t *testing.T) {
	spot := SpotQuote{Price: d("31.25"), AsOf: asOf}
	faces, err := ParseFaceValues(map[string]string{"face_90": " $10 ", "face_40": "10.00"})
	if err != nil {
		t.Fatal(err)
	}
	r := MeltWithFace(map[string]int64{"dimes": 10}, faces, BasisCirculated, spot)
	if len(r.Face) != 2 || r.Face[0].Type != "face_90" || !r.Face[0].SilverOz.Equal(d("7.15")) || !r.Face[1].SilverOz.Equal(d("2.9584")) {
		t.Fatalf("face lines %+v", r.Face)
	}
	// 0.715 (ten worn dimes) + 7.15 + 2.9584 = 10.8234 oz over $21 face; × 31.25 = 338.23125.
	if !r.TotalSilverOz.Equal(d("10.8234")) || !r.TotalFaceValue.Equal(d("21")) {
		t.Fatalf("totals %s oz over %s face", r.TotalSilverOz, r.TotalFaceValue)
	}
	eq(t, "melt", &r.TotalMelt, "338.23")
	r = MeltWithFace(nil, faces, BasisUncirculated, spot)
	if !r.Face[0].SilverOz.Equal(d("7.234")) {
		t.Fatalf("uncirculated $10 face of 90%%: %s oz", r.Face[0].SilverOz)
	}
	for raw, field := range map[string]string{"abc": "face_90", "-1": "face_90", "1.234": "face_90", "1000000.01": "face_90"} {
		if _, err := ParseFaceValues(map[string]string{"face_90": raw}); len(apperr.FieldsOf(err)) == 0 || apperr.FieldsOf(err)[0].Field != field {
			t.Errorf("%q: %v", raw, err)
		}
	}
	if f, err := ParseFaceValues(map[string]string{"face_90": "$1,234.50"}); err != nil || !f["face_90"].Equal(d("1234.5")) {
		t.Errorf("$1,234.50: %v %v", f, err)
	}
}

// randPrice is a price per ounce with up to four decimals, from cents to tens of thousands.
func randPrice(r *rand.Rand) decimal.Decimal {
	return decimal.New(r.Int64N(50_000_000)+1, -int32(r.IntN(5)))
}

// TestCalculatorCentsAddUp is issue 23, item 12, as a property over random inputs: the
// what-if gain was −$111,288.57 beside $144,832.10 − $256,120.66 = −$111,288.56, and a
// junk-silver total_melt_value differed from the sum of its lines by a cent. Every line is a
// whole number of cents (of ounces to five places), and each total is the sum of its lines,
// the gain the difference of the totals.
func TestCalculatorCentsAddUp(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 12))
	cents := func(x decimal.Decimal) bool { return x.Equal(x.Round(2)) }
	for iter := 0; iter < 3000; iter++ {
		qty := map[string]int64{}
		for _, c := range metals.Coins {
			if r.IntN(2) == 0 {
				qty[c.Param] = r.Int64N(MaxCoins) / int64(1+r.IntN(10_000))
			}
		}
		faces := map[string]decimal.Decimal{}
		for _, f := range metals.FaceLots {
			if r.IntN(2) == 0 {
				faces[f.Param] = decimal.New(r.Int64N(100_000_000), -2)
			}
		}
		basis := []string{BasisUncirculated, BasisCirculated}[r.IntN(2)]
		j := MeltWithFace(qty, faces, basis, SpotQuote{Price: randPrice(r), AsOf: asOf})
		melt, oz := decimal.Zero, decimal.Zero
		for _, c := range j.Coins {
			if !cents(c.MeltValue) || !c.SilverOz.Equal(c.SilverOz.Round(metals.OuncePlaces)) {
				t.Fatalf("%s line %s oz = %s is not what is shown", c.Type, c.SilverOz, c.MeltValue)
			}
			melt, oz = melt.Add(c.MeltValue), oz.Add(c.SilverOz)
		}
		for _, f := range j.Face {
			if !cents(f.MeltValue) || !f.SilverOz.Equal(f.SilverOz.Round(metals.OuncePlaces)) {
				t.Fatalf("%s line %s oz = %s is not what is shown", f.Type, f.SilverOz, f.MeltValue)
			}
			melt, oz = melt.Add(f.MeltValue), oz.Add(f.SilverOz)
		}
		if !j.TotalMelt.Equal(melt) || !j.TotalSilverOz.Equal(oz) {
			t.Fatalf("junk silver %v %v: total %s (%s oz), lines add to %s (%s oz)", qty, faces, j.TotalMelt, j.TotalSilverOz, melt, oz)
		}

		current, targets, held := map[metals.Metal]decimal.Decimal{}, map[metals.Metal]decimal.Decimal{}, map[metals.Metal]decimal.Decimal{}
		for _, m := range metals.All {
			current[m] = randPrice(r)
			if r.IntN(3) > 0 {
				targets[m] = randPrice(r)
			}
			if r.IntN(4) > 0 {
				held[m] = decimal.New(r.Int64N(1_000_000_000_000), -8) // up to 10,000 oz, 8 places
			}
		}
		p := Project(current, targets, held).Portfolio
		cur, proj := decimal.Zero, decimal.Zero
		for _, m := range metals.All {
			l := p.Metals[m]
			if !cents(l.CurrentValue) || !cents(l.ProjectedValue) {
				t.Fatalf("%s: %s and %s are not cents", m, l.CurrentValue, l.ProjectedValue)
			}
			cur, proj = cur.Add(l.CurrentValue), proj.Add(l.ProjectedValue)
		}
		if !p.CurrentValue.Equal(cur) || !p.ProjectedValue.Equal(proj) || !p.Gain.Equal(p.ProjectedValue.Sub(p.CurrentValue)) {
			t.Fatalf("what-if: current %s (lines %s), projected %s (lines %s), gain %s", p.CurrentValue, cur, p.ProjectedValue, proj, p.Gain)
		}
	}
}
