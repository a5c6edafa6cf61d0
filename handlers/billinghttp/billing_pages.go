package billinghttp

import (
	"net/http"
	"strings"
	"time"

	"github.com/ouncehq/ounce/handlers/kit"

	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/billing"
	"github.com/ouncehq/ounce/views/format"
	"github.com/ouncehq/ounce/views/pages"
)

// BillingPage is Settings → Membership. Arriving from Stripe with ?session_id=…, it verifies
// that checkout first (the same use case as POST /v1/payment/verify-session), so a member who
// has just paid sees Gold on arrival.
func (h *Handlers) BillingPage(c *fiber.Ctx) error {
	u, _ := kit.UserFrom(c)
	ctx := h.Ctx(c)
	v := pages.BillingView{Configured: h.billing.Enabled()}
	if sid := c.Query("session_id"); sid != "" && v.Configured {
		ver, err := h.billing.VerifySession(ctx, u, sid)
		switch k := apperr.KindOf(err); {
		case err == nil:
			v.NoticeTone, v.Notice = verificationNotice(ver)
		case k == apperr.Forbidden:
			v.NoticeTone, v.Notice = "bad", "That checkout belongs to another account."
		case k == apperr.NotFound:
			v.NoticeTone, v.Notice = "bad", "No checkout of yours has that id."
		case k == apperr.RateLimited:
			v.NoticeTone, v.Notice = "warn", "That checkout was checked too often just now. Your membership updates as soon as Stripe tells us."
		case k == apperr.Invalid:
			v.NoticeTone, v.Notice = "bad", "That is not a checkout link."
		case k == apperr.Unavailable:
			v.NoticeTone, v.Notice = "warn", "Stripe could not be reached to confirm the payment. Your membership updates as soon as Stripe tells us."
		default:
			return err
		}
		c.Set(fiber.HeaderCacheControl, "no-store")
	}
	ms, err := h.billing.Status(ctx, u)
	if err != nil {
		return err
	}
	// The header's badge shows the tier as it is now, verification included.
	u.Tier = ms.Tier
	kit.SetUser(c, u)
	hist, err := h.billing.History(ctx, u)
	if err != nil {
		return err
	}
	loc := account.Location(u)
	fillMembership(&v, ms, loc)
	for _, ch := range hist {
		cause, ref := historyCause(ch)
		v.History = append(v.History, pages.BillingHistoryRow{Date: format.DateIn(ch.At, loc), Change: tierName(ch.FromTier) + " → " + tierName(ch.ToTier), Cause: cause, Ref: ref})
	}
	if v.Configured && !v.Gold {
		offers, err := h.billing.Offers(ctx)
		if err != nil {
			return err
		}
		for _, o := range offers {
			if o.Available {
				v.Offers = append(v.Offers, pages.BillingOffer{Plan: o.Plan, Label: planLabel(o.Plan), Price: priceText(o)})
			}
		}
		v.CanUpgrade, v.Attempt = len(v.Offers) > 0, billing.NewAttempt()
	}
	return kit.Render(c, http.StatusOK, pages.Billing(h.Meta(c, "Membership", "settings"), v))
}

// BillingCheckout starts a checkout from the page's upgrade buttons and sends the browser to
// Stripe (HX-Redirect for HTMX; a link page otherwise, as forms may only post to this site).
func (h *Handlers) BillingCheckout(c *fiber.Ctx) error {
	u, _ := kit.UserFrom(c)
	co, err := h.billing.CreateCheckout(h.Ctx(c), u, billing.CheckoutInput{Plan: c.FormValue("plan"), Attempt: c.FormValue("attempt")})
	if err != nil {
		return err
	}
	return h.toStripe(c, co.URL, "Continue to checkout at Stripe")
}

// BillingPortal opens Stripe's customer portal from the page.
func (h *Handlers) BillingPortal(c *fiber.Ctx) error {
	u, _ := kit.UserFrom(c)
	url, err := h.billing.Portal(h.Ctx(c), u)
	if err != nil {
		return err
	}
	return h.toStripe(c, url, "Continue to billing at Stripe")
}

func (h *Handlers) toStripe(c *fiber.Ctx, url, label string) error {
	c.Set(fiber.HeaderCacheControl, "no-store")
	if kit.IsHTMX(c) {
		return kit.Redirect(c, url)
	}
	return kit.Render(c, http.StatusOK, pages.BillingContinue(h.Meta(c, "Membership", "settings"), url, label))
}

// fillMembership words the member's plan, status and date.
func fillMembership(v *pages.BillingView, ms billing.Membership, loc *time.Location) {
	v.Gold = ms.Tier == billing.TierGold
	v.CanManage = v.Configured && ms.HasCustomer
	switch {
	case !v.Gold:
		v.Plan = "Free"
	case ms.Source == billing.TierSourceAdmin:
		v.Plan = "Gold, granted by an administrator"
	case ms.Source == billing.TierSourceSignup:
		v.Plan = "Gold, included on this server"
	case ms.Plan != "":
		v.Plan = "Gold · " + ms.Plan
	default:
		v.Plan = "Gold"
	}
	date := func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return format.DateIn(t, loc)
	}
	switch ms.Status {
	case billing.StatusNone:
	case billing.StatusActive, billing.StatusTrialing:
		v.Status, v.StatusTone = map[string]string{billing.StatusActive: "Active", billing.StatusTrialing: "Trial"}[ms.Status], "ok"
		v.DateLabel, v.Date = "Renews on", date(ms.CurrentPeriodEnd)
		if ms.CancelAtPeriodEnd {
			v.Status, v.StatusTone, v.DateLabel = v.Status+", set to cancel", "warn", "Ends on"
		}
	case billing.StatusPastDue:
		v.Status, v.StatusTone = "Payment failed: Stripe is retrying your card", "warn"
		v.DateLabel, v.Date = "Gold until", date(ms.GraceUntil)
	case billing.StatusCanceled:
		v.Status, v.StatusTone = "Canceled", "bad"
		v.DateLabel, v.Date = "Ended on", date(ms.EndedAt)
	default:
		v.Status, v.StatusTone = strings.ReplaceAll(kit.Capitalize(ms.Status), "_", " "), "bad"
	}
}

// verificationNotice words what verifying the checkout the member came back from found.
func verificationNotice(ver billing.Verification) (tone, msg string) {
	switch {
	case ver.Checkout == "complete" && ver.Tier == billing.TierGold:
		return "ok", "Payment confirmed: welcome to Gold."
	case ver.Checkout == "open":
		return "warn", "Stripe has not confirmed this payment yet. Reload this page in a moment."
	case ver.Checkout == "expired":
		return "bad", "That checkout expired without a payment."
	}
	return "warn", "That checkout's subscription does not give Gold any more."
}

// historyCause words a history row's cause, with the Stripe id it came from.
func historyCause(ch billing.MembershipChange) (cause, ref string) {
	switch ch.Source {
	case billing.TierSourceAdmin:
		return "Set by an administrator", ""
	case "expiry":
		return "Grace period after a failed payment ended", ""
	}
	kind, id, _ := strings.Cut(ch.Cause, " ")
	words := map[string]string{
		"checkout":                        "Checkout verified",
		billing.EventCheckoutCompleted:    "Stripe: checkout completed",
		billing.EventSubscriptionCreated:  "Stripe: subscription started",
		billing.EventSubscriptionUpdated:  "Stripe: subscription changed",
		billing.EventSubscriptionDeleted:  "Stripe: subscription ended",
		billing.EventInvoicePaid:          "Stripe: invoice paid",
		billing.EventInvoicePaymentFailed: "Stripe: payment failed",
	}[kind]
	if words == "" {
		return ch.Cause, ""
	}
	return words, id
}

func tierName(t string) string {
	if t == billing.TierGold {
		return "Gold"
	}
	return "Free"
}

func planLabel(plan string) string {
	if plan == billing.PlanYearly {
		return "Yearly"
	}
	return "Monthly"
}

// priceText is a plan's price as Stripe's Price says: "$20.00 per month".
func priceText(o billing.Offer) string {
	if !o.Known {
		return ""
	}
	p := o.Price
	amount := format.USD(p.Amount)
	if p.Currency != "usd" {
		amount = format.Number(p.Amount, 2) + " " + strings.ToUpper(p.Currency)
	}
	switch {
	case p.Interval == "":
		return amount
	case p.IntervalCount > 1:
		return amount + " every " + format.Int(p.IntervalCount) + " " + p.Interval + "s"
	}
	return amount + " per " + p.Interval
}
