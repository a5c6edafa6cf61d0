package e2e

import (
	"testing"
	"time"
)

// TestJunkSilverJourney drives the junk-silver calculator in Chromium: a count shows its melt
// value, and a count the server refuses (10.5, −5, "ten") clears it and names the field; at
// 375 px every what-if preset is at least 44 px tall and applies its targets.
func TestJunkSilverJourney(t *testing.T) {
	browserTools(t)
	app := serveOffline(t, e2eConfig(), true)
	runJourney(t, "calculators", app.Base, 2*time.Minute)
}
