// Package web assembles the Fiber application: middleware order, sessions, CSRF, API
// authentication, rate limits, security headers, static files and background plumbing.
package web

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/alexedwards/scs/v2"
	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/adaptor"
	"github.com/gofiber/fiber/v2/middleware/cors"
	"github.com/gofiber/fiber/v2/middleware/filesystem"
	"github.com/gofiber/fiber/v2/middleware/recover"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/handlers"
	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/ratelimit"
	"github.com/ouncehq/ounce/static"
)

// Options are what the application is built from: storage, the clock and logger, the
// transport's settings, and Wire, which the composition root (internal/app) supplies.
type Options struct {
	Store  *db.Store
	Logger *slog.Logger
	Now    func() time.Time
	Config Config
	// Wire builds the handlers to serve and lists the background jobs to run. New calls it
	// once, with the parts the server owns and the services need.
	Wire func(Parts) (*handlers.Handlers, []Job)
}

// Parts are what the server owns and hands the composition root: the adapters' base
// (sessions, site, logger, clock, the shutdown signal), the shared rate limiter, and the
// recorder of API key use.
type Parts struct {
	Base    *kit.Base
	Limiter ratelimit.Limiter
	// OnKeyUsed coalesces "this API key was just used" into batched writes.
	OnKeyUsed func(keyID int64, at time.Time)
}

// Server is the assembled application and its background work.
type Server struct {
	App *fiber.App
	s   *server
}

type server struct {
	opts     Options
	h        *handlers.Handlers
	https    bool
	proxies  trustedProxies
	csrf     csrfSigner
	sessions *scs.SessionManager
	limiter  ratelimit.Limiter
	keyUse   *keyUseRecorder
	// metrics is nil unless Options.Metrics.
	metrics *metrics
	// limits are the connection and stream caps in force (defaults worked out).
	limits  ConnLimits
	streams *streamGate
	jobs    *jobRunner
	// areaJobs are the services' jobs, from Wire; Start adds the server's own.
	areaJobs []Job
	started  sync.Once
	done     chan struct{}
	doneOnce sync.Once
}

// New builds the application.
func New(opts Options) (*Server, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	opts.Config.Site.BaseURL = strings.TrimRight(opts.Config.Site.BaseURL, "/")
	https := strings.HasPrefix(opts.Config.Site.BaseURL, "https://")

	sm := scs.New()
	sm.Lifetime = 30 * 24 * time.Hour
	sm.IdleTimeout = 7 * 24 * time.Hour
	sm.Cookie.Name = "ounce_session"
	sm.Cookie.HttpOnly = true
	sm.Cookie.SameSite = http.SameSiteLaxMode
	sm.Cookie.Secure = https
	sm.Cookie.Persist = true
	// Sessions live in the database so every instance sees them; expired ones are removed by
	// the session-cleanup job.
	sm.Store = opts.Store.SessionStore()
	limiter := ratelimit.For(opts.Store, opts.Now)

	// The key signing visitors' CSRF cookies is shared by every instance through the database.
	key, err := opts.Store.Secret(context.Background(), "csrf-cookie-key", func() string { return randomToken(32) })
	if err != nil {
		return nil, err
	}
	s := &server{opts: opts, https: https, proxies: parseTrustedProxies(opts.Config.HTTP.TrustedProxies), csrf: csrfSigner{key: []byte(key), now: opts.Now},
		sessions: sm, limiter: limiter, keyUse: newKeyUseRecorder(opts.Store, opts.Logger), jobs: newJobRunner(opts.Logger), done: make(chan struct{})}
	if opts.Config.HTTP.Metrics {
		s.metrics = newMetrics(opts.Store)
	}
	s.limits = opts.Config.HTTP.connLimits()
	s.streams = newStreamGate(s.limits)
	if opts.Wire == nil {
		return nil, errors.New("web.New: Options.Wire is required (internal/app supplies it)")
	}
	base := &kit.Base{Sessions: sm, Site: opts.Config.Site, Log: opts.Logger, Now: opts.Now, Done: s.done}
	s.h, s.areaJobs = opts.Wire(Parts{Base: base, Limiter: limiter, OnKeyUsed: s.keyUse.Record})

	limits := &bodyLimits{}
	for _, r := range s.h.APIRoutes() {
		limits.add(r.Method, r.Path, r.MaxBody)
	}
	for _, r := range s.h.PageRoutes() {
		limits.add(r.Method, r.Path, r.MaxBody)
	}
	cfg := fiber.Config{
		AppName:      "ounce",
		ErrorHandler: s.h.ErrorHandler,
		// Each route's own limit is applied as its headers arrive (bodyLimits); this is only
		// the ceiling.
		BodyLimit: limits.largest(),
		// Request lines and headers up to 16 KiB (long query strings, big cookies); longer
		// ones are answered 431.
		ReadBufferSize: readBufferSize,
		ReadTimeout:    30 * time.Second,
		// Event streams set their own per-write deadlines instead (handlers/sse.go).
		WriteTimeout:          60 * time.Second,
		IdleTimeout:           120 * time.Second,
		DisableStartupMessage: true,
		// Every string and byte slice a handler gets from the request (params, query, form
		// values, headers, body) is its own copy, not a view of fasthttp's pooled buffers,
		// so a value kept past the request (a question held for its stream, a cache key, a
		// goroutine) can never turn into another request's bytes. Its cost is measured in
		// BENCHMARKS.md (BenchmarkImmutable).
		Immutable: immutable,
	}
	if len(opts.Config.HTTP.TrustedProxies) > 0 {
		// Fiber believes X-Forwarded-Proto and -Host from these; the client address is worked
		// out by setClientIP, which reads X-Forwarded-For from the right.
		cfg.EnableTrustedProxyCheck = true
		cfg.TrustedProxies = opts.Config.HTTP.TrustedProxies
	}
	app := fiber.New(cfg)
	app.Server().HeaderReceived = limits.headerReceived
	s.routes(app)
	return &Server{App: app, s: s}, nil
}

// immutable is Fiber's Immutable setting; only the benchmark that measures its cost turns it off.
var immutable = true

// readBufferSize bounds the request line and headers.
const readBufferSize = 16 << 10

// Serve answers requests on ln until Shutdown. Connections close gracefully (see
// lingerConn), so a client whose request was refused early still reads the answer; accept
// errors from a shortage of descriptors are retried and open connections are capped (see
// guardListener).
func (srv *Server) Serve(ln net.Listener) error {
	return srv.App.Listener(newGuardListener(ln, srv.s.limits.MaxConnections, srv.s.opts.Logger))
}

// Listen serves on addr (host:port) until Shutdown.
func (srv *Server) Listen(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	return srv.Serve(ln)
}

// Limits are the connection and stream caps the server enforces.
func (srv *Server) Limits() ConnLimits { return srv.s.limits }

// Handlers exposes the assembled handlers (tests read the route tables and documents).
func (srv *Server) Handlers() *handlers.Handlers { return srv.s.h }

// Start runs the background jobs (the services' and the server's own) until Shutdown.
// Calling it again does nothing.
func (srv *Server) Start() {
	srv.s.started.Do(func() { srv.s.jobs.start(append(append([]Job{}, srv.s.areaJobs...), srv.s.ownJobs()...)) })
}

// Shutdown stops accepting requests, lets in-flight ones finish, and stops background work,
// waiting for every job to return.
func (srv *Server) Shutdown(ctx context.Context) error {
	// End event streams first: they would otherwise hold their connections open until ctx expires.
	srv.s.doneOnce.Do(func() { close(srv.s.done) })
	err := srv.App.ShutdownWithContext(ctx)
	srv.s.jobs.stop()
	// Key use recorded by the last requests (or with no jobs started at all) is written now.
	srv.s.keyUse.Flush(ctx)
	return err
}

// FlushKeyUse writes pending API key use now (tests).
func (srv *Server) FlushKeyUse(ctx context.Context) { srv.s.keyUse.Flush(ctx) }

// ownJobs are the server's housekeeping loops: batched API key last-use writes, pruning of
// shared rate-limit windows, and removal of expired sessions.
func (s *server) ownJobs() []Job {
	jobs := []Job{
		{Name: "API key use", Run: func(ctx context.Context) { s.keyUse.Run(ctx, 30*time.Second) }},
		every("session cleanup", 10*time.Minute, s.opts.Logger, s.opts.Store.DeleteExpiredSessions),
	}
	if shared, ok := s.limiter.(*ratelimit.Shared); ok {
		// The in-memory limiter forgets old windows itself; shared ones are rows to delete.
		jobs = append(jobs, every("rate-limit pruning", 5*time.Minute, s.opts.Logger, shared.Prune))
	}
	return jobs
}

var requestIDPattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// Request ids are a random per-process prefix and a counter: unique, and cheap enough to mint
// for every request.
var (
	ridPrefix  = func() string { var b [4]byte; _, _ = rand.Read(b[:]); return hex.EncodeToString(b[:]) }()
	ridCounter atomic.Uint64
)

func nextRequestID() string {
	return ridPrefix + "-" + strconv.FormatUint(ridCounter.Add(1), 36)
}

// requestContext gives each request an id (echoed in X-Request-Id and every log line),
// measures it, and logs it once at the end.
func (s *server) requestContext(c *fiber.Ctx) error {
	start := time.Now()
	rid := c.Get("X-Request-Id")
	if rid == "" || !requestIDPattern.MatchString(rid) {
		rid = nextRequestID()
	}
	kit.SetRequestID(c, rid)
	c.Set("X-Request-Id", rid)
	s.setClientIP(c)
	kit.SetStreamGate(c, s.streams)
	err := c.Next()
	if err != nil {
		if herr := c.App().ErrorHandler(c, err); herr != nil {
			_ = c.SendStatus(http.StatusInternalServerError)
		}
	}
	status := c.Response().StatusCode()
	route := c.Route().Path
	if status == http.StatusNotFound && route == "/" && c.Path() != "/" {
		route = "unmatched"
	}
	d := time.Since(start)
	if s.metrics != nil {
		s.metrics.observe(c.Method(), route, status, d)
	}
	// Every request is a debug line; errors and slow requests are info, so a busy server's
	// log shows what needs attention (OUNCE_LOG_LEVEL=debug for a full access log).
	level := slog.LevelDebug
	if status >= 400 || d > 500*time.Millisecond {
		level = slog.LevelInfo
	}
	if !strings.HasPrefix(c.Path(), "/static/") && s.opts.Logger.Enabled(c.UserContext(), level) {
		s.opts.Logger.LogAttrs(c.UserContext(), level, "request", slog.String("request_id", rid), slog.String("method", c.Method()),
			slog.String("path", c.Path()), slog.String("route", route), slog.Int("status", status), slog.Int64("duration_us", d.Microseconds()))
	}
	return nil
}

func (s *server) routes(app *fiber.App) {
	h := s.h
	app.Use(recover.New())
	app.Use(compressText()) // compress.go: brotli/gzip for text responses
	app.Use(s.requestContext)
	app.Use(securityHeaders(strings.HasPrefix(s.opts.Config.Site.BaseURL, "https://")))
	app.Use(refuseContentEncoding)

	app.Get("/healthz", s.healthz)
	app.Get("/readyz", s.readyz)
	if s.metrics != nil {
		app.Get("/metrics", s.metrics.handler)
	}
	sub, _ := fs.Sub(static.FS, ".")
	app.Use("/static", func(c *fiber.Ctx) error {
		c.Set(fiber.HeaderCacheControl, "public, max-age=3600")
		return c.Next()
	}, filesystem.New(filesystem.Config{Root: http.FS(sub)}))

	// Machine-readable descriptions, generated from the route table.
	app.Get("/openapi.json", h.OpenAPIJSON)
	app.Get("/llms.txt", h.LLMsTxt)
	app.Get("/.well-known/ai-plugin.json", h.AIPluginJSON)
	app.Get("/.well-known/mcp.json", h.MCPManifestJSON)
	// The MCP server: limited like /v1 (per key, or per address without one), then the SDK's handler.
	mcpLimit := s.apiAuth(kit.APIRoute{Auth: kit.AuthNone})
	app.All("/mcp", mcpLimit, checkText, adaptor.HTTPHandler(h.MCPHandler()))

	// The JSON API: CORS from the allow-list, then per-route auth and rate limits.
	api := app.Group("/v1")
	if len(s.opts.Config.HTTP.CORSOrigins) > 0 {
		api.Use(cors.New(cors.Config{
			AllowOrigins:  strings.Join(s.opts.Config.HTTP.CORSOrigins, ","),
			AllowHeaders:  "Authorization, Content-Type, X-Request-Id",
			AllowMethods:  "GET,POST,PATCH,DELETE,OPTIONS",
			ExposeHeaders: "Location, Retry-After, X-Request-Id, X-RateLimit-Limit",
			MaxAge:        600,
		}))
	}
	for _, r := range h.APIRoutes() {
		if r.SignedBody {
			addRoute(app, r.Method, r.Path, s.apiAuth(r), r.Handler)
		} else {
			addRoute(app, r.Method, r.Path, s.apiAuth(r), checkText, r.Handler)
		}
	}
	api.Use(func(c *fiber.Ctx) error {
		// Unknown routes count against the caller's budget too, so probing is not free.
		return s.rateLimitThen(c, ipBucket, s.opts.Config.HTTP.RateLimitPerIP, func() error {
			return kit.NewProblem(http.StatusNotFound, kit.ProbNotFound, "no API route "+c.Method()+" "+c.Path())
		})
	})

	// Browser pages: session, CSRF, the signed-in user.
	pages := app.Group("", sessionMiddleware(s.sessions), s.csrfMiddleware, s.loadSessionUser)
	for _, r := range h.PageRoutes() {
		if r.Auth == kit.AuthNone {
			addRoute(pages, r.Method, r.Path, checkText, r.Handler)
		} else {
			// Per route, so the guard never leaks onto 404s.
			addRoute(pages, r.Method, r.Path, requirePageAuth(r.Auth), checkText, s.costlyPageLimit(r), r.Handler)
		}
	}

	pages.Use(func(c *fiber.Ctx) error { return fiber.ErrNotFound })
}

// addRoute registers one route of a table. A GET route also answers HEAD (Fiber's Get does
// both): the same handlers run, so status and headers match, and the server sends no body.
func addRoute(r fiber.Router, method, path string, handlers ...fiber.Handler) {
	if method == http.MethodGet {
		r.Get(path, handlers...)
		return
	}
	r.Add(method, path, handlers...)
}

// loadSessionUser recognises the signed-in member. Pages name who is signed in and carry a
// per-browser CSRF token, so no shared cache may keep them: private, no-store unless the
// handler says otherwise.
func (s *server) loadSessionUser(c *fiber.Ctx) error {
	if u, ok := s.h.SessionUser(c.UserContext()); ok {
		kit.SetUser(c, u)
	}
	c.Set(fiber.HeaderCacheControl, "private, no-store")
	return c.Next()
}

// requirePageAuth enforces a page route's level before its handler runs: visitors without a
// session go to the sign-in page, free members meet the membership page (403), and pages for
// administrators do not exist for anyone else (404).
func requirePageAuth(level kit.Auth) fiber.Handler {
	return func(c *fiber.Ctx) error {
		u, ok := kit.UserFrom(c)
		if !ok {
			to := "/login?next=" + url.QueryEscape(c.OriginalURL())
			if c.Method() != http.MethodGet && c.Method() != http.MethodHead {
				to = "/login"
			}
			if c.Get("HX-Request") == "true" {
				c.Set("HX-Redirect", to)
				return c.SendStatus(http.StatusNoContent)
			}
			return c.Redirect(to, http.StatusSeeOther)
		}
		switch {
		case level == kit.AuthGold && !kit.IsGold(u):
			return apperr.Membership("this page")
		case level == kit.AuthAdmin && !u.IsAdmin:
			return apperr.NotFoundf("page")
		}
		return c.Next()
	}
}

// healthz reports the process is up, and which build it runs (ounce version).
func (s *server) healthz(c *fiber.Ctx) error {
	return c.JSON(fiber.Map{"status": "ok", "version": s.opts.Config.Site.Version})
}

// readyz reports whether the database answers.
func (s *server) readyz(c *fiber.Ctx) error {
	if err := s.opts.Store.Ping(c.UserContext()); err != nil {
		s.opts.Logger.Error("readiness: database unreachable", "err", err)
		return c.Status(http.StatusServiceUnavailable).JSON(fiber.Map{"status": "unavailable", "database": "unreachable"})
	}
	return c.JSON(fiber.Map{"status": "ok", "database": string(s.opts.Store.Engine)})
}
