// Package e2e drives the real app in a real browser: a Go test serves Ounce on loopback and
// runs the playwright-core journey in browser.mjs against Debian's Chromium.
package e2e

import (
	"testing"
	"time"

	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/app"
	"github.com/ouncehq/ounce/web"
)

func TestBrowserJourney(t *testing.T) {
	// Never a skip: `make test` installs the tools (.ci/tools); without them this is a failure
	// that says what is missing.
	browserTools(t)
	app := serveOffline(t, e2eConfig(), true)
	runJourney(t, "browser", app.Base, 3*time.Minute)
}

// e2eConfig is an offline gold-by-default installation with generous limits.
func e2eConfig() app.Config {
	cfg := app.Config{Site: kit.Site{BaseURL: "http://127.0.0.1", Version: "e2e"},
		HTTP: web.HTTPConfig{RateLimitPerKey: 1000, RateLimitPerIP: 1000}, Account: account.Config{NewUsersGold: true}}
	cfg.SetOffline(true)
	return cfg
}
