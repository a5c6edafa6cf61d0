package performance

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestXIRRDailyFlowsMatchOneExponentialEach: flows on whole days a few apart (a timeline's),
// whose discounts are chained day gap by day gap, give the rate of one exponential per flow to
// 1e-10, far below the 1e-6 a percentage to four places shows.
func TestXIRRDailyFlowsMatchOneExponentialEach(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 6))
	for n := range 300 {
		start := day("2015-01-01")
		flows := []cashFlow{{start, -float64(rng.IntN(1_000_000))}}
		d := start
		for k := rng.IntN(4000); k >= 0; k-- {
			d = d.AddDate(0, 0, 1+rng.IntN(5))
			flows = append(flows, cashFlow{d, float64(rng.IntN(20000)-15000) + float64(rng.IntN(100))/100})
		}
		flows = append(flows, cashFlow{d, float64(rng.IntN(3_000_000_000))})
		if dayGaps(xirrDays(flows)) == nil {
			t.Fatalf("%d: the flows are whole days apart, yet not chained", n)
		}
		ann, per, ok := xirr(flows)
		// The same flows a second apart from whole days: one exponential each.
		off := append([]cashFlow(nil), flows...)
		off[0].Day = off[0].Day.Add(-1)
		annE, perE, okE := xirr(off)
		if ok != okE {
			t.Fatalf("%d: ok %v, one exponential each %v", n, ok, okE)
		}
		if ok && (math.Abs(per-perE) > 1e-10*math.Max(1, math.Abs(perE)) || math.Abs(ann-annE) > 1e-10*math.Max(1, math.Abs(annE))) {
			t.Errorf("%d: period %v annual %v; one exponential each %v %v", n, per, ann, perE, annE)
		}
	}
}

func xirrDays(flows []cashFlow) []float64 {
	out := make([]float64, len(flows))
	for i, f := range flows {
		out[i] = f.Day.Sub(flows[0].Day).Hours() / 24
	}
	return out
}
