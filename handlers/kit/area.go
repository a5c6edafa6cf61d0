package kit

import (
	"context"

	"github.com/ouncehq/ounce/internal/account"
)

// Area is what one handlers/<area>http package contributes to the server. Each such package
// exports one value implementing it (its *Handlers, built by its New over its service), and
// the composition root (internal/app) lists that value once; handlers.New assembles every
// route table, the OpenAPI document, llms.txt and the MCP tools from the list, in list order.
// A method an area has nothing for returns nil (embedding NoExtras says so once). The list order is the match order: an area
// whose fixed paths (/v1/holdings/export) must win over another's patterns comes first.
type Area interface {
	// APIRoutes are the area's /v1 routes (paths, auth, OpenAPI description).
	APIRoutes() []APIRoute
	// PageRoutes are the area's browser pages and form endpoints.
	PageRoutes() []PageRoute
	// MCPTools are the tools it offers over MCP.
	MCPTools() []MCPTool
	// OpenAPIComponents are the named schemas its routes refer to ($ref), for the OpenAPI
	// components.
	OpenAPIComponents() map[string]Schema
	// OpenAPITags describe the OpenAPI tags its routes use (name → description).
	OpenAPITags() map[string]string
}

// NoExtras gives an area the nil answers of the Area methods it has nothing for: embedded in
// its Handlers, it stands for "no pages", "no MCP tools", "no component schemas of its own"
// and "no tag descriptions" until the area declares its own method, which takes precedence.
type NoExtras struct{}

// PageRoutes: no browser pages.
func (NoExtras) PageRoutes() []PageRoute { return nil }

// MCPTools: no MCP tools.
func (NoExtras) MCPTools() []MCPTool { return nil }

// OpenAPIComponents: no named schemas of its own.
func (NoExtras) OpenAPIComponents() map[string]Schema { return nil }

// OpenAPITags: its tags carry no description (or another area describes them).
func (NoExtras) OpenAPITags() map[string]string { return nil }

// Authenticator is the one area that knows who a request comes from (accounthttp): the member
// of a browser session, and the owner of a bearer API key (and which key a member has). handlers.New takes it from the
// area list, and web asks it through the assembled handlers.
type Authenticator interface {
	// SessionUser is the signed-in member of a browser session's context, if any.
	SessionUser(ctx context.Context) (account.User, bool)
	// AuthenticateKey resolves a bearer secret to its member and key id; every failure is the
	// same Unauthorized error.
	AuthenticateKey(ctx context.Context, secret string) (account.KeyOwner, error)
	// ActiveKeyPrefix is the prefix of the member's first unrevoked API key ("" for none),
	// which the API reference shows in its examples.
	ActiveKeyPrefix(ctx context.Context, u account.User) string
}
