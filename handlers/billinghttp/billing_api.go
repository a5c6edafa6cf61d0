package billinghttp

import (
	"net/http"
	"time"

	"github.com/ouncehq/ounce/handlers/kit"

	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/internal/billing"
)

// CheckoutJSON is the body of a created checkout session.
type CheckoutJSON struct {
	ID  string `json:"id"`
	URL string `json:"url"`
}

// MembershipJSON is the body of POST /v1/payment/verify-session.
type MembershipJSON struct {
	Tier              string     `json:"tier"`
	Status            string     `json:"status"`
	Plan              string     `json:"plan"`
	CurrentPeriodEnd  *time.Time `json:"current_period_end"`
	CancelAtPeriodEnd bool       `json:"cancel_at_period_end"`
	GraceUntil        *time.Time `json:"grace_until"`
	Checkout          string     `json:"checkout"`
}

// WebhookJSON acknowledges a Stripe delivery.
type WebhookJSON struct {
	Received  bool   `json:"received"`
	Duplicate bool   `json:"duplicate"`
	Outcome   string `json:"outcome"`
}

// timeOrNull renders a zero time as JSON null.
func timeOrNull(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	t = t.UTC()
	return &t
}

func verificationJSON(v billing.Verification) MembershipJSON {
	return MembershipJSON{Tier: v.Tier, Status: v.Status, Plan: v.Plan, CurrentPeriodEnd: timeOrNull(v.CurrentPeriodEnd),
		CancelAtPeriodEnd: v.CancelAtPeriodEnd, GraceUntil: timeOrNull(v.GraceUntil), Checkout: v.Checkout}
}

// APICheckoutCreate answers POST /v1/payment/create-checkout-session.
func (h *Handlers) APICheckoutCreate(c *fiber.Ctx) error {
	u, err := kit.RequireUser(c)
	if err != nil {
		return err
	}
	if err := h.billing.RequireEnabled(); err != nil {
		return err
	}
	in, err := billing.ParseCheckoutJSON(c.Body())
	if err != nil {
		return err
	}
	co, err := h.billing.CreateCheckout(h.Ctx(c), u, in)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	return kit.WriteJSON(c, http.StatusCreated, CheckoutJSON{ID: co.ID, URL: co.URL})
}

// APICheckoutVerify answers POST /v1/payment/verify-session.
func (h *Handlers) APICheckoutVerify(c *fiber.Ctx) error {
	u, err := kit.RequireUser(c)
	if err != nil {
		return err
	}
	if err := h.billing.RequireEnabled(); err != nil {
		return err
	}
	id, err := billing.ParseVerifyJSON(c.Body())
	if err != nil {
		return err
	}
	v, err := h.billing.VerifySession(h.Ctx(c), u, id)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	return kit.WriteJSON(c, http.StatusOK, verificationJSON(v))
}

// APIBillingPortal answers POST /v1/payment/portal.
func (h *Handlers) APIBillingPortal(c *fiber.Ctx) error {
	u, err := kit.RequireUser(c)
	if err != nil {
		return err
	}
	url, err := h.billing.Portal(h.Ctx(c), u)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	return kit.WriteJSON(c, http.StatusOK, fiber.Map{"url": url})
}

// APIPaymentWebhook answers POST /v1/webhooks/payment: the raw body and Stripe-Signature go to
// the service untouched (the signature covers the exact bytes).
func (h *Handlers) APIPaymentWebhook(c *fiber.Ctx) error {
	res, err := h.billing.HandleWebhook(h.Ctx(c), c.Body(), c.Get("Stripe-Signature"))
	if err != nil {
		return err
	}
	return kit.WriteJSON(c, http.StatusOK, WebhookJSON{Received: true, Duplicate: res.Duplicate, Outcome: res.Outcome})
}
