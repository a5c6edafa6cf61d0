package accounthttp

import (
	"context"

	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/account"
)

// *Handlers is this area's one value of the kit.Area contract: internal/app builds it with New
// and lists it once; handlers.New assembles every area's routes, schemas and tools.
var _ kit.Area = (*Handlers)(nil)

// accounthttp is also the kit.Authenticator: it knows who a request comes from.
var _ kit.Authenticator = (*Handlers)(nil)

// AuthenticateKey resolves a bearer secret to its key and member (the web layer's /v1 check
// and the MCP endpoint ask).
func (h *Handlers) AuthenticateKey(ctx context.Context, secret string) (account.KeyOwner, error) {
	return h.account.AuthenticateKey(ctx, secret)
}

// ActiveKeyPrefix is the prefix of u's first unrevoked API key, "" for none (the API
// reference's examples).
func (h *Handlers) ActiveKeyPrefix(ctx context.Context, u account.User) string {
	keys, err := h.account.APIKeys(ctx, u)
	if err != nil {
		return ""
	}
	for _, k := range keys {
		if k.RevokedAt == nil {
			return k.Prefix
		}
	}
	return ""
}
