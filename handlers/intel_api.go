package handlers

import (
	"net/http"

	"github.com/gofiber/fiber/v2"
)

// APIMarketIntel answers GET /v1/market-intel.
func (h *Handlers) APIMarketIntel(c *fiber.Ctx) error {
	p, err := h.MarketIntel(h.ctx(c), c.Query("limit"), c.Query("category"), c.Query("metal"))
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, p)
}

// APIStackSignal answers GET /v1/stack-signal.
func (h *Handlers) APIStackSignal(c *fiber.Ctx) error {
	p, err := h.StackSignal(h.ctx(c), c.Query("limit"), c.Query("offset"), c.Query("category"))
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, p)
}

// APIStackSignalLatest answers GET /v1/stack-signal/latest.
func (h *Handlers) APIStackSignalLatest(c *fiber.Ctx) error {
	a, err := h.LatestSynthesis(h.ctx(c))
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, fiber.Map{"article": a})
}

// APIStackSignalArticle answers GET /v1/stack-signal/{slug}.
func (h *Handlers) APIStackSignalArticle(c *fiber.Ctx) error {
	a, err := h.StackSignalArticle(h.ctx(c), c.Params("slug"))
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, fiber.Map{"article": a})
}

// APIIntelGenerate answers POST /v1/intelligence/generate (administrators only).
func (h *Handlers) APIIntelGenerate(c *fiber.Ctx) error {
	if _, err := requireUser(c); err != nil {
		return err
	}
	res, err := h.RunIntel(h.ctx(c), generateLLMBudget)
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, res)
}

// APIVaultWatch answers GET /v1/vault-watch.
func (h *Handlers) APIVaultWatch(c *fiber.Ctx) error {
	v, err := h.VaultWatch(h.ctx(c), c.Query("metal"), c.Query("days"))
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, v)
}
