package alertshttp

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/ouncehq/ounce/handlers/kit"

	"github.com/gofiber/fiber/v2"
	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/alerts"
	"github.com/ouncehq/ounce/internal/apperr"
)

// AlertJSON is the wire form of a price alert.
type AlertJSON struct {
	ID              int64      `json:"id"`
	Metal           string     `json:"metal" schema:"enum=metals"`
	Direction       string     `json:"direction" schema:"enum=above|below"`
	TargetPrice     kit.Num    `json:"target_price" doc:"In currency per unit, as set."`
	Currency        string     `json:"currency" doc:"ISO 4217 code the target is in (USD unless set)."`
	Unit            string     `json:"unit" schema:"enum=oz|g|kg|tola" doc:"Weight unit the target is per (oz, the troy ounce, unless set)."`
	Repeat          string     `json:"repeat" schema:"enum=once|rearm"`
	Enabled         bool       `json:"enabled" doc:"false when paused, or after a once-alert fired."`
	Armed           bool       `json:"armed" schema:"optional" doc:"Whether the next crossing fires it (false while it waits for the price to move back)."`
	LastTriggeredAt *time.Time `json:"last_triggered_at"`
	CreatedAt       time.Time  `json:"created_at"`
}

func alertJSON(a alerts.Alert) AlertJSON {
	return AlertJSON{ID: a.ID, Metal: string(a.Metal), Direction: a.Direction, TargetPrice: targetNum(a.TargetPrice), Currency: a.Currency, Unit: string(a.Unit), Repeat: a.Repeat,
		Enabled: a.Enabled, Armed: a.Armed, LastTriggeredAt: a.LastTriggeredAt, CreatedAt: a.CreatedAt}
}

// targetNum shows a target with cents, or with the finer places it was set with.
func targetNum(d decimal.Decimal) kit.Num {
	places := int32(2)
	for places < alerts.TargetPlaces && !d.Equal(d.Round(places)) {
		places++
	}
	return kit.Num{D: d, Places: places}
}

// NotificationJSON is the wire form of one firing in the notification centre.
type NotificationJSON struct {
	ID          int64     `json:"id"`
	AlertID     int64     `json:"alert_id" schema:"optional" doc:"0 once the alert is deleted."`
	Metal       string    `json:"metal" schema:"enum=metals"`
	Direction   string    `json:"direction" schema:"enum=above|below"`
	TargetPrice kit.Num   `json:"target_price"`
	Price       kit.Num   `json:"price" doc:"The live price that crossed the target, in currency per unit (converted at the rate of the moment), at its source's precision (2 to 4 decimals)."`
	Currency    string    `json:"currency" doc:"ISO 4217 code of target_price and price."`
	Unit        string    `json:"unit" schema:"enum=oz|g|kg|tola" doc:"Weight unit target_price and price are per."`
	PriceAsOf   time.Time `json:"price_as_of"`
	FiredAt     time.Time `json:"fired_at"`
	Title       string    `json:"title"`
	Body        string    `json:"body"`
	Read        bool      `json:"read"`
}

func notificationJSON(n alerts.Notification) NotificationJSON {
	return NotificationJSON{ID: n.ID, AlertID: n.AlertID, Metal: string(n.Metal), Direction: n.Direction, TargetPrice: targetNum(n.TargetPrice),
		Price: kit.PriceNum(n.Price), Currency: n.Currency, Unit: string(n.Unit), PriceAsOf: n.PriceAsOf, FiredAt: n.FiredAt, Title: n.Title(), Body: n.Body(), Read: n.Read}
}

// webSubscriptionJSON is a browser's PushSubscription as JSON.
type webSubscriptionJSON struct {
	Endpoint string `json:"endpoint" schema:"format=uri,maxLength=2048" doc:"The push service URL; must be https."`
	Keys     struct {
		P256dh string `json:"p256dh" doc:"The browser's P-256 public key, 65 bytes, base64url."`
		Auth   string `json:"auth" doc:"The 16-byte auth secret, base64url."`
	} `json:"keys"`
}

// AlertEnvelopeJSON answers the routes that create or change one alert.
type AlertEnvelopeJSON struct {
	Alert AlertJSON `json:"alert" schema:"ref=PriceAlert"`
}

// AlertsJSON answers GET /v1/push/price-alerts.
type AlertsJSON struct {
	Alerts []AlertJSON `json:"alerts" schema:"items.ref=PriceAlert"`
}

// NotificationsJSON answers GET /v1/push/notifications.
type NotificationsJSON struct {
	Notifications []NotificationJSON `json:"notifications" schema:"items.ref=AlertNotification"`
	Unread        int64              `json:"unread" schema:"min=0"`
}

// VAPIDKeyJSON answers GET /v1/push/vapid-public-key.
type VAPIDKeyJSON struct {
	PublicKey string `json:"public_key"`
}

// DeviceJSON answers POST /v1/push/register.
type DeviceJSON struct {
	ID        int64     `json:"id"`
	Platform  string    `json:"platform" schema:"enum=ios|android|web"`
	CreatedAt time.Time `json:"created_at"`
}

// DeviceBodyJSON documents the body of POST /v1/push/register (read by deviceInput).
type DeviceBodyJSON struct {
	_        struct{} `schema:"closed"`
	Platform string   `json:"platform" schema:"enum=ios|android|web"`
	Token    any      `json:"token" schema:"use=DeviceToken" doc:"The Expo push token (ios, android), or the Web Push subscription (web; also accepted as a JSON string)."`
}

// DeviceDeleteBodyJSON documents the body of DELETE /v1/push/delete.
type DeviceDeleteBodyJSON struct {
	_        struct{} `schema:"closed"`
	Token    any      `json:"token" schema:"use=TokenOrSubscription"`
	Platform string   `json:"platform" schema:"optional" doc:"Ignored; accepted for symmetry with register."`
}

// alertChangeJSON are the fields an alert's create and PATCH bodies share.
type alertChangeJSON struct {
	Direction   string `json:"direction" schema:"enum=above|below" doc:"above: fires when the price rises to or through the target; below: when it falls to or through it."`
	TargetPrice any    `json:"target_price" schema:"use=TargetPrice" doc:"In currency per unit (USD per troy ounce unless they say otherwise), more than 0 and at most {MaxTarget} in USD per oz ({MaxTargetOther} in any other), at most 4 decimal places; a string keeps it exact, and it is stored as entered."`
	Currency    string `json:"currency" schema:"optional,default=USD" doc:"ISO 4217 code the target is in, any display currency (GET /v1/account/settings lists them as its display_currency choices); each tick is converted at the current rate before crossing is judged. Unknown: 422 naming currency."`
	Unit        string `json:"unit" schema:"optional,enum=oz|g|kg|tola,default=oz" doc:"Weight unit the target is per. Unknown: 422 naming unit."`
	Repeat      string `json:"repeat" schema:"optional,enum=once|rearm,default=once" doc:"once: the alert disables itself after firing; rearm: it fires again on the next crossing after the price has moved back by 0.5 %."`
	Enabled     bool   `json:"enabled" schema:"optional" doc:"false pauses the alert; true (again) waits for the next crossing."`
}

// AlertCreateBodyJSON documents the body of POST /v1/push/price-alerts.
type AlertCreateBodyJSON struct {
	_     struct{} `schema:"closed"`
	Metal string   `json:"metal" schema:"enum=metals"`
	alertChangeJSON
}

// AlertPatchBodyJSON documents the body of PATCH /v1/push/price-alerts/{id}.
type AlertPatchBodyJSON struct {
	_ struct{} `schema:"closed,allOptional"`
	alertChangeJSON
}

// deviceInput reads {token, platform}: token is an Expo push token string, or for web a Web
// Push subscription object (or that object as a JSON string).
func deviceInput(raw []byte) (alerts.DeviceInput, error) {
	body, err := kit.JSONObjectBody(raw, "token", "platform")
	if err != nil {
		return alerts.DeviceInput{}, err
	}
	var in alerts.DeviceInput
	if err := json.Unmarshal(body["platform"], &in.Platform); err != nil || in.Platform == "" {
		return in, apperr.InvalidField("platform", "is required: ios, android or web")
	}
	tok := body["token"]
	if len(tok) == 0 || string(tok) == "null" {
		return in, apperr.InvalidField("token", "is required")
	}
	var s string
	isString := json.Unmarshal(tok, &s) == nil
	if in.Platform != alerts.PlatformWeb {
		if !isString {
			return in, apperr.InvalidField("token", "must be a string: the Expo push token")
		}
		in.Token = s
		return in, nil
	}
	if isString {
		tok = []byte(s)
	}
	var sub webSubscriptionJSON
	if err := json.Unmarshal(tok, &sub); err != nil {
		return in, apperr.InvalidField("token", "must be the Web Push subscription: {endpoint, keys: {p256dh, auth}}")
	}
	in.Endpoint, in.P256dh, in.Auth = sub.Endpoint, sub.Keys.P256dh, sub.Keys.Auth
	return in, nil
}

// APIPushRegister answers POST /v1/push/register.
func (h *Handlers) APIPushRegister(c *fiber.Ctx) error {
	return kit.MemberBodyJSON(c, http.StatusCreated, deviceInput, func(u account.User, in alerts.DeviceInput) (alerts.Device, error) {
		return h.alerts.Register(h.Ctx(c), u, in)
	}, func(d alerts.Device) DeviceJSON {
		return DeviceJSON{ID: d.ID, Platform: d.Platform, CreatedAt: d.CreatedAt}
	})
}

// APIPushDelete answers DELETE /v1/push/delete {token}.
func (h *Handlers) APIPushDelete(c *fiber.Ctx) error {
	return kit.MemberNoContent(c, func(u account.User) error {
		body, err := kit.JSONObjectBody(c.Body(), "token", "platform")
		if err != nil {
			return err
		}
		token, err := tokenOf(body["token"])
		if err != nil {
			return err
		}
		return h.alerts.Unregister(h.Ctx(c), u, token)
	})
}

// tokenOf is the stored token a delete names: the Expo token, or the Web Push endpoint (alone
// or in its subscription object).
func tokenOf(raw json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		if strings.HasPrefix(strings.TrimSpace(s), "{") {
			raw = json.RawMessage(s)
		} else {
			return s, nil
		}
	}
	var sub webSubscriptionJSON
	if err := json.Unmarshal(raw, &sub); err != nil || sub.Endpoint == "" {
		return "", apperr.InvalidField("token", "is required: the Expo push token, or the Web Push subscription or its endpoint")
	}
	return sub.Endpoint, nil
}

// alertInput reads an alert body; every field is optional here, the service says which are
// required.
func alertInput(raw []byte) (alerts.AlertInput, error) {
	body, err := kit.JSONObjectBody(raw, "metal", "direction", "target_price", "currency", "unit", "repeat", "enabled")
	if err != nil {
		return alerts.AlertInput{}, err
	}
	var in alerts.AlertInput
	str := func(name string) (*string, error) {
		v, ok := body[name]
		if !ok {
			return nil, nil
		}
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return nil, apperr.InvalidField(name, "must be a string")
		}
		s = strings.ToLower(strings.TrimSpace(s))
		return &s, nil
	}
	if in.Metal, err = str("metal"); err != nil {
		return in, err
	}
	if in.Direction, err = str("direction"); err != nil {
		return in, err
	}
	if in.Repeat, err = str("repeat"); err != nil {
		return in, err
	}
	if in.Currency, err = str("currency"); err != nil {
		return in, err
	}
	if in.Unit, err = str("unit"); err != nil {
		return in, err
	}
	if v, ok := body["target_price"]; ok {
		txt := strings.Trim(strings.TrimSpace(string(v)), `"`)
		d, err := decimal.NewFromString(txt)
		if err != nil || len(txt) > 40 {
			return in, apperr.InvalidField("target_price", "must be a decimal number, in the alert's currency per unit")
		}
		in.TargetPrice = &d
	}
	if v, ok := body["enabled"]; ok {
		var b bool
		if err := json.Unmarshal(v, &b); err != nil {
			return in, apperr.InvalidField("enabled", "must be true or false")
		}
		in.Enabled = &b
	}
	return in, nil
}

// APIAlertCreate answers POST /v1/push/price-alerts.
func (h *Handlers) APIAlertCreate(c *fiber.Ctx) error {
	return kit.MemberBodyJSON(c, http.StatusCreated, alertInput, func(u account.User, in alerts.AlertInput) (alerts.Alert, error) {
		return h.alerts.Create(h.Ctx(c), u, in)
	}, func(a alerts.Alert) AlertEnvelopeJSON {
		c.Set(fiber.HeaderLocation, "/v1/push/price-alerts/"+strconv.FormatInt(a.ID, 10))
		return AlertEnvelopeJSON{Alert: alertJSON(a)}
	})
}

// APIAlertList answers GET /v1/push/price-alerts.
func (h *Handlers) APIAlertList(c *fiber.Ctx) error {
	return kit.MemberJSON(c, http.StatusOK, func(u account.User) ([]alerts.Alert, error) {
		return h.alerts.List(h.Ctx(c), u)
	}, func(list []alerts.Alert) AlertsJSON { return AlertsJSON{Alerts: kit.MapSlice(list, alertJSON)} })
}

// alertID reads the :id of an alert route; anything that is not an id is simply not found.
func alertID(c *fiber.Ctx) (int64, error) {
	id, err := strconv.ParseInt(c.Params("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, apperr.NotFoundf("alert")
	}
	return id, nil
}

// APIAlertUpdate answers PATCH /v1/push/price-alerts/{id}.
func (h *Handlers) APIAlertUpdate(c *fiber.Ctx) error {
	return kit.MemberJSON(c, http.StatusOK, func(u account.User) (alerts.Alert, error) {
		id, err := alertID(c)
		if err != nil {
			return alerts.Alert{}, err
		}
		in, err := alertInput(c.Body())
		if err != nil {
			return alerts.Alert{}, err
		}
		return h.alerts.Update(h.Ctx(c), u, id, in)
	}, func(a alerts.Alert) AlertEnvelopeJSON { return AlertEnvelopeJSON{Alert: alertJSON(a)} })
}

// APIAlertDelete answers DELETE /v1/push/price-alerts/{id}.
func (h *Handlers) APIAlertDelete(c *fiber.Ctx) error {
	return kit.MemberNoContent(c, func(u account.User) error {
		id, err := alertID(c)
		if err != nil {
			return err
		}
		return h.alerts.Delete(h.Ctx(c), u, id)
	})
}

// APINotifications answers GET /v1/push/notifications.
func (h *Handlers) APINotifications(c *fiber.Ctx) error {
	return kit.MemberJSON(c, http.StatusOK, func(u account.User) (NotificationsJSON, error) {
		limit, err := kit.QueryInt(c, "limit", 50, 1, alerts.MaxNotifications)
		if err != nil {
			return NotificationsJSON{}, err
		}
		list, err := h.alerts.Notifications(h.Ctx(c), u, limit)
		if err != nil {
			return NotificationsJSON{}, err
		}
		unread, err := h.alerts.Unread(h.Ctx(c), u)
		return NotificationsJSON{Notifications: kit.MapSlice(list, notificationJSON), Unread: unread}, err
	}, kit.Same[NotificationsJSON])
}

// APIVAPIDKey answers GET /v1/push/vapid-public-key.
func (h *Handlers) APIVAPIDKey(c *fiber.Ctx) error {
	k, err := h.alerts.VAPIDPublicKey(h.Ctx(c))
	if err != nil {
		return err
	}
	return kit.WriteJSON(c, http.StatusOK, VAPIDKeyJSON{PublicKey: k})
}
