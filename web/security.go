package web

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/binary"
	"net/http"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/handlers/kit"
)

func randomToken(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// Fixed headers as canonical bytes, written without per-request normalisation.
var (
	hdrNosniff = [2][]byte{[]byte("X-Content-Type-Options"), []byte("nosniff")}
	hdrAPICSP  = [2][]byte{[]byte("Content-Security-Policy"), []byte("default-src 'none'; frame-ancestors 'none'")}
)

// securityHeaders sets the headers every response carries, with a per-request CSP nonce on pages.
func securityHeaders(https bool) fiber.Handler {
	return func(c *fiber.Ctx) error {
		h := &c.Response().Header
		h.SetCanonical(hdrNosniff[0], hdrNosniff[1])
		if kit.IsAPIPath(c.Path()) {
			// JSON never runs script or gets framed: one fixed deny-all policy covers it, with
			// no nonce to mint and no page-only headers to write on the hot path.
			h.SetCanonical(hdrAPICSP[0], hdrAPICSP[1])
		} else {
			c.Set("Referrer-Policy", "strict-origin-when-cross-origin")
			c.Set("X-Frame-Options", "DENY")
			nonce := randomToken(16)
			kit.SetNonce(c, nonce)
			c.Set("Cross-Origin-Opener-Policy", "same-origin")
			c.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=()")
			c.Set("Content-Security-Policy", "default-src 'self'; script-src 'self' 'nonce-"+nonce+"'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'")
		}
		if https {
			c.Set("Strict-Transport-Security", "max-age=63072000; includeSubDomains")
		}
		return c.Next()
	}
}

// CSRF protection has two forms. A signed-in browser's token lives in its session (created,
// with the session, by the sign-in or sign-up POST). A visitor has no session — a page view
// writes nothing to the database — so their token is a signed double-submit cookie: the
// cookie holds the token, pages echo it in forms and HTMX headers, and an unsafe request must
// send back the same value as its cookie. Another site can neither read the cookie nor make
// up a value we signed. The cookie is set only when a page first needs a token.
const (
	csrfCookie = "ounce_csrf"
	csrfTTL    = 7 * 24 * time.Hour
)

// csrfSigner mints and checks visitors' tokens: issue time, 16 random bytes, and an HMAC of
// both under the server's key (shared by every instance through the database).
type csrfSigner struct {
	key []byte
	now func() time.Time
}

func (k csrfSigner) mac(b []byte) []byte {
	m := hmac.New(sha256.New, k.key)
	m.Write(b)
	return m.Sum(nil)[:16]
}

func (k csrfSigner) mint() string {
	var b [40]byte
	binary.BigEndian.PutUint64(b[:8], uint64(k.now().Unix()))
	if _, err := rand.Read(b[8:24]); err != nil {
		panic(err)
	}
	copy(b[24:], k.mac(b[:24]))
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// valid reports whether tok is one of ours and not expired.
func (k csrfSigner) valid(tok string) bool {
	b, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil || len(b) != 40 || !hmac.Equal(b[24:], k.mac(b[:24])) {
		return false
	}
	issued := time.Unix(int64(binary.BigEndian.Uint64(b[:8])), 0)
	now := k.now()
	return !issued.After(now.Add(time.Minute)) && now.Sub(issued) < csrfTTL
}

// csrfMiddleware gives each page its token and demands it back (form field _csrf or header
// X-CSRF-Token; never the query string, which leaks into logs and Referer) on every unsafe
// browser request.
func (s *server) csrfMiddleware(c *fiber.Ctx) error {
	sessTok := s.sessions.GetString(c.UserContext(), kit.SessionCSRFKey)
	want := sessTok
	if sessTok != "" {
		kit.SetCSRF(c, sessTok)
	} else {
		cookieTok := c.Cookies(csrfCookie)
		if cookieTok != "" && !s.csrf.valid(cookieTok) {
			cookieTok = ""
		}
		want = cookieTok
		minted := ""
		kit.SetCSRFSource(c, func() string {
			if cookieTok == "" {
				cookieTok = s.csrf.mint()
				minted = cookieTok
			}
			return cookieTok
		})
		// A fresh token becomes a cookie only when the page that was rendered can send it
		// back: a form carrying it, or an HTMX write. A read-only page sets no cookie.
		defer func() {
			if minted != "" && pageCanWrite(c) {
				c.Cookie(&fiber.Cookie{Name: csrfCookie, Value: minted, Path: "/", MaxAge: int(csrfTTL.Seconds()),
					Secure: s.https, HTTPOnly: true, SameSite: fiber.CookieSameSiteLaxMode})
			}
		}()
	}
	switch c.Method() {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return c.Next()
	}
	sent := c.Get("X-CSRF-Token")
	if sent == "" {
		sent = bodyField(c, "_csrf")
	}
	if want == "" || sent == "" || subtle.ConstantTimeCompare([]byte(sent), []byte(want)) != 1 {
		return kit.NewProblem(http.StatusForbidden, kit.ProbForbidden, "the form expired or did not come from this site; reload the page and try again")
	}
	return c.Next()
}

// Markers of a page that writes: a form's CSRF field, or an HTMX request that is not a GET.
var writeMarkers = [][]byte{[]byte(`name="_csrf"`), []byte("hx-post="), []byte("hx-put="), []byte("hx-patch="), []byte("hx-delete=")}

// pageCanWrite reports whether the response is an HTML page with a form or an HTMX write.
// Streams are never read here (that would consume them).
func pageCanWrite(c *fiber.Ctx) bool {
	r := c.Response()
	if r.IsBodyStream() || !bytes.HasPrefix(r.Header.ContentType(), []byte("text/html")) {
		return false
	}
	body := r.Body()
	for _, m := range writeMarkers {
		if bytes.Contains(body, m) {
			return true
		}
	}
	return false
}

// bodyField reads a field of a form body (URL-encoded or multipart), never the query string.
func bodyField(c *fiber.Ctx, name string) string {
	if bytes.HasPrefix(c.Request().Header.ContentType(), []byte(fiber.MIMEMultipartForm)) {
		if f, err := c.MultipartForm(); err == nil && len(f.Value[name]) > 0 {
			return f.Value[name][0]
		}
		return ""
	}
	return string(c.Request().PostArgs().Peek(name))
}
