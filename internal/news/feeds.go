package news

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"unicode"
)

// DefaultFeeds is the list Ounce polls when the operator configures none: public
// precious-metals RSS feeds that need no key. Google News search feeds are used
// for the metals that have no dedicated trade-press feed, because they aggregate
// many publishers behind one stable address.
func DefaultFeeds() []Feed {
	return []Feed{
		{Name: "MINING.COM", URL: "https://www.mining.com/feed/"},
		{Name: "MINING.COM Gold", URL: "https://www.mining.com/commodity/gold/feed/"},
		{Name: "MINING.COM Silver", URL: "https://www.mining.com/commodity/silver/feed/"},
		{Name: "Google News: gold price", URL: "https://news.google.com/rss/search?q=gold+price&hl=en-US&gl=US&ceid=US:en"},
		{Name: "Google News: silver price", URL: "https://news.google.com/rss/search?q=silver+price&hl=en-US&gl=US&ceid=US:en"},
		{Name: "Google News: platinum and palladium", URL: "https://news.google.com/rss/search?q=platinum+OR+palladium+price&hl=en-US&gl=US&ceid=US:en"},
		{Name: "Google News: central bank gold", URL: "https://news.google.com/rss/search?q=%22central+bank%22+gold+reserves&hl=en-US&gl=US&ceid=US:en"},
	}
}

// maxFeedListBytes bounds a feed-list file: a list is a few dozen lines, so
// anything larger is a wrong path rather than a list.
const maxFeedListBytes = 1 << 20

// maxFeedNameLen keeps a misconfigured name from flooding the UI.
const maxFeedNameLen = 100

// ParseFeedList reads the operator's feed configuration. s is either the path of
// an existing file with one feed per line ('#' starts a comment), or the list
// itself with feeds separated by commas or newlines. Each feed is a URL, or
// name=url to choose the displayed source name. Only absolute http and https
// URLs are accepted; duplicates are dropped. A blank s yields no feeds and no
// error, so the caller can fall back to DefaultFeeds.
func ParseFeedList(s string) ([]Feed, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var entries []string
	if path := strings.TrimSpace(s); looksLikePath(path) {
		if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
			if fi.Size() > maxFeedListBytes {
				return nil, fmt.Errorf("feed list %s: larger than %d bytes", path, maxFeedListBytes)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return nil, fmt.Errorf("feed list: %w", err)
			}
			entries = strings.Split(string(b), "\n")
			return parseEntries(entries, path)
		} else if !strings.Contains(path, "=") {
			return nil, fmt.Errorf("feed list %q: neither a readable file nor an http(s) URL", path)
		}
	}
	entries = strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == '\n' || r == '\r' })
	return parseEntries(entries, "")
}

// looksLikePath avoids a stat call for values that are plainly a list of URLs.
func looksLikePath(s string) bool {
	return !strings.Contains(s, "://") && !strings.ContainsAny(s, ",\n") && len(s) < 4096
}

func parseEntries(entries []string, file string) ([]Feed, error) {
	var (
		feeds []Feed
		errs  []error
		seen  = map[string]bool{}
	)
	for i, raw := range entries {
		line := strings.TrimSpace(raw)
		if file != "" {
			if j := strings.Index(line, "#"); j == 0 || (j > 0 && unicode.IsSpace(rune(line[j-1]))) {
				line = strings.TrimSpace(line[:j])
			}
		}
		if line == "" {
			continue
		}
		f, err := parseFeedEntry(line)
		if err != nil {
			if file != "" {
				errs = append(errs, fmt.Errorf("%s line %d: %w", file, i+1, err))
			} else {
				errs = append(errs, fmt.Errorf("entry %d: %w", i+1, err))
			}
			continue
		}
		if seen[f.URL] {
			continue
		}
		seen[f.URL] = true
		feeds = append(feeds, f)
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("feed list: %w", errors.Join(errs...))
	}
	return feeds, nil
}

// parseFeedEntry splits "name=url" only on an '=' that comes before the scheme,
// because feed URLs themselves carry '=' in their query strings.
func parseFeedEntry(entry string) (Feed, error) {
	name, raw := "", entry
	if eq := strings.Index(entry, "="); eq >= 0 {
		if sch := strings.Index(entry, "://"); sch < 0 || eq < sch {
			name, raw = strings.TrimSpace(entry[:eq]), strings.TrimSpace(entry[eq+1:])
			if name == "" {
				return Feed{}, fmt.Errorf("%q: empty name before '='", entry)
			}
		}
	}
	u, err := validateFeedURL(raw)
	if err != nil {
		return Feed{}, err
	}
	if name == "" {
		name = u.Hostname()
	}
	name = cleanName(name)
	if name == "" {
		name = u.Hostname()
	}
	return Feed{Name: name, URL: u.String()}, nil
}

func validateFeedURL(raw string) (*url.URL, error) {
	if raw == "" {
		return nil, errors.New("empty URL")
	}
	if strings.IndexFunc(raw, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 {
		return nil, fmt.Errorf("%q: URL contains spaces or control characters", raw)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%q: %w", raw, err)
	}
	if s := strings.ToLower(u.Scheme); s != "http" && s != "https" {
		return nil, fmt.Errorf("%q: want an http or https URL", raw)
	}
	if u.Hostname() == "" || u.Opaque != "" {
		return nil, fmt.Errorf("%q: URL has no host", raw)
	}
	u.Scheme = strings.ToLower(u.Scheme)
	u.Fragment, u.RawFragment = "", ""
	return u, nil
}

// cleanName drops control characters and folds whitespace, since names end up
// in pages and logs.
func cleanName(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == unicode.ReplacementChar {
			return ' '
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > maxFeedNameLen {
		s = strings.TrimSpace(string(r[:maxFeedNameLen]))
	}
	return s
}
