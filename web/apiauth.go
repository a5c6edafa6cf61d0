package web

import (
	"net/http"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/handlers"
	"github.com/ouncehq/ounce/internal/account"
)

// apiAuth authenticates the bearer key (when sent, or when the route needs one), enforces the
// route's level, and applies the per-key or per-IP rate limit.
func (s *server) apiAuth(r handlers.APIRoute) fiber.Handler {
	return func(c *fiber.Ctx) error {
		authz := c.Get(fiber.HeaderAuthorization)
		var bucket func(*fiber.Ctx) string
		if authz != "" || r.Auth != handlers.AuthNone {
			secret, ok := handlers.BearerToken(authz)
			if !ok {
				return s.rateLimitThen(c, ipBucket, s.opts.Config.HTTP.RateLimitPerIP, func() error {
					return handlers.NewProblem(http.StatusUnauthorized, handlers.ProbUnauthorized, "send Authorization: Bearer <API key>; create keys under Settings → Developer Access")
				})
			}
			ko, err := s.h.Account().AuthenticateKey(c.UserContext(), secret)
			if err != nil {
				// Failed guesses count against the client's address.
				return s.rateLimitThen(c, ipBucket, s.opts.Config.HTTP.RateLimitPerIP, func() error { return err })
			}
			handlers.SetUser(c, ko.User)
			handlers.SetKeyID(c, ko.KeyID)
			keyID := ko.KeyID
			bucket = func(*fiber.Ctx) string { return "key:" + strconv.FormatInt(keyID, 10) }
			switch {
			case r.Auth == handlers.AuthGold && !account.IsGold(ko.User):
				return handlers.NewProblem(http.StatusForbidden, handlers.ProbMembership,
					"this endpoint needs Gold membership; upgrade at "+s.opts.Config.Site.BaseURL+"/settings/billing")
			case r.Auth == handlers.AuthAdmin && !account.IsAdmin(ko.User):
				return handlers.NewProblem(http.StatusForbidden, handlers.ProbForbidden, "this endpoint is for administrators")
			}
			return s.rateLimitThen(c, bucket, s.opts.Config.HTTP.RateLimitPerKey, c.Next)
		}
		return s.rateLimitThen(c, ipBucket, s.opts.Config.HTTP.RateLimitPerIP, c.Next)
	}
}

// ipBucket names the rate-limit bucket of the client's address.
func ipBucket(c *fiber.Ctx) string { return "ip:" + handlers.ClientIP(c) }

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
			p := handlers.NewProblem(http.StatusTooManyRequests, handlers.ProbRateLimited, "rate limit of "+strconv.Itoa(limit)+" requests per minute exceeded")
			p.RetryAfter = int(retry.Seconds()) + 1
			return p
		}
	}
	return next()
}
