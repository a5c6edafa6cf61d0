package alerts

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"

	webpush "github.com/SherClockHolmes/webpush-go"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/outbound"
)

// VAPIDPublicKey is the installation's Web Push application server key (base64url), which a
// browser's pushManager.subscribe needs. The key pair is made on first use and stored, so
// every instance and every restart signs with the same one.
func (s *Service) VAPIDPublicKey(ctx context.Context) (string, error) {
	pub, _, err := s.vapid(ctx)
	return pub, err
}

func (s *Service) vapid(ctx context.Context) (pub, priv string, err error) {
	s.vapidOnce.Lock()
	defer s.vapidOnce.Unlock()
	if s.vapidPub != "" {
		return s.vapidPub, s.vapidPriv, nil
	}
	pub, priv, err = s.store.VAPIDKeys(ctx, func() (string, string, error) {
		priv, pub, err := webpush.GenerateVAPIDKeys()
		return pub, priv, err
	})
	if err != nil {
		return "", "", err
	}
	s.vapidPub, s.vapidPriv = pub, priv
	return pub, priv, nil
}

// WebPayload is the JSON a browser's service worker receives (decrypted) in its push event.
type WebPayload struct {
	Title          string `json:"title"`
	Body           string `json:"body"`
	URL            string `json:"url"`
	NotificationID int64  `json:"notification_id"`
	Metal          string `json:"metal"`
}

// sendWeb encrypts the notification for one subscription (RFC 8291) and posts it to the
// subscription's endpoint with a VAPID signature. 404 and 410 mean the subscription is gone.
func (s *Service) sendWeb(ctx context.Context, it db.OutboxItem) result {
	pub, priv, err := s.vapid(ctx)
	if err != nil {
		return result{outcome: OutcomeRetry, detail: "vapid keys: " + err.Error()}
	}
	n := notificationFrom(it.AlertNotification)
	payload, _ := json.Marshal(WebPayload{Title: n.Title(), Body: n.Body(), URL: "/alerts", NotificationID: it.NotificationID, Metal: string(n.Metal)})
	subject := s.cfg.VAPIDSubject
	if subject == "" {
		subject = "https://ounce.example"
	}
	resp, err := webpush.SendNotificationWithContext(ctx, payload, &webpush.Subscription{Endpoint: it.Token, Keys: webpush.Keys{P256dh: it.P256dh, Auth: it.Auth}},
		&webpush.Options{HTTPClient: s.push, Subscriber: subject, VAPIDPublicKey: pub, VAPIDPrivateKey: priv, TTL: 3600, Urgency: webpush.UrgencyHigh})
	if err != nil {
		return webPushError(it.Token, err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		return result{outcome: OutcomeSent, detail: "web push: HTTP " + http.StatusText(resp.StatusCode)}
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone:
		return result{outcome: OutcomeDeviceGone, detail: "web push: subscription gone (HTTP " + http.StatusText(resp.StatusCode) + ")"}
	}
	return httpFailure(resp, "web push")
}

// webPushError names the endpoint's host only: the rest of its URL is the subscription's
// secret. A refusal by the outbound policy is final; other failures are retried.
func webPushError(endpoint string, err error) result {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	host := "?"
	if u, perr := url.Parse(endpoint); perr == nil {
		host = u.Host
	}
	detail := "web push to " + host + ": " + err.Error()
	if errors.Is(err, outbound.ErrForbidden) {
		return result{outcome: OutcomeFailed, detail: detail}
	}
	return result{outcome: OutcomeRetry, detail: detail}
}
