package prices

import (
	"fmt"
	"strings"
	"time"

	"github.com/ouncehq/ounce/internal/enum"
)

// Range is a chart window of GET /v1/prices/history.
type Range string

// The ranges the interface offers.
const (
	Range1M  Range = "1M"
	Range3M  Range = "3M"
	Range6M  Range = "6M"
	Range1Y  Range = "1Y"
	Range5Y  Range = "5Y"
	RangeAll Range = "ALL"
)

// DefaultRange applies when the request names none.
const DefaultRange = Range1Y

// Ranges lists the ranges in display order, for enums in documents and errors.
var Ranges = []Range{Range1M, Range3M, Range6M, Range1Y, Range5Y, RangeAll}

// ParseRange accepts a range name, case-insensitively; "" means DefaultRange.
func ParseRange(s string) (Range, error) {
	v := strings.ToUpper(strings.TrimSpace(s))
	if v == "" {
		return DefaultRange, nil
	}
	for _, r := range Ranges {
		if v == string(r) {
			return r, nil
		}
	}
	return "", fmt.Errorf("unknown range %q: want one of %s", s, strings.Join(enum.Strings(Ranges), ", "))
}

// Start is the first date (UTC midnight) the range covers when viewed at now.
// Months are calendar months, clamped to the month's end (1M before March 31 is
// February 28 or 29), so a range never spills into an extra month. ALL returns
// the zero time.
func (r Range) Start(now time.Time) time.Time {
	today := utcDate(now)
	switch r {
	case Range1M:
		return monthsBefore(today, 1)
	case Range3M:
		return monthsBefore(today, 3)
	case Range6M:
		return monthsBefore(today, 6)
	case Range1Y:
		return monthsBefore(today, 12)
	case Range5Y:
		return monthsBefore(today, 60)
	}
	return time.Time{}
}

// Window is where r starts when viewed at now over data whose newest close is through: every
// range counts back from the same end, today, or through when the data ends before today
// (anchored), so 1M ⊂ 3M ⊂ 6M ⊂ 1Y ⊂ 5Y ⊂ ALL always holds. end is the day counted back from;
// start is r.Start(end) (the zero time for ALL). A zero through (no data) counts from today.
func (r Range) Window(now, through time.Time) (start, end time.Time, anchored bool) {
	end = utcDate(now)
	if !through.IsZero() && through.Before(end) {
		end, anchored = utcDate(through), true
	}
	return r.Start(end), end, anchored
}

func monthsBefore(d time.Time, months int) time.Time {
	y, m, day := d.Date()
	first := time.Date(y, m-time.Month(months), 1, 0, 0, 0, 0, time.UTC)
	last := first.AddDate(0, 1, -1).Day()
	return time.Date(first.Year(), first.Month(), min(day, last), 0, 0, 0, 0, time.UTC)
}
