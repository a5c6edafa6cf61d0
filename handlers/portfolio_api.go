package handlers

import (
	"net/http"

	"github.com/gofiber/fiber/v2"
)

// APIPortfolio answers GET /v1/portfolio.
func (h *Handlers) APIPortfolio(c *fiber.Ctx) error {
	u, err := requireUser(c)
	if err != nil {
		return err
	}
	out, err := h.Portfolio(h.ctx(c), u)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "private, no-store")
	return writeJSON(c, http.StatusOK, out)
}

// APIAnalytics answers GET /v1/analytics.
func (h *Handlers) APIAnalytics(c *fiber.Ctx) error {
	u, err := requireUser(c)
	if err != nil {
		return err
	}
	out, err := h.Analytics(h.ctx(c), u)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "private, no-store")
	return writeJSON(c, http.StatusOK, out)
}

// APIPortfolioHistory answers GET /v1/portfolio/history.
func (h *Handlers) APIPortfolioHistory(c *fiber.Ctx) error {
	u, err := requireUser(c)
	if err != nil {
		return err
	}
	out, err := h.PortfolioHistory(h.ctx(c), u, c.Query("range"))
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "private, no-store")
	return writeJSON(c, http.StatusOK, out)
}
