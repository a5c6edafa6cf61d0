package handlers

import (
	"github.com/ouncehq/ounce/internal/comex"
	"github.com/ouncehq/ounce/internal/intel"
)

// Intel returns the market-intelligence service (first-start seeding, runs, articles).
func (h *Handlers) Intel() *intel.Service { return h.intel }

// Vault returns the Vault Watch service (workbook imports, open interest).
func (h *Handlers) Vault() *comex.Service { return h.vault }
