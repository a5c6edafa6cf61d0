// Package receiptshttp adapts receipt scanning to HTTP: reading a dealer's receipt into proposed holdings and confirming them under /v1, and the scan page.
package receiptshttp

import (
	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/receipts"
)

// Handlers are the area's adapters over its service, sharing the server's kit.Base.
type Handlers struct {
	*kit.Base
	// NoExtras answers nil for the Area methods this area has nothing for.
	kit.NoExtras
	receipts *receipts.Service
}

// New builds the area's adapters.
func New(b *kit.Base, receipts *receipts.Service) *Handlers {
	return &Handlers{Base: b, receipts: receipts}
}
