package alertshttp

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/ouncehq/ounce/handlers/kit"

	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/alerts"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/fx"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/views/format"
	"github.com/ouncehq/ounce/views/pages"
)

// PageRoutes are the browser routes of price alerts: the page and its forms, the browser's
// push subscription and the bell's unread stream (the service worker is handlers/install.go).
func (h *Handlers) PageRoutes() []kit.PageRoute {
	if h.alerts == nil {
		return nil
	}
	return kit.PagesFor(kit.AuthMember, []kit.PageRoute{
		{Method: "GET", Path: "/alerts", Handler: h.AlertsPage},
		{Method: "POST", Path: "/alerts", Handler: h.AlertsCreate, MaxBody: maxPushBody},
		{Method: "POST", Path: "/alerts/devices", Handler: h.AlertsWebDevice, MaxBody: maxPushBody},
		{Method: "POST", Path: "/alerts/:id/toggle", Handler: h.AlertsToggle},
		{Method: "GET", Path: "/alerts/:id/delete", Handler: h.AlertsDeleteConfirm},
		{Method: "POST", Path: "/alerts/:id/delete", Handler: h.AlertsDelete},
		{Method: "GET", Path: "/notifications/stream", Handler: h.NotificationEvents},
	})
}

// unitLabels name the weight units in the form's unit select.
var unitLabels = map[metals.Unit]string{metals.Ounce: "troy ounce (oz)", metals.Gram: "gram (g)", metals.Kilogram: "kilogram (kg)", metals.Tola: "tola"}

// alertsView builds the page for the member; error and notice are shown above it.
func (h *Handlers) alertsView(c *fiber.Ctx, u account.User, errText, notice string) (pages.AlertsView, error) {
	ctx := h.Ctx(c)
	v := pages.AlertsView{Gold: account.IsGold(u), Error: errText, Notice: notice}
	list, err := h.alerts.List(ctx, u)
	if err != nil {
		return v, err
	}
	if v.Gold {
		v.LimitText = "Gold members may hold " + strconv.Itoa(alerts.MaxAlerts) + " alerts."
	} else {
		v.LimitText = "Free members may hold one alert; Gold members " + strconv.Itoa(alerts.MaxAlerts) + "."
	}
	v.CanCreate = alerts.CanCreate(u, len(list))
	for _, a := range list {
		target := alerts.TargetText(a.TargetPrice, a.Currency, a.Unit)
		row := pages.AlertRow{ID: strconv.FormatInt(a.ID, 10), Metal: a.Metal.Title(), Direction: a.Direction, Target: target,
			Enabled: a.Enabled, RepeatText: map[string]string{alerts.Once: "once", alerts.Rearm: "every crossing"}[a.Repeat]}
		switch st := a.State(); st {
		case alerts.StateWaitsUnder:
			row.Status = "waits for the price to go under " + target + " first"
		case alerts.StateWaitsOver:
			row.Status = "waits for the price to go over " + target + " first"
		default:
			row.Status = st
		}
		if a.LastTriggeredAt != nil {
			row.LastTriggered = format.DateTimeIn(*a.LastTriggeredAt, account.Location(u))
		}
		v.Alerts = append(v.Alerts, row)
	}
	// New alerts are offered in the member's display currency and weight unit; the card shows
	// the price now in them, converted at the current rate.
	set := account.SettingsOf(u)
	v.Currencies = fx.DisplayCurrencies()
	for _, un := range metals.Units {
		v.Units = append(v.Units, [2]string{string(un), unitLabels[un]})
	}
	if h.market != nil {
		board := h.market.Snapshot()
		for _, m := range metals.All {
			card := pages.AlertMetalCard{Metal: string(m), Title: m.Title(), Price: "No price yet", Currency: set.DisplayCurrency, Unit: string(set.WeightUnit)}
			if sp, ok := board.Prices[m]; ok {
				price := sp.Price
				if set.DisplayCurrency != "USD" || set.WeightUnit != metals.Ounce {
					p, err := h.alerts.PriceIn(ctx, sp.Price, set.DisplayCurrency, set.WeightUnit)
					if err != nil {
						card.Currency, card.Unit = "USD", string(metals.Ounce) // no rate: offered in dollars per ounce
					} else {
						price = p
					}
				}
				card.Price, card.Prefill, card.Stale = alerts.TargetText(price, card.Currency, metals.Unit(card.Unit)), kit.PriceNum(price).String(), sp.Stale
				if sp.Stale {
					card.AsOf = "last known price, " + format.Date(sp.AsOf)
				} else {
					card.AsOf = "live, " + sp.AsOf.UTC().Format("15:04 MST")
				}
			}
			v.Cards = append(v.Cards, card)
		}
	}
	// A metal named in the query (a link from a price card) comes first.
	if want := c.Query("metal"); want != "" {
		for i, card := range v.Cards {
			if card.Metal == want && i > 0 {
				v.Cards[0], v.Cards[i] = v.Cards[i], v.Cards[0]
			}
		}
	}
	hist, err := h.alerts.Notifications(ctx, u, 50)
	if err != nil {
		return v, err
	}
	for _, n := range hist {
		v.History = append(v.History, pages.NotificationRow{Title: n.Title(), Body: n.Body(), FiredAt: format.DateTimeIn(n.FiredAt, account.Location(u)),
			FiredAtISO: n.FiredAt.Format(time.RFC3339), Unread: !n.Read})
	}
	devs, err := h.alerts.Devices(ctx, u)
	if err != nil {
		return v, err
	}
	for _, d := range devs {
		if d.Platform == alerts.PlatformWeb {
			v.WebPushDevice++
		}
	}
	return v, nil
}

func (h *Handlers) renderAlerts(c *fiber.Ctx, status int, errText, notice string) error {
	u, _ := kit.UserFrom(c)
	v, err := h.alertsView(c, u, errText, notice)
	if err != nil {
		return err
	}
	return h.showAlerts(c, u, status, v)
}

// showAlerts renders the alerts page at status; seeing it reads the notifications listed on it.
func (h *Handlers) showAlerts(c *fiber.Ctx, u account.User, status int, v pages.AlertsView) error {
	if err := kit.Render(c, status, pages.AlertsPage(h.Meta(c, "Price alerts", "alerts"), v)); err != nil {
		return err
	}
	return h.alerts.MarkRead(h.Ctx(c), u)
}

// AlertsPage shows the member's alerts, the metal cards to set new ones, and the history.
func (h *Handlers) AlertsPage(c *fiber.Ctx) error {
	c.Set(fiber.HeaderCacheControl, "private, no-store")
	notice := map[string]string{"created": "Alert created.", "deleted": "Alert deleted.", "paused": "Alert paused.", "resumed": "Alert resumed: it waits for the next crossing."}[c.Query("done")]
	return h.renderAlerts(c, http.StatusOK, "", notice)
}

// pageProblem turns a member's mistake into text for the page; other errors stay errors.
func pageProblem(err error) (string, int, bool) {
	p := kit.AsProblem(err)
	if p.Status >= 500 {
		return "", 0, false
	}
	return kit.ErrorSentence(p), p.Status, true
}

// AlertsCreate sets an alert from a metal card's form.
func (h *Handlers) AlertsCreate(c *fiber.Ctx) error {
	u, _ := kit.UserFrom(c)
	metal, dir, repeat := c.FormValue("metal"), c.FormValue("direction"), c.FormValue("repeat")
	in := alerts.AlertInput{Metal: &metal, Direction: &dir, Repeat: &repeat}
	if cur := strings.Clone(c.FormValue("currency")); cur != "" {
		in.Currency = &cur
	}
	if unit := strings.Clone(c.FormValue("unit")); unit != "" {
		in.Unit = &unit
	}
	if raw := strings.TrimSpace(strings.ReplaceAll(strings.TrimLeft(c.FormValue("target_price"), "$€£¥₹ "), ",", "")); raw != "" {
		body := `{"target_price":"` + strings.ReplaceAll(raw, `"`, "") + `"}`
		parsed, err := alertInput([]byte(body))
		if err != nil {
			return h.alertsFormError(c, err)
		}
		in.TargetPrice = parsed.TargetPrice
	}
	if _, err := h.alerts.Create(h.Ctx(c), u, in); err != nil {
		return h.alertsFormError(c, err)
	}
	return c.Redirect("/alerts?done=created", http.StatusSeeOther)
}

func (h *Handlers) alertsFormError(c *fiber.Ctx, err error) error {
	text, status, ok := pageProblem(err)
	if !ok {
		return err
	}
	if status == http.StatusBadRequest {
		status = http.StatusUnprocessableEntity
	}
	u, _ := kit.UserFrom(c)
	v, err := h.alertsView(c, u, text, "")
	if err != nil {
		return err
	}
	// The card that was submitted shows what was typed, first, so nothing has to be typed
	// again (a failed form never resets to the current price).
	metal := c.FormValue("metal")
	for i, card := range v.Cards {
		if card.Metal == metal {
			card.Prefill = strings.Clone(c.FormValue("target_price"))
			card.Direction, card.Repeat = strings.Clone(c.FormValue("direction")), strings.Clone(c.FormValue("repeat"))
			card.Currency, card.Unit = strings.Clone(c.FormValue("currency")), strings.Clone(c.FormValue("unit"))
			copy(v.Cards[1:i+1], v.Cards[:i])
			v.Cards[0] = card
		}
	}
	return h.showAlerts(c, u, status, v)
}

// AlertsToggle pauses or resumes one of the member's alerts.
func (h *Handlers) AlertsToggle(c *fiber.Ctx) error {
	u, _ := kit.UserFrom(c)
	id, err := alertID(c)
	if err != nil {
		return err
	}
	a, err := h.alerts.Toggle(h.Ctx(c), u, id)
	if err != nil {
		return err
	}
	return c.Redirect("/alerts?done="+map[bool]string{true: "resumed", false: "paused"}[a.Enabled], http.StatusSeeOther)
}

// AlertsDeleteConfirm asks before deleting an alert (the Delete link works without
// JavaScript); the form posts to AlertsDelete.
func (h *Handlers) AlertsDeleteConfirm(c *fiber.Ctx) error {
	u, _ := kit.UserFrom(c)
	id, err := alertID(c)
	if err != nil {
		return err
	}
	list, err := h.alerts.List(h.Ctx(c), u)
	if err != nil {
		return err
	}
	for _, a := range list {
		if a.ID == id {
			v := pages.ConfirmView{Question: "Delete the alert for " + a.Metal.Title() + " " + a.Direction + " " + alerts.TargetText(a.TargetPrice, a.Currency, a.Unit) + "?",
				Detail: "It stops watching the price. This cannot be undone.", Action: "/alerts/" + strconv.FormatInt(id, 10) + "/delete", Button: "Delete", Cancel: "/alerts"}
			return kit.Render(c, http.StatusOK, pages.Confirm(h.Meta(c, "Delete alert", "alerts"), v))
		}
	}
	return apperr.NotFoundf("alert")
}

// AlertsDelete deletes one of the member's alerts.
func (h *Handlers) AlertsDelete(c *fiber.Ctx) error {
	u, _ := kit.UserFrom(c)
	id, err := alertID(c)
	if err != nil {
		return err
	}
	if err := h.alerts.Delete(h.Ctx(c), u, id); err != nil {
		return err
	}
	return c.Redirect("/alerts?done=deleted", http.StatusSeeOther)
}

// AlertsWebDevice stores this browser's push subscription (sent by push.js as JSON, with the
// CSRF header) for the signed-in member.
func (h *Handlers) AlertsWebDevice(c *fiber.Ctx) error {
	u, _ := kit.UserFrom(c)
	in, err := deviceInput(c.Body())
	if err == nil && in.Platform != alerts.PlatformWeb {
		err = apperr.InvalidField("platform", "must be web here")
	}
	if err != nil {
		return err
	}
	d, err := h.alerts.Register(h.Ctx(c), u, in)
	if err != nil {
		return err
	}
	return kit.WriteJSON(c, http.StatusCreated, fiber.Map{"id": d.ID, "platform": d.Platform, "created_at": d.CreatedAt})
}

// NotificationEvents streams the member's unread count ("unread" events) for the bell: at
// once, then whenever a write changed it (the alerts service wakes this stream from the
// firing or "mark read" itself; nothing polls), with heartbeats between.
func (h *Handlers) NotificationEvents(c *fiber.Ctx) error {
	u, _ := kit.UserFrom(c)
	changed, stop, err := h.alerts.WatchUnread(h.Ctx(c), u)
	if err != nil {
		return err
	}
	done := h.Done
	kit.StartSSE(c, func(s *kit.SSEStream) {
		defer stop()
		ctx := context.Background()
		last, failed := int64(-1), false
		// send reads the count and sends it when it changed; a failed read is tried again at
		// the next heartbeat.
		send := func() bool {
			n, err := h.alerts.Unread(ctx, u)
			if failed = err != nil; failed || n == last {
				return true
			}
			last = n
			return s.Send(kit.SSEEvent("unread", strconv.FormatInt(n, 10)))
		}
		if !send() {
			return
		}
		beat := time.NewTicker(kit.SSEHeartbeat)
		defer beat.Stop()
		for {
			select {
			case <-done:
				return
			case <-changed:
				if !send() {
					return
				}
			case <-beat.C:
				if failed && !send() || !s.Heartbeat() {
					return
				}
			}
		}
	})
	return nil
}
