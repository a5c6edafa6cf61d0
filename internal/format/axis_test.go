package format

import (
	"strings"
	"testing"
	"time"
)

// TestAxisLabelsOneRule: every axis speaks by one rule — k/M/B from 1,000 with at most one
// decimal, in full with separators when the step is finer, the minus before the prefix — so
// no page shows "$5500" beside "$140k".
func TestAxisLabelsOneRule(t *testing.T) {
	for _, c := range []struct {
		lo, hi, step float64
		prefix       string
		want         []string
	}{
		{6000, 16000, 2000, "$", []string{"$6k", "$8k", "$10k", "$12k", "$14k", "$16k"}},
		{10000, 11500, 500, "", []string{"10k", "10.5k", "11k", "11.5k"}},
		{0, 2000, 500, "$", []string{"$0", "$0.5k", "$1k", "$1.5k", "$2k"}},
		{5000, 6000, 500, "$", []string{"$5k", "$5.5k", "$6k"}},
		{100000, 160000, 20000, "$", []string{"$100k", "$120k", "$140k", "$160k"}},
		{31, 32, 0.25, "$", []string{"$31.00", "$31.25", "$31.50", "$31.75", "$32.00"}},
		{2650, 2651, 0.25, "$", []string{"$2,650.00", "$2,650.25", "$2,650.50", "$2,650.75", "$2,651.00"}},
		{4000, 4100, 25, "$", []string{"$4,000", "$4,025", "$4,050", "$4,075", "$4,100"}},
		{0, 3000000, 1000000, "", []string{"0", "1M", "2M", "3M"}},
		{-10000, 5000, 5000, "$", []string{"−$10k", "−$5k", "$0", "$5k"}},
	} {
		label := AxisLabels(c.lo, c.hi, c.step, c.prefix, "")
		var got []string
		for v := c.lo; v <= c.hi+c.step/1e6; v += c.step {
			got = append(got, label(v))
		}
		if strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("%v–%v by %v: %v, want %v", c.lo, c.hi, c.step, got, c.want)
		}
	}
	if got := AxisLabels(0, 10, 2.5, "", "%")(7.5); got != "7.5%" {
		t.Errorf("suffix: %q", got)
	}
}

func TestAxisDate(t *testing.T) {
	d := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	if got := AxisDate(d, 30*24*time.Hour); got != "27 Nov" {
		t.Errorf("short span: %q", got)
	}
	if got := AxisDate(d, 365*24*time.Hour); got != "Nov 2026" {
		t.Errorf("long span: %q", got)
	}
}
