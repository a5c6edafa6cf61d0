package handlers

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/views/pages"
)

// APIKeyPrefix starts every key so leaked keys are easy to recognise and scan for.
const APIKeyPrefix = "ounce_"

// displayPrefixLen is how much of a key is kept in clear to tell keys apart.
const displayPrefixLen = len(APIKeyPrefix) + 6

// NewAPIKeySecret returns a fresh key: the prefix and 32 random bytes in hex.
func NewAPIKeySecret() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return APIKeyPrefix + hex.EncodeToString(b), nil
}

// HashAPIKey is the stored form of a key.
func HashAPIKey(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// CreateAPIKey makes a named key for u and returns the secret, which is never stored.
func (h *Handlers) CreateAPIKey(ctx context.Context, u db.User, name string) (string, db.APIKey, error) {
	name, msg := cleanText(name, 60, false)
	if msg == "" && name == "" {
		msg = "is required"
	}
	if msg != "" {
		return "", db.APIKey{}, Invalid("name", msg)
	}
	secret, err := NewAPIKeySecret()
	if err != nil {
		return "", db.APIKey{}, err
	}
	k, err := h.store.InsertAPIKey(ctx, u.ID, name, secret[:displayPrefixLen], HashAPIKey(secret))
	if errors.Is(err, db.ErrTooManyKeys) {
		return "", db.APIKey{}, NewProblem(http.StatusConflict, ProbConflict, "you already have the maximum of "+strconv.Itoa(db.MaxActiveAPIKeys)+" active keys; revoke one first")
	}
	return secret, k, err
}

// AuthenticateKey resolves a bearer secret to its user; any failure is the same 401.
func (h *Handlers) AuthenticateKey(ctx context.Context, secret string) (db.KeyOwner, error) {
	if !strings.HasPrefix(secret, APIKeyPrefix) || len(secret) > 200 {
		return db.KeyOwner{}, errBadKey
	}
	ko, err := h.store.ActiveAPIKeyByHash(ctx, HashAPIKey(secret))
	if errors.Is(err, db.ErrNotFound) {
		return db.KeyOwner{}, errBadKey
	}
	if err != nil {
		return db.KeyOwner{}, err
	}
	h.keyUsed(ko.KeyID, h.now())
	return ko, nil
}

var errBadKey = NewProblem(http.StatusUnauthorized, ProbUnauthorized, "the API key is missing, malformed, unknown or revoked")

func (h *Handlers) developerView(ctx context.Context, u db.User) (pages.DeveloperView, error) {
	keys, err := h.store.APIKeysByUser(ctx, u.ID)
	if err != nil {
		return pages.DeveloperView{}, err
	}
	v := pages.DeveloperView{Max: db.MaxActiveAPIKeys, BaseURL: h.cfg.BaseURL, IsGold: u.IsGold()}
	for _, k := range keys {
		row := pages.APIKeyRow{ID: strconv.FormatInt(k.ID, 10), Name: k.Name, Prefix: k.Prefix, Created: k.CreatedAt.UTC().Format("2 Jan 2006"), LastUsed: "never", Revoked: k.RevokedAt != nil}
		if k.LastUsedAt != nil {
			row.LastUsed = humanAgo(h.now(), *k.LastUsedAt)
		}
		if !row.Revoked {
			v.Active++
		}
		v.Keys = append(v.Keys, row)
	}
	return v, nil
}

// DeveloperPage is Settings → Developer Access.
func (h *Handlers) DeveloperPage(c *fiber.Ctx) error {
	u, _ := UserFrom(c)
	v, err := h.developerView(h.ctx(c), u)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, pages.Developer(h.meta(c, "Developer access", "settings"), v))
}

// DeveloperCreateKey creates a key and shows it once.
func (h *Handlers) DeveloperCreateKey(c *fiber.Ctx) error {
	u, _ := UserFrom(c)
	secret, k, err := h.CreateAPIKey(h.ctx(c), u, c.FormValue("name"))
	status := http.StatusOK
	var formErr string
	if err != nil {
		p := AsProblem(err)
		if p.Status >= 500 {
			return err
		}
		status = http.StatusUnprocessableEntity
		formErr = p.Detail
		if len(p.Errors) > 0 {
			formErr = "Name " + p.Errors[0].Message + "."
		}
	}
	v, verr := h.developerView(h.ctx(c), u)
	if verr != nil {
		return verr
	}
	v.NewKey, v.NewName, v.Error = secret, k.Name, formErr
	c.Set(fiber.HeaderCacheControl, "no-store")
	m := h.meta(c, "Developer access", "settings")
	return page(c, status, pages.Developer(m, v), pages.DeveloperKeys(m, v))
}

// DeveloperRevokeKey revokes one of the user's keys.
func (h *Handlers) DeveloperRevokeKey(c *fiber.Ctx) error {
	u, _ := UserFrom(c)
	id, err := strconv.ParseInt(c.Params("id"), 10, 64)
	if err != nil {
		return NotFound("API key")
	}
	if err := h.store.RevokeAPIKey(h.ctx(c), u.ID, id); err != nil {
		if errors.Is(err, db.ErrNotFound) {
			return NotFound("API key")
		}
		return err
	}
	if !isHTMX(c) {
		return redirect(c, "/settings/developer")
	}
	v, err := h.developerView(h.ctx(c), u)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, pages.DeveloperKeys(h.meta(c, "", "settings"), v))
}

// humanAgo renders a past time relative to now.
func humanAgo(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return strconv.Itoa(int(d.Minutes())) + " min ago"
	case d < 48*time.Hour:
		return strconv.Itoa(int(d.Hours())) + " h ago"
	}
	return t.UTC().Format("2 Jan 2006")
}
