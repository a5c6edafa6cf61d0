package job

import (
	"testing"
	"time"
)

func TestOutboxBackoff(t *testing.T) {
	want := []time.Duration{30 * time.Second, 90 * time.Second, 270 * time.Second, 810 * time.Second, 2430 * time.Second}
	var total time.Duration
	for i, w := range want {
		if got := OutboxBackoff(i + 1); got != w {
			t.Fatalf("OutboxBackoff(%d) = %v, want %v", i+1, got, w)
		}
		total += w
	}
	if len(want) != OutboxAttempts-1 || total != 3630*time.Second {
		t.Fatalf("%d waits of %v in all between %d attempts, want five waits of an hour and 30 s", len(want), total, OutboxAttempts)
	}
}
