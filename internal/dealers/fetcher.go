package dealers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/ouncehq/ounce/internal/outbound"
)

// DefaultTimeout bounds one request to a dealer.
const DefaultTimeout = 20 * time.Second

// MaxBody caps a page or feed; product pages are a few hundred kilobytes.
const MaxBody = 4 << 20

// robotsTTL is how long a host's robots.txt is trusted before it is read again.
const robotsTTL = 24 * time.Hour

// ErrDisallowed is returned for a URL the host's robots.txt does not let Ounce fetch.
var ErrDisallowed = errors.New("robots.txt disallows this URL for Ounce")

// StatusError is an unexpected HTTP status from a dealer.
type StatusError struct{ Code int }

func (e *StatusError) Error() string {
	return fmt.Sprintf("dealer answered HTTP %d %s", e.Code, http.StatusText(e.Code))
}

// UserAgent names Ounce, the installation and who to contact, as polite crawlers do.
func UserAgent(site, contact string) string {
	ua := "Ounce/1.0 (dealer price comparison"
	if site != "" {
		ua += "; +" + site
	}
	if contact != "" {
		ua += "; " + contact
	}
	return ua + ")"
}

// robotsToken is the product token matched against robots.txt User-agent lines.
const robotsToken = "ounce"

// Fetcher is the one way Ounce reads dealer sites: at most one request per host every Gap
// (never less than MinHostGap), a timeout on every request, conditional GETs with the
// validators of the previous answer, a User-Agent with a contact address, and robots.txt
// obeyed. It is safe for concurrent use.
type Fetcher struct {
	client *http.Client
	ua     string
	// Gap is the least time between two requests to one host (host:port).
	Gap time.Duration
	// now and sleep are the clock; tests replace them to observe waits without waiting.
	now   func() time.Time
	sleep func(ctx context.Context, d time.Duration) error

	mu     sync.Mutex
	next   map[string]time.Time // host → earliest start of its next request
	robots map[string]robotsEntry
	cache  map[string]cached // URL → validators and body of the last 200
}

type robotsEntry struct {
	rules   robotsRules
	fetched time.Time
}

type cached struct {
	etag, lastModified string
	body               []byte
}

// NewFetcher builds a fetcher; a nil client is the outbound policy's operator client with
// DefaultTimeout: the listed pages and feeds are the operator's, but a redirect to another
// host may only lead to a public address.
func NewFetcher(client *http.Client, userAgent string) *Fetcher {
	if client == nil {
		client = outbound.OperatorClient(outbound.Options{Timeout: DefaultTimeout})
	}
	return &Fetcher{client: client, ua: userAgent, Gap: MinHostGap, now: time.Now, sleep: sleepCtx,
		next: map[string]time.Time{}, robots: map[string]robotsEntry{}, cache: map[string]cached{}}
}

// SetClock replaces the clock and the sleep (tests).
func (f *Fetcher) SetClock(now func() time.Time, sleep func(ctx context.Context, d time.Duration) error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now, f.sleep = now, sleep
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// gap is the configured gap, never below MinHostGap.
func (f *Fetcher) gap() time.Duration { return max(f.Gap, MinHostGap) }

// wait reserves the host's next slot and sleeps until it: concurrent callers queue up one gap
// apart instead of all waking at once.
func (f *Fetcher) wait(ctx context.Context, host string) error {
	f.mu.Lock()
	now := f.now()
	start := f.next[host]
	if start.Before(now) {
		start = now
	}
	f.next[host] = start.Add(f.gap())
	sleep := f.sleep
	f.mu.Unlock()
	return sleep(ctx, start.Sub(now))
}

// Result is what a fetch returned.
type Result struct {
	Body []byte
	// NotModified is true when the server answered 304 and Body is the copy kept from before.
	NotModified bool
	// FinalURL is the address after redirects.
	FinalURL *url.URL
}

// Get fetches a URL politely. accept is the Accept header.
func (f *Fetcher) Get(ctx context.Context, raw, accept string) (Result, error) {
	u, err := checkWebURL(raw)
	if err != nil {
		return Result{}, fmt.Errorf("url %s", err)
	}
	allowed, err := f.allowed(ctx, u)
	if err != nil {
		return Result{}, err
	}
	if !allowed {
		return Result{}, ErrDisallowed
	}
	if err := f.wait(ctx, u.Host); err != nil {
		return Result{}, err
	}
	f.mu.Lock()
	prev, hasPrev := f.cache[u.String()]
	f.mu.Unlock()
	resp, err := f.do(ctx, u.String(), accept, prev, hasPrev)
	if err != nil {
		return Result{}, err
	}
	defer resp.Body.Close()
	final := u
	if resp.Request != nil && resp.Request.URL != nil {
		final = resp.Request.URL
	}
	switch {
	case resp.StatusCode == http.StatusNotModified && hasPrev:
		return Result{Body: prev.body, NotModified: true, FinalURL: final}, nil
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		_, _ = io.CopyN(io.Discard, resp.Body, 64<<10)
		return Result{}, &StatusError{Code: resp.StatusCode}
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxBody+1))
	if err != nil {
		return Result{}, fmt.Errorf("read body: %w", err)
	}
	if len(body) > MaxBody {
		return Result{}, fmt.Errorf("answer larger than %d MiB", MaxBody>>20)
	}
	if et, lm := resp.Header.Get("ETag"), resp.Header.Get("Last-Modified"); et != "" || lm != "" {
		f.mu.Lock()
		f.cache[u.String()] = cached{etag: et, lastModified: lm, body: body}
		f.mu.Unlock()
	}
	return Result{Body: body, FinalURL: final}, nil
}

func (f *Fetcher) do(ctx context.Context, raw, accept string, prev cached, hasPrev bool) (*http.Response, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultTimeout)
		// The body is read by the caller; cancel when it is closed.
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
		if err != nil {
			cancel()
			return nil, err
		}
		resp, err := f.send(req, accept, prev, hasPrev)
		if err != nil {
			cancel()
			return nil, err
		}
		resp.Body = cancelOnClose{resp.Body, cancel}
		return resp, nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
	if err != nil {
		return nil, err
	}
	return f.send(req, accept, prev, hasPrev)
}

func (f *Fetcher) send(req *http.Request, accept string, prev cached, hasPrev bool) (*http.Response, error) {
	req.Header.Set("User-Agent", f.ua)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	if hasPrev {
		if prev.etag != "" {
			req.Header.Set("If-None-Match", prev.etag)
		}
		if prev.lastModified != "" {
			req.Header.Set("If-Modified-Since", prev.lastModified)
		}
	}
	return f.client.Do(req)
}

type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c cancelOnClose) Close() error { err := c.ReadCloser.Close(); c.cancel(); return err }

// allowed reads (or recalls) the host's robots.txt and applies it to the URL. Per RFC 9309:
// a missing robots.txt (4xx) allows everything; an unreachable one (5xx, network error)
// allows nothing until it can be read.
func (f *Fetcher) allowed(ctx context.Context, u *url.URL) (bool, error) {
	key := u.Scheme + "://" + u.Host
	f.mu.Lock()
	e, ok := f.robots[key]
	fresh := ok && f.now().Sub(e.fetched) < robotsTTL
	f.mu.Unlock()
	if !fresh {
		rules, err := f.readRobots(ctx, key, u.Host)
		if err != nil {
			if ctx.Err() != nil {
				return false, ctx.Err()
			}
			return false, fmt.Errorf("robots.txt of %s unreadable, so nothing is fetched there: %w", u.Host, err)
		}
		e = robotsEntry{rules: rules, fetched: f.now()}
		f.mu.Lock()
		f.robots[key] = e
		f.mu.Unlock()
	}
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	if u.RawQuery != "" {
		path += "?" + u.RawQuery
	}
	return e.rules.Allowed(path), nil
}

func (f *Fetcher) readRobots(ctx context.Context, origin, host string) (robotsRules, error) {
	if err := f.wait(ctx, host); err != nil {
		return robotsRules{}, err
	}
	resp, err := f.do(ctx, origin+"/robots.txt", "text/plain", cached{}, false)
	if err != nil {
		return robotsRules{}, err
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode >= 500:
		return robotsRules{}, &StatusError{Code: resp.StatusCode}
	case resp.StatusCode >= 400:
		return robotsRules{}, nil // no robots.txt: everything allowed
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		return robotsRules{}, &StatusError{Code: resp.StatusCode}
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 512<<10))
	if err != nil {
		return robotsRules{}, err
	}
	return parseRobots(string(body), robotsToken), nil
}

// robotsRules are the Allow/Disallow lines of the group that applies to Ounce.
type robotsRules struct {
	rules []robotsRule
}

type robotsRule struct {
	allow   bool
	pattern string
}

// parseRobots reads robots.txt (RFC 9309) and keeps the rules of the groups naming token, or
// of the "*" groups when none does. Consecutive User-agent lines share the rules after them.
func parseRobots(body, token string) robotsRules {
	type group struct {
		agents []string
		rules  []robotsRule
	}
	var groups []*group
	var cur *group
	lastWasAgent := false
	for _, line := range strings.Split(body, "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		key, val = strings.ToLower(strings.TrimSpace(key)), strings.TrimSpace(val)
		switch key {
		case "user-agent":
			if cur == nil || !lastWasAgent {
				cur = &group{}
				groups = append(groups, cur)
			}
			cur.agents = append(cur.agents, strings.ToLower(val))
			lastWasAgent = true
		case "allow", "disallow":
			lastWasAgent = false
			if cur == nil {
				continue
			}
			if key == "disallow" && val == "" {
				continue // "Disallow:" with nothing allows everything
			}
			cur.rules = append(cur.rules, robotsRule{allow: key == "allow", pattern: val})
		default:
			lastWasAgent = false
		}
	}
	var mine, star []robotsRule
	for _, g := range groups {
		for _, a := range g.agents {
			switch {
			case a == "*":
				star = append(star, g.rules...)
			case a == token || strings.HasPrefix(a, token+"/"):
				mine = append(mine, g.rules...)
			}
		}
	}
	if mine != nil {
		return robotsRules{rules: mine}
	}
	return robotsRules{rules: star}
}

// Allowed applies the most specific (longest) matching rule; Allow wins a tie; no match
// allows. /robots.txt itself is always allowed.
func (r robotsRules) Allowed(path string) bool {
	if path == "/robots.txt" {
		return true
	}
	best, allow := -1, true
	for _, rule := range r.rules {
		if !robotsMatch(rule.pattern, path) {
			continue
		}
		n := len(rule.pattern)
		if n > best || n == best && rule.allow {
			best, allow = n, rule.allow
		}
	}
	return allow
}

// robotsMatch matches a robots.txt path pattern: "*" is any run of characters, a final "$"
// anchors the end, anything else is a prefix match.
func robotsMatch(pattern, path string) bool {
	anchored := strings.HasSuffix(pattern, "$")
	pattern = strings.TrimSuffix(pattern, "$")
	parts := strings.Split(pattern, "*")
	if !strings.HasPrefix(path, parts[0]) {
		return false
	}
	pos := len(parts[0])
	for i, part := range parts[1:] {
		last := i == len(parts)-2
		if last && anchored {
			return len(path) >= pos+len(part) && strings.HasSuffix(path, part)
		}
		j := strings.Index(path[pos:], part)
		if j < 0 {
			return false
		}
		pos += j + len(part)
	}
	if anchored && len(parts) == 1 {
		return path == parts[0]
	}
	return true
}
