package alerts

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/ouncehq/ounce/db"
)

// Expo's push API: POST {base}/send takes up to 100 messages and answers one ticket per
// message, in order; POST {base}/getReceipts takes ticket ids and answers a receipt for each
// ticket whose delivery the platform has reported on.

// ExpoMessage is one push message as Expo takes it.
type ExpoMessage struct {
	To       string         `json:"to"`
	Title    string         `json:"title"`
	Body     string         `json:"body"`
	Data     map[string]any `json:"data,omitempty"`
	Sound    string         `json:"sound,omitempty"`
	Priority string         `json:"priority,omitempty"`
}

// ExpoTicket (and ExpoReceipt) is Expo's answer for one message: status "ok" (a ticket has
// an id), or "error" with a message and details.error naming the cause.
type ExpoTicket struct {
	Status  string `json:"status"`
	ID      string `json:"id,omitempty"`
	Message string `json:"message,omitempty"`
	Details struct {
		Error string `json:"error,omitempty"`
	} `json:"details,omitempty"`
}

// Expo error codes with their own handling.
const (
	ExpoDeviceNotRegistered = "DeviceNotRegistered"
	ExpoMessageRateExceeded = "MessageRateExceeded"
)

func (s *Service) expoPost(ctx context.Context, path string, body any, out any) (*http.Response, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.cfg.ExpoAPIURL+path, bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if s.cfg.ExpoAccessToken != "" {
		req.Header.Set("Authorization", "Bearer "+s.cfg.ExpoAccessToken)
	}
	resp, err := s.expo.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode == http.StatusOK {
		if err := json.Unmarshal(raw, out); err != nil {
			return resp, fmt.Errorf("expo %s: unreadable answer: %w", path, err)
		}
	}
	return resp, nil
}

// ticketResult maps an Expo ticket or receipt error to what happens next.
func expoError(t ExpoTicket, what string) result {
	detail := what + ": " + t.Details.Error
	if t.Details.Error == "" {
		detail = what + ": " + t.Message
	}
	switch t.Details.Error {
	case ExpoDeviceNotRegistered:
		return result{outcome: OutcomeDeviceGone, detail: detail}
	case ExpoMessageRateExceeded:
		return result{outcome: OutcomeRetry, detail: detail}
	}
	return result{outcome: OutcomeFailed, detail: detail}
}

func (s *Service) expoMessage(it db.OutboxItem) ExpoMessage {
	n := notificationFrom(it.AlertNotification)
	return ExpoMessage{To: it.Token, Title: n.Title(), Body: n.Body(), Sound: "default", Priority: "high",
		Data: map[string]any{"notification_id": it.NotificationID, "alert_id": n.AlertID, "metal": string(n.Metal), "url": "/alerts"}}
}

// sendExpo sends pending Expo rows in batches of at most 100 and returns each row's result.
func (s *Service) sendExpo(ctx context.Context, items []db.OutboxItem) map[int64]result {
	out := map[int64]result{}
	for start := 0; start < len(items); start += batchSize {
		batch := items[start:min(start+batchSize, len(items))]
		msgs := make([]ExpoMessage, len(batch))
		for i, it := range batch {
			msgs[i] = s.expoMessage(it)
		}
		var answer struct {
			Data []ExpoTicket `json:"data"`
		}
		resp, err := s.expoPost(ctx, "/send", msgs, &answer)
		all := func(r result) {
			for _, it := range batch {
				out[it.ID] = r
			}
		}
		switch {
		case err != nil:
			all(result{outcome: OutcomeRetry, detail: "expo send: " + err.Error()})
		case resp.StatusCode != http.StatusOK:
			all(httpFailure(resp, "expo send"))
		case len(answer.Data) != len(batch):
			all(result{outcome: OutcomeRetry, detail: "expo send: " + strconv.Itoa(len(answer.Data)) + " tickets for " + strconv.Itoa(len(batch)) + " messages"})
		default:
			for i, t := range answer.Data {
				if t.Status == "ok" && t.ID != "" {
					out[batch[i].ID] = result{outcome: OutcomeTicket, ticket: t.ID, detail: "ticket " + t.ID}
				} else {
					out[batch[i].ID] = expoError(t, "expo ticket")
				}
			}
		}
	}
	return out
}

// expoReceipts asks for the receipts of ticketed rows.
func (s *Service) expoReceipts(ctx context.Context, items []db.OutboxItem, now time.Time) map[int64]result {
	out := map[int64]result{}
	if len(items) == 0 {
		return out
	}
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.TicketID
	}
	var answer struct {
		Data map[string]ExpoTicket `json:"data"`
	}
	resp, err := s.expoPost(ctx, "/getReceipts", map[string]any{"ids": ids}, &answer)
	for _, it := range items {
		stale := now.Sub(msTime(it.CreatedAt)) > receiptGiveUp
		switch {
		case stale && (err != nil || resp.StatusCode != http.StatusOK):
			out[it.ID] = result{outcome: OutcomeNoReceipt, detail: "no receipt for ticket " + it.TicketID + " within a day"}
		case err != nil:
			out[it.ID] = result{outcome: OutcomeReceiptLater, detail: "expo receipts: " + err.Error()}
		case resp.StatusCode != http.StatusOK:
			out[it.ID] = result{outcome: OutcomeReceiptLater, detail: "expo receipts: HTTP " + strconv.Itoa(resp.StatusCode)}
		default:
			r, ok := answer.Data[it.TicketID]
			switch {
			case !ok && stale:
				out[it.ID] = result{outcome: OutcomeNoReceipt, detail: "no receipt for ticket " + it.TicketID}
			case !ok:
				out[it.ID] = result{outcome: OutcomeReceiptLater, detail: "receipt for ticket " + it.TicketID + " not ready"}
			case r.Status == "ok":
				out[it.ID] = result{outcome: OutcomeSent, detail: "receipt ok for ticket " + it.TicketID}
			default:
				out[it.ID] = expoError(r, "expo receipt")
			}
		}
	}
	return out
}
