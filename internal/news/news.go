// Package news ingests precious-metals market news from RSS and Atom feeds and
// classifies each headline for Ounce's market-intel list.
//
// Fetching, deduplication and classification are pure over Items and FeedStates:
// they take the previous FeedState and return the next, so conditional GETs and
// feed health survive restarts. The Service (service.go) is the ingestion use case
// that persists them through db and seeds the demo items on a first start.
package news

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ouncehq/ounce/internal/enum"
	"github.com/ouncehq/ounce/internal/metals"
)

// Category is the one market-intel tag an item carries; the values are the
// enumeration of the public interface, so they are spelled exactly as the API
// renders them.
type Category string

// The eight market-intel categories.
const (
	Breaking     Category = "BREAKING"
	SupplyDemand Category = "SUPPLY_DEMAND"
	CentralBank  Category = "CENTRAL_BANK"
	Policy       Category = "POLICY"
	Mining       Category = "MINING"
	Investment   Category = "INVESTMENT"
	Geopolitical Category = "GEOPOLITICAL"
	Analysis     Category = "ANALYSIS"
)

// Categories lists every category in the order filters and documents show them.
var Categories = []Category{Breaking, SupplyDemand, CentralBank, Policy, Mining, Investment, Geopolitical, Analysis}

// ParseCategory accepts a category name in any letter case, with surrounding
// space, and with '-' or ' ' in place of '_', because query strings and forms are
// typed by people.
func ParseCategory(s string) (Category, error) {
	v := strings.ToUpper(strings.TrimSpace(s))
	v = strings.NewReplacer("-", "_", " ", "_").Replace(v)
	for _, c := range Categories {
		if v == string(c) {
			return c, nil
		}
	}
	return "", fmt.Errorf("unknown category %q: want one of %s", s, strings.Join(enum.Strings(Categories), ", "))
}

// Valid reports whether c is one of the eight categories, so callers can check
// values read back from storage.
func (c Category) Valid() bool { return slices.Contains(Categories, c) }

// Label is the category as a person reads it ("Supply & demand").
func (c Category) Label() string {
	switch c {
	case Breaking:
		return "Breaking"
	case SupplyDemand:
		return "Supply & demand"
	case CentralBank:
		return "Central banks"
	case Policy:
		return "Policy"
	case Mining:
		return "Mining"
	case Investment:
		return "Investment"
	case Geopolitical:
		return "Geopolitical"
	case Analysis:
		return "Analysis"
	}
	return string(c)
}

// Feed is one news source to poll.
type Feed struct {
	// Name is shown as the item's source when the feed itself gives none.
	Name string
	// URL is the RSS or Atom document address (http or https).
	URL string
}

// FeedState is the per-feed memory the caller persists between fetches: the
// validators that make polling cheap and the health fields an operator page shows.
type FeedState struct {
	URL          string
	ETag         string
	LastModified string
	// LastOK is when the feed last answered with a usable document or a 304.
	LastOK time.Time
	// LastAttempt is when a fetch was last tried, successful or not.
	LastAttempt time.Time
	// LastError is empty after a success and describes the latest failure otherwise.
	LastError string
}

// Healthy reports whether the latest attempt succeeded.
func (s FeedState) Healthy() bool {
	return s.LastError == "" && !s.LastOK.IsZero() && !s.LastOK.Before(s.LastAttempt)
}

// Item is one news headline, fetched or demo, and once classified the market-intel
// fields that go with it.
type Item struct {
	Title string
	// URL is canonical (see CanonicalURL) so it can serve as the dedupe key.
	URL     string
	Source  string
	Summary string
	// PublishedAt is in UTC; the fetch time stands in when a feed gives no date.
	PublishedAt time.Time
	// Demo marks bundled sample content that must be labelled as such in the UI.
	Demo bool

	Category Category
	// Metals are the metals the item is about, in metals.All order.
	Metals []metals.Metal
	// Relevance ranks items for a stacker, 0 (noise) to 100.
	Relevance int
	// Analysis is a short plain-English note on what the item means for someone
	// who holds physical metal.
	Analysis string
}
