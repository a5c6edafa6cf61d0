package e2e

import (
	"context"
	"testing"
	"time"
)

// TestSocialJourney: two members like and comment on a Stack Signal article in Chromium,
// through HTMX and by keyboard; hostile comments stay text; the article page is photographed
// at 375 and 1280 px, light and dark.
func TestSocialJourney(t *testing.T) {
	browserTools(t)
	app := serveOffline(t, e2eConfig(), true)
	// The demo articles a first start writes.
	if err := app.App.Intel.EnsureSeed(context.Background()); err != nil {
		t.Fatal(err)
	}
	runJourney(t, "social", app.Base, 3*time.Minute)
}
