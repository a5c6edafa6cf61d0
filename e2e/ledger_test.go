package e2e

import (
	"context"
	"testing"
	"time"
)

// TestLedgerJourney drives the ledger in Chromium on an offline installation: the product
// picker fills the fine weight, selling part of a lot leaves the rest on /holdings, no
// signed-in page scrolls sideways at 375 px, and the account is deleted from
// /settings/account. Screenshots of /, /holdings and /calculators/what-if at 375 and 1280 px
// go to e2e/screenshots.
func TestLedgerJourney(t *testing.T) {
	browserTools(t)
	app := serveOffline(t, e2eConfig(), true)
	runJourney(t, "ledger", app.Base, 4*time.Minute)
	if _, err := app.Store.UserByEmail(context.Background(), "ledger-e2e@example.com"); err == nil {
		t.Fatal("the account deleted in the browser still exists")
	}
}
