// Package handlers assembles the adapters of every area (handlers/<area>http, each over its
// service in internal/<area>) into the two route tables the web layer serves, pages and /v1;
// it generates the OpenAPI document, llms.txt, the plugin and MCP manifests and serves MCP,
// all from the same route tables. The areas come from the composition root (internal/app),
// as one list of kit.Area values.
package handlers

import (
	"context"
	"fmt"

	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/views/pages"
)

// Home is what "/" shows, the one page that spans areas: a Gold member's dashboard, or the
// markets page for everyone else. The composition root takes both from their areas.
type Home struct {
	// Dashboard answers a Gold member (portfoliohttp).
	Dashboard fiber.Handler
	// Markets is the public markets page's view; hero adds the introduction for visitors
	// (priceshttp).
	Markets func(c *fiber.Ctx, hero bool) (pages.MarketsView, error)
}

// Handlers is the one value every route hangs off: the areas' adapters, assembled.
type Handlers struct {
	*kit.Base
	home  Home
	areas []kit.Area
	// auth is the area that knows who a request comes from (accounthttp).
	auth kit.Authenticator
}

// New assembles the areas, in list order (the order routes match in). Exactly one area must
// be the kit.Authenticator (accounthttp); New panics otherwise, as it is a wiring mistake.
func New(base *kit.Base, home Home, areas []kit.Area) *Handlers {
	h := &Handlers{Base: base, home: home, areas: areas}
	for _, a := range areas {
		if au, ok := a.(kit.Authenticator); ok {
			if h.auth != nil {
				panic("handlers.New: two areas are the kit.Authenticator")
			}
			h.auth = au
		}
	}
	if h.auth == nil {
		panic(fmt.Sprintf("handlers.New: none of the %d areas is the kit.Authenticator (accounthttp)", len(areas)))
	}
	return h
}

// SessionUser loads the signed-in member of a browser request, if any (the web layer's
// session middleware asks).
func (h *Handlers) SessionUser(ctx context.Context) (account.User, bool) {
	return h.auth.SessionUser(ctx)
}

// AuthenticateKey resolves a bearer secret to its key and member (the web layer's /v1 check).
func (h *Handlers) AuthenticateKey(ctx context.Context, secret string) (account.KeyOwner, error) {
	return h.auth.AuthenticateKey(ctx, secret)
}
