package handlers

import "github.com/gofiber/fiber/v2"

// portfolioRoutes are the /v1 portfolio, analytics, sales and import/export routes.
func (h *Handlers) portfolioRoutes() []APIRoute { return nil }

// portfolioPages are the dashboard's own browser routes (import page and fragments).
func (h *Handlers) portfolioPages() []PageRoute { return nil }

// dashboard renders the signed-in member's dashboard at "/"; handled is false when the
// visitor should see the public markets page instead.
func (h *Handlers) dashboard(c *fiber.Ctx) (handled bool, err error) { return false, nil }
