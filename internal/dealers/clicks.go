package dealers

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"net/url"
	"strings"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/apperr"
)

// Where a click came from.
const (
	ViaAPI = "api"
	ViaWeb = "web"
)

// ClickInput is a click through to a dealer. User is the member from the session or bearer
// key (zero for visitors); Referrer is the page the click came from.
type ClickInput struct {
	Dealer    string
	ProductID string
	User      db.User
	Referrer  string
	Via       string
	// Visitor names who clicked, as the transport knows them (member, key or address): one
	// click per visitor, dealer and product a minute is kept. It is stored only as a keyed
	// hash. Empty: every click is kept.
	Visitor string
}

// maxReferrer bounds what is kept of a referring address.
const maxReferrer = 300

// cleanReferrer keeps the host and path of a referring page and drops its query and fragment,
// which may carry tokens or personal data nobody needs for counting clicks.
func cleanReferrer(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || raw == "" {
		return ""
	}
	out := u.Path
	if u.Host != "" {
		out = u.Host + u.EscapedPath()
	}
	if len(out) > maxReferrer {
		out = out[:maxReferrer]
	}
	return out
}

// Click resolves a (dealer, product) pair to its catalogue URL and logs the click. Only pairs
// the catalogue carries resolve: anything else is Invalid naming the field, so no input can
// make Ounce redirect anywhere but to a URL of the catalogue.
func (s *Service) Click(ctx context.Context, in ClickInput) (string, error) {
	cat, err := s.Catalogue(ctx)
	if err != nil {
		return "", err
	}
	var fe []apperr.FieldError
	if _, ok := cat.Dealer(in.Dealer); !ok {
		fe = append(fe, apperr.FieldError{Field: "dealer", Message: "is not a dealer of the catalogue"})
	}
	if _, ok := cat.Product(in.ProductID); !ok {
		fe = append(fe, apperr.FieldError{Field: "product_id", Message: "is not a product of the catalogue"})
	}
	if err := apperr.InvalidFields(fe); err != nil {
		return "", err
	}
	target, ok := cat.ProductURL(in.Dealer, in.ProductID)
	if !ok {
		return "", apperr.InvalidField("product_id", "is not carried by this dealer in the catalogue")
	}
	via := in.Via
	if via != ViaWeb {
		via = ViaAPI
	}
	row := db.DealerClickRow{Dealer: in.Dealer, Product: in.ProductID, Referrer: cleanReferrer(in.Referrer), Via: via, ClickedAt: s.now()}
	if in.User.ID != 0 {
		row.UserID = sql.NullInt64{Int64: in.User.ID, Valid: true}
	}
	if in.Visitor != "" {
		key, err := s.clickKey(ctx)
		if err != nil {
			return "", err
		}
		m := hmac.New(sha256.New, key)
		m.Write([]byte(in.Visitor))
		row.Visitor = hex.EncodeToString(m.Sum(nil)[:16])
		row.Minute = row.ClickedAt.Unix() / 60
	}
	// A repeat within the minute is not stored; the redirect is the same.
	if _, err := s.store.InsertDealerClick(ctx, row); err != nil {
		return "", err
	}
	return target, nil
}

// clickKey keys the hash a clicking visitor is stored under: a server secret in the
// database, so every instance hashes a visitor alike.
func (s *Service) clickKey(ctx context.Context) ([]byte, error) {
	s.keyMu.Lock()
	defer s.keyMu.Unlock()
	if s.clickKeyBytes == nil {
		k, err := s.store.Secret(ctx, "dealer-click-visitor-key", func() string {
			b := make([]byte, 32)
			_, _ = rand.Read(b)
			return hex.EncodeToString(b)
		})
		if err != nil {
			return nil, err
		}
		s.clickKeyBytes = []byte(k)
	}
	return s.clickKeyBytes, nil
}

// ClickCount is how many clicks a dealer received.
type ClickCount struct {
	Dealer Dealer
	Clicks int64
}

// ClickCounts counts clicks per dealer since a moment, most clicked first. It is an operator's
// report (`ounce dealers clicks`), run with the database's own access.
func (s *Service) ClickCounts(ctx context.Context, since time.Time) ([]ClickCount, error) {
	cat, err := s.Catalogue(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := s.store.DealerClickCounts(ctx, since)
	if err != nil {
		return nil, err
	}
	out := make([]ClickCount, 0, len(rows))
	for _, r := range rows {
		d, ok := cat.Dealer(r.Dealer)
		if !ok {
			d = Dealer{Slug: r.Dealer, Name: r.Dealer}
		}
		out = append(out, ClickCount{Dealer: d, Clicks: r.Clicks})
	}
	return out, nil
}
