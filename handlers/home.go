package handlers

import (
	"net/http"

	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/views/pages"
)

// Home is "/": a signed-in member's dashboard, otherwise the public landing page.
func (h *Handlers) Home(c *fiber.Ctx) error {
	if handled, err := h.dashboard(c); handled || err != nil {
		return err
	}
	_, signedIn := UserFrom(c)
	v, err := h.marketsView(c, !signedIn)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, pages.Markets(h.meta(c, "", "markets"), v))
}
