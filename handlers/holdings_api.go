package handlers

import (
	"net/http"

	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/db"
)

// requireUser returns the bearer-authenticated user; the web middleware guarantees one on
// protected routes, so a missing user is a wiring bug reported as 401.
func requireUser(c *fiber.Ctx) (u db.User, err error) {
	u, ok := UserFrom(c)
	if !ok {
		return u, NewProblem(http.StatusUnauthorized, ProbUnauthorized, "send Authorization: Bearer <API key>")
	}
	return u, nil
}

// APIHoldingsList answers GET /v1/holdings.
func (h *Handlers) APIHoldingsList(c *fiber.Ctx) error {
	u, err := requireUser(c)
	if err != nil {
		return err
	}
	limit, err := queryInt(c, "limit", 50, 1, 200)
	if err != nil {
		return err
	}
	offset, err := queryInt(c, "offset", 0, 0, 1<<31-1)
	if err != nil {
		return err
	}
	p, err := h.ListHoldings(h.ctx(c), u, c.Query("metal"), limit, offset)
	if err != nil {
		return err
	}
	items := make([]HoldingJSON, len(p.Holdings))
	for i, x := range p.Holdings {
		items[i] = HoldingToJSON(x)
	}
	return writeJSON(c, http.StatusOK, fiber.Map{"holdings": items, "limit": p.Limit, "offset": p.Offset, "total": p.Total})
}

// APIHoldingsCreate answers POST /v1/holdings.
func (h *Handlers) APIHoldingsCreate(c *fiber.Ctx) error {
	u, err := requireUser(c)
	if err != nil {
		return err
	}
	in, err := ParseHoldingJSON(c.Body())
	if err != nil {
		return err
	}
	hold, err := h.CreateHolding(h.ctx(c), u, in)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderLocation, "/v1/holdings/"+hold.ID)
	return writeJSON(c, http.StatusCreated, HoldingToJSON(hold))
}

// APIHoldingsGet answers GET /v1/holdings/{id}.
func (h *Handlers) APIHoldingsGet(c *fiber.Ctx) error {
	u, err := requireUser(c)
	if err != nil {
		return err
	}
	hold, err := h.GetHolding(h.ctx(c), u, c.Params("id"))
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, HoldingToJSON(hold))
}

// APIHoldingsUpdate answers PATCH /v1/holdings/{id}.
func (h *Handlers) APIHoldingsUpdate(c *fiber.Ctx) error {
	u, err := requireUser(c)
	if err != nil {
		return err
	}
	in, err := ParseHoldingJSON(c.Body())
	if err != nil {
		return err
	}
	hold, err := h.UpdateHolding(h.ctx(c), u, c.Params("id"), in)
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, HoldingToJSON(hold))
}

// APIHoldingsDelete answers DELETE /v1/holdings/{id}.
func (h *Handlers) APIHoldingsDelete(c *fiber.Ctx) error {
	u, err := requireUser(c)
	if err != nil {
		return err
	}
	if err := h.DeleteHolding(h.ctx(c), u, c.Params("id")); err != nil {
		return err
	}
	return c.SendStatus(http.StatusNoContent)
}
