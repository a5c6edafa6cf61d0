package components

import (
	"math"
	"regexp"
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

// TestChartDates: the time axis speaks the formatter's short style, the hover text the prose
// style, and the value axis the one compact rule.
func TestChartDates(t *testing.T) {
	c := Chart{YPrefix: "$", Series: []ChartSeries{{Name: "gold", Points: []ChartPoint{
		{X: "2026-07-17", Y: 5200, Label: "$5,200.00"}, {X: "2026-07-31", Y: 5600, Label: "$5,600.00"}, {X: "2026-08-17", Y: 6000, Label: "$6,000.00"}}}}}
	g := c.Layout()
	if g.XTicks[0].Label != "17 Jul" || g.XTicks[len(g.XTicks)-1].Label != "17 Aug" {
		t.Errorf("x ticks %v", g.XTicks)
	}
	if g.Hover[0].Title != "17 Jul 2026: $5,200.00" {
		t.Errorf("hover %q", g.Hover[0].Title)
	}
	for _, tk := range g.YTicks {
		if tk.Label != "$0" && !regexpK.MatchString(tk.Label) {
			t.Errorf("y tick %q is not in the compact style", tk.Label)
		}
	}
	c.Series[0].Points[2].X = "2027-08-17"
	if g := c.Layout(); g.XTicks[0].Label != "Jul 2026" {
		t.Errorf("long chart ticks %v", g.XTicks)
	}
}

var regexpK = regexp.MustCompile(`^\$\d+(\.\d)?k$`)
