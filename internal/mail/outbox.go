package mail

import (
	"context"
	"errors"
	"fmt"
	"github.com/ouncehq/ounce/internal/format"
	"github.com/ouncehq/ounce/internal/job"
	"net/mail"
	"time"

	gomail "github.com/wneessen/go-mail"

	"github.com/ouncehq/ounce/db"
	"github.com/shopspring/decimal"
)

// Delivery retries follow the outboxes' schedule (job.OutboxBackoff, the push outbox's too): at
// most MaxAttempts tries over about an hour; a permanent refusal (5xx) is not retried.
const (
	MaxAttempts = job.OutboxAttempts
	lease       = job.OutboxLease
	batchSize   = 50
	sendTimeout = 30 * time.Second
	// sweepWindow is how far back the worker looks for alert firings and briefs not mailed.
	sweepWindow = 24 * time.Hour
	// leaderKey is the PostgreSQL advisory lock of the mail worker.
	leaderKey = 7302029
)

// Backoff is the wait after the n-th failed attempt (n ≥ 1).
func Backoff(n int) time.Duration { return job.OutboxBackoff(n) }

// Run is the mail job: on the leader only, it turns new alert firings and briefs of members
// who asked for them into mail, and drains the outbox, at once when woken and every
// PollEvery. With mail off it returns at once.
func (s *Service) Run(ctx context.Context) {
	if !s.Enabled() {
		return
	}
	s.store.RunAsLeader(ctx, leaderKey, 10*time.Second, func(ctx context.Context) {
		job.Woken(ctx, s.every, s.wake, func(ctx context.Context) {
			if _, err := s.Sweep(ctx); err != nil && ctx.Err() == nil {
				s.log.Warn("mail sweep", "err", err)
			}
			job.Drain(ctx, s.log, "mail outbox", batchSize, s.DrainOnce)
		})
	})
}

// Sweep enqueues the mail of alert firings and daily briefs of the last day that members
// asked to have by mail and that have none yet. The dedupe key of each ('alert:<id>',
// 'brief:<id>') keeps it to one message however often or wherever this runs.
func (s *Service) Sweep(ctx context.Context) (int, error) {
	if !s.Enabled() {
		return 0, nil
	}
	now := s.now()
	alerts, err := s.store.AlertsToMail(ctx, now.Add(-sweepWindow).UnixMilli(), 500)
	if err != nil {
		return 0, fmt.Errorf("alerts to mail: %w", err)
	}
	briefs, err := s.store.BriefsToMail(ctx, now.Add(-sweepWindow), 500)
	if err != nil {
		return 0, fmt.Errorf("briefs to mail: %w", err)
	}
	var out []db.OutMail
	for _, a := range alerts {
		out = append(out, alertMail(a, s.cfg.BaseURL))
	}
	for _, b := range briefs {
		out = append(out, db.OutMail{UserID: b.UserID, Kind: "brief", DedupeKey: "brief:" + b.ID, To: b.Email, List: db.ListBrief,
			Subject: "Your Ounce brief for " + b.GeneratedAt.UTC().Format("2 Jan 2006"),
			Body:    b.Content + "\n\nRead it with its figures and sources: " + s.cfg.BaseURL + "/advisor\nNot financial or tax advice.\n"})
	}
	if len(out) == 0 {
		return 0, nil
	}
	return s.store.EnqueueMails(ctx, out)
}

// alertMail is the message of one alert firing.
func alertMail(a db.MailAlertRow, base string) db.OutMail {
	cur := a.Currency
	if cur == "" {
		cur = "USD"
	}
	price := format.PriceIn(decimal.New(a.PriceUnits, -4), cur)
	target := format.PriceIn(decimal.New(a.TargetUnits, -4), cur)
	word := map[string]string{"above": "rose to or above", "below": "fell to or below"}[a.Direction]
	if word == "" {
		word = a.Direction
	}
	// The alert's own unit: an alert set per gram is written per gram.
	per := map[string]string{"g": "a gram", "kg": "a kilogram", "tola": "a tola"}[a.Unit]
	suffix := "/" + a.Unit
	if per == "" {
		per, suffix = "an ounce", "/oz"
	}
	subjectTarget := target
	if cur != "USD" || suffix != "/oz" {
		subjectTarget += suffix
	}
	at := time.UnixMilli(a.PriceAsOf).UTC().Format("2 Jan 2006 15:04 MST")
	return db.OutMail{UserID: a.UserID, Kind: "alert", DedupeKey: fmt.Sprintf("alert:%d", a.ID), To: a.Email, List: db.ListAlerts,
		Subject: fmt.Sprintf("Price alert: %s %s %s", a.Metal, word, subjectTarget),
		Body: fmt.Sprintf("The %s price %s your target of %s %s: %s (price of %s).\n\nYour alerts: %s/alerts\n",
			a.Metal, word, target, per, price, at, base)}
}

// DrainOnce claims the messages due now (up to one batch), sends each and records the
// outcome. It returns how many it handled.
func (s *Service) DrainOnce(ctx context.Context) (int, error) {
	if !s.Enabled() {
		return 0, nil
	}
	items, err := s.store.ClaimMail(ctx, s.now().UnixMilli(), lease.Milliseconds(), batchSize)
	if err != nil || len(items) == 0 {
		return 0, err
	}
	var errs []error
	for _, it := range items {
		sendErr := s.send(ctx, it)
		if err := s.finish(ctx, it, sendErr); err != nil {
			errs = append(errs, err)
		}
	}
	return len(items), errors.Join(errs...)
}

// finish records one claimed message's outcome; every failed try is logged once, without the
// message or its address.
func (s *Service) finish(ctx context.Context, it db.MailItem, sendErr error) error {
	now := s.now()
	attempts := it.Attempts + 1
	status, next, detail := db.MailSent, now.UnixMilli(), ""
	if sendErr != nil {
		detail = sendErr.Error()
		if len(detail) > 300 {
			detail = detail[:300]
		}
		switch {
		case permanent(sendErr):
			status = db.MailFailed
		case attempts >= MaxAttempts:
			status = db.MailFailed
		default:
			status, next = db.MailPending, now.Add(Backoff(attempts)).UnixMilli()
		}
		attrs := []any{"mail", it.ID, "kind", it.Kind, "attempt", attempts, "outcome", status, "detail", detail}
		if status == db.MailPending {
			attrs = append(attrs, "retry_at", time.UnixMilli(next).UTC().Format(time.RFC3339))
		}
		s.log.Warn("mail delivery failed", attrs...)
	}
	if err := s.store.FinishMail(ctx, it.ID, status, attempts, next, detail); err != nil {
		return fmt.Errorf("mail %d: %w", it.ID, err)
	}
	return nil
}

// refused is a failure no retry can mend.
type refused struct{ msg string }

func (r refused) Error() string { return r.msg }

// permanent reports whether the message is refused for good: a 5xx reply to it, or an
// address it can never go to.
func permanent(err error) bool {
	if errors.As(err, new(refused)) {
		return true
	}
	var se *gomail.SendError
	if errors.As(err, &se) {
		return !se.IsTemp() && se.Reason != gomail.ErrConnCheck && se.Reason != gomail.ErrSMTPReset
	}
	return false
}

// send delivers one message over a fresh SMTP connection.
func (s *Service) send(ctx context.Context, it db.MailItem) error {
	m := gomail.NewMsg()
	if err := m.From(s.cfg.From); err != nil {
		return fmt.Errorf("from: %w", err)
	}
	if _, err := mail.ParseAddress(it.To); err != nil {
		return refused{"the recipient address is not valid"}
	}
	if err := m.To(it.To); err != nil {
		return fmt.Errorf("to: %w", err)
	}
	m.Subject(it.Subject)
	m.SetDate()
	m.SetMessageID()
	if it.List != "" && it.UserID.Valid {
		tok, err := s.UnsubscribeToken(ctx, it.UserID.Int64, it.List)
		if err != nil {
			return err
		}
		// RFC 8058: a mail client POSTs "List-Unsubscribe=One-Click" to the https URL.
		m.SetGenHeader("List-Unsubscribe", "<"+s.cfg.BaseURL+"/v1/mail/unsubscribe?token="+tok+">")
		m.SetGenHeader("List-Unsubscribe-Post", "List-Unsubscribe=One-Click")
		it.Body += "\n--\nStop " + ListNames[it.List] + ": " + s.cfg.BaseURL + "/unsubscribe?token=" + tok + "\n"
	}
	m.SetBodyString(gomail.TypeTextPlain, it.Body)
	c, err := s.client()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, sendTimeout)
	defer cancel()
	return c.DialAndSendWithContext(ctx, m)
}

// client is an SMTP client for the configured server: smtps:// speaks TLS from the start;
// smtp:// requires STARTTLS, unless the host is loopback and plain is allowed, where it uses
// STARTTLS when offered.
func (s *Service) client() (*gomail.Client, error) {
	t := s.target
	opts := []gomail.Option{gomail.WithPort(t.Port), gomail.WithTimeout(sendTimeout)}
	if s.tlsCfg != nil {
		opts = append(opts, gomail.WithTLSConfig(s.tlsCfg))
	}
	switch {
	case t.Implicit:
		opts = append(opts, gomail.WithSSL())
	case t.Loopback && s.cfg.AllowPlainLoopback:
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSOpportunistic))
	default:
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
	}
	if t.Username != "" {
		opts = append(opts, gomail.WithSMTPAuth(gomail.SMTPAuthAutoDiscover), gomail.WithUsername(t.Username), gomail.WithPassword(t.Password))
	}
	return gomail.NewClient(t.Host, opts...)
}
