package prices

import (
	"testing"
	"time"
)

// et builds a New York wall-clock time.
func et(y int, m time.Month, d, hh, mm int) time.Time {
	return time.Date(y, m, d, hh, mm, 0, 0, newYork)
}

func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

func TestMarketHours(t *testing.T) {
	tests := []struct {
		name    string
		at      time.Time
		open    bool
		session time.Time
		prev    time.Time
	}{
		// An ordinary week: 2026-03-02 (Mon) … 2026-03-06 (Fri), EST.
		{"Sunday before the open", et(2026, 3, 1, 17, 59), false, day(2026, 2, 27), day(2026, 2, 26)},
		{"Sunday open", et(2026, 3, 1, 18, 0), true, day(2026, 3, 2), day(2026, 2, 27)},
		{"Monday midday", et(2026, 3, 2, 12, 0), true, day(2026, 3, 2), day(2026, 2, 27)},
		{"Wednesday last minute", et(2026, 3, 4, 16, 59), true, day(2026, 3, 4), day(2026, 3, 3)},
		{"Wednesday break starts", et(2026, 3, 4, 17, 0), false, day(2026, 3, 4), day(2026, 3, 3)},
		{"Wednesday break", et(2026, 3, 4, 17, 59), false, day(2026, 3, 4), day(2026, 3, 3)},
		{"Wednesday evening is Thursday's session", et(2026, 3, 4, 18, 0), true, day(2026, 3, 5), day(2026, 3, 4)},
		{"Thursday small hours", et(2026, 3, 5, 2, 30), true, day(2026, 3, 5), day(2026, 3, 4)},
		{"Friday last minute", et(2026, 3, 6, 16, 59), true, day(2026, 3, 6), day(2026, 3, 5)},
		{"Friday close", et(2026, 3, 6, 17, 0), false, day(2026, 3, 6), day(2026, 3, 5)},
		{"Friday evening stays Friday", et(2026, 3, 6, 18, 30), false, day(2026, 3, 6), day(2026, 3, 5)},
		{"Saturday", et(2026, 3, 7, 12, 0), false, day(2026, 3, 6), day(2026, 3, 5)},

		// Daylight saving starts Sunday 2026-03-08: 18:00 EDT is 22:00 UTC.
		{"DST Sunday 21:59 UTC", time.Date(2026, 3, 8, 21, 59, 0, 0, time.UTC), false, day(2026, 3, 6), day(2026, 3, 5)},
		{"DST Sunday 22:00 UTC", time.Date(2026, 3, 8, 22, 0, 0, 0, time.UTC), true, day(2026, 3, 9), day(2026, 3, 6)},
		// The Sunday before, in EST, 22:00 UTC is still 17:00 in New York.
		{"EST Sunday 22:00 UTC", time.Date(2026, 3, 1, 22, 0, 0, 0, time.UTC), false, day(2026, 2, 27), day(2026, 2, 26)},
		{"EST Sunday 23:00 UTC", time.Date(2026, 3, 1, 23, 0, 0, 0, time.UTC), true, day(2026, 3, 2), day(2026, 2, 27)},
		// Daylight saving ends Sunday 2026-11-01: 18:00 EST is 23:00 UTC.
		{"fall-back Sunday 22:30 UTC", time.Date(2026, 11, 1, 22, 30, 0, 0, time.UTC), false, day(2026, 10, 30), day(2026, 10, 29)},
		{"fall-back Sunday 23:00 UTC", time.Date(2026, 11, 1, 23, 0, 0, 0, time.UTC), true, day(2026, 11, 2), day(2026, 10, 30)},
		{"fall-back Monday 21:59 UTC", time.Date(2026, 11, 2, 21, 59, 0, 0, time.UTC), true, day(2026, 11, 2), day(2026, 10, 30)},
		{"fall-back Monday 22:00 UTC", time.Date(2026, 11, 2, 22, 0, 0, 0, time.UTC), false, day(2026, 11, 2), day(2026, 10, 30)},

		// Good Friday 2026-04-03: closed from Thursday's close to Sunday evening.
		{"Thursday before Good Friday", et(2026, 4, 2, 16, 0), true, day(2026, 4, 2), day(2026, 4, 1)},
		{"Thursday evening before Good Friday", et(2026, 4, 2, 18, 0), false, day(2026, 4, 2), day(2026, 4, 1)},
		{"Good Friday", et(2026, 4, 3, 10, 0), false, day(2026, 4, 2), day(2026, 4, 1)},
		{"Easter Sunday evening", et(2026, 4, 5, 18, 0), true, day(2026, 4, 6), day(2026, 4, 2)},
		{"Monday after Easter", et(2026, 4, 6, 9, 0), true, day(2026, 4, 6), day(2026, 4, 2)},

		// Thanksgiving 2026-11-26.
		{"Wednesday before Thanksgiving", et(2026, 11, 25, 16, 0), true, day(2026, 11, 25), day(2026, 11, 24)},
		{"Wednesday evening before Thanksgiving", et(2026, 11, 25, 18, 0), false, day(2026, 11, 25), day(2026, 11, 24)},
		{"Thanksgiving", et(2026, 11, 26, 12, 0), false, day(2026, 11, 25), day(2026, 11, 24)},
		{"Thanksgiving evening opens Friday", et(2026, 11, 26, 18, 0), true, day(2026, 11, 27), day(2026, 11, 25)},

		// Independence Day 2026 is a Saturday, observed Friday 2026-07-03.
		{"observed Independence Day", et(2026, 7, 3, 11, 0), false, day(2026, 7, 2), day(2026, 7, 1)},
		{"Sunday after Independence Day", et(2026, 7, 5, 18, 0), true, day(2026, 7, 6), day(2026, 7, 2)},

		// Memorial Day 2026-05-25: no Sunday evening open, reopens Monday 18:00.
		{"Sunday before Memorial Day", et(2026, 5, 24, 19, 0), false, day(2026, 5, 22), day(2026, 5, 21)},
		{"Memorial Day evening", et(2026, 5, 25, 18, 0), true, day(2026, 5, 26), day(2026, 5, 22)},

		// Christmas 2026 is a Friday; New Year's Day 2027 too.
		{"Christmas Eve evening", et(2026, 12, 24, 19, 0), false, day(2026, 12, 24), day(2026, 12, 23)},
		{"New Year's Eve midday", et(2026, 12, 31, 12, 0), true, day(2026, 12, 31), day(2026, 12, 30)},
		{"New Year's Day 2027", et(2027, 1, 1, 12, 0), false, day(2026, 12, 31), day(2026, 12, 30)},

		// Early-close days count as open.
		{"MLK Day 2026", et(2026, 1, 19, 10, 0), true, day(2026, 1, 19), day(2026, 1, 16)},
		{"Juneteenth 2026", et(2026, 6, 19, 10, 0), true, day(2026, 6, 19), day(2026, 6, 18)},

		// New Year's Day 2022 fell on a Saturday: Friday 2021-12-31 traded.
		{"Friday 2021-12-31", et(2021, 12, 31, 12, 0), true, day(2021, 12, 31), day(2021, 12, 30)},
		// New Year's Day 2023 fell on a Sunday: observed Monday 2023-01-02.
		{"Monday 2023-01-02", et(2023, 1, 2, 12, 0), false, day(2022, 12, 30), day(2022, 12, 29)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MarketsOpen(tt.at); got != tt.open {
				t.Errorf("MarketsOpen(%v) = %t, want %t", tt.at, got, tt.open)
			}
			if got := SessionDate(tt.at); !got.Equal(tt.session) {
				t.Errorf("SessionDate(%v) = %v, want %v", tt.at, got.Format(time.DateOnly), tt.session.Format(time.DateOnly))
			}
			if got := PreviousSessionDate(tt.at); !got.Equal(tt.prev) {
				t.Errorf("PreviousSessionDate(%v) = %v, want %v", tt.at, got.Format(time.DateOnly), tt.prev.Format(time.DateOnly))
			}
			// The same instant in any zone gives the same answers.
			if SessionDate(tt.at.In(time.FixedZone("Tokyo", 9*3600))) != SessionDate(tt.at) {
				t.Error("answer depends on the zone of the argument")
			}
		})
	}
}

func TestHolidays(t *testing.T) {
	tests := []struct {
		year int
		name string
		want time.Time
	}{
		{2024, "Good Friday", day(2024, 3, 29)},
		{2025, "Good Friday", day(2025, 4, 18)},
		{2026, "Good Friday", day(2026, 4, 3)},
		{2027, "Good Friday", day(2027, 3, 26)},
		{2038, "Good Friday", day(2038, 4, 23)},
		{2000, "Good Friday", day(2000, 4, 21)},
		{2026, "Thanksgiving", day(2026, 11, 26)},
		{2025, "Thanksgiving", day(2025, 11, 27)},
		{2024, "Thanksgiving", day(2024, 11, 28)},
		{2026, "Memorial Day", day(2026, 5, 25)},
		{2027, "Memorial Day", day(2027, 5, 31)},
		{2026, "Labor Day", day(2026, 9, 7)},
		{2026, "Martin Luther King Jr. Day", day(2026, 1, 19)},
		{2026, "Presidents Day", day(2026, 2, 16)},
		{2026, "Independence Day", day(2026, 7, 3)},
		{2021, "Independence Day", day(2021, 7, 5)},
		{2021, "Christmas", day(2021, 12, 24)},
		{2022, "Christmas", day(2022, 12, 26)},
		{2023, "New Year's Day", day(2023, 1, 2)},
		{2027, "Juneteenth", day(2027, 6, 18)},
		{2022, "New Year's Day", time.Time{}}, // Saturday: not observed
		{2021, "Juneteenth", time.Time{}},     // before CME observed it
	}
	for _, tt := range tests {
		var got time.Time
		for _, h := range Holidays(tt.year) {
			if h.Name == tt.name {
				got = h.Date
			}
		}
		if !got.Equal(tt.want) {
			t.Errorf("%s %d = %v, want %v", tt.name, tt.year, got.Format(time.DateOnly), tt.want.Format(time.DateOnly))
		}
	}
	if h, ok := HolidayOn(et(2026, 1, 19, 9, 0)); !ok || h.Closed || h.Name != "Martin Luther King Jr. Day" {
		t.Errorf("HolidayOn(MLK 2026) = %+v, %t", h, ok)
	}
	if h, ok := HolidayOn(day(2026, 11, 26)); !ok || !h.Closed {
		t.Errorf("HolidayOn(Thanksgiving 2026) = %+v, %t", h, ok)
	}
	if _, ok := HolidayOn(day(2026, 11, 27)); ok {
		t.Error("the Friday after Thanksgiving is no holiday")
	}
}

// TestTradingDayAgreesWithHolidays holds the fast per-day check equal to the
// holiday list for two centuries of dates.
func TestTradingDayAgreesWithHolidays(t *testing.T) {
	for y := 1990; y <= 2190; y++ {
		closed := map[time.Time]bool{}
		for _, h := range Holidays(y) {
			if h.Closed {
				closed[h.Date] = true
			}
			if i := h.Date.Weekday(); i == time.Saturday || i == time.Sunday {
				t.Fatalf("%s %d observed on a weekend: %v", h.Name, y, h.Date)
			}
		}
		for d := day(y, 1, 1); d.Year() == y; d = d.AddDate(0, 0, 1) {
			weekend := d.Weekday() == time.Saturday || d.Weekday() == time.Sunday
			if want := !weekend && !closed[d]; IsTradingDay(d) != want {
				t.Fatalf("IsTradingDay(%v) = %t, want %t", d.Format(time.DateOnly), !want, want)
			}
		}
	}
}

// TestSessionDateMonotonic walks a year in 15-minute steps: the session date
// never goes backwards and only ever lands on trading days.
func TestSessionDateMonotonic(t *testing.T) {
	prev := SessionDate(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	for at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC); at.Year() == 2026; at = at.Add(15 * time.Minute) {
		s := SessionDate(at)
		if s.Before(prev) {
			t.Fatalf("SessionDate went back at %v: %v after %v", at, s, prev)
		}
		if !IsTradingDay(s) {
			t.Fatalf("SessionDate(%v) = %v, not a trading day", at, s)
		}
		if MarketsOpen(at) && s.Sub(date(at.In(newYork).Date())) > 24*time.Hour {
			t.Fatalf("open at %v but session %v is more than a day ahead", at, s)
		}
		prev = s
	}
}
