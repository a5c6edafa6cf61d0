package custody

import "testing"

// TestSafeEntry: only relative, clean names inside the archive are read.
func TestSafeEntry(t *testing.T) {
	for name, want := range map[string]bool{
		"holdings.csv":           true,
		"documents/1/1-a.pdf":    true,
		"documents/":             true,
		"../etc/passwd":          false,
		"documents/../../x":      false,
		"documents/1/..":         false,
		"/etc/passwd":            false,
		`documents\..\x`:         false,
		"documents//1/a.pdf":     false,
		"./holdings.csv":         false,
		"documents/1/a.pdf\x00x": false,
		"":                       false,
	} {
		if got := safeEntry(name); got != want {
			t.Errorf("safeEntry(%q) = %v, want %v", name, got, want)
		}
	}
}
