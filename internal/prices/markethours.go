package prices

import (
	"sync/atomic"
	"time"
	_ "time/tzdata" // the schedule is defined in New York time, whatever the host has installed
)

// Market hours follow CME Globex metals (COMEX gold and silver, NYMEX platinum
// and palladium), which set the US spot market's rhythm: each trading day D runs
// from 18:00 New York time on the calendar day before D to 17:00 on D. So the
// week opens Sunday 18:00 and closes Friday 17:00, with a daily break 17:00–18:00
// Monday to Thursday. Trading days are weekdays that are not full CME holidays.

var newYork = mustLoadNewYork()

func mustLoadNewYork() *time.Location {
	loc, err := time.LoadLocation("America/New_York")
	if err != nil {
		panic("prices: time zone America/New_York unavailable despite time/tzdata: " + err.Error())
	}
	return loc
}

const (
	sessionOpenHour  = 18
	sessionCloseHour = 17
)

// Holiday is a CME holiday relevant to metals.
type Holiday struct {
	// Date is the observed date at UTC midnight.
	Date time.Time
	Name string
	// Closed is true for full closures. MLK Day, Presidents Day and Juneteenth
	// are early-close days on CME: Ounce treats them as open, because prices do
	// trade for part of the day.
	Closed bool
}

// Holidays returns the CME holidays of a year that matter for metals, in date
// order, computed by rule: New Year's Day, MLK Day, Presidents Day, Good Friday,
// Memorial Day, Juneteenth (from 2022), Independence Day, Labor Day,
// Thanksgiving and Christmas. Fixed-date holidays falling on a Sunday are
// observed on the Monday and on a Saturday on the Friday — except New Year's
// Day, which US exchanges do not move back into the old year.
func Holidays(year int) []Holiday {
	hs := make([]Holiday, 0, 10)
	add := func(d time.Time, name string, closed bool) {
		hs = append(hs, Holiday{Date: d, Name: name, Closed: closed})
	}
	if d, ok := observedNewYear(year); ok {
		add(d, "New Year's Day", true)
	}
	add(nthWeekday(year, time.January, time.Monday, 3), "Martin Luther King Jr. Day", false)
	add(nthWeekday(year, time.February, time.Monday, 3), "Presidents Day", false)
	add(easter(year).AddDate(0, 0, -2), "Good Friday", true)
	add(lastWeekday(year, time.May, time.Monday), "Memorial Day", true)
	if year >= 2022 {
		add(observed(date(year, time.June, 19)), "Juneteenth", false)
	}
	add(observed(date(year, time.July, 4)), "Independence Day", true)
	add(nthWeekday(year, time.September, time.Monday, 1), "Labor Day", true)
	add(nthWeekday(year, time.November, time.Thursday, 4), "Thanksgiving", true)
	add(observed(date(year, time.December, 25)), "Christmas", true)
	return hs
}

// HolidayOn returns the holiday observed on the calendar date of d (its
// year, month and day as given, whatever its location).
func HolidayOn(d time.Time) (Holiday, bool) {
	day := date(d.Date())
	for _, h := range Holidays(day.Year()) {
		if h.Date.Equal(day) {
			return h, true
		}
	}
	// New Year's Day of next year is never moved into this year, so the lookup
	// above is complete.
	return Holiday{}, false
}

// IsTradingDay reports whether the calendar date of d is a CME trading day for
// metals: a weekday that is not a full holiday.
func IsTradingDay(d time.Time) bool {
	day := date(d.Date())
	switch day.Weekday() {
	case time.Saturday, time.Sunday:
		return false
	}
	return !fullHoliday(day)
}

// fullHoliday checks only the rule that can fall in day's month, without
// building the year's list: MarketsOpen runs on every request. Tests hold it
// equal to Holidays.
func fullHoliday(day time.Time) bool {
	y := day.Year()
	switch day.Month() {
	case time.January:
		d, ok := observedNewYear(y)
		return ok && day.Equal(d)
	case time.March, time.April:
		return day.Equal(easter(y).AddDate(0, 0, -2))
	case time.May:
		return day.Equal(lastWeekday(y, time.May, time.Monday))
	case time.July:
		return day.Equal(observed(date(y, time.July, 4)))
	case time.September:
		return day.Equal(nthWeekday(y, time.September, time.Monday, 1))
	case time.November:
		return day.Equal(nthWeekday(y, time.November, time.Thursday, 4))
	case time.December:
		return day.Equal(observed(date(y, time.December, 25)))
	}
	return false
}

// MarketsOpen reports whether metals trade at t.
func MarketsOpen(t time.Time) bool {
	// Sessions open and close on whole minutes, so one answer serves a whole minute; the
	// price endpoints ask on every request.
	minute := t.Unix() / 60
	if c := openCache.Load(); c != nil && c.minute == minute {
		return c.open
	}
	open := marketsOpen(t)
	openCache.Store(&openMinute{minute: minute, open: open})
	return open
}

type openMinute struct {
	minute int64
	open   bool
}

var openCache atomic.Pointer[openMinute]

func marketsOpen(t time.Time) bool {
	local := t.In(newYork)
	switch h := local.Hour(); {
	case h >= sessionOpenHour:
		return IsTradingDay(date(local.Date()).AddDate(0, 0, 1))
	case h < sessionCloseHour:
		return IsTradingDay(date(local.Date()))
	default:
		return false // the daily break, or after the close
	}
}

// SessionDate is the trading day a tick at t belongs to, at UTC midnight: the
// latest trading day whose session has started by t. A tick at or after 18:00 on
// the eve of a trading day belongs to that day (Sunday evening belongs to
// Monday), and a tick while markets are closed — the daily break, a weekend, a
// holiday — belongs to the session that closed last, because the price it
// carries is that session's.
func SessionDate(t time.Time) time.Time {
	local := t.In(newYork)
	d := date(local.Date())
	if local.Hour() >= sessionOpenHour {
		d = d.AddDate(0, 0, 1)
	}
	for !IsTradingDay(d) {
		d = d.AddDate(0, 0, -1)
	}
	return d
}

// PreviousSessionDate is the trading day before SessionDate(t).
func PreviousSessionDate(t time.Time) time.Time {
	d := SessionDate(t).AddDate(0, 0, -1)
	for !IsTradingDay(d) {
		d = d.AddDate(0, 0, -1)
	}
	return d
}

// date builds a calendar date at UTC midnight.
func date(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

// observed shifts a fixed-date holiday off the weekend.
func observed(d time.Time) time.Time {
	switch d.Weekday() {
	case time.Saturday:
		return d.AddDate(0, 0, -1)
	case time.Sunday:
		return d.AddDate(0, 0, 1)
	}
	return d
}

// observedNewYear is January 1, or Monday January 2 when the 1st is a Sunday. A
// Saturday New Year's Day is not observed at all (US exchanges trade on
// December 31), so it reports false then.
func observedNewYear(year int) (time.Time, bool) {
	d := date(year, time.January, 1)
	switch d.Weekday() {
	case time.Saturday:
		return time.Time{}, false
	case time.Sunday:
		return d.AddDate(0, 0, 1), true
	}
	return d, true
}

// nthWeekday is the n-th (1-based) given weekday of a month.
func nthWeekday(year int, month time.Month, wd time.Weekday, n int) time.Time {
	first := date(year, month, 1)
	offset := (int(wd) - int(first.Weekday()) + 7) % 7
	return first.AddDate(0, 0, offset+7*(n-1))
}

// lastWeekday is the last given weekday of a month.
func lastWeekday(year int, month time.Month, wd time.Weekday) time.Time {
	last := date(year, month+1, 0)
	offset := (int(last.Weekday()) - int(wd) + 7) % 7
	return last.AddDate(0, 0, -offset)
}

// easter is Easter Sunday (Gregorian), by the anonymous Gregorian algorithm
// (Meeus/Jones/Butcher).
func easter(year int) time.Time {
	a := year % 19
	b, c := year/100, year%100
	d, e := b/4, b%4
	f := (b + 8) / 25
	g := (b - f + 1) / 3
	h := (19*a + b - d - g + 15) % 30
	i, k := c/4, c%4
	l := (32 + 2*e + 2*i - h - k) % 7
	m := (a + 11*h + 22*l) / 451
	month := (h + l - 7*m + 114) / 31
	day := (h+l-7*m+114)%31 + 1
	return date(year, time.Month(month), day)
}
