package intel

import (
	"cmp"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/ouncehq/ounce/internal/metals"
)

// Clustering windows and thresholds.
const (
	// ClusterWindow is how far back Cluster looks: a story older than two days is no longer news.
	ClusterWindow = 48 * time.Hour
	// SynthesisWindow is how far back the daily synthesis looks for its top stories.
	SynthesisWindow = 24 * time.Hour
	// futureSkew tolerates feeds whose clocks run a little ahead; anything later is a bad date.
	futureSkew = time.Hour
	// StandaloneRelevance is the relevance a lone story needs to become an article by itself.
	StandaloneRelevance = 60
)

// stopWords carry no topic: articles, prepositions, and words every metals headline shares.
// Metal names are left out too, because Cluster compares metals separately and counting them
// again would make every two gold headlines look alike.
var stopWords = map[string]bool{
	"the": true, "and": true, "for": true, "with": true, "from": true, "that": true, "this": true,
	"are": true, "was": true, "were": true, "has": true, "have": true, "had": true, "its": true,
	"into": true, "over": true, "after": true, "amid": true, "about": true, "than": true, "but": true,
	"not": true, "new": true, "says": true, "said": true, "say": true, "will": true, "could": true,
	"may": true, "might": true, "would": true, "can": true, "how": true, "why": true, "what": true,
	"who": true, "out": true, "off": true, "per": true, "via": true, "all": true, "more": true,
	"less": true, "now": true, "week": true, "today": true, "yet": true, "still": true, "just": true,
	"gold": true, "silver": true, "platinum": true, "palladium": true, "metal": true, "metals": true,
	"precious": true, "price": true, "prices": true, "market": true, "markets": true,
	"ounce": true, "ounces": true, "bullion": true, "spot": true,
}

// keywords are the topic words of a headline: lowercase, stop words removed, a plural "s"
// dropped so "rates" meets "rate".
func keywords(title string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(oneLine(title)), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if len([]rune(w)) < 3 && !isDigits(w) {
			continue
		}
		if stopWords[w] {
			continue
		}
		if len(w) > 4 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
			w = strings.TrimSuffix(w, "s")
		}
		out[w] = true
	}
	return out
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// similarTitles reports whether two headlines share enough topic words to be the same story:
// at least two shared words and at least a third of the shorter headline's words. Two words
// keep a lone common word ("record", "fed") from merging unrelated stories.
func similarTitles(a, b map[string]bool) bool {
	shared := 0
	for w := range a {
		if b[w] {
			shared++
		}
	}
	return shared >= 2 && 3*shared >= min(len(a), len(b))
}

// metalsOverlap reports whether two stories are about a common metal; two stories naming no
// metal at all count as overlapping so general macro news can still cluster.
func metalsOverlap(a, b []metals.Metal) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	for _, m := range a {
		if slices.Contains(b, m) {
			return true
		}
	}
	return false
}

// byImportance orders stories most relevant first, then newest, then by ID, so every ordering
// in this package is total and therefore deterministic.
func byImportance(a, b Story) int {
	if c := cmp.Compare(b.Relevance, a.Relevance); c != 0 {
		return c
	}
	if c := b.PublishedAt.Compare(a.PublishedAt); c != 0 {
		return c
	}
	if c := cmp.Compare(a.ID, b.ID); c != 0 {
		return c
	}
	if c := cmp.Compare(a.URL, b.URL); c != 0 {
		return c
	}
	return cmp.Compare(a.Title, b.Title)
}

// recent returns the stories published in (now-window, now+futureSkew], without repeats of the
// same ID or URL, most important first. Feeds often carry one item twice; counting it twice
// would make a one-source story look corroborated.
func recent(stories []Story, now time.Time, window time.Duration) []Story {
	from, to := now.Add(-window), now.Add(futureSkew)
	out := make([]Story, 0, len(stories))
	for _, s := range stories {
		if s.PublishedAt.After(from) && !s.PublishedAt.After(to) {
			out = append(out, s)
		}
	}
	slices.SortStableFunc(out, byImportance)
	seenID, seenURL := map[string]bool{}, map[string]bool{}
	kept := out[:0]
	for _, s := range out {
		if (s.ID != "" && seenID[s.ID]) || (s.URL != "" && seenURL[s.URL]) {
			continue
		}
		seenID[s.ID], seenURL[s.URL] = true, true
		kept = append(kept, s)
	}
	return kept
}

// sameStory is the clustering test: one category, a shared metal and similar headlines.
func sameStory(a, b Story, ka, kb map[string]bool) bool {
	return normCategory(a.Category) == normCategory(b.Category) &&
		metalsOverlap(a.Metals, b.Metals) && similarTitles(ka, kb)
}

// Cluster groups the stories of the 48 hours before now that report the same thing: same
// category, a metal in common and headlines sharing topic words. A story joins the first
// cluster holding a matching story; stories are visited most relevant first, so each cluster
// is led by its most relevant story. Clusters come back most relevant first (ties: more
// stories, then newer lead). A story nobody else corroborates stands alone only with relevance
// of at least StandaloneRelevance; weaker singletons are dropped. The result depends only on
// the input, never on its order.
func Cluster(stories []Story, now time.Time) [][]Story {
	pool := recent(stories, now, ClusterWindow)
	kw := make([]map[string]bool, len(pool))
	for i, s := range pool {
		kw[i] = keywords(s.Title)
	}
	var groups [][]int
	for i := range pool {
		placed := false
		for g, members := range groups {
			if slices.ContainsFunc(members, func(j int) bool { return sameStory(pool[i], pool[j], kw[i], kw[j]) }) {
				groups[g] = append(groups[g], i)
				placed = true
				break
			}
		}
		if !placed {
			groups = append(groups, []int{i})
		}
	}
	var out [][]Story
	for _, members := range groups {
		if len(members) == 1 && pool[members[0]].Relevance < StandaloneRelevance {
			continue
		}
		c := make([]Story, len(members))
		for k, j := range members {
			c[k] = pool[j]
		}
		out = append(out, c)
	}
	slices.SortStableFunc(out, func(a, b []Story) int {
		if c := cmp.Compare(b[0].Relevance, a[0].Relevance); c != 0 {
			return c
		}
		if c := cmp.Compare(len(b), len(a)); c != 0 {
			return c
		}
		return byImportance(a[0], b[0])
	})
	return out
}
