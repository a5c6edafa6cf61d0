package social

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"strings"
)

// An anonymous browser is known by the visitor cookie this server gave it: a random id and
// the server's MAC of it, "<id>.<mac>". The key is a server secret in the database, so every
// instance accepts what another signed and a restart keeps cookies valid. A cookie the server
// did not sign — invented to count a view many times — counts as no cookie at all.

// visitorKeyName names the signing key among the server's secrets.
const visitorKeyName = "visitor-cookie-key"

// visitorSigningKey returns the key, reading (or creating) it once.
func (s *Service) visitorSigningKey(ctx context.Context) ([]byte, error) {
	s.vkMu.Lock()
	defer s.vkMu.Unlock()
	if s.vk != nil {
		return s.vk, nil
	}
	k, err := s.store.Secret(ctx, visitorKeyName, func() string { return randomID(32) })
	if err != nil {
		return nil, err
	}
	s.vk = []byte(k)
	return s.vk, nil
}

func randomID(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err) // the OS random source failing is not recoverable
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

func visitorMAC(key []byte, id string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("ounce visitor cookie\x00" + id))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:16])
}

// NewVisitorCookie mints a visitor: the cookie value to set and the visitor id it carries
// (for Viewer.NewVisitor).
func (s *Service) NewVisitorCookie(ctx context.Context) (cookie, id string, err error) {
	key, err := s.visitorSigningKey(ctx)
	if err != nil {
		return "", "", err
	}
	id = randomID(16)
	return id + "." + visitorMAC(key, id), id, nil
}

// VisitorID is the visitor id a cookie carries when this server signed it, else "".
func (s *Service) VisitorID(ctx context.Context, cookie string) string {
	id, mac, ok := strings.Cut(cookie, ".")
	if !ok || len(id) != 22 || len(mac) != 22 {
		return ""
	}
	key, err := s.visitorSigningKey(ctx)
	if err != nil {
		s.log.WarnContext(ctx, "visitor cookie key", "err", err)
		return ""
	}
	if !hmac.Equal([]byte(mac), []byte(visitorMAC(key, id))) {
		return ""
	}
	return id
}
