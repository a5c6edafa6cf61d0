package web

import (
	"crypto/subtle"
	"net/http"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/handlers/kit"
)

// apiAuth authenticates the bearer key (when sent, or when the route needs one) or a signed-in
// browser session (with its CSRF token on writes), enforces the route's level, and applies the
// per-key (per-member for sessions) or per-IP rate limit.
func (s *server) apiAuth(r kit.APIRoute) fiber.Handler {
	return func(c *fiber.Ctx) error {
		authz := c.Get(fiber.HeaderAuthorization)
		if authz == "" {
			// A signed-in browser may call /v1 with its session cookie; an unsafe method must
			// then carry the page's CSRF token in X-CSRF-Token, so no other site can act for it.
			if u, ok, err := s.apiSessionUser(c); err != nil {
				return err
			} else if ok {
				return s.apiAsMember(c, r, u, "user:"+strconv.FormatInt(u.ID, 10))
			}
		}
		if authz != "" || r.Auth != kit.AuthNone {
			secret, ok := kit.BearerToken(authz)
			if !ok {
				return s.rateLimitThen(c, ipBucket, s.opts.Config.HTTP.RateLimitPerIP, func() error {
					return kit.NewProblem(http.StatusUnauthorized, kit.ProbUnauthorized, "send Authorization: Bearer <API key>; create keys under Settings → Developer Access")
				})
			}
			ko, err := s.h.AuthenticateKey(c.UserContext(), secret)
			if err != nil {
				// Failed guesses count against the client's address.
				return s.rateLimitThen(c, ipBucket, s.opts.Config.HTTP.RateLimitPerIP, func() error { return err })
			}
			kit.SetKeyID(c, ko.KeyID)
			return s.apiAsMember(c, r, ko.User, "key:"+strconv.FormatInt(ko.KeyID, 10))
		}
		return s.rateLimitThen(c, ipBucket, s.opts.Config.HTTP.RateLimitPerIP, c.Next)
	}
}

// apiAsMember runs an authenticated /v1 request: the member is set, the route's level
// enforced, and the per-key limit applied to the caller's bucket.
func (s *server) apiAsMember(c *fiber.Ctx, r kit.APIRoute, u db.User, bucketName string) error {
	kit.SetUser(c, u)
	switch {
	case r.Auth == kit.AuthGold && !kit.IsGold(u):
		return kit.NewProblem(http.StatusForbidden, kit.ProbMembership,
			"this endpoint needs Gold membership; upgrade at "+s.opts.Config.Site.BaseURL+"/settings/billing")
	case r.Auth == kit.AuthAdmin && !u.IsAdmin:
		return kit.NewProblem(http.StatusForbidden, kit.ProbForbidden, "this endpoint is for administrators")
	}
	return s.rateLimitThen(c, func(*fiber.Ctx) string { return bucketName }, s.opts.Config.HTTP.RateLimitPerKey, c.Next)
}

// apiSessionUser resolves the browser session of a /v1 request without a bearer key. The
// session is read, never written. ok is false when there is no signed-in session; an unsafe
// method with a session but without its CSRF token is refused (403).
func (s *server) apiSessionUser(c *fiber.Ctx) (db.User, bool, error) {
	tok := c.Cookies(s.sessions.Cookie.Name)
	if tok == "" {
		return db.User{}, false, nil
	}
	ctx, err := s.sessions.Load(c.UserContext(), tok)
	if err != nil {
		return db.User{}, false, err
	}
	u, ok := s.h.SessionUser(ctx)
	if !ok {
		return db.User{}, false, nil
	}
	switch c.Method() {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
	default:
		want := s.sessions.GetString(ctx, kit.SessionCSRFKey)
		sent := c.Get("X-CSRF-Token")
		if want == "" || sent == "" || subtle.ConstantTimeCompare([]byte(sent), []byte(want)) != 1 {
			return db.User{}, false, kit.NewProblem(http.StatusForbidden, kit.ProbForbidden,
				"a browser session must send its page's CSRF token in X-CSRF-Token (or call /v1 with Authorization: Bearer <API key>)")
		}
	}
	return u, true, nil
}

// ipBucket names the rate-limit bucket of the client's address.
func ipBucket(c *fiber.Ctx) string { return "ip:" + kit.ClientIP(c) }

// rateLimitThen counts one hit on the bucket and runs next when within limit (limit ≤ 0: no
// limit, and the bucket name is never built).
func (s *server) rateLimitThen(c *fiber.Ctx, bucket func(*fiber.Ctx) string, limit int, next func() error) error {
	if limit > 0 {
		ok, retry, err := s.limiter.Allow(c.UserContext(), "api:"+bucket(c), limit, time.Minute)
		if err != nil {
			return err
		}
		c.Set("X-RateLimit-Limit", strconv.Itoa(limit))
		if !ok {
			p := kit.NewProblem(http.StatusTooManyRequests, kit.ProbRateLimited, "rate limit of "+strconv.Itoa(limit)+" requests per minute exceeded")
			p.RetryAfter = int(retry.Seconds()) + 1
			return p
		}
	}
	return next()
}
