// Package socialhttp adapts Stack Signal's readers to HTTP: the article page with its views, likes and comments, under /v1 and in the browser.
package socialhttp

import (
	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/intel"
	"github.com/ouncehq/ounce/internal/social"
)

// Handlers are the area's adapters over its service, sharing the server's kit.Base.
type Handlers struct {
	*kit.Base
	// NoExtras answers nil for the Area methods this area has nothing for.
	kit.NoExtras
	social *social.Service
	intel  *intel.Service
}

// New builds the area's adapters.
func New(b *kit.Base, social *social.Service, intel *intel.Service) *Handlers {
	return &Handlers{Base: b, social: social, intel: intel}
}
