package web

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"net/http"

	"github.com/alexedwards/scs/v2"
	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/handlers"
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
		if handlers.IsAPIPath(c.Path()) {
			// JSON never runs script or gets framed: one fixed deny-all policy covers it, with
			// no nonce to mint and no page-only headers to write on the hot path.
			h.SetCanonical(hdrAPICSP[0], hdrAPICSP[1])
		} else {
			c.Set("Referrer-Policy", "strict-origin-when-cross-origin")
			c.Set("X-Frame-Options", "DENY")
			nonce := randomToken(16)
			handlers.SetNonce(c, nonce)
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

const sessCSRF = "csrf"

// csrfMiddleware gives each session a token and demands it back (form field _csrf or header
// X-CSRF-Token) on every unsafe browser request.
func csrfMiddleware(sm *scs.SessionManager) fiber.Handler {
	return func(c *fiber.Ctx) error {
		ctx := c.UserContext()
		token := sm.GetString(ctx, sessCSRF)
		if token == "" {
			token = randomToken(32)
			sm.Put(ctx, sessCSRF, token)
		}
		handlers.SetCSRF(c, token)
		switch c.Method() {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
			return c.Next()
		}
		sent := c.Get("X-CSRF-Token")
		if sent == "" {
			sent = c.FormValue("_csrf")
		}
		if sent == "" || subtle.ConstantTimeCompare([]byte(sent), []byte(token)) != 1 {
			return handlers.NewProblem(http.StatusForbidden, handlers.ProbForbidden, "the form expired or did not come from this site; reload the page and try again")
		}
		return c.Next()
	}
}
