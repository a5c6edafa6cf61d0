package components

import (
	"math"
	"strings"
	"testing"
)

// TestAxisRange: 4 to 6 ticks at round values that enclose the data (a cost-basis line above
// every value included), never below zero for positive data.
func TestAxisRange(t *testing.T) {
	for _, c := range [][2]float64{{9800, 12400}, {0.5, 0.9}, {6230, 11000}, {1, 1000000}, {31.2, 31.9}, {0, 5}, {2650, 2651}} {
		step, from, to := axisRange(c[0], c[1])
		n := int(math.Round((to-from)/step)) + 1
		if n < 4 || n > 6 || from > c[0] || to < c[1] || from < 0 {
			t.Errorf("%v: step %v from %v to %v (%d ticks)", c, step, from, to, n)
		}
		if r := step / math.Pow(10, math.Floor(math.Log10(step))); r != 1 && r != 2 && r != 2.5 && r != 5 {
			t.Errorf("%v: step %v is not round", c, step)
		}
	}
}

// TestAxisLabelsOneUnit: one axis speaks one unit, with the decimals its step needs.
func TestAxisLabelsOneUnit(t *testing.T) {
	for _, c := range []struct {
		lo, hi, step float64
		want         []string
	}{
		{6000, 16000, 2000, []string{"6k", "8k", "10k", "12k", "14k", "16k"}},
		{10000, 11500, 500, []string{"10k", "10.5k", "11k", "11.5k"}},
		{0, 2000, 500, []string{"0", "500", "1000", "1500", "2000"}},
		{31, 32, 0.25, []string{"31.00", "31.25", "31.50", "31.75", "32.00"}},
		{0, 3000000, 1000000, []string{"0M", "1M", "2M", "3M"}},
	} {
		label := axisLabeler(c.lo, c.hi, c.step)
		var got []string
		for v := c.lo; v <= c.hi+c.step/1e6; v += c.step {
			got = append(got, label(v))
		}
		if strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("%v–%v by %v: %v, want %v", c.lo, c.hi, c.step, got, c.want)
		}
	}
}
