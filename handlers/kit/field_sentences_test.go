package kit

import (
	"testing"

	"github.com/ouncehq/ounce/internal/apperr"
)

func TestFieldSentences(t *testing.T) {
	got := FieldSentences([]apperr.FieldError{{Field: "quantity", Message: "must be 1 or more"}, {Field: "sold_on", Message: "must be a date like 2025-05-09"}})
	if len(got) != 2 {
		t.Fatalf("got %d fields, want 2: %v", len(got), got)
	}
	for field, msg := range map[string]string{"quantity": "must be 1 or more", "sold_on": "must be a date like 2025-05-09"} {
		if want := FieldSentence(field, msg); got[field] != want {
			t.Errorf("%s: got %q, want %q", field, got[field], want)
		}
	}
	// A form without errors still gets a map its page can read and write.
	if none := FieldSentences(nil); none == nil || len(none) != 0 {
		t.Errorf("no errors: got %#v, want an empty map", none)
	}
}
