package billinghttp

import (
	"strings"

	"github.com/ouncehq/ounce/handlers/kit"

	"github.com/ouncehq/ounce/internal/billing"
)

// APIRoutes are the /v1 billing routes: checkout, verification, the customer portal and
// Stripe's webhook. Without Stripe configured each answers 503 "billing is not configured".
func (h *Handlers) APIRoutes() []kit.APIRoute {
	unconfigured := kit.Response{Status: 503, Description: "Billing is not configured on this server (type /problems/unavailable), or Stripe did not answer."}
	return []kit.APIRoute{
		{Method: "POST", Path: "/v1/payment/create-checkout-session", Auth: kit.AuthMember, Handler: h.APICheckoutCreate, OperationID: "createCheckoutSession", Tag: "Billing",
			Summary:     "Start a Stripe Checkout for Gold membership",
			Description: "Creates a subscription checkout for the plan: your Stripe customer is created on the first checkout and reused after. Send the member to url; Stripe returns them to /settings/billing?session_id=… (which verifies the session) or, if they cancel, to /settings/billing. Gold is granted when Stripe confirms payment (webhook or verify-session), never by this call.",
			Body:        billingSchema(CheckoutBodyJSON{}),
			Responses: []kit.Response{
				{Status: 201, Description: "The checkout session.", Schema: billingSchema(CheckoutJSON{})},
				{Status: 409, Description: "Your account already has Gold membership."},
				kit.BodyTooLarge(billing.MaxRequestBytes),
				unconfigured,
			},
			Example: `POST /v1/payment/create-checkout-session {"plan":"monthly"}`},
		{Method: "POST", Path: "/v1/payment/verify-session", Auth: kit.AuthMember, Handler: h.APICheckoutVerify, OperationID: "verifyCheckoutSession", Tag: "Billing",
			Summary:     "Verify a finished checkout and get your membership",
			Description: "Retrieves the session from Stripe — only a session this server opened for you (POST /v1/payment/create-checkout-session or the billing page), and only until Stripe has answered for it once; after that the answer is your membership as stored, with the checkout status Stripe gave then. Gold is granted only when the session is yours (its client_reference_id is your account), complete, and its subscription is active or trialing. A session of a subscription canceled since grants nothing. Sessions still open, or that Stripe could not be asked about, may be checked again, at most 10 look-ups an hour.",
			Body:        billingSchema(VerifyBodyJSON{}),
			Responses: []kit.Response{
				{Status: 200, Description: "Your membership after verification.", Schema: billingSchema(MembershipJSON{})},
				{Status: 403, Description: "The session belongs to another account."},
				{Status: 404, Description: "You opened no checkout session with this id here (or Stripe knows none)."},
				{Status: 429, Description: "Over 10 look-ups at Stripe in an hour; Retry-After says when to try again."},
				kit.BodyTooLarge(billing.MaxRequestBytes),
				unconfigured,
			},
			Example: `POST /v1/payment/verify-session {"session_id":"cs_test_a1b2c3"}`},
		{Method: "POST", Path: "/v1/payment/portal", Auth: kit.AuthMember, Handler: h.APIBillingPortal, OperationID: "createBillingPortalSession", Tag: "Billing",
			Summary:     "Open Stripe's customer portal",
			Description: "The portal changes plan or card, shows invoices and cancels. It needs a Stripe customer, which your first checkout creates.",
			Responses: []kit.Response{
				{Status: 200, Description: "The portal address (valid for a short while).", Schema: billingSchema(PortalJSON{})},
				{Status: 409, Description: "You have no billing account yet: upgrade first."},
				unconfigured,
			},
			Example: "POST /v1/payment/portal"},
		{Method: "POST", Path: "/v1/webhooks/payment", Auth: kit.AuthNone, Handler: h.APIPaymentWebhook, OperationID: "paymentWebhook", Tag: "Billing", SignedBody: true,
			Summary: "Stripe's webhook receiver",
			Description: "For Stripe only. The Stripe-Signature header must sign the raw body with the endpoint's secret and be at most 300 seconds old; otherwise 400 and nothing changes. Each event id is handled once: a redelivery answers 200 with duplicate true. Handled: " +
				strings.Join(billing.EventTypes(), ", ") + "; other events are acknowledged and ignored.",
			Params: []kit.Param{{Name: "Stripe-Signature", In: "header", Required: true, Description: "Stripe's signature: t=<unix time>,v1=<HMAC-SHA256 hex>.", Schema: kit.Schema{"type": "string", "maxLength": 4096}}},
			Body:   kit.Schema{"type": "object", "description": "A Stripe event, exactly as Stripe sent it.", "required": []string{"id", "type", "data"}, "additionalProperties": true},
			Responses: []kit.Response{
				{Status: 200, Description: "Received (or already received).", Schema: billingSchema(WebhookJSON{})},
				{Status: 400, Description: "Missing, malformed, forged or stale signature, or not a Stripe event; nothing changed."},
				kit.BodyTooLarge(billing.MaxWebhookBytes),
				unconfigured,
			},
			MaxBody: billing.MaxWebhookBytes,
		},
	}
}

// PageRoutes are the browser routes of the billing area: the membership page and its
// upgrade and portal buttons (session + CSRF, answering with HX-Redirect to Stripe).
func (h *Handlers) PageRoutes() []kit.PageRoute {
	return kit.PagesFor(kit.AuthMember, []kit.PageRoute{
		{Method: "GET", Path: "/settings/billing", Handler: h.BillingPage},
		{Method: "POST", Path: "/settings/billing/checkout", Handler: h.BillingCheckout, Costly: true},
		{Method: "POST", Path: "/settings/billing/portal", Handler: h.BillingPortal, Costly: true},
	})
}

// billingSchema generates the schema of a billing wire struct, with the plans and limits
// the billing service checks.
func billingSchema(v any) kit.Schema {
	return kit.SchemaOf(v, kit.Consts{"Plans": billing.Plans(), "PlansOrNone": append(billing.Plans(), ""), "MaxIDLength": billing.MaxIDLength})
}
