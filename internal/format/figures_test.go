package format

import (
	"strings"
	"testing"
	"time"
)

// TestFiguresCheck: the figure check reads what the formatter writes (either minus sign,
// separators, cents, percentages, dates) and catches a figure nobody stated.
func TestFiguresCheck(t *testing.T) {
	known := Figures{}
	known.Add(d("2650.404"))
	known.Add(d("-1.2345"))
	known.AddScaled(d("30100000"))
	known.AddTime(time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC))
	for _, c := range []struct{ text, want string }{
		{"Gold is at " + USD(d("2650.404")) + ", " + SignedPct(d("-1.2345")) + " on " + Date(time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)) + ".", ""},
		{"Silver fell -$1.23 and 1.23 percent; 30.1 million oz.", ""},
		{"Three outlets, 50-day average.", ""},
		{"Gold is at $2,651.00.", "$2,651.00"},
		{"Up 7 percent with 250 reports.", "7 percent,250"},
	} {
		if got := strings.Join(known.Ungrounded(c.text, 100), ","); got != c.want {
			t.Errorf("Ungrounded(%q) = %q, want %q", c.text, got, c.want)
		}
	}
	shown := Figures{}
	shown.AddShown("Gold " + PriceUSD(d("2650.40")))
	shown.AddShownTime(time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC))
	if got := strings.Join(shown.Unshown("Gold was $2,650.40 on 23 Nov 2026, about $2,650 or 3 days."), ","); got != "$2,650,3" {
		t.Errorf("Unshown = %q", got)
	}
}
