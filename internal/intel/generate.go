package intel

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Generate clusters the stories of the last 48 hours (see Cluster) and has w write one article
// per cluster, most relevant first, at most maxArticles of them (no limit when maxArticles is
// zero or less). A nil w means BuiltinWriter. Slugs within one run are made unique with a
// numeric suffix, in cluster order, so the same input always yields the same slugs; spotting
// articles stored by an earlier run stays the caller's job.
//
// A cluster the writer fails on is skipped and its error joined into the returned error, so
// one bad cluster does not cost the others; the articles written are returned either way.
// When ctx ends, Generate stops and returns what it has with ctx's error.
func Generate(ctx context.Context, w Writer, stories []Story, c Context, maxArticles int) ([]Article, error) {
	if w == nil {
		w = BuiltinWriter{}
	}
	if c.Now.IsZero() {
		// Fix the clock once so every article of the run shares one date and one window.
		c.Now = time.Now().UTC()
	}
	clusters := Cluster(stories, c.Now)
	if maxArticles > 0 && len(clusters) > maxArticles {
		clusters = clusters[:maxArticles]
	}
	var out []Article
	var errs []error
	used := map[string]bool{}
	for _, cl := range clusters {
		if err := ctx.Err(); err != nil {
			return out, errors.Join(append(errs, err)...)
		}
		a, err := w.Article(ctx, cl, c)
		if err != nil {
			errs = append(errs, fmt.Errorf("intel: article on %q: %w", oneLine(cl[0].Title), err))
			continue
		}
		a.Slug = uniqueSlug(a.Slug, used)
		out = append(out, a)
	}
	return out, errors.Join(errs...)
}

// uniqueSlug appends -2, -3, … to a slug already taken in this run, trimming the body so the
// result stays within MaxSlugLen.
func uniqueSlug(slug string, used map[string]bool) string {
	s := slug
	for n := 2; used[s]; n++ {
		suffix := "-" + strconv.Itoa(n)
		base := slug
		if len(base)+len(suffix) > MaxSlugLen {
			base = strings.TrimRight(base[:MaxSlugLen-len(suffix)], "-")
		}
		s = base + suffix
	}
	used[s] = true
	return s
}

// TopStories picks the stories for the daily synthesis: those of the 24 hours before now,
// most relevant first, one per development (a story that would cluster with one already
// picked is skipped, so a widely covered event does not take every slot), at most
// MaxSynthesisStories.
func TopStories(stories []Story, now time.Time) []Story {
	var top []Story
	var kws []map[string]bool
	for _, s := range recent(stories, now, SynthesisWindow) {
		k := keywords(s.Title)
		dup := false
		for i, t := range top {
			if sameStory(s, t, k, kws[i]) {
				dup = true
				break
			}
		}
		if dup {
			continue
		}
		top, kws = append(top, s), append(kws, k)
		if len(top) == MaxSynthesisStories {
			break
		}
	}
	return top
}

// GenerateSynthesis has w write the daily synthesis from the top stories of the last 24 hours
// (see TopStories) and the market data in c. A nil w means BuiltinWriter. Its slug is the same
// for every run on one day, so a caller can tell the day's synthesis is already stored.
func GenerateSynthesis(ctx context.Context, w Writer, stories []Story, c Context) (Article, error) {
	if w == nil {
		w = BuiltinWriter{}
	}
	if c.Now.IsZero() {
		c.Now = time.Now().UTC()
	}
	if err := ctx.Err(); err != nil {
		return Article{}, err
	}
	return w.Synthesis(ctx, TopStories(stories, c.Now), c)
}
