package format

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// AxisLabels labels every tick of one chart axis, by the one rule every chart follows, so no
// page shows "$5500" beside "$140k":
//   - From 1,000 a value is written in k, M or B (the unit chosen by the axis's largest value)
//     with at most one decimal: "$5.5k", "$140k", "$1.2M".
//   - An axis whose step is too fine for one decimal of that unit (a day's gold range) writes
//     every tick in full with separators: "$2,650.25", "$2,650.50".
//   - Below 1,000 a tick has the decimals its step needs, at most two: "31.25".
//   - Zero is "0" (with prefix and suffix); a negative tick carries the minus sign before the
//     prefix: "−$5k".
//
// Axes are drawn from floats, so the labels are too; exact figures are never formatted here.
func AxisLabels(lo, hi, step float64, prefix, suffix string) func(float64) string {
	top := math.Max(math.Abs(lo), math.Abs(hi))
	div, unit := 1.0, ""
	switch {
	case top >= 1e9:
		div, unit = 1e9, "B"
	case top >= 1e6:
		div, unit = 1e6, "M"
	case top >= 1e3:
		div, unit = 1e3, "k"
	}
	places := decimalsOf(step / div)
	if unit != "" && places > 1 {
		div, unit = 1, ""
		places = decimalsOf(step)
	}
	places = min(places, 2)
	return func(v float64) string {
		t := strconv.FormatFloat(math.Abs(v)/div, 'f', places, 64)
		if unit != "" && places > 0 {
			// 10k, 10.5k, 11k: a scaled label drops the zeros its neighbours need.
			t = strings.TrimRight(strings.TrimRight(t, "0"), ".")
		}
		if strings.Trim(t, "0.") == "" {
			return prefix + "0" + suffix
		}
		t = prefix + Group(t) + unit + suffix
		if v < 0 {
			return Minus + t
		}
		return t
	}
}

// decimalsOf is how many decimals (up to three) x needs to be written exactly.
func decimalsOf(x float64) int {
	places := 0
	for s := math.Abs(x); places < 3 && math.Abs(s-math.Round(s)) > 1e-9; s *= 10 {
		places++
	}
	return places
}

// AxisDate is a date under a chart's time axis: "27 Nov" when the chart spans under 200 days,
// "Nov 2026" when it spans more (a day of the month means nothing on a five-year chart, and
// the same day a year apart would read alike). The hover text of a point uses Date.
func AxisDate(t time.Time, span time.Duration) string {
	if span > 200*24*time.Hour {
		return t.UTC().Format("Jan 2006")
	}
	return t.UTC().Format("2 Jan")
}
