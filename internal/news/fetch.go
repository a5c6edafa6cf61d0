package news

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mmcdole/gofeed"
	"golang.org/x/net/html"

	"github.com/ouncehq/ounce/internal/outbound"
)

// MaxFeedBytes caps a feed document; real feeds are well under a megabyte, so a
// larger body is a misbehaving server and reading it would only cost memory.
const MaxFeedBytes = 5 << 20

// DefaultFetchTimeout bounds a fetch whose context carries no deadline, so one
// stalled server cannot hold up an ingestion run forever.
const DefaultFetchTimeout = 20 * time.Second

// DefaultUserAgent identifies Ounce to feed publishers when Fetcher.UserAgent is empty.
const DefaultUserAgent = "Ounce/1.0 (precious-metals news reader)"

// maxItemsPerFeed keeps one runaway feed from dominating an ingestion run.
const maxItemsPerFeed = 200

// maxSummaryRunes keeps summaries to a teaser; the full story is one click away.
const maxSummaryRunes = 600

// futureSlack is how far ahead of the clock a published date may be before it is
// treated as wrong; feeds with dates in the future would otherwise pin themselves
// to the top of a newest-first list.
const futureSlack = time.Hour

// ErrTooLarge reports a feed body larger than MaxFeedBytes.
var ErrTooLarge = errors.New("feed larger than 5 MiB")

// StatusError reports a feed server answering with an unexpected HTTP status.
type StatusError struct {
	Code int
}

// Error names the status so the stored LastError tells an operator what the
// server said.
func (e *StatusError) Error() string {
	return fmt.Sprintf("feed server answered HTTP %d %s", e.Code, http.StatusText(e.Code))
}

// Fetcher polls RSS and Atom feeds. The zero value is usable; it is safe for
// concurrent use when its Client is.
type Fetcher struct {
	// Client performs the requests; nil means the outbound policy's operator client (the
	// feed's own host is trusted, a redirect to another host must be public). Deadlines come
	// from the context passed to Fetch rather than from the client.
	Client *http.Client
	// UserAgent is sent with every request; empty means DefaultUserAgent.
	UserAgent string
}

// Fetch downloads one feed and returns its items, newest information about the
// feed's health, and any error. prev is the state the caller stored after the
// previous fetch of the same feed: its validators make the request conditional,
// and a 304 answer returns no items with the state marked healthy. The returned
// state is meaningful on failure too and should be stored either way.
func (f Fetcher) Fetch(ctx context.Context, feed Feed, prev FeedState) ([]Item, FeedState, error) {
	now := time.Now().UTC()
	st := prev
	if prev.URL != "" && prev.URL != feed.URL {
		// Validators and health of another address would make the server answer
		// 304 for a document we have never seen and misreport this feed.
		st = FeedState{}
	}
	st.URL = feed.URL
	st.LastAttempt = now

	items, etag, lastMod, notModified, err := f.fetch(ctx, feed, st)
	if err != nil {
		st.LastError = err.Error()
		return nil, st, fmt.Errorf("fetch %s: %w", feed.URL, err)
	}
	st.LastOK = now
	st.LastError = ""
	if !notModified {
		st.ETag, st.LastModified = etag, lastMod
	}
	return items, st, nil
}

func (f Fetcher) fetch(ctx context.Context, feed Feed, st FeedState) (items []Item, etag, lastMod string, notModified bool, err error) {
	base, err := validateFeedURL(feed.URL)
	if err != nil {
		return nil, "", "", false, err
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultFetchTimeout)
		defer cancel()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base.String(), nil)
	if err != nil {
		return nil, "", "", false, err
	}
	ua := f.UserAgent
	if ua == "" {
		ua = DefaultUserAgent
	}
	req.Header.Set("User-Agent", ua)
	req.Header.Set("Accept", "application/rss+xml, application/atom+xml, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.5")
	if st.ETag != "" {
		req.Header.Set("If-None-Match", st.ETag)
	}
	if st.LastModified != "" {
		req.Header.Set("If-Modified-Since", st.LastModified)
	}

	client := f.Client
	if client == nil {
		client = defaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, "", "", false, err
	}
	defer resp.Body.Close()

	switch {
	case resp.StatusCode == http.StatusNotModified:
		return nil, "", "", true, nil
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		// Drain a little so the connection can be reused.
		_, _ = io.CopyN(io.Discard, resp.Body, 64<<10)
		return nil, "", "", false, &StatusError{Code: resp.StatusCode}
	}

	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxFeedBytes+1))
	if err != nil {
		return nil, "", "", false, fmt.Errorf("read body: %w", err)
	}
	if len(body) > MaxFeedBytes {
		return nil, "", "", false, ErrTooLarge
	}
	// Relative item links resolve against the final address after redirects.
	if resp.Request != nil && resp.Request.URL != nil {
		base = resp.Request.URL
	}
	items, err = parseFeed(body, feed, base, time.Now().UTC())
	if err != nil {
		return nil, "", "", false, err
	}
	return items, resp.Header.Get("ETag"), resp.Header.Get("Last-Modified"), false, nil
}

// parseFeed turns an RSS or Atom document into items.
func parseFeed(body []byte, feed Feed, base *url.URL, now time.Time) ([]Item, error) {
	parsed, err := gofeed.NewParser().Parse(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("parse feed: %w", err)
	}
	return convertItems(parsed, feed, base, now), nil
}

// convertItems maps gofeed's universal items to ours, skipping the ones a reader
// could not use: no title or no followable link.
func convertItems(parsed *gofeed.Feed, feed Feed, base *url.URL, now time.Time) []Item {
	source := cleanName(feed.Name)
	if source == "" {
		source = cleanName(StripHTML(parsed.Title))
	}
	if source == "" {
		source = base.Hostname()
	}
	var out []Item
	for _, it := range parsed.Items {
		if it == nil {
			continue
		}
		if len(out) >= maxItemsPerFeed {
			break
		}
		title := truncateRunes(StripHTML(it.Title), 300)
		link := itemLink(it, base)
		if title == "" || link == "" {
			continue
		}
		summary := it.Description
		if strings.TrimSpace(StripHTML(summary)) == "" {
			summary = it.Content
		}
		out = append(out, Item{
			Title:       title,
			URL:         link,
			Source:      source,
			Summary:     truncateRunes(StripHTML(summary), maxSummaryRunes),
			PublishedAt: itemTime(it, now),
		})
	}
	return out
}

func itemLink(it *gofeed.Item, base *url.URL) string {
	candidates := append([]string{it.Link}, it.Links...)
	for _, c := range candidates {
		c = strings.TrimSpace(c)
		if c == "" {
			continue
		}
		ref, err := url.Parse(c)
		if err != nil {
			continue
		}
		abs := base.ResolveReference(ref)
		if abs.Scheme != "http" && abs.Scheme != "https" || abs.Host == "" {
			continue
		}
		return CanonicalURL(abs.String())
	}
	return ""
}

func itemTime(it *gofeed.Item, now time.Time) time.Time {
	var t time.Time
	switch {
	case it.PublishedParsed != nil:
		t = *it.PublishedParsed
	case it.UpdatedParsed != nil:
		t = *it.UpdatedParsed
	}
	if t.IsZero() || t.After(now.Add(futureSlack)) {
		return now
	}
	return t.UTC()
}

// StripHTML turns a feed's HTML fragment into plain text: tags dropped, entities
// decoded, script and style content removed, whitespace folded. Summaries that
// arrive escaped twice (a common feed bug) are unwrapped once more.
func StripHTML(s string) string {
	out := stripOnce(s)
	if strings.Contains(out, "<") && strings.Contains(out, ">") {
		out = stripOnce(out)
	}
	return out
}

func stripOnce(s string) string {
	if !strings.ContainsAny(s, "<&") {
		return foldSpace(s)
	}
	var b strings.Builder
	z := html.NewTokenizer(strings.NewReader(s))
	skip := 0
	for {
		switch z.Next() {
		case html.ErrorToken:
			return foldSpace(b.String())
		case html.TextToken:
			if skip == 0 {
				b.Write(z.Text())
			}
		case html.StartTagToken:
			name, _ := z.TagName()
			switch string(name) {
			case "script", "style", "noscript", "iframe", "template":
				skip++
			}
			b.WriteByte(' ')
		case html.EndTagToken:
			name, _ := z.TagName()
			switch string(name) {
			case "script", "style", "noscript", "iframe", "template":
				if skip > 0 {
					skip--
				}
			}
			b.WriteByte(' ')
		case html.SelfClosingTagToken:
			b.WriteByte(' ')
		}
	}
}

// foldSpace collapses runs of whitespace and drops control characters and
// invalid UTF-8, which some feeds carry and which break pages and JSON.
func foldSpace(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "")
	}
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) && !unicode.IsSpace(r) {
			return -1
		}
		if r == '\u00a0' {
			return ' '
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

// truncateRunes shortens s to at most n runes, cutting at a word boundary when
// one is near and marking the cut with an ellipsis.
func truncateRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	cut := n - 1
	for i := cut; i > n*3/4; i-- {
		if unicode.IsSpace(r[i]) {
			cut = i
			break
		}
	}
	return strings.TrimRightFunc(string(r[:cut]), unicode.IsSpace) + "…"
}

// defaultClient is the client of a Fetcher without one.
var defaultClient = outbound.OperatorClient(outbound.Options{})
