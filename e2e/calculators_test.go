package e2e

import (
	"testing"
	"time"
)

// TestJunkSilverJourney drives the junk-silver calculator in Chromium: a count shows its melt
// value, and a count the server refuses (10.5, −5, "ten") clears it and names the field.
func TestJunkSilverJourney(t *testing.T) {
	browserTools(t)
	app := serveOffline(t, e2eConfig(), true)
	runJourney(t, "calculators", app.Base, 2*time.Minute)
}
