package web

import (
	"time"

	"github.com/alexedwards/scs/v2"
	"github.com/gofiber/fiber/v2"
)

// sessionMiddleware loads the scs session into the request context before the handler and
// commits it after, writing the cookie itself. Fiber's net/http adaptor would commit before
// the handler runs and lose every write, hence this small adapter.
func sessionMiddleware(sm *scs.SessionManager) fiber.Handler {
	return func(c *fiber.Ctx) error {
		token := c.Cookies(sm.Cookie.Name)
		ctx, err := sm.Load(c.UserContext(), token)
		if err != nil {
			return err
		}
		c.SetUserContext(ctx)
		if err := c.Next(); err != nil {
			// Let the error handler render first; the session still commits below.
			if herr := c.App().ErrorHandler(c, err); herr != nil {
				return herr
			}
		}
		switch sm.Status(ctx) {
		case scs.Modified:
			tok, expiry, err := sm.Commit(ctx)
			if err != nil {
				return err
			}
			setSessionCookie(c, sm, tok, expiry)
		case scs.Destroyed:
			setSessionCookie(c, sm, "", time.Time{})
		}
		c.Vary("Cookie")
		return nil
	}
}

func setSessionCookie(c *fiber.Ctx, sm *scs.SessionManager, token string, expiry time.Time) {
	ck := &fiber.Cookie{
		Name:     sm.Cookie.Name,
		Value:    token,
		Path:     sm.Cookie.Path,
		Domain:   sm.Cookie.Domain,
		Secure:   sm.Cookie.Secure,
		HTTPOnly: true,
		SameSite: fiber.CookieSameSiteLaxMode,
	}
	if token == "" {
		ck.Expires = time.Unix(1, 0)
		ck.MaxAge = -1
	} else if sm.Cookie.Persist {
		ck.Expires = expiry.UTC()
		ck.MaxAge = int(time.Until(expiry).Seconds() + 1)
	}
	c.Cookie(ck)
}
