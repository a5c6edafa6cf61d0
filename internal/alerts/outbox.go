package alerts

import (
	"context"
	"errors"
	"fmt"
	"github.com/ouncehq/ounce/internal/job"
	"net/http"
	"strconv"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/outbound"
)

// Delivery retries follow the outboxes' schedule (job.OutboxBackoff): at most MaxAttempts
// tries over about an hour.
const (
	MaxAttempts = job.OutboxAttempts
	lease       = job.OutboxLease
	// batchSize is the most rows claimed at once, and Expo's limit per request.
	batchSize = 100
	// receiptGiveUp ends the wait for an Expo receipt that never comes.
	receiptGiveUp = 24 * time.Hour
)

// Backoff is the wait after the n-th failed attempt (n ≥ 1).
func Backoff(n int) time.Duration { return job.OutboxBackoff(n) }

// Outcomes recorded in push_deliveries.
const (
	OutcomeSent         = "sent"          // the push service accepted it (Web Push) or Expo's receipt is ok
	OutcomeTicket       = "ticket"        // Expo accepted it; its receipt is asked later
	OutcomeRetry        = "retry"         // failed for now; tried again later
	OutcomeGaveUp       = "gave_up"       // failed MaxAttempts times
	OutcomeFailed       = "failed"        // refused for good
	OutcomeDeviceGone   = "device_gone"   // DeviceNotRegistered, or 404/410 from the push service: the device is removed
	OutcomeNoReceipt    = "no_receipt"    // Expo kept no receipt for a day; counted as sent
	OutcomeReceiptLater = "receipt_later" // Expo's receipt is not ready yet
)

// result is what one send or receipt check came to.
type result struct {
	outcome string
	detail  string
	// retryAfter is the wait the service asked for (429 Retry-After), if any.
	retryAfter time.Duration
	ticket     string
}

// RunWorker drains the outbox until ctx ends: at once when woken by a firing, and every
// PollEvery for retries that fall due (and rows left by an instance that stopped).
func (s *Service) RunWorker(ctx context.Context) {
	job.Woken(ctx, s.cfg.PollEvery, s.wake, func(ctx context.Context) {
		job.Drain(ctx, s.log, "push outbox", batchSize, s.DrainOnce)
	})
}

// DrainOnce claims the rows due now (up to one batch), sends them and records each outcome.
// It returns how many rows it handled.
func (s *Service) DrainOnce(ctx context.Context) (int, error) {
	now := s.now()
	items, err := s.store.ClaimOutbox(ctx, now.UnixMilli(), lease.Milliseconds(), batchSize)
	if err != nil || len(items) == 0 {
		return 0, err
	}
	var expoSend, expoReceipts []db.OutboxItem
	results := make(map[int64]result, len(items))
	for _, it := range items {
		switch {
		case it.Platform == PlatformWeb:
			results[it.ID] = s.sendWeb(ctx, it)
		case it.Status == db.OutboxTicketed:
			expoReceipts = append(expoReceipts, it)
		default:
			expoSend = append(expoSend, it)
		}
	}
	for k, v := range s.sendExpo(ctx, expoSend) {
		results[k] = v
	}
	for k, v := range s.expoReceipts(ctx, expoReceipts, now) {
		results[k] = v
	}
	var errs []error
	for _, it := range items {
		if err := s.finish(ctx, it, results[it.ID]); err != nil {
			errs = append(errs, err)
		}
	}
	return len(items), errors.Join(errs...)
}

// finish records r for the claimed row and moves it on.
func (s *Service) finish(ctx context.Context, it db.OutboxItem, r result) error {
	now := s.now()
	u := db.OutboxUpdate{ID: it.ID, Item: it, Attempts: it.Attempts, TicketID: it.TicketID, NextAt: now.UnixMilli(), Outcome: r.outcome, Detail: r.detail}
	if it.Status != db.OutboxTicketed {
		u.Attempts++ // a send, not a receipt check
	}
	switch r.outcome {
	case OutcomeSent, OutcomeNoReceipt:
		u.Status = db.OutboxSent
	case OutcomeTicket:
		u.Status, u.TicketID = db.OutboxTicketed, r.ticket
		u.NextAt = now.Add(s.cfg.ReceiptDelay).UnixMilli()
	case OutcomeReceiptLater:
		u.Status = db.OutboxTicketed
		u.NextAt = now.Add(s.cfg.ReceiptDelay).UnixMilli()
	case OutcomeRetry:
		if it.Status == db.OutboxTicketed {
			u.Attempts++ // the receipt says the send failed: that send counts
		}
		if u.Attempts >= MaxAttempts {
			u.Status, u.Outcome, u.Error = db.OutboxFailed, OutcomeGaveUp, r.detail
		} else {
			u.Status, u.TicketID, u.Error = db.OutboxPending, "", r.detail
			u.NextAt = now.Add(max(Backoff(u.Attempts), min(r.retryAfter, time.Hour))).UnixMilli()
		}
	case OutcomeDeviceGone:
		u.Status, u.Error = db.OutboxFailed, r.detail
	default:
		u.Status, u.Error = db.OutboxFailed, r.detail
		if u.Outcome == "" {
			u.Outcome = OutcomeFailed
		}
	}
	if err := s.store.FinishOutbox(ctx, u, now.UnixMilli()); err != nil {
		return fmt.Errorf("outbox %d: %w", it.ID, err)
	}
	switch u.Outcome {
	case OutcomeSent, OutcomeTicket, OutcomeReceiptLater, OutcomeNoReceipt:
	default:
		// One line per failed delivery, whatever happens next; the row keeps the same.
		attrs := []any{"outbox", it.ID, "notification", it.NotificationID, "device", it.DeviceID, "platform", it.Platform,
			"outcome", u.Outcome, "attempt", u.Attempts, "detail", r.detail}
		if u.Status == db.OutboxPending {
			attrs = append(attrs, "retry_at", time.UnixMilli(u.NextAt).UTC().Format(time.RFC3339))
		}
		s.log.Warn("push delivery failed", attrs...)
	}
	if r.outcome == OutcomeDeviceGone {
		s.log.Warn("push device removed", "device", it.DeviceID, "platform", it.Platform, "why", r.detail)
		return s.store.RemoveDevice(ctx, it.DeviceID)
	}
	return nil
}

// httpFailure classifies a push service's HTTP status: 429 and 5xx are worth retrying.
func httpFailure(resp *http.Response, what string) result {
	detail := what + ": HTTP " + strconv.Itoa(resp.StatusCode)
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 {
		r := result{outcome: OutcomeRetry, detail: detail}
		if secs, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && secs > 0 {
			r.retryAfter = time.Duration(secs) * time.Second
		}
		return r
	}
	return result{outcome: OutcomeFailed, detail: detail}
}

// deliveryTimeout bounds one request to a push service.
const deliveryTimeout = 15 * time.Second

// deliveryClients builds the Expo client (the operator's URL: its host is trusted, a
// redirect elsewhere is held to the outbound policy) and the Web Push client (members'
// endpoints: every dial and redirect checked, AllowPrivate excepted). Neither uses a proxy.
func deliveryClients(cfg Config) (expo, push *http.Client) {
	o := outbound.Options{Timeout: deliveryTimeout}
	if cfg.HTTPClient != nil {
		if tr, ok := cfg.HTTPClient.Transport.(*http.Transport); ok {
			o.Base = tr
		}
		if cfg.HTTPClient.Timeout > 0 {
			o.Timeout = cfg.HTTPClient.Timeout
		}
	}
	return outbound.OperatorClient(o), outbound.Policy{Allow: cfg.AllowPrivate}.MemberClient(o)
}
