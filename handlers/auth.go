package handlers

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/mail"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"
	"golang.org/x/crypto/argon2"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/views/pages"
)

// Password rules.
const (
	MinPasswordLen = 10
	maxPasswordLen = 256
)

// argon2id parameters: OWASP's baseline (19 MiB, 2 passes), fast enough for a 2-core host.
const (
	argonTime    = 2
	argonMemory  = 19 * 1024
	argonThreads = 1
	argonKeyLen  = 32
)

// HashPassword returns an encoded argon2id hash of pw.
func HashPassword(pw string) (string, error) {
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	key := argon2.IDKey([]byte(pw), salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, argonMemory, argonTime, argonThreads, b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// CheckPassword compares pw with an encoded hash in constant time.
func CheckPassword(encoded, pw string) bool {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false
	}
	var m uint32
	var t uint32
	var p uint8
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &m, &t, &p); err != nil {
		return false
	}
	b64 := base64.RawStdEncoding
	salt, err1 := b64.DecodeString(parts[4])
	want, err2 := b64.DecodeString(parts[5])
	if err1 != nil || err2 != nil || len(want) == 0 {
		return false
	}
	got := argon2.IDKey([]byte(pw), salt, t, m, p, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1
}

// dummyHash is checked when no account matches, so a miss costs what a hit costs.
var dummyHash, _ = HashPassword("no account has this password, it only burns time")

// ValidateSignup checks an email and password pair, returning per-field errors.
func ValidateSignup(email, password string) (string, []FieldError) {
	var errs []FieldError
	email = db.NormalizeEmail(email)
	if a, err := mail.ParseAddress(email); err != nil || a.Address != email || len(email) > 254 || !strings.Contains(email[strings.LastIndex(email, "@")+1:], ".") {
		errs = append(errs, FieldError{"email", "enter a valid email address"})
	}
	switch n := utf8.RuneCountInString(password); {
	case n < MinPasswordLen:
		errs = append(errs, FieldError{"password", fmt.Sprintf("must be at least %d characters", MinPasswordLen)})
	case n > maxPasswordLen:
		errs = append(errs, FieldError{"password", fmt.Sprintf("must be at most %d characters", maxPasswordLen)})
	}
	return email, errs
}

// SignUp creates an account with the tier new accounts get on this server.
func (h *Handlers) SignUp(ctx context.Context, email, password string) (db.User, error) {
	email, errs := ValidateSignup(email, password)
	if len(errs) > 0 {
		return db.User{}, InvalidFields(errs)
	}
	hash, err := HashPassword(password)
	if err != nil {
		return db.User{}, err
	}
	tier := db.TierFree
	if h.cfg.NewUsersGold {
		tier = db.TierGold
	}
	return h.store.InsertUser(ctx, email, hash, tier, false)
}

// errBadLogin is the one message for every failed sign-in, so nobody learns which emails exist.
var errBadLogin = NewProblem(http.StatusUnauthorized, ProbUnauthorized, "email or password is incorrect")

// Authenticate checks credentials, rate-limited per client IP and per account.
func (h *Handlers) Authenticate(ctx context.Context, ip, email, password string) (db.User, error) {
	email = db.NormalizeEmail(email)
	if h.limiter != nil {
		for _, b := range []struct {
			bucket string
			limit  int
		}{{"login-ip:" + ip, 30}, {"login-acct:" + email, 10}} {
			ok, retry, err := h.limiter.Allow(ctx, b.bucket, b.limit, 15*time.Minute)
			if err != nil {
				return db.User{}, err
			}
			if !ok {
				p := NewProblem(http.StatusTooManyRequests, ProbRateLimited, "too many sign-in attempts; try again later")
				p.RetryAfter = int(retry.Seconds()) + 1
				return db.User{}, p
			}
		}
	}
	u, err := h.store.UserByEmail(ctx, email)
	if errors.Is(err, db.ErrNotFound) {
		CheckPassword(dummyHash, password)
		return db.User{}, errBadLogin
	}
	if err != nil {
		return db.User{}, err
	}
	if !CheckPassword(u.PasswordHash, password) {
		return db.User{}, errBadLogin
	}
	return u, nil
}

// Session keys.
const sessUserID = "user_id"

// startSession signs u in on this browser with a fresh token (no session fixation).
func (h *Handlers) startSession(c *fiber.Ctx, u db.User) error {
	ctx := c.UserContext()
	if err := h.sessions.RenewToken(ctx); err != nil {
		return err
	}
	h.sessions.Put(ctx, sessUserID, u.ID)
	return nil
}

// SignUpPage shows the sign-up form.
func (h *Handlers) SignUpPage(c *fiber.Ctx) error {
	return render(c, http.StatusOK, pages.SignUp(h.meta(c, "Create account", ""), pages.AuthForm{}))
}

// SignUpSubmit creates the account and signs it in.
func (h *Handlers) SignUpSubmit(c *fiber.Ctx) error {
	email := c.FormValue("email")
	u, err := h.SignUp(h.ctx(c), email, c.FormValue("password"))
	if err != nil {
		p := AsProblem(err)
		if p.Status >= 500 {
			return err
		}
		f := pages.AuthForm{Email: email, Fields: map[string]string{}}
		for _, fe := range p.Errors {
			f.Fields[fe.Field] = fe.Message
		}
		if len(p.Errors) == 0 {
			// A taken address gets the same answer as any other refusal to keep accounts private.
			f.Error = "We could not create an account with that email. If it is yours, sign in instead."
		}
		return render(c, http.StatusUnprocessableEntity, pages.SignUp(h.meta(c, "Create account", ""), f))
	}
	if err := h.startSession(c, u); err != nil {
		return err
	}
	return redirect(c, "/")
}

// LoginPage shows the sign-in form.
func (h *Handlers) LoginPage(c *fiber.Ctx) error {
	return render(c, http.StatusOK, pages.Login(h.meta(c, "Sign in", ""), pages.AuthForm{NextPath: safeNext(c.Query("next"))}))
}

// LoginSubmit checks credentials and signs the browser in.
func (h *Handlers) LoginSubmit(c *fiber.Ctx) error {
	email := c.FormValue("email")
	next := safeNext(c.FormValue("next"))
	u, err := h.Authenticate(h.ctx(c), c.IP(), email, c.FormValue("password"))
	if err != nil {
		p := AsProblem(err)
		if p.Status >= 500 {
			return err
		}
		if p.RetryAfter > 0 {
			c.Set(fiber.HeaderRetryAfter, fmt.Sprint(p.RetryAfter))
		}
		return render(c, p.Status, pages.Login(h.meta(c, "Sign in", ""), pages.AuthForm{Email: email, Error: capitalize(p.Detail) + ".", NextPath: next}))
	}
	if err := h.startSession(c, u); err != nil {
		return err
	}
	return redirect(c, next)
}

// Logout ends the browser session.
func (h *Handlers) Logout(c *fiber.Ctx) error {
	ctx := c.UserContext()
	if err := h.sessions.RenewToken(ctx); err != nil {
		return err
	}
	if err := h.sessions.Destroy(ctx); err != nil {
		return err
	}
	return redirect(c, "/")
}

// SessionUser loads the signed-in user of a browser request, if any.
func (h *Handlers) SessionUser(ctx context.Context) (db.User, bool) {
	id := h.sessions.GetInt64(ctx, sessUserID)
	if id == 0 {
		return db.User{}, false
	}
	u, err := h.store.UserByID(ctx, id)
	if err != nil {
		return db.User{}, false
	}
	return u, true
}

// redirect sends the browser elsewhere: HX-Redirect for HTMX, 303 otherwise.
func redirect(c *fiber.Ctx, to string) error {
	if isHTMX(c) {
		c.Set("HX-Redirect", to)
		return c.SendStatus(http.StatusNoContent)
	}
	return c.Redirect(to, http.StatusSeeOther)
}

// safeNext keeps post-login redirects on this site.
func safeNext(p string) string {
	if p == "" || !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || strings.Contains(p, "\\") {
		return "/"
	}
	return p
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
