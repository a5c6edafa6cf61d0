// Package wallclock is the time a service reads: the wall clock, unless its caller (a test, a
// replay) gives one of its own.
package wallclock

import "time"

// Or is now, or the wall clock when no clock was given (now is nil).
func Or(now func() time.Time) func() time.Time {
	if now == nil {
		return time.Now
	}
	return now
}
