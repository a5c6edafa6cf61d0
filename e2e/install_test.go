package e2e

import (
	"testing"
	"time"
)

// TestInstallJourney installs Ounce in a phone-sized Chromium: manifest, service worker, the
// phone menu, and the offline page and read-only dashboard with the network gone.
func TestInstallJourney(t *testing.T) {
	browserTools(t)
	app := serveOffline(t, e2eConfig(), true)
	runJourney(t, "install", app.Base, 3*time.Minute)
}
