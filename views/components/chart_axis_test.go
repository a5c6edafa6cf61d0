package components

import (
	"math"
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
