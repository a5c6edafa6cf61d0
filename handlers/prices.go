package handlers

// pricesRoutes are the /v1 spot price and history routes.
func (h *Handlers) pricesRoutes() []APIRoute { return nil }

// calculatorRoutes are the /v1 junk-silver and what-if routes.
func (h *Handlers) calculatorRoutes() []APIRoute { return nil }

// pricePages are the markets and calculator pages.
func (h *Handlers) pricePages() []PageRoute { return nil }
