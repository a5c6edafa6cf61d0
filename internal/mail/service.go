package mail

import (
	"cmp"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/wallclock"
)

// Token lifetimes.
const (
	ResetTTL  = time.Hour
	VerifyTTL = 48 * time.Hour
	// resetEvery is the least time between two reset mails to one address, and resetPerHour
	// the most in an hour: asking more answers the same and sends nothing, so the form
	// cannot flood a mailbox.
	resetEvery   = time.Minute
	resetPerHour = 5
	// resetIPWindow is the window of Config.ResetsPerIP.
	resetIPWindow = time.Hour
)

// Limiter counts hits in fixed windows (internal/ratelimit: shared in PostgreSQL, in memory
// for SQLite).
type Limiter interface {
	Allow(ctx context.Context, bucket string, limit int, window time.Duration) (bool, time.Duration, error)
}

// Deps are what the service is built from.
type Deps struct {
	Store  *db.Store
	Config Config
	Now    func() time.Time
	Logger *slog.Logger
	// TLSConfig, when set, is the TLS configuration of SMTP connections (tests trust their
	// own certificate with it); nil is the system's roots and the URL's host name.
	TLSConfig *tls.Config
	// PollEvery is how often the worker looks for due mail and new alert firings and briefs
	// (default 15 s).
	PollEvery time.Duration
	// Limiter counts reset requests per client address (Config.ResetsPerIP); nil means no
	// such limit (tools and tests).
	Limiter Limiter
}

// Service is the mail use cases.
type Service struct {
	store  *db.Store
	cfg    Config
	target Target
	on     bool
	now    func() time.Time
	log    *slog.Logger
	tlsCfg *tls.Config
	every  time.Duration
	wake   chan struct{}
	limit  Limiter

	keyOnce sync.Once
	key     []byte
	keyErr  error
}

// New builds the service; an unusable configuration (cmd checks it first) leaves mail off.
func New(d Deps) *Service {
	s := &Service{store: d.Store, cfg: d.Config, now: d.Now, log: d.Logger, tlsCfg: d.TLSConfig, every: d.PollEvery, wake: make(chan struct{}, 1),
		limit: d.Limiter}
	s.now = wallclock.Or(s.now)
	s.log = cmp.Or(s.log, slog.Default())
	if s.every <= 0 {
		s.every = 15 * time.Second
	}
	if strings.TrimSpace(d.Config.SMTPURL) != "" && d.Config.Check() == nil {
		s.target, _ = ParseSMTPURL(d.Config.SMTPURL)
		s.on = true
	}
	s.cfg.BaseURL = strings.TrimRight(s.cfg.BaseURL, "/")
	return s
}

// Enabled reports whether mail is configured. Off, nothing is queued and pages say so.
func (s *Service) Enabled() bool { return s != nil && s.on }

// errOff is the refusal of a mail feature while mail is off.
var errOff = apperr.UnavailableF("mail is not set up on this server (OUNCE_SMTP_URL)")

func (s *Service) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// newToken is 32 random bytes, URL-safe, and the hash that is stored in its place.
func newToken() (raw, hash string) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err) // the OS random source failing is not recoverable
	}
	raw = base64.RawURLEncoding.EncodeToString(b)
	return raw, hashToken(raw)
}

func hashToken(raw string) string {
	sum := sha256.Sum256([]byte(raw))
	return hex.EncodeToString(sum[:])
}

func (s *Service) link(path string, q url.Values) string {
	return s.cfg.BaseURL + path + "?" + q.Encode()
}

// RequestResetFrom is RequestReset for someone at client address ip: each address may ask
// Config.ResetsPerIP times an hour, whatever addresses it names; one more is a RateLimited
// error with the time until the window resets, and nothing is looked up or mailed.
func (s *Service) RequestResetFrom(ctx context.Context, ip, email string) error {
	if !s.Enabled() {
		return errOff
	}
	if s.limit != nil && s.cfg.ResetsPerIP > 0 {
		ok, retry, err := s.limit.Allow(ctx, "reset-ip:"+ip, s.cfg.ResetsPerIP, resetIPWindow)
		if err != nil {
			return err
		}
		if !ok {
			return apperr.Limited(time.Duration(int(retry.Seconds())+1)*time.Second,
				"too many password reset requests from your address; try again later")
		}
	}
	return s.RequestReset(ctx, email)
}

// RequestReset mails a password reset link to the account with that address. Whether or
// not such an account exists, it answers the same (nil), so the form tells a stranger
// nothing; a second request within a minute sends nothing more.
func (s *Service) RequestReset(ctx context.Context, email string) error {
	if !s.Enabled() {
		return errOff
	}
	u, err := s.store.UserByEmail(ctx, email)
	if errors.Is(err, db.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	now := s.now()
	if n, err := s.store.MailTokensSince(ctx, u.ID, db.TokenReset, now.Add(-resetEvery).UnixMilli()); err != nil || n > 0 {
		return err
	}
	if n, err := s.store.MailTokensSince(ctx, u.ID, db.TokenReset, now.Add(-time.Hour).UnixMilli()); err != nil || n >= resetPerHour {
		return err
	}
	raw, hash := newToken()
	link := s.link("/reset-password", url.Values{"token": {raw}})
	body := "Someone (hopefully you) asked to reset the password of your Ounce account " + u.Email + ".\n\n" +
		"Choose a new password here (the link works once, for one hour):\n\n" + link + "\n\n" +
		"If you did not ask, ignore this message: your password stays as it is.\n"
	return s.store.CreateMailToken(ctx, db.MailToken{UserID: u.ID, Purpose: db.TokenReset, Email: u.Email, TokenHash: hash,
		ExpiresAt: s.now().Add(ResetTTL).UnixMilli()},
		db.OutMail{UserID: u.ID, Kind: "reset", To: u.Email, Subject: "Reset your Ounce password", Body: body})
}

// ErrBadToken is the refusal of a reset or verification link that is unknown, used or expired.
var ErrBadToken = apperr.InvalidField("token", "this link has expired or was already used; ask for a new one")

// ResetPassword sets a new password with a reset token: the token works once, every session
// of the member is signed out, and the account's address is told.
func (s *Service) ResetPassword(ctx context.Context, token, password string) (db.User, error) {
	if err := account.ValidatePassword(password); err != nil {
		return db.User{}, apperr.InvalidField("password", err.Error())
	}
	if token == "" {
		return db.User{}, ErrBadToken
	}
	hash, err := account.HashPassword(password)
	if err != nil {
		return db.User{}, err
	}
	u, err := s.store.ResetPassword(ctx, hashToken(token), hash, func(u db.User) db.OutMail {
		return s.passwordNotice(u, "reset with a link mailed to this address")
	})
	if errors.Is(err, db.ErrNotFound) {
		return db.User{}, ErrBadToken
	}
	if err == nil {
		s.poke()
	}
	return u, err
}

func (s *Service) passwordNotice(u db.User, how string) db.OutMail {
	return db.OutMail{UserID: u.ID, Kind: "password-changed", To: u.Email, Subject: "Your Ounce password was changed",
		Body: "The password of your Ounce account " + u.Email + " was " + how + " at " + s.now().UTC().Format("2 Jan 2006 15:04 MST") + ".\n" +
			"Every browser signed in to the account has been signed out.\n\n" +
			"If this was not you, reset your password at once: " + s.cfg.BaseURL + "/forgot-password\n"}
}

// PasswordChangedMail is the notice of u's new password to u's address (none with mail
// off). The account service writes it in the transaction of the change (account.Notices).
func (s *Service) PasswordChangedMail(u db.User, byOperator bool) []db.OutMail {
	if !s.Enabled() {
		return nil
	}
	how := "changed in the account settings"
	if byOperator {
		how = "set by the operator of this server"
	}
	return []db.OutMail{s.passwordNotice(u, how)}
}

// EmailChangedMail is what a change of address writes in its own transaction (none with mail
// off): the notice to the old address, and the confirmation link to the new one with its
// token. Neither can exist without the change, nor the change without them.
func (s *Service) EmailChangedMail(oldEmail string, u db.User) []db.OutMail {
	if !s.Enabled() || oldEmail == u.Email {
		return nil
	}
	return []db.OutMail{{UserID: u.ID, Kind: "email-changed", To: oldEmail, Subject: "Your Ounce sign-in address was changed",
		Body: "The sign-in address of your Ounce account was changed from " + oldEmail + " to " + u.Email + " at " +
			s.now().UTC().Format("2 Jan 2006 15:04 MST") + ".\n\nIf this was not you, write to the operator of " + s.cfg.BaseURL + " at once.\n"},
		s.verificationMail(u)}
}

// Wake has the worker look at the outbox now (after a change that queued mail commits).
func (s *Service) Wake() {
	if s.Enabled() {
		s.poke()
	}
}

// SendVerification mails a link that proves the account's address.
func (s *Service) SendVerification(ctx context.Context, u db.User) error {
	if !s.Enabled() {
		return errOff
	}
	defer s.poke()
	return s.store.QueueMail(ctx, s.verificationMail(u))
}

// verificationMail is a new confirmation link for u's address, carrying its token (which voids
// any older link).
func (s *Service) verificationMail(u db.User) db.OutMail {
	raw, hash := newToken()
	link := s.link("/verify-email", url.Values{"token": {raw}})
	return db.OutMail{UserID: u.ID, Kind: "verify", To: u.Email, Subject: "Confirm your address for Ounce",
		Body: "Confirm that " + u.Email + " is the address of your Ounce account (the link works once, for two days):\n\n" + link +
			"\n\nOunce mails price alerts and the daily brief only to a confirmed address.\n",
		Token: &db.MailToken{UserID: u.ID, Purpose: db.TokenVerify, Email: u.Email, TokenHash: hash,
			ExpiresAt: s.now().Add(VerifyTTL).UnixMilli()}}
}

// VerifyEmail spends a verification link; the address it was sent to becomes the member's
// confirmed address if the account still has it.
func (s *Service) VerifyEmail(ctx context.Context, token string) (db.User, error) {
	if token == "" {
		return db.User{}, ErrBadToken
	}
	u, err := s.store.VerifyEmail(ctx, hashToken(token))
	if errors.Is(err, db.ErrNotFound) {
		return db.User{}, ErrBadToken
	}
	return u, err
}

// Prefs is what the settings page shows about a member's mail.
type Prefs struct {
	// Enabled is whether this server sends mail at all.
	Enabled bool
	// Verified is whether the account's current address is confirmed.
	Verified bool
	Alerts   bool
	Brief    bool
}

// PrefsOf reads u's mail settings.
func (s *Service) PrefsOf(ctx context.Context, u db.User) (Prefs, error) {
	p, err := s.store.MailPrefsOf(ctx, u.ID)
	if err != nil {
		return Prefs{}, err
	}
	return Prefs{Enabled: s.Enabled(), Verified: p.VerifiedEmail != "" && p.VerifiedEmail == db.NormalizeEmail(u.Email),
		Alerts: p.AlertsSince > 0, Brief: p.BriefSince > 0}, nil
}

// SetLists turns price alerts and the daily brief by mail on or off for u.
func (s *Service) SetLists(ctx context.Context, u db.User, alerts, brief bool) error {
	if !s.Enabled() && (alerts || brief) {
		return errOff
	}
	if err := s.store.SetMailList(ctx, u.ID, db.ListAlerts, alerts); err != nil {
		return err
	}
	return s.store.SetMailList(ctx, u.ID, db.ListBrief, brief)
}

func (s *Service) signingKey(ctx context.Context) ([]byte, error) {
	s.keyOnce.Do(func() {
		v, err := s.store.Secret(ctx, "mail-unsubscribe-key", func() string { raw, _ := newToken(); return raw })
		s.key, s.keyErr = []byte(v), err
	})
	return s.key, s.keyErr
}

func sign(key []byte, userID int64, list string) string {
	m := hmac.New(sha256.New, key)
	fmt.Fprintf(m, "unsubscribe:%d:%s", userID, list)
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:18])
}

// UnsubscribeToken is the signed token of a one-click unsubscribe from list for a member.
func (s *Service) UnsubscribeToken(ctx context.Context, userID int64, list string) (string, error) {
	key, err := s.signingKey(ctx)
	if err != nil {
		return "", err
	}
	return strconv.FormatInt(userID, 10) + "." + list + "." + sign(key, userID, list), nil
}

// ListNames are the words pages use for each mailing.
var ListNames = map[string]string{db.ListAlerts: "price alerts by email", db.ListBrief: "the daily brief by email"}

// Unsubscribe stops the mailing a signed token names (RFC 8058 one-click: no sign-in). It
// returns the list's name; a token that does not verify is an invalid "token".
func (s *Service) Unsubscribe(ctx context.Context, token string) (string, error) {
	bad := apperr.InvalidField("token", "this unsubscribe link is not valid")
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return "", bad
	}
	uid, err := strconv.ParseInt(parts[0], 10, 64)
	if err != nil || uid <= 0 || ListNames[parts[1]] == "" {
		return "", bad
	}
	key, err := s.signingKey(ctx)
	if err != nil {
		return "", err
	}
	if !hmac.Equal([]byte(sign(key, uid, parts[1])), []byte(parts[2])) {
		return "", bad
	}
	if err := s.store.SetMailList(ctx, uid, parts[1], false); err != nil {
		return "", err
	}
	return ListNames[parts[1]], nil
}
