package custodyhttp

import "github.com/ouncehq/ounce/handlers/kit"

func (h *Handlers) pageRoutes() []kit.PageRoute { return nil }
