// Package alerts is price alerts and their push delivery. A member registers devices (Expo
// push tokens for the phone app, Web Push subscriptions for browsers) and sets alerts ("tell me
// when silver crosses above $40"). On the leader instance every accepted price tick is
// evaluated against the alerts it crosses; a firing flips the alert's state and writes its
// notification and outbox rows in one transaction, so each crossing is told exactly once
// across instances and restarts. A worker drains the outbox to Expo and Web Push with
// retries, recording every outcome.
package alerts

import (
	"cmp"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/format"
	"github.com/ouncehq/ounce/internal/fx"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/prices"
	"github.com/ouncehq/ounce/internal/wallclock"
)

// Limits of the feature.
const (
	MaxDevices   = 20
	MaxAlerts    = 50
	MaxFreeAlert = 1
	// MaxTarget is the highest target price, USD per troy ounce.
	MaxTarget = 10_000_000
	// MaxTargetOther is the highest target in any other currency or unit (a kilogram of gold
	// in rupiah is billions).
	MaxTargetOther = 100_000_000_000
	// TargetPlaces is the finest target precision accepted.
	TargetPlaces = 4
)

// RearmPct is how far, in percent, the price must move back past a re-arming alert's target
// before it can fire again.
var RearmPct = decimal.RequireFromString("0.5")

// Config is the alerts service's settings.
type Config struct {
	// ExpoAccessToken is sent as Authorization: Bearer to Expo when set (OUNCE_EXPO_ACCESS_TOKEN).
	ExpoAccessToken string
	// ExpoAPIURL is the base of Expo's push API (OUNCE_EXPO_API_URL); /send and /getReceipts
	// are appended. Default https://exp.host/--/api/v2/push.
	ExpoAPIURL string
	// ReceiptDelay is how long after Expo's ticket its receipt is asked for; default 15 minutes.
	ReceiptDelay time.Duration
	// VAPIDSubject is the contact in Web Push's VAPID claim (a mailto: or https: URL); default
	// the site's URL.
	VAPIDSubject string
	// PollEvery is how often the outbox worker looks for due rows besides being woken by a
	// firing; default two seconds.
	PollEvery time.Duration
	// AllowPrivate lists private ranges a Web Push endpoint may be in (a self-hosted push
	// service, OUNCE_PUSH_ALLOW_PRIVATE); every other non-public address is refused.
	AllowPrivate []netip.Prefix
	// HTTPClient, when its Transport is an *http.Transport, is the base both delivery clients
	// are cloned from (tests pass a loopback test server's client for its TLS roots). Expo, the
	// operator's URL, is trusted; Web Push endpoints, which members supply, always go through
	// the outbound policy (internal/outbound) with AllowPrivate.
	HTTPClient *http.Client
}

// Market is the price service as alerts need it.
type Market interface {
	Snapshot() prices.Snapshot
	Subscribe() (<-chan prices.Snapshot, func())
}

// Rates is the exchange-rate service as alerts need it (*fx.Service): a tick is converted
// with the current rate of each currency alerts are set in.
type Rates interface {
	Lookup(ctx context.Context, currency string, date time.Time) (fx.Rate, error)
}

// Deps are what the service is built from.
type Deps struct {
	Store  *db.Store
	Market Market
	// FX converts ticks for alerts set in other currencies than USD; nil uses the embedded
	// exchange rates only.
	FX     Rates
	Config Config
	Now    func() time.Time
	Logger *slog.Logger
}

// Service holds the alert use cases.
type Service struct {
	store  Store
	market Market
	fx     Rates
	fxOnce sync.Once
	cfg    Config
	now    func() time.Time
	log    *slog.Logger
	// expo sends to the operator's Expo API; push to members' Web Push endpoints.
	expo, push *http.Client

	wake chan struct{}

	mu   sync.Mutex
	last map[metals.Metal]lastTick

	unread unreadHub

	vapidOnce sync.Mutex
	vapidPub  string
	vapidPriv string
}

type lastTick struct {
	price decimal.Decimal
	asOf  time.Time
}

// New builds the service.
func New(d Deps) *Service {
	s := &Service{store: d.Store, market: d.Market, fx: d.FX, cfg: d.Config, now: d.Now, log: d.Logger, wake: make(chan struct{}, 1), last: map[metals.Metal]lastTick{}}
	s.now = wallclock.Or(s.now)
	s.log = cmp.Or(s.log, slog.Default())
	if s.cfg.ExpoAPIURL == "" {
		s.cfg.ExpoAPIURL = "https://exp.host/--/api/v2/push"
	}
	s.cfg.ExpoAPIURL = strings.TrimRight(s.cfg.ExpoAPIURL, "/")
	if s.cfg.ReceiptDelay <= 0 {
		s.cfg.ReceiptDelay = 15 * time.Minute
	}
	if s.cfg.PollEvery <= 0 {
		s.cfg.PollEvery = 2 * time.Second
	}
	s.expo, s.push = deliveryClients(s.cfg)
	return s
}

// Platforms of devices.
const (
	PlatformIOS     = "ios"
	PlatformAndroid = "android"
	PlatformWeb     = "web"
)

// DeviceInput is a registration as the client sent it: an Expo token for ios/android, a Web
// Push subscription for web.
type DeviceInput struct {
	Platform string
	Token    string
	Endpoint string
	P256dh   string
	Auth     string
}

// Device is a registered device.
type Device struct {
	ID        int64
	Platform  string
	CreatedAt time.Time
}

// ExpoTokenPattern is what an Expo push token must match (the API document states it too).
const ExpoTokenPattern = `^(ExponentPushToken|ExpoPushToken)\[[A-Za-z0-9_-]{10,200}\]$`

var expoToken = regexp.MustCompile(ExpoTokenPattern)

// validateDevice checks a registration and returns the token it is stored under.
func validateDevice(in DeviceInput) (db.PushDevice, error) {
	switch in.Platform {
	case PlatformIOS, PlatformAndroid:
		if !expoToken.MatchString(in.Token) {
			return db.PushDevice{}, apperr.InvalidField("token", "must be an Expo push token, ExponentPushToken[…] or ExpoPushToken[…]")
		}
		return db.PushDevice{Platform: in.Platform, Token: in.Token}, nil
	case PlatformWeb:
		var fields []apperr.FieldError
		u, err := url.Parse(in.Endpoint)
		if err != nil || u.Scheme != "https" || u.Host == "" || len(in.Endpoint) > 2048 || u.User != nil {
			fields = append(fields, apperr.FieldError{Field: "token.endpoint", Message: "must be the subscription's https endpoint URL (at most 2048 characters)"})
		}
		if k, err := decodeKey(in.P256dh); err != nil || len(k) != 65 || k[0] != 4 {
			fields = append(fields, apperr.FieldError{Field: "token.keys.p256dh", Message: "must be the subscription's P-256 public key: 65 bytes, base64url"})
		}
		if k, err := decodeKey(in.Auth); err != nil || len(k) != 16 {
			fields = append(fields, apperr.FieldError{Field: "token.keys.auth", Message: "must be the subscription's 16-byte auth secret, base64url"})
		}
		if len(fields) > 0 {
			return db.PushDevice{}, apperr.InvalidFields(fields)
		}
		return db.PushDevice{Platform: PlatformWeb, Token: in.Endpoint, P256dh: in.P256dh, Auth: in.Auth}, nil
	}
	return db.PushDevice{}, apperr.InvalidField("platform", "must be ios, android or web")
}

// decodeKey reads base64url with or without padding (and plain base64, which some clients send).
func decodeKey(s string) ([]byte, error) {
	s = strings.TrimRight(s, "=")
	if b, err := base64.RawURLEncoding.DecodeString(s); err == nil {
		return b, nil
	}
	return base64.RawStdEncoding.DecodeString(s)
}

func requireMember(u db.User) error {
	if u.ID == 0 {
		return apperr.New(apperr.Unauthorized, "sign in to use price alerts")
	}
	return nil
}

// Register stores the caller's device; a token registered before (by anyone) moves to the
// caller. At most MaxDevices per member.
func (s *Service) Register(ctx context.Context, u db.User, in DeviceInput) (Device, error) {
	if err := requireMember(u); err != nil {
		return Device{}, err
	}
	d, err := validateDevice(in)
	if err != nil {
		return Device{}, err
	}
	d.UserID = u.ID
	d.CreatedAt = s.now().UnixMilli()
	d, err = s.store.RegisterDevice(ctx, d, MaxDevices)
	if errors.Is(err, db.ErrLimit) {
		return Device{}, apperr.ConflictF("at most %d devices per member: remove one first", MaxDevices)
	}
	if err != nil {
		return Device{}, err
	}
	return Device{ID: d.ID, Platform: d.Platform, CreatedAt: time.UnixMilli(d.CreatedAt).UTC()}, nil
}

// Unregister removes the caller's own device with that token (an Expo token or a Web Push
// endpoint); anyone else's is "not found".
func (s *Service) Unregister(ctx context.Context, u db.User, token string) error {
	if err := requireMember(u); err != nil {
		return err
	}
	token = strings.TrimSpace(token)
	if token == "" || len(token) > 2048 {
		return apperr.InvalidField("token", "must be the Expo push token or the Web Push endpoint you registered")
	}
	if err := s.store.DeleteDevice(ctx, u.ID, token); errors.Is(err, db.ErrNotFound) {
		return apperr.NotFoundf("device")
	} else if err != nil {
		return err
	}
	return nil
}

// Devices lists the caller's devices.
func (s *Service) Devices(ctx context.Context, u db.User) ([]db.PushDevice, error) {
	if err := requireMember(u); err != nil {
		return nil, err
	}
	return s.store.Devices(ctx, u.ID)
}

// Directions and repeat modes of alerts.
const (
	Above = "above"
	Below = "below"
	Once  = "once"
	Rearm = "rearm"
)

// Alert is a price alert as members see it.
type Alert struct {
	ID          int64
	Metal       metals.Metal
	Direction   string
	TargetPrice decimal.Decimal
	// Currency and Unit are what TargetPrice is in (USD and oz unless set otherwise).
	Currency        string
	Unit            metals.Unit
	Repeat          string
	Enabled         bool
	Armed           bool
	LastTriggeredAt *time.Time
	FiredCount      int64
	CreatedAt       time.Time
}

// States of an alert, as State tells them.
const (
	// StateFired is a once-alert that fired and so switched itself off.
	StateFired = "fired"
	// StatePaused is an alert its member switched off.
	StatePaused = "paused"
	// StateWatching is an armed alert: the next crossing of its target fires it.
	StateWatching = "watching"
	// StateWaitsUnder is an "above" alert that must see the price under its target first
	// (it was created above it, or fired and waits to re-arm); StateWaitsOver the reverse.
	StateWaitsUnder = "waits-under"
	StateWaitsOver  = "waits-over"
)

// State says what the alert is doing, by the rules that fire and re-arm it.
func (a Alert) State() string {
	switch {
	case !a.Enabled && a.Repeat == Once && a.LastTriggeredAt != nil:
		return StateFired
	case !a.Enabled:
		return StatePaused
	case a.Armed:
		return StateWatching
	case a.Direction == Above:
		return StateWaitsUnder
	}
	return StateWaitsOver
}

// AlertInput is a new alert, or the fields a PATCH sets (nil leaves a field as it is).
type AlertInput struct {
	Metal       *string
	Direction   *string
	TargetPrice *decimal.Decimal
	// Currency is an ISO 4217 code among fx.DisplayCurrencies; Unit oz, g, kg or tola.
	Currency *string
	Unit     *string
	Repeat   *string
	Enabled  *bool
}

// unitPlaces is the fixed point of stored prices: units of 1/10000 of the alert's currency.
const unitPlaces = 4

func toUnits(d decimal.Decimal) int64   { return d.Shift(unitPlaces).Round(0).IntPart() }
func fromUnits(n int64) decimal.Decimal { return decimal.New(n, -unitPlaces) }
func msTime(ms int64) time.Time         { return time.UnixMilli(ms).UTC() }

func optTime(ms int64, ok bool) *time.Time {
	if !ok {
		return nil
	}
	t := msTime(ms)
	return &t
}

func alertFrom(a db.PriceAlert) Alert {
	return Alert{ID: a.ID, Metal: metals.Metal(a.Metal), Direction: a.Direction, TargetPrice: fromUnits(a.TargetUnits),
		Currency: orUSD(a.Currency), Unit: orOunce(a.Unit), Repeat: a.Repeat,
		Enabled: a.Enabled, Armed: a.Armed, LastTriggeredAt: optTime(a.LastTriggeredAt.Int64, a.LastTriggeredAt.Valid), FiredCount: a.FiredCount,
		CreatedAt: msTime(a.CreatedAt)}
}

// rearmUnits is the price a fired alert must move back to before it arms again: 0.5 % below
// an "above" target, 0.5 % above a "below" target.
func rearmUnits(direction string, target int64) int64 {
	t := decimal.NewFromInt(target)
	delta := t.Mul(RearmPct).Div(decimal.NewFromInt(100)).Ceil().IntPart()
	if direction == Above {
		return target - max(delta, 1)
	}
	return target + max(delta, 1)
}

// arming sets whether a new (or changed, or re-enabled) alert is armed: only when the price
// now is on the far side of its target. Created while its condition already holds, or with no
// price known, it waits until the price is seen on the far side, so it fires on a crossing.
// The price now is converted to the alert's currency and unit with the current rate.
func (s *Service) arming(ctx context.Context, c *converter, a *db.PriceAlert) error {
	a.RearmUnits = rearmUnits(a.Direction, a.TargetUnits)
	if a.Direction == Above {
		a.ArmUnits = a.TargetUnits - 1
	} else {
		a.ArmUnits = a.TargetUnits + 1
	}
	a.Armed = false
	if s.market == nil {
		return nil
	}
	sp, ok := s.market.Snapshot().Prices[metals.Metal(a.Metal)]
	if !ok {
		return nil
	}
	p, err := c.units(ctx, db.AlertQuote{Metal: a.Metal, Currency: a.Currency, Unit: a.Unit}, sp.Price)
	if err != nil {
		return err
	}
	a.Armed = (a.Direction == Above && p < a.TargetUnits) || (a.Direction == Below && p > a.TargetUnits)
	return nil
}

// validateAlert checks the fields present in in; create demands every field but repeat.
func validateAlert(in AlertInput, create bool) error {
	var fields []apperr.FieldError
	bad := func(f, m string) { fields = append(fields, apperr.FieldError{Field: f, Message: m}) }
	if in.Metal != nil {
		if _, err := metals.Parse(*in.Metal); err != nil {
			bad("metal", "must be gold, silver, platinum or palladium")
		}
	} else if create {
		bad("metal", "is required: gold, silver, platinum or palladium")
	}
	if in.Direction != nil {
		if *in.Direction != Above && *in.Direction != Below {
			bad("direction", `must be "above" or "below"`)
		}
	} else if create {
		bad("direction", `is required: "above" or "below"`)
	}
	// An unknown currency or unit is Unprocessable (422, as in the member's settings) when the
	// rest of the alert is well-formed; with other bad fields, all are Invalid together.
	var unknown []apperr.FieldError
	cur, unit := "USD", metals.Ounce
	if in.Currency != nil {
		cur = normCurrency(*in.Currency)
		if !slices.Contains(fx.DisplayCurrencies(), cur) {
			unknown = append(unknown, apperr.FieldError{Field: "currency", Message: "must be one of " + strings.Join(fx.DisplayCurrencies(), ", ")})
		}
	}
	if in.Unit != nil {
		unit = metals.Unit(strings.TrimSpace(*in.Unit))
		if !unit.Valid() {
			unknown = append(unknown, apperr.FieldError{Field: "unit", Message: "must be one of " + strings.Join(metals.UnitNames(), ", ")})
		}
	}
	if in.TargetPrice != nil {
		t := *in.TargetPrice
		switch {
		case (cur != "USD" || unit != metals.Ounce) && (!t.IsPositive() || t.GreaterThan(decimal.NewFromInt(MaxTargetOther))):
			bad("target_price", fmt.Sprintf("must be more than 0 and at most %d (%s per %s)", int64(MaxTargetOther), cur, unit))
		case cur != "USD" || unit != metals.Ounce:
			if !t.Equal(t.Round(TargetPlaces)) {
				bad("target_price", "has more than 4 decimal places")
			}
		case !t.IsPositive() || t.GreaterThan(decimal.NewFromInt(MaxTarget)):
			bad("target_price", "must be more than 0 and at most 10000000 (USD per troy ounce)")
		case !t.Equal(t.Round(TargetPlaces)):
			bad("target_price", "has more than 4 decimal places")
		}
	} else if create {
		bad("target_price", "is required: USD per troy ounce")
	}
	if in.Repeat != nil && *in.Repeat != Once && *in.Repeat != Rearm {
		bad("repeat", `must be "once" or "rearm"`)
	}
	if len(fields) > 0 {
		return apperr.InvalidFields(append(fields, unknown...))
	}
	if len(unknown) > 0 {
		msg := make([]string, len(unknown))
		for i, f := range unknown {
			msg[i] = f.Field + ": " + f.Message
		}
		return &apperr.Error{Kind: apperr.Unprocessable, Msg: strings.Join(msg, "; "), Fields: unknown}
	}
	return nil
}

// MaxFor is how many alerts u may hold: MaxAlerts for gold members, MaxFreeAlert otherwise.
func MaxFor(u db.User) int {
	if account.IsGold(u) {
		return MaxAlerts
	}
	return MaxFreeAlert
}

// CanCreate reports whether u, holding held alerts, may create another.
func CanCreate(u db.User, held int) bool { return held < MaxFor(u) }

// Create stores a new alert for the caller. Alerts are a Gold feature: gold members may hold
// MaxAlerts, free members MaxFreeAlert.
func (s *Service) Create(ctx context.Context, u db.User, in AlertInput) (Alert, error) {
	if err := requireMember(u); err != nil {
		return Alert{}, err
	}
	if err := validateAlert(in, true); err != nil {
		return Alert{}, err
	}
	m, _ := metals.Parse(*in.Metal)
	repeat := Once
	if in.Repeat != nil {
		repeat = *in.Repeat
	}
	now := s.now().UnixMilli()
	a := db.PriceAlert{UserID: u.ID, Metal: string(m), Direction: *in.Direction, TargetUnits: toUnits(*in.TargetPrice), Currency: "USD", Unit: string(metals.Ounce),
		Repeat: repeat, Enabled: true, CreatedAt: now, UpdatedAt: now}
	if in.Currency != nil {
		a.Currency = normCurrency(*in.Currency)
	}
	if in.Unit != nil {
		a.Unit = strings.TrimSpace(*in.Unit)
	}
	if in.Enabled != nil {
		a.Enabled = *in.Enabled
	}
	if err := s.arming(ctx, newConverter(s), &a); err != nil {
		return Alert{}, err
	}
	limit := MaxFor(u)
	a, err := s.store.InsertAlert(ctx, a, limit)
	if errors.Is(err, db.ErrLimit) {
		if limit == MaxFreeAlert {
			return Alert{}, apperr.Membership("more than one price alert")
		}
		return Alert{}, apperr.ConflictF("at most %d price alerts per member: delete one first", MaxAlerts)
	}
	if err != nil {
		return Alert{}, err
	}
	return alertFrom(a), nil
}

// List is the caller's alerts, oldest first.
func (s *Service) List(ctx context.Context, u db.User) ([]Alert, error) {
	if err := requireMember(u); err != nil {
		return nil, err
	}
	rows, err := s.store.Alerts(ctx, u.ID)
	out := make([]Alert, 0, len(rows))
	for _, r := range rows {
		out = append(out, alertFrom(r))
	}
	return out, err
}

func (s *Service) own(ctx context.Context, u db.User, id int64) (db.PriceAlert, error) {
	if err := requireMember(u); err != nil {
		return db.PriceAlert{}, err
	}
	a, err := s.store.Alert(ctx, u.ID, id)
	if errors.Is(err, db.ErrNotFound) {
		return a, apperr.NotFoundf("alert")
	}
	return a, err
}

// Update changes the caller's own alert. A new target or direction, or enabling it again,
// decides afresh whether it is armed (as when created); pausing is enabled=false.
func (s *Service) Update(ctx context.Context, u db.User, id int64, in AlertInput) (Alert, error) {
	a, err := s.own(ctx, u, id)
	if err != nil {
		return Alert{}, err
	}
	if in.Metal != nil {
		return Alert{}, apperr.InvalidField("metal", "cannot be changed: create another alert")
	}
	// The target is checked against the currency and unit the alert will have.
	check := in
	if check.Currency == nil {
		check.Currency = &a.Currency
	}
	if check.Unit == nil {
		check.Unit = &a.Unit
	}
	if err := validateAlert(check, false); err != nil {
		return Alert{}, err
	}
	rearm := false
	if in.Currency != nil && normCurrency(*in.Currency) != orUSD(a.Currency) {
		a.Currency, rearm = normCurrency(*in.Currency), true
	}
	if in.Unit != nil && strings.TrimSpace(*in.Unit) != string(orOunce(a.Unit)) {
		a.Unit, rearm = strings.TrimSpace(*in.Unit), true
	}
	if in.Direction != nil && *in.Direction != a.Direction {
		a.Direction, rearm = *in.Direction, true
	}
	if in.TargetPrice != nil && toUnits(*in.TargetPrice) != a.TargetUnits {
		a.TargetUnits, rearm = toUnits(*in.TargetPrice), true
	}
	if in.Repeat != nil {
		a.Repeat = *in.Repeat
	}
	if in.Enabled != nil {
		if *in.Enabled && !a.Enabled {
			rearm = true
		}
		a.Enabled = *in.Enabled
	}
	if rearm {
		if err := s.arming(ctx, newConverter(s), &a); err != nil {
			return Alert{}, err
		}
	}
	a.UpdatedAt = s.now().UnixMilli()
	if err := s.store.UpdateAlert(ctx, a); errors.Is(err, db.ErrNotFound) {
		return Alert{}, apperr.NotFoundf("alert")
	} else if err != nil {
		return Alert{}, err
	}
	return alertFrom(a), nil
}

// Toggle pauses the caller's own alert when it is enabled and resumes it otherwise (resuming
// decides afresh whether it is armed, as Update does), and returns it as it is now.
func (s *Service) Toggle(ctx context.Context, u db.User, id int64) (Alert, error) {
	a, err := s.own(ctx, u, id)
	if err != nil {
		return Alert{}, err
	}
	on := !a.Enabled
	return s.Update(ctx, u, id, AlertInput{Enabled: &on})
}

// Delete removes the caller's own alert; its firing history stays in the notification centre.
func (s *Service) Delete(ctx context.Context, u db.User, id int64) error {
	if err := requireMember(u); err != nil {
		return err
	}
	if err := s.store.DeleteAlert(ctx, u.ID, id); errors.Is(err, db.ErrNotFound) {
		return apperr.NotFoundf("alert")
	} else if err != nil {
		return err
	}
	return nil
}

// Notification is one firing in the notification centre.
type Notification struct {
	ID          int64
	AlertID     int64
	Metal       metals.Metal
	Direction   string
	TargetPrice decimal.Decimal
	Price       decimal.Decimal
	// Currency and Unit are what TargetPrice and Price are in.
	Currency  string
	Unit      metals.Unit
	PriceAsOf time.Time
	FiredAt   time.Time
	Read      bool
}

func notificationFrom(n db.AlertNotification) Notification {
	return Notification{ID: n.ID, AlertID: n.AlertID.Int64, Metal: metals.Metal(n.Metal), Direction: n.Direction, TargetPrice: fromUnits(n.TargetUnits),
		Price: fromUnits(n.PriceUnits), Currency: orUSD(n.Currency), Unit: orOunce(n.Unit), PriceAsOf: msTime(n.PriceAsOf), FiredAt: msTime(n.FiredAt), Read: n.ReadAt.Valid}
}

// Title is the notification's one-line headline: "Gold below $4,410.00", or in another
// currency or unit "Gold above €3,800.00/oz", "Silver below ₹95.00/g".
func (n Notification) Title() string {
	return metals.Metal(n.Metal).Title() + " " + n.Direction + " " + TargetText(n.TargetPrice, n.Currency, n.Unit)
}

// Body is the notification's text: "Gold is at €3,812.40 an ounce, above your target of
// €3,800.00/oz."
func (n Notification) Body() string {
	return metals.Metal(n.Metal).Title() + " is at " + format.PriceIn(n.Price, orUSD(n.Currency)) + " " + unitArticle(n.Unit) + ", " + n.Direction +
		" your target of " + TargetText(n.TargetPrice, n.Currency, n.Unit) + "."
}

// TargetText writes an alert's price in its currency and unit: "$4,410.00" for US dollars per
// troy ounce (as alerts always read), "€3,800.00/oz", "₹95.00/g" otherwise.
func TargetText(d decimal.Decimal, currency string, unit metals.Unit) string {
	currency, unit = orUSD(currency), orOunce(string(unit))
	if currency == "USD" && unit == metals.Ounce {
		return format.PriceUSD(d)
	}
	return format.PricePerUnit(d, currency, string(unit))
}

// unitArticle is "an ounce", "a gram", "a kilogram", "a tola".
func unitArticle(u metals.Unit) string {
	switch u {
	case metals.Gram:
		return "a gram"
	case metals.Kilogram:
		return "a kilogram"
	case metals.Tola:
		return "a tola"
	}
	return "an ounce"
}

func normCurrency(c string) string { return strings.ToUpper(strings.TrimSpace(c)) }

// orUSD and orOunce stand the defaults in for an unset currency or unit.
func orUSD(c string) string {
	if c == "" {
		return "USD"
	}
	return c
}

func orOunce(u string) metals.Unit {
	if !metals.Unit(u).Valid() {
		return metals.Ounce
	}
	return metals.Unit(u)
}

// MaxNotifications is the most the notification centre lists.
const MaxNotifications = 100

// Notifications lists the caller's newest notifications.
func (s *Service) Notifications(ctx context.Context, u db.User, limit int) ([]Notification, error) {
	if err := requireMember(u); err != nil {
		return nil, err
	}
	if limit <= 0 || limit > MaxNotifications {
		limit = MaxNotifications
	}
	rows, err := s.store.Notifications(ctx, u.ID, limit)
	out := make([]Notification, 0, len(rows))
	for _, r := range rows {
		out = append(out, notificationFrom(r))
	}
	return out, err
}

// Unread counts the caller's unread notifications.
func (s *Service) Unread(ctx context.Context, u db.User) (int64, error) {
	if u.ID == 0 {
		return 0, nil
	}
	return s.store.UnreadNotifications(ctx, u.ID)
}

// MarkRead marks every notification of the caller read.
func (s *Service) MarkRead(ctx context.Context, u db.User) error {
	if err := requireMember(u); err != nil {
		return err
	}
	if err := s.store.MarkNotificationsRead(ctx, u.ID, s.now().UnixMilli()); err != nil {
		return err
	}
	s.announceUnread(ctx, []int64{u.ID})
	return nil
}

// FiredAlert is one firing, for the advisor's daily brief.
type FiredAlert struct {
	Metal       metals.Metal
	Direction   string
	TargetPrice decimal.Decimal
	FiredPrice  decimal.Decimal
	// Currency and Unit are what TargetPrice and FiredPrice are in.
	Currency string
	Unit     metals.Unit
	FiredAt  time.Time
}

// FiredSince lists the member's alert firings at or after since, oldest first.
func (s *Service) FiredSince(ctx context.Context, userID int64, since time.Time) ([]FiredAlert, error) {
	rows, err := s.store.NotificationsSince(ctx, userID, since.UnixMilli())
	if err != nil {
		return nil, err
	}
	out := make([]FiredAlert, 0, len(rows))
	for _, r := range rows {
		n := notificationFrom(r)
		out = append(out, FiredAlert{Metal: n.Metal, Direction: n.Direction, TargetPrice: n.TargetPrice, FiredPrice: n.Price, Currency: n.Currency, Unit: n.Unit, FiredAt: n.FiredAt})
	}
	return out, nil
}

// ImportRow is one alert of a bulk import.
type ImportRow struct {
	UserID      int64
	Metal       metals.Metal
	Direction   string
	TargetPrice decimal.Decimal
	Repeat      string
	// Currency and Unit default to USD and oz.
	Currency string
	Unit     metals.Unit
}

// Import stores many alerts at once (moving members over from another system, benchmarks),
// each armed as if created now; rows are validated but the per-member caps are not applied.
func (s *Service) Import(ctx context.Context, rows []ImportRow) error {
	now := s.now().UnixMilli()
	conv := newConverter(s) // one rate look-up per currency for the whole import
	out := make([]db.PriceAlert, 0, len(rows))
	for i, r := range rows {
		m, dir, rep, t, cur, unit := string(r.Metal), r.Direction, r.Repeat, r.TargetPrice, orUSD(normCurrency(r.Currency)), string(r.Unit)
		if unit == "" {
			unit = string(metals.Ounce)
		}
		if err := validateAlert(AlertInput{Metal: &m, Direction: &dir, Repeat: &rep, TargetPrice: &t, Currency: &cur, Unit: &unit}, true); err != nil {
			return fmt.Errorf("row %d: %w", i, err)
		}
		a := db.PriceAlert{UserID: r.UserID, Metal: m, Direction: dir, TargetUnits: toUnits(t), Currency: cur, Unit: unit, Repeat: rep, Enabled: true, CreatedAt: now, UpdatedAt: now}
		if err := s.arming(ctx, conv, &a); err != nil {
			return fmt.Errorf("row %d: %w", i, err)
		}
		out = append(out, a)
	}
	return s.store.ImportAlerts(ctx, out)
}
