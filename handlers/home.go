package handlers

import (
	"net/http"

	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/views/pages"
)

// Home is "/": a Gold member's dashboard, otherwise the public markets page (free members
// included: the dashboard is a Gold feature, and "/" must answer everyone).
func (h *Handlers) Home(c *fiber.Ctx) error {
	u, signedIn := UserFrom(c)
	if signedIn && u.IsGold() {
		return h.DashboardPage(c)
	}
	v, err := h.marketsView(c, !signedIn)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, pages.Markets(h.meta(c, "", "markets"), v))
}
