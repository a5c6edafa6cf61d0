package components

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/ouncehq/ounce/views/format"
)

// ChartPoint is one labelled value. Y is used only for drawing; Label carries the exact text.
type ChartPoint struct {
	X     string // date label, e.g. 2026-08-17
	Y     float64
	Label string // the value as shown, e.g. $3,350.20
}

// ChartSeries is a line to draw.
type ChartSeries struct {
	Name   string // short name, used in hover text ("registered")
	Legend string // legend text when a chart has several series
	Class  string // stroke colour class of the line
	Swatch string // background colour class of its legend swatch
	Points []ChartPoint
}

// Chart is everything a server-rendered line chart needs.
type Chart struct {
	ID          string
	Title       string
	Description string
	Series      []ChartSeries
	Width       int
	Height      int
	// YPrefix and YSuffix wrap axis tick labels, e.g. "$" or " oz".
	YPrefix, YSuffix string
}

// Geometry is the chart laid out in SVG coordinates.
type Geometry struct {
	W, H                  int
	Left, Right, Top, Bot float64
	Paths                 []GeoPath
	YTicks                []Tick
	XTicks                []Tick
	Hover                 []HoverBand
	Labels                []EndLabel
	Empty                 bool
}

// GeoPath is a series as an SVG path.
type GeoPath struct {
	D, Class, Name string
}

// Tick is an axis tick at a position with a label.
type Tick struct {
	Pos   float64
	Label string
}

// HoverBand is an invisible column; the crosshair script shows its Title (date and values)
// when the pointer or a finger is over it.
type HoverBand struct {
	X, W  float64
	Title string
}

// EndLabel names a series at its last point (the cost-basis line says what it is).
type EndLabel struct {
	X, Y  float64
	Text  string
	Class string
}

// Layout computes the geometry of c.
func (c Chart) Layout() Geometry {
	g := Geometry{W: c.Width, H: c.Height, Left: 64, Right: float64(c.Width) - 12, Top: 12, Bot: float64(c.Height) - 28}
	if g.W == 0 {
		g.W, g.Right = 720, 708
	}
	if g.H == 0 {
		g.H, g.Bot = 280, 252
	}
	n := 0
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range c.Series {
		n = max(n, len(s.Points))
		for _, p := range s.Points {
			lo, hi = math.Min(lo, p.Y), math.Max(hi, p.Y)
		}
	}
	if n < 2 {
		g.Empty = true
		return g
	}
	if hi == lo {
		hi, lo = hi+1, lo-1
	}
	// The axis runs between round values that enclose every series (the cost-basis line
	// included), with 4 to 6 ticks.
	step, lo, hi := axisRange(lo, hi)
	y := func(v float64) float64 { return g.Bot - (g.Bot-g.Top)*(v-lo)/(hi-lo) }
	widest := 0
	label := format.AxisLabels(lo, hi, step, c.YPrefix, c.YSuffix)
	for v := lo; v <= hi+step/1e6; v += step {
		t := Tick{Pos: y(v), Label: label(v)}
		widest = max(widest, len(t.Label))
		g.YTicks = append(g.YTicks, t)
	}
	// Room for the widest tick label at the phone font size (about 15 units a character).
	g.Left = math.Max(g.Left, float64(widest*15+12))
	x := func(i int) float64 { return g.Left + (g.Right-g.Left)*float64(i)/float64(n-1) }
	for _, s := range c.Series {
		var b strings.Builder
		for i, p := range s.Points {
			cmd := "L"
			if i == 0 {
				cmd = "M"
			}
			fmt.Fprintf(&b, "%s%.1f %.1f", cmd, x(i), y(p.Y))
		}
		g.Paths = append(g.Paths, GeoPath{D: b.String(), Class: s.Class, Name: s.Name})
		if len(c.Series) > 1 && len(s.Points) > 0 {
			last := s.Points[len(s.Points)-1]
			g.Labels = append(g.Labels, EndLabel{X: x(len(s.Points) - 1), Y: y(last.Y), Text: s.Name + " " + last.Label, Class: s.Class})
		}
	}
	first := c.Series[0].Points
	tickDate, hoverDate := dateStyles(first)
	for _, i := range []int{0, (n - 1) / 3, 2 * (n - 1) / 3, n - 1} {
		if i < len(first) {
			g.XTicks = append(g.XTicks, Tick{Pos: x(i), Label: tickDate(first[i].X)})
		}
	}
	w := (g.Right - g.Left) / float64(n-1)
	for i := 0; i < n; i++ {
		var parts []string
		for _, s := range c.Series {
			if i < len(s.Points) {
				label := s.Points[i].Label
				if len(c.Series) > 1 {
					label = s.Name + " " + label
				}
				parts = append(parts, label)
			}
		}
		g.Hover = append(g.Hover, HoverBand{X: x(i) - w/2, W: w, Title: hoverDate(first[min(i, len(first)-1)].X) + ": " + strings.Join(parts, ", ")})
	}
	return g
}

// axisRange chooses a round step and the multiples of it just enclosing [lo, hi] so that the
// axis has 4 to 6 ticks; the bottom never goes below zero for positive data.
func axisRange(lo, hi float64) (step, from, to float64) {
	ladder := []float64{1, 2, 2.5, 5}
	mag := math.Pow(10, math.Floor(math.Log10((hi-lo)/5)))
	for k := 0; k < 12; k++ {
		step = ladder[k%4] * mag * math.Pow(10, float64(k/4))
		from, to = math.Floor(lo/step)*step, math.Ceil(hi/step)*step
		if from > lo { // floating point: 31.2 / 0.2 is not quite 156
			from -= step
		}
		if to < hi {
			to += step
		}
		if lo >= 0 && from < 0 {
			from = 0
		}
		if n := math.Round((to-from)/step) + 1; n <= 6 {
			if n < 4 {
				to = from + 3*step
			}
			return step, from, to
		}
	}
	return step, from, to
}

// dateStyles writes ISO point dates ("2026-08-17") in the chart styles of the one formatter:
// the axis short (format.AxisDate: "17 Aug", or "Aug 2026" on a long chart), the hover text
// as prose dates ("17 Aug 2026"). Labels that are not dates pass through unchanged.
func dateStyles(points []ChartPoint) (tick, hover func(string) string) {
	parse := func(s string) (time.Time, bool) {
		t, err := time.Parse("2006-01-02", s)
		return t, err == nil
	}
	same := func(s string) string { return s }
	if len(points) < 2 {
		return same, same
	}
	from, ok1 := parse(points[0].X)
	to, ok2 := parse(points[len(points)-1].X)
	if !ok1 || !ok2 {
		return same, same
	}
	span := to.Sub(from)
	tick = func(s string) string {
		if t, ok := parse(s); ok {
			return format.AxisDate(t, span)
		}
		return s
	}
	hover = func(s string) string {
		if t, ok := parse(s); ok {
			return format.Date(t)
		}
		return s
	}
	return tick, hover
}

// xTickAnchor aligns a date label under the x axis: the first starts at its tick and the last
// ends at it, so neither runs past the plot; the ones between are centred.
func xTickAnchor(i, n int) string {
	switch {
	case i == 0:
		return "start"
	case i == n-1:
		return "end"
	}
	return "middle"
}

func f1(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
