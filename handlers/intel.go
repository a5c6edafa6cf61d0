package handlers

import "context"

// intelRoutes are the /v1 market-intel, Stack Signal and generation routes.
func (h *Handlers) intelRoutes() []APIRoute { return nil }

// vaultRoutes are the /v1 Vault Watch routes.
func (h *Handlers) vaultRoutes() []APIRoute { return nil }

// intelPages are the Stack Signal, market-intel and Vault Watch pages.
func (h *Handlers) intelPages() []PageRoute { return nil }

// intelJobs are the ingestion and writing schedulers.
func (h *Handlers) intelJobs() []func(ctx context.Context) { return nil }
