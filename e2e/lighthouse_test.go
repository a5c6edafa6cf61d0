package e2e

import (
	"testing"
	"time"
)

// TestLighthouseScores runs Lighthouse (mobile) on the signed-in dashboard, /markets and /signal:
// accessibility ≥ 98, performance ≥ 95, layout shift < 0.05 (see lighthouse.mjs).
func TestLighthouseScores(t *testing.T) {
	browserTools(t)
	app := serveOffline(t, e2eConfig(), true)
	runJourney(t, "lighthouse", app.Base, 6*time.Minute)
}
