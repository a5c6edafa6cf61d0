package web

import (
	"net/http"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/handlers/kit"
)

// costlyPageLimit limits a page route marked Costly (a model, Stripe or OCR call behind it)
// per signed-in member, as /v1 limits each key: HTTPConfig.CostlyPerMember requests a minute
// over all such routes together. Other routes pass through. It runs after requirePageAuth,
// so there is always a member; the refusal is a 429 page (or toast) with Retry-After.
func (s *server) costlyPageLimit(r kit.PageRoute) fiber.Handler {
	limit := s.opts.Config.HTTP.CostlyPerMember
	if !r.Costly || limit <= 0 {
		return func(c *fiber.Ctx) error { return c.Next() }
	}
	return func(c *fiber.Ctx) error {
		u, ok := kit.UserFrom(c)
		if !ok {
			return c.Next()
		}
		allowed, retry, err := s.limiter.Allow(c.UserContext(), "page:costly:user:"+strconv.FormatInt(u.ID, 10), limit, time.Minute)
		if err != nil {
			return err
		}
		if !allowed {
			p := kit.NewProblem(http.StatusTooManyRequests, kit.ProbRateLimited,
				"at most "+strconv.Itoa(limit)+" of these requests a minute; try again in a moment")
			p.RetryAfter = int(retry.Seconds()) + 1
			return p
		}
		return c.Next()
	}
}
