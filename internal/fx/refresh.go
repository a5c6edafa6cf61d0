package fx

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/ouncehq/ounce/db"
)

// maxFileBytes bounds the ECB file read (the daily file is 2 KB, the 90-day one 100 KB).
const maxFileBytes = 4 << 20

// ecbEnvelope is the ECB's reference-rates document (eurofxref-daily.xml, and the 90-day and
// full-history files of the same shape): Cube › Cube time=… › Cube currency=… rate=….
type ecbEnvelope struct {
	Days []struct {
		Time  string `xml:"time,attr"`
		Rates []struct {
			Currency string `xml:"currency,attr"`
			Rate     string `xml:"rate,attr"`
		} `xml:"Cube"`
	} `xml:"Cube>Cube"`
}

// ParseECB reads an ECB reference-rates file into rows (units per 1 EUR, digits as
// published). A file with no rate, a bad date, code or rate is an error: nothing is taken.
func ParseECB(r io.Reader, source string) ([]db.FXRate, error) {
	var env ecbEnvelope
	if err := xml.NewDecoder(io.LimitReader(r, maxFileBytes)).Decode(&env); err != nil {
		return nil, fmt.Errorf("not an ECB reference-rates file: %w", err)
	}
	var out []db.FXRate
	for _, d := range env.Days {
		day, err := db.ParseDate(d.Time)
		if err != nil {
			return nil, fmt.Errorf("day %q: not a date", d.Time)
		}
		for _, x := range d.Rates {
			if !isCode(x.Currency) {
				return nil, fmt.Errorf("%s: currency %q is not an ISO 4217 code", d.Time, x.Currency)
			}
			if _, err := parseValue(x.Rate); err != nil {
				return nil, fmt.Errorf("%s %s: rate %w", d.Time, x.Currency, err)
			}
			out = append(out, db.FXRate{Currency: x.Currency, Day: day, PerEUR: x.Rate, Source: source})
		}
	}
	if len(out) == 0 {
		return nil, errors.New("the ECB file holds no rates")
	}
	return out, nil
}

// isCode reports whether s looks like an ISO 4217 code: three capital letters.
func isCode(s string) bool {
	if len(s) != 3 {
		return false
	}
	for i := range 3 {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}

// Refresh fetches the ECB file once and stores the days it holds that are not stored yet (an
// operator's correction of a day stays). It returns the newest day fetched. Unreachable or
// malformed, it stores nothing and lookups keep answering from what is stored, stale-flagged.
func (s *Service) Refresh(ctx context.Context) (time.Time, error) {
	if s.store == nil || s.cfg.URL == "" {
		return time.Time{}, errors.New("no store to keep refreshed rates in, or no ECB file URL")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.cfg.URL, nil)
	if err != nil {
		return time.Time{}, err
	}
	req.Header.Set("User-Agent", "Ounce (exchange rates, once a day)")
	resp, err := s.client.Do(req)
	if err != nil {
		return time.Time{}, fmt.Errorf("fetch ECB rates: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return time.Time{}, fmt.Errorf("fetch ECB rates: %s", resp.Status)
	}
	rows, err := ParseECB(resp.Body, SourceRefresh)
	if err != nil {
		return time.Time{}, fmt.Errorf("ECB rates: %w", err)
	}
	if err := s.store.InsertMissingFXRates(ctx, rows); err != nil {
		return time.Time{}, err
	}
	var newest time.Time
	for _, r := range rows {
		if r.Day.After(newest) {
			newest = r.Day.Time
		}
	}
	return newest, nil
}

// refreshLockKey is the advisory lock of the instance that refreshes exchange rates.
const refreshLockKey = 7302019

// retryAfter is how soon a failed refresh is tried again.
const retryAfter = time.Hour

// NextRefresh is when the leader fetches next after a fetch at now: 15:30 UTC, after the ECB
// has published (around 16:00 Frankfurt time) — today's if that is still ahead, else
// tomorrow's; after a failure, in an hour.
func NextRefresh(now time.Time, failed bool) time.Time {
	if failed {
		return now.Add(retryAfter)
	}
	now = now.UTC()
	at := time.Date(now.Year(), now.Month(), now.Day(), 15, 30, 0, 0, time.UTC)
	if !at.After(now) {
		at = at.AddDate(0, 0, 1)
	}
	return at
}

// Run is the background job: on the leader, a refresh at start and then once a day. Offline,
// it logs that rates are served from what is stored and returns.
func (s *Service) Run(ctx context.Context) {
	if s.cfg.Offline {
		s.log.Info("exchange rates: offline, the ECB file is not fetched; stored rates are served, stale-flagged when old")
		return
	}
	if s.store == nil || s.cfg.URL == "" {
		return
	}
	s.store.RunAsLeader(ctx, refreshLockKey, 30*time.Second, func(ctx context.Context) {
		for {
			newest, err := s.Refresh(ctx)
			switch {
			case err != nil && ctx.Err() == nil:
				if !s.reach.Failed(ctx, s.cfg.URL, err) {
					s.log.Warn("exchange rates: refresh failed; serving stored rates", "err", err)
				}
			case err == nil:
				s.reach.OK(ctx, s.cfg.URL)
				s.log.Info("exchange rates: refreshed", "newest", newest.Format(time.DateOnly))
			}
			now := s.now()
			select {
			case <-ctx.Done():
				return
			case <-time.After(NextRefresh(now, err != nil).Sub(now)):
			}
		}
	})
}
