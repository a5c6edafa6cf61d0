// Package accounthttp adapts membership to HTTP: sign-up, sign-in and sign-out, the account settings, and API keys on the developer page.
package accounthttp

import (
	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/mail"
)

// Handlers are the area's adapters over its service, sharing the server's kit.Base.
type Handlers struct {
	*kit.Base
	// NoExtras answers nil for the Area methods this area has nothing for.
	kit.NoExtras
	account *account.Service
	mail    *mail.Service
}

// New builds the area's adapters.
func New(b *kit.Base, account *account.Service) *Handlers {
	return &Handlers{Base: b, account: account, mail: mail.New(mail.Deps{})}
}
