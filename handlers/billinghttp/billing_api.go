package billinghttp

import (
	"net/http"
	"time"

	"github.com/ouncehq/ounce/handlers/kit"

	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/billing"
)

// CheckoutJSON is the body of a created checkout session.
type CheckoutJSON struct {
	ID  string `json:"id" doc:"Checkout session id (cs_…)."`
	URL string `json:"url" doc:"Stripe's checkout page."`
}

// MembershipJSON is the body of POST /v1/payment/verify-session.
type MembershipJSON struct {
	Tier              string     `json:"tier" schema:"enum=free|gold" doc:"Your tier after verification."`
	Status            string     `json:"status" doc:"Stripe status of your subscription (active, trialing, past_due, canceled…), or none."`
	Plan              string     `json:"plan" schema:"enum=PlansOrNone" doc:"The plan of that subscription, when known."`
	CurrentPeriodEnd  *time.Time `json:"current_period_end" doc:"End of the paid period: the renewal date, or the end date when the subscription is set to cancel."`
	CancelAtPeriodEnd bool       `json:"cancel_at_period_end"`
	GraceUntil        *time.Time `json:"grace_until" doc:"For past_due: Gold is kept until this time (end of period + 3 days)."`
	Checkout          string     `json:"checkout" doc:"The checkout session's status at Stripe: open (not paid yet), complete or expired."`
}

// WebhookJSON acknowledges a Stripe delivery.
// PortalJSON answers POST /v1/payment/portal.
type PortalJSON struct {
	URL string `json:"url"`
}

// CheckoutBodyJSON documents the body of POST /v1/payment/create-checkout-session
// (billing.ParseCheckoutJSON reads it).
type CheckoutBodyJSON struct {
	Plan string `json:"plan" schema:"enum=Plans"`
}

// VerifyBodyJSON documents the body of POST /v1/payment/verify-session
// (billing.ParseVerifyJSON reads it).
type VerifyBodyJSON struct {
	SessionID string `json:"session_id" schema:"pattern=^cs_[A-Za-z0-9_]+$,maxLength=MaxIDLength"`
}

// WebhookJSON answers the webhook.
type WebhookJSON struct {
	Received  bool   `json:"received"`
	Duplicate bool   `json:"duplicate"`
	Outcome   string `json:"outcome"`
}

func verificationJSON(v billing.Verification) MembershipJSON {
	return MembershipJSON{Tier: v.Tier, Status: v.Status, Plan: v.Plan, CurrentPeriodEnd: kit.AsOfOrNull(v.CurrentPeriodEnd),
		CancelAtPeriodEnd: v.CancelAtPeriodEnd, GraceUntil: kit.AsOfOrNull(v.GraceUntil), Checkout: v.Checkout}
}

// payingMember is the member of a payment route, once payments are known to be enabled.
func (h *Handlers) payingMember(c *fiber.Ctx) (account.User, error) {
	u, err := kit.RequireUser(c)
	if err != nil {
		return u, err
	}
	return u, h.billing.RequireEnabled()
}

// APICheckoutCreate answers POST /v1/payment/create-checkout-session.
func (h *Handlers) APICheckoutCreate(c *fiber.Ctx) error {
	return payingJSON(h, c, http.StatusCreated, billing.ParseCheckoutJSON, func(u account.User, in billing.CheckoutInput) (CheckoutJSON, error) {
		co, err := h.billing.CreateCheckout(h.Ctx(c), u, in)
		return CheckoutJSON{ID: co.ID, URL: co.URL}, err
	})
}

// payingJSON answers a payment route: call acts for the paying member on the body parse
// reads, and its answer is never stored by a cache.
func payingJSON[In, T any](h *Handlers, c *fiber.Ctx, status int, parse func([]byte) (In, error), call func(account.User, In) (T, error)) error {
	u, err := h.payingMember(c)
	if err != nil {
		return err
	}
	in, err := parse(c.Body())
	if err != nil {
		return err
	}
	out, err := call(u, in)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	return kit.WriteJSON(c, status, out)
}

// APICheckoutVerify answers POST /v1/payment/verify-session.
func (h *Handlers) APICheckoutVerify(c *fiber.Ctx) error {
	return payingJSON(h, c, http.StatusOK, billing.ParseVerifyJSON, func(u account.User, id string) (MembershipJSON, error) {
		v, err := h.billing.VerifySession(h.Ctx(c), u, id)
		if err != nil {
			return MembershipJSON{}, err
		}
		return verificationJSON(v), nil
	})
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
	return kit.WriteJSON(c, http.StatusOK, PortalJSON{URL: url})
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
