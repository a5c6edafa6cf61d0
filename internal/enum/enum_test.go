package enum

import (
	"slices"
	"testing"
)

type color string

func TestStrings(t *testing.T) {
	got := Strings([]color{"red", "green"})
	if !slices.Equal(got, []string{"red", "green"}) {
		t.Fatalf("Strings = %v, want [red green]", got)
	}
	if got := Strings([]color{}); got == nil || len(got) != 0 {
		t.Fatalf("Strings of none = %#v, want an empty slice", got)
	}
}
