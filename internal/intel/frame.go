package intel

import (
	"net/url"
	"slices"
	"strings"

	"github.com/ouncehq/ounce/internal/metals"
	"github.com/shopspring/decimal"
)

// maxSources caps the links under one article; past a handful, more outlets repeating the
// same wire story add nothing for the reader.
const maxSources = 6

// sorted returns a copy of stories most important first, so writers never depend on the
// order a caller happened to pass.
func sorted(stories []Story) []Story {
	out := slices.Clone(stories)
	slices.SortStableFunc(out, byImportance)
	return out
}

// slugStory is the story an article's slug is taken from: the earliest report. A cluster can
// gain a more relevant story later in the day, but its first report stays the first, so the
// slug stays put and a rerun finds the article it already stored.
func slugStory(cluster []Story) Story {
	first := cluster[0]
	for _, s := range cluster[1:] {
		if s.PublishedAt.Before(first.PublishedAt) ||
			(s.PublishedAt.Equal(first.PublishedAt) && byImportance(s, first) < 0) {
			first = s
		}
	}
	return first
}

// unionMetals lists the valid metals any story mentions, in display order.
func unionMetals(stories []Story) []metals.Metal {
	var out []metals.Metal
	for _, m := range metals.All {
		for _, s := range stories {
			if slices.Contains(s.Metals, m) {
				out = append(out, m)
				break
			}
		}
	}
	return out
}

// citedMetals are the metals whose prices an article quotes: its own, or gold and silver as
// the market's reference when the stories name none.
func citedMetals(ms []metals.Metal) []metals.Metal {
	if len(ms) == 0 {
		return []metals.Metal{metals.Gold, metals.Silver}
	}
	return ms
}

// pricesOf records the quoted prices, rounded as they are shown, so "since publication"
// comparisons start from the number the reader saw.
func pricesOf(ms []metals.Metal, c Context) map[metals.Metal]decimal.Decimal {
	out := map[metals.Metal]decimal.Decimal{}
	for _, m := range ms {
		if p, ok := c.Prices[m]; ok {
			out[m] = metals.Money(p.Price)
		}
	}
	return out
}

// safeURL keeps only absolute http(s) links: a source link is rendered as an href, and a
// javascript: or data: URL from a hostile feed must not reach a page.
func safeURL(raw string) string {
	raw = strings.TrimSpace(raw)
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return ""
	}
	return u.String()
}

// sourcesOf lists each outlet once (by link, or by name and headline when there is no link).
func sourcesOf(stories []Story) []Source {
	var out []Source
	seen := map[string]bool{}
	for _, s := range stories {
		src := Source{Name: oneLine(s.Source), Title: oneLine(s.Title), URL: safeURL(s.URL)}
		key := src.URL
		if key == "" {
			key = src.Name + "\x00" + src.Title
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, src)
		if len(out) == maxSources {
			break
		}
	}
	return out
}

// anyDemo reports whether any input story is demo content; one is enough to label the whole
// article, since a mixed article would otherwise pass sample text off as news.
func anyDemo(stories []Story) bool {
	return slices.ContainsFunc(stories, func(s Story) bool { return s.Demo })
}

// articleFrame fills everything about a cluster article that comes from the input rather than
// from a writer's prose. Both writers use it, so an article's identity does not change with
// the writer that produced its text.
func articleFrame(cluster []Story, c Context) Article {
	ordered := sorted(cluster)
	ms := unionMetals(ordered)
	return Article{
		Slug:            Slugify(slugStory(ordered).Title, nowOf(c)),
		Category:        normCategory(ordered[0].Category),
		Metals:          ms,
		Sources:         sourcesOf(ordered),
		PricesAtPublish: pricesOf(citedMetals(ms), c),
		PublishedAt:     nowOf(c),
		Demo:            anyDemo(ordered),
	}
}

// synthesisSlugTitle is what the daily synthesis slug is made from: fixed, so there is one
// synthesis slug per day whatever the day's numbers.
const synthesisSlugTitle = "daily synthesis"

// synthesisFrame fills the input-derived parts of the daily synthesis.
func synthesisFrame(top []Story, c Context) Article {
	now := nowOf(c)
	var ms []metals.Metal
	for _, m := range metals.All {
		if _, ok := c.Prices[m]; ok {
			ms = append(ms, m)
		}
	}
	if len(ms) == 0 {
		ms = unionMetals(top)
	}
	return Article{
		Slug:            Slugify(synthesisSlugTitle, now),
		Category:        CategorySynthesis,
		Metals:          ms,
		Sources:         sourcesOf(sorted(top)),
		PricesAtPublish: pricesOf(ms, c),
		PublishedAt:     now,
		IsSynthesis:     true,
		Demo:            anyDemo(top),
	}
}
