// Package intel writes Ounce's "Stack Signal" editorial articles. It groups related news
// stories into clusters, turns each cluster into an article and writes one daily synthesis
// that ties the day's price moves, COMEX vault changes and top stories together.
//
// Two writers share one interface: BuiltinWriter composes text from the input data alone and
// needs no network, and LLMWriter asks an OpenAI-compatible chat-completions server and falls
// back to another writer whenever the answer is late, broken or fails validation. Whatever
// writes the prose, the facts around it (slug, sources, metals, prices at publish, demo flag)
// always come from the input, never from a model.
//
// The writers deliberately define their own Story type instead of using the news package's,
// so the two can change independently. The Service (service.go, run.go) is the caller that
// maps between them: it serves the headline list and the articles, runs ingestion and
// writing, seeds a first start and schedules the runs.
package intel

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/ouncehq/ounce/internal/metals"
	"github.com/shopspring/decimal"
)

// Market-intelligence categories a Story may carry; the API filters articles by these.
const (
	CategoryBreaking     = "BREAKING"
	CategorySupplyDemand = "SUPPLY_DEMAND"
	CategoryCentralBank  = "CENTRAL_BANK"
	CategoryPolicy       = "POLICY"
	CategoryMining       = "MINING"
	CategoryInvestment   = "INVESTMENT"
	CategoryGeopolitical = "GEOPOLITICAL"
	CategoryAnalysis     = "ANALYSIS"
)

// CategorySynthesis marks the daily synthesis article, which is not about one category.
const CategorySynthesis = "SYNTHESIS"

// Categories lists the eight story categories in the order the spec gives them.
var Categories = []string{
	CategoryBreaking, CategorySupplyDemand, CategoryCentralBank, CategoryPolicy,
	CategoryMining, CategoryInvestment, CategoryGeopolitical, CategoryAnalysis,
}

// BuiltinName is the Writer value of articles written without a language model, including
// those an LLMWriter handed to its fallback.
const BuiltinName = "built-in"

// Errors a Writer returns when it has nothing it can honestly write about.
var (
	// ErrNoStories means an article was requested for an empty cluster.
	ErrNoStories = errors.New("intel: no stories to write about")
	// ErrNothingToWrite means a synthesis had neither stories nor prices to work from.
	ErrNothingToWrite = errors.New("intel: no stories and no prices for a synthesis")
)

// Story is one news item as the news pipeline hands it over. Category is one of Categories;
// Relevance runs from 0 to 100; Demo marks sample content that must never pass as real news.
type Story struct {
	ID          string
	Title       string
	URL         string
	Source      string
	Summary     string
	Analysis    string
	Category    string
	Metals      []metals.Metal
	Relevance   int
	PublishedAt time.Time
	Demo        bool
}

// PricePoint is a spot price per troy ounce in US dollars and its change over the day in
// percent (1.4 means +1.4 %).
type PricePoint struct {
	Price     decimal.Decimal
	ChangePct decimal.Decimal
	// Day is the trading day of Price and From the day of the close ChangePct is measured
	// from; Today says the change is today's (a live price, from the preceding session's
	// close). A point without a Day is taken as today's (a writer given bare numbers).
	Day, From time.Time
	Today     bool
}

// current reports whether p's change may be called the day's.
func (p PricePoint) current() bool { return p.Today || p.Day.IsZero() }

// allCurrent reports whether every price of c is today's.
func (c Context) allCurrent() bool {
	for _, p := range c.Prices {
		if !p.current() {
			return false
		}
	}
	return true
}

// move is a price's change in words with its dates when it is not today's: "+0.34% on the
// day", or "−0.60% on 10 Aug 2026 (from the 7 Aug 2026 close)".
func (p PricePoint) move() string {
	if p.current() {
		return pct(p.ChangePct) + " on the day"
	}
	if p.From.IsZero() {
		return pct(p.ChangePct) + " as of " + day(p.Day)
	}
	return pct(p.ChangePct) + " on " + day(p.Day) + " (from the " + day(p.From) + " close)"
}

// Context carries the market data an article may cite. Writers quote only these numbers, so
// anything missing here is left out of the text rather than guessed. Stale says the prices
// did not refresh on time and the text must say so. Now is the publication time; when zero
// the writer uses the time of writing, which makes output depend on the clock.
type Context struct {
	Now    time.Time
	Prices map[metals.Metal]PricePoint
	Stale  bool
	Vault  []VaultLine
}

// VaultLine is the latest COMEX warehouse report for one metal, in troy ounces. The Change
// fields are the movement since the previous report (negative for a drain).
type VaultLine struct {
	Metal            metals.Metal
	Registered       decimal.Decimal
	RegisteredChange decimal.Decimal
	Combined         decimal.Decimal
	CombinedChange   decimal.Decimal
	AsOf             time.Time
}

// Source is one outlet an article draws on, linked so readers can check the original.
type Source struct {
	Name  string
	Title string
	URL   string
}

// Article is one Stack Signal piece ready to store. Commentary is plain text, paragraphs
// separated by a blank line. Writer is BuiltinName or "llm:<model>"; FallbackReason says why a
// language model was asked but the built-in text was used instead.
type Article struct {
	Slug            string
	Title           string
	Summary         string
	Commentary      string
	Category        string
	Metals          []metals.Metal
	Sources         []Source
	PricesAtPublish map[metals.Metal]decimal.Decimal
	PublishedAt     time.Time
	IsSynthesis     bool
	Demo            bool
	Writer          string
	FallbackReason  string
}

// Writer turns a cluster of stories into an article, or the day's top stories into the daily
// synthesis. Implementations must take every fact (numbers, sources, metals) from the input.
type Writer interface {
	Article(ctx context.Context, cluster []Story, c Context) (Article, error)
	Synthesis(ctx context.Context, top []Story, c Context) (Article, error)
	Name() string
}

// normCategory maps a story category to one of Categories, so an unknown or badly cased tag
// still lands in a bucket the API can filter on.
func normCategory(s string) string {
	v := strings.ToUpper(strings.TrimSpace(s))
	for _, c := range Categories {
		if v == c {
			return c
		}
	}
	return CategoryAnalysis
}

// nowOf returns the publication time of c, falling back to the wall clock only when the caller
// gave none.
func nowOf(c Context) time.Time {
	if c.Now.IsZero() {
		return time.Now().UTC()
	}
	return c.Now
}
