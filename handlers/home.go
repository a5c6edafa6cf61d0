package handlers

import (
	"net/http"

	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/account"

	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/views/pages"
)

// Home is "/": a Gold member's dashboard, otherwise the public markets page (free members
// included: the dashboard is a Gold feature, and "/" must answer everyone).
func (h *Handlers) Home(c *fiber.Ctx) error {
	u, signedIn := kit.UserFrom(c)
	if signedIn && account.IsGold(u) {
		return h.home.Dashboard(c)
	}
	v, err := h.home.Markets(c, !signedIn)
	if err != nil {
		return err
	}
	return kit.Render(c, http.StatusOK, pages.Markets(h.Meta(c, "", "markets").Describe("Spot prices for gold, silver, platinum and palladium, 75 years of price history, and a portfolio tracker for people who stack physical metal."), v))
}
