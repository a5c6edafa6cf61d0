package e2e

import (
	"context"
	"testing"
	"time"
)

// TestDealersJourney drives /dealers in Chromium on an offline installation: demo quotes and
// their labels, filters, sorting, the lazily loaded premium-history chart, the click-through
// redirect, the add-to-holdings link, no sideways scrolling on a phone, and screenshots at
// 375 and 1280 px in light and dark (in e2e/screenshots).
func TestDealersJourney(t *testing.T) {
	browserTools(t)
	app := serveOffline(t, e2eConfig(), true)
	runJourney(t, "dealers", app.Base, 3*time.Minute)
	clicks, err := app.Store.DealerClicks(context.Background(), time.Time{})
	if err != nil || len(clicks) != 1 || clicks[0].Via != "web" {
		t.Fatalf("the journey's click was not logged: %+v %v", clicks, err)
	}
}
