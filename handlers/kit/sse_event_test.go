package kit

import "testing"

// Every line of an event's data gets its own data field; a blank line ends the event.
func TestSSEEventSplitsLines(t *testing.T) {
	if got, want := SSEEvent("prices", "<p>\n</p>"), "event: prices\ndata: <p>\ndata: </p>\n\n"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	if got, want := SSEEvent("unread", "3"), "event: unread\ndata: 3\n\n"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}
