package e2e

import (
	"testing"
	"time"
)

// TestEveryPageChecked runs axe-core and html-validate over every page, signed out and in, at
// 375 and 1280 px, and screenshots each into e2e/screenshots/pages (see pages.mjs).
func TestEveryPageChecked(t *testing.T) {
	browserTools(t)
	app := serveOffline(t, e2eConfig(), true)
	runJourney(t, "pages", app.Base, 10*time.Minute)
}
