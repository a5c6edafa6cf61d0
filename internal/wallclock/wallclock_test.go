package wallclock

import (
	"testing"
	"time"
)

func TestOr(t *testing.T) {
	fixed := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	if got := Or(func() time.Time { return fixed })(); !got.Equal(fixed) {
		t.Fatalf("Or(given)() = %v, want the given clock's %v", got, fixed)
	}
	before := time.Now()
	got := Or(nil)()
	if got.Before(before) || got.After(time.Now()) {
		t.Fatalf("Or(nil)() = %v, want the wall clock's time", got)
	}
}
