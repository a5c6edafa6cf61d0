package news

import (
	"net/url"
	"sort"
	"strings"
	"unicode"
)

// trackingParams are query parameters that identify the click, not the page;
// keeping them would make one story look like many.
var trackingParams = map[string]bool{
	"fbclid": true, "gclid": true, "dclid": true, "msclkid": true, "yclid": true,
	"igshid": true, "mc_cid": true, "mc_eid": true, "_hsenc": true, "_hsmi": true,
}

// CanonicalURL normalises a story address so that the same page reached through
// different links compares equal: http becomes https (publishers serve both and
// readers should get the secure one), the host is lowercased and loses a default
// port, the fragment, user info, tracking parameters (utm_*, fbclid, gclid and
// similar) and trailing slashes go, and the remaining query parameters are
// sorted. Input that is not an absolute http(s) URL is returned trimmed but
// otherwise unchanged. The result is stable: canonicalising it again changes
// nothing.
func CanonicalURL(raw string) string {
	raw = strings.TrimSpace(raw)
	out, ok := canonical(raw)
	if !ok {
		return raw
	}
	// A few odd escapes only settle after url.Parse has rewritten them once; if
	// even a second pass is unstable, the raw string is the safer key.
	if again, _ := canonical(out); again != out {
		if third, _ := canonical(again); third == again {
			return again
		}
		return raw
	}
	return out
}

// canonical does one normalisation pass; ok is false for anything that is not
// an absolute http(s) URL with a host.
func canonical(raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Opaque != "" || u.Host == "" {
		return "", false
	}
	if s := strings.ToLower(u.Scheme); s != "http" && s != "https" {
		return "", false
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if host == "" {
		return "", false
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if p := u.Port(); p != "" && p != "80" && p != "443" {
		host += ":" + p
	}
	var b strings.Builder
	b.WriteString("https://")
	b.WriteString(host)
	b.WriteString(strings.TrimRight(u.EscapedPath(), "/"))
	if q := cleanQuery(u.RawQuery); q != "" {
		b.WriteByte('?')
		b.WriteString(q)
	}
	return b.String(), true
}

// cleanQuery drops tracking and empty parameters and sorts the rest, working on
// the raw pieces so a publisher's own encoding is kept.
func cleanQuery(raw string) string {
	if raw == "" {
		return ""
	}
	var keep []string
	for _, p := range strings.Split(raw, "&") {
		if p == "" {
			continue
		}
		key, _, _ := strings.Cut(p, "=")
		if k, err := url.QueryUnescape(key); err == nil {
			key = k
		}
		key = strings.ToLower(key)
		if strings.HasPrefix(key, "utm_") || trackingParams[key] {
			continue
		}
		keep = append(keep, p)
	}
	sort.Strings(keep)
	return strings.Join(keep, "&")
}

// TitleSimilarityThreshold is the Jaccard similarity of word shingles at or above
// which two headlines are treated as the same story. Syndicated copies differ by
// a source suffix or a word or two and score well above it; different stories on
// the same subject share a few words and score well below.
const TitleSimilarityThreshold = 0.8

// Dedupe returns the incoming items that are new: not already in existing and
// not repeated earlier in incoming. Two items are the same story when their
// canonical URLs match or their normalised titles are near-identical (see
// TitleSimilarityThreshold). Returned items carry their canonical URL.
func Dedupe(existing, incoming []Item) []Item {
	seenURL := make(map[string]bool, len(existing)+len(incoming))
	idx := newShingleIndex()
	for _, it := range existing {
		if u := CanonicalURL(it.URL); u != "" {
			seenURL[u] = true
		}
		idx.add(titleShingles(it.Title))
	}
	var out []Item
	for _, it := range incoming {
		it.URL = CanonicalURL(it.URL)
		if it.URL != "" && seenURL[it.URL] {
			continue
		}
		sh := titleShingles(it.Title)
		if idx.nearDuplicate(sh, TitleSimilarityThreshold) {
			continue
		}
		if it.URL != "" {
			seenURL[it.URL] = true
		}
		idx.add(sh)
		out = append(out, it)
	}
	return out
}

// TitleSimilarity is the Jaccard similarity of the two titles' word shingles,
// from 0 (nothing shared) to 1 (same words in the same order).
func TitleSimilarity(a, b string) float64 {
	sa, sb := titleShingles(a), titleShingles(b)
	if len(sa) == 0 || len(sb) == 0 {
		return 0
	}
	inter := 0
	for s := range sa {
		if sb[s] {
			inter++
		}
	}
	return float64(inter) / float64(len(sa)+len(sb)-inter)
}

// titleShingles is the set of adjacent word pairs of the normalised title (the
// single word for one-word titles). Pairs keep some word order, so two
// headlines built from the same words in different roles do not collide.
func titleShingles(title string) map[string]bool {
	words := normaliseTitle(title)
	set := map[string]bool{}
	if len(words) == 1 {
		set[words[0]] = true
		return set
	}
	for i := 0; i+1 < len(words); i++ {
		set[words[i]+" "+words[i+1]] = true
	}
	return set
}

// normaliseTitle lowercases, drops punctuation and a trailing " - Publisher"
// attribution that aggregators append, and splits into words.
func normaliseTitle(title string) []string {
	t := strings.TrimSpace(title)
	for _, sep := range []string{" - ", " | ", " — ", " – "} {
		if i := strings.LastIndex(t, sep); i > 0 {
			if tail := strings.Fields(t[i+len(sep):]); len(tail) > 0 && len(tail) <= 4 {
				t = t[:i]
			}
		}
	}
	t = strings.ToLower(t)
	return strings.FieldsFunc(t, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '$' && r != '%'
	})
}

// shingleIndex finds earlier titles sharing shingles with a new one without
// comparing it to every title seen.
type shingleIndex struct {
	sets  []map[string]bool
	index map[string][]int
}

func newShingleIndex() *shingleIndex {
	return &shingleIndex{index: map[string][]int{}}
}

func (x *shingleIndex) add(sh map[string]bool) {
	if len(sh) == 0 {
		return
	}
	id := len(x.sets)
	x.sets = append(x.sets, sh)
	for s := range sh {
		x.index[s] = append(x.index[s], id)
	}
}

func (x *shingleIndex) nearDuplicate(sh map[string]bool, threshold float64) bool {
	if len(sh) == 0 {
		return false
	}
	overlap := map[int]int{}
	for s := range sh {
		for _, id := range x.index[s] {
			overlap[id]++
		}
	}
	for id, inter := range overlap {
		union := len(sh) + len(x.sets[id]) - inter
		if float64(inter)/float64(union) >= threshold {
			return true
		}
	}
	return false
}
