package dealers

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"sort"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/metals"
)

// Observation is one quote a source read.
type Observation struct {
	Dealer  string
	Product string
	Price   decimal.Decimal
	InStock bool
	Tiers   []Tier
	// Source is SourcePage or SourceFeed; URL is where it was read.
	Source string
	URL    string
}

// Source is anything that reads quotes of one dealer from one address: a product page or a
// JSON feed. Sources never wait or identify themselves: the Fetcher does that for all.
type Source interface {
	Dealer() string
	Kind() string
	URL() string
	Fetch(ctx context.Context, f *Fetcher) (obs []Observation, notModified bool, err error)
}

// PageSource reads one listed product page.
type PageSource struct{ Listing Listing }

// Dealer is the listing's dealer.
func (p PageSource) Dealer() string { return p.Listing.Dealer }

// Kind is SourcePage.
func (p PageSource) Kind() string { return SourcePage }

// URL is the product page.
func (p PageSource) URL() string { return p.Listing.URL }

// Fetch reads the page and its offer.
func (p PageSource) Fetch(ctx context.Context, f *Fetcher) ([]Observation, bool, error) {
	res, err := f.Get(ctx, p.Listing.URL, "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5")
	if err != nil {
		return nil, false, err
	}
	off, err := ParseProductPage(res.Body)
	if err != nil {
		return nil, res.NotModified, err
	}
	return []Observation{{Dealer: p.Listing.Dealer, Product: p.Listing.Product, Price: off.Price, InStock: off.InStock,
		Tiers: off.Tiers, Source: SourcePage, URL: p.Listing.URL}}, res.NotModified, nil
}

// FeedSource reads one dealer's JSON price list.
type FeedSource struct{ Feed FeedConfig }

// Dealer is the feed's dealer.
func (s FeedSource) Dealer() string { return s.Feed.Dealer }

// Kind is SourceFeed.
func (s FeedSource) Kind() string { return SourceFeed }

// URL is the feed's address.
func (s FeedSource) URL() string { return s.Feed.URL }

// Fetch reads the feed and maps its items.
func (s FeedSource) Fetch(ctx context.Context, f *Fetcher) ([]Observation, bool, error) {
	res, err := f.Get(ctx, s.Feed.URL, "application/json")
	if err != nil {
		return nil, false, err
	}
	items, err := ParseFeed(res.Body, s.Feed)
	if err != nil {
		return nil, res.NotModified, err
	}
	out := make([]Observation, 0, len(items))
	for _, it := range items {
		out = append(out, Observation{Dealer: s.Feed.Dealer, Product: it.Product, Price: it.Price, InStock: it.InStock, Source: SourceFeed, URL: s.Feed.URL})
	}
	return out, res.NotModified, nil
}

// SourceResult is how one source fared in a pass.
type SourceResult struct {
	Dealer, Kind, URL string
	Quotes            int
	NotModified       bool
	Err               error
}

// Dropped is a quote left out as an outlier.
type Dropped struct {
	Dealer, Product string
	Price, Median   decimal.Decimal
}

// FetchSummary is the outcome of one pass.
type FetchSummary struct {
	Sources  []SourceResult
	Stored   int
	Outliers []Dropped
	Duration time.Duration
}

// sources lists every page and feed of the catalogue.
func sources(c Catalogue) []Source {
	var out []Source
	for _, l := range c.Listings {
		if _, ok := c.Dealer(l.Dealer); !ok {
			continue
		}
		if _, ok := c.Product(l.Product); !ok {
			continue
		}
		out = append(out, PageSource{Listing: l})
	}
	for _, f := range c.Feeds {
		if _, ok := c.Dealer(f.Dealer); ok {
			out = append(out, FeedSource{Feed: f})
		}
	}
	return out
}

// hostConcurrency is how many hosts are read at once; each host is read one request at a time.
const hostConcurrency = 4

// FetchOnce runs one pass over every source now: hosts in parallel, each host politely in
// turn; outliers are dropped and logged; the rest is stored with its premium at the current
// spot. It is what the leader runs every interval and `ounce dealers fetch` runs once.
func (s *Service) FetchOnce(ctx context.Context) (FetchSummary, error) {
	if s.cfg.Offline {
		return FetchSummary{}, apperr.UnavailableF("offline (OUNCE_OFFLINE): dealer sites are not fetched")
	}
	if s.cfg.ContactEmail == "" {
		return FetchSummary{}, apperr.UnavailableF("set OUNCE_CONTACT_EMAIL: Ounce names a contact address to the dealer sites it reads")
	}
	began := s.now()
	cat, err := s.Catalogue(ctx)
	if err != nil {
		return FetchSummary{}, err
	}
	srcs := sources(cat)
	results := make([]SourceResult, len(srcs))
	obs := make([][]Observation, len(srcs))
	byHost := map[string][]int{}
	var hosts []string
	for i, src := range srcs {
		results[i] = SourceResult{Dealer: src.Dealer(), Kind: src.Kind(), URL: src.URL()}
		h := ""
		if u, err := url.Parse(src.URL()); err == nil {
			h = u.Host
		}
		if _, ok := byHost[h]; !ok {
			hosts = append(hosts, h)
		}
		byHost[h] = append(byHost[h], i)
	}
	sem := make(chan struct{}, hostConcurrency)
	var wg sync.WaitGroup
	for _, h := range hosts {
		wg.Add(1)
		go func(idx []int) {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			for _, i := range idx {
				if ctx.Err() != nil {
					results[i].Err = ctx.Err()
					continue
				}
				o, nm, err := srcs[i].Fetch(ctx, s.fetcher)
				results[i].NotModified, results[i].Err, results[i].Quotes = nm, err, len(o)
				obs[i] = o
			}
		}(byHost[h])
	}
	wg.Wait()

	var all []Observation
	seen := map[pair]bool{}
	for i, o := range obs {
		if results[i].Err != nil {
			s.log.Warn("dealer prices: source failed", "dealer", results[i].Dealer, "kind", results[i].Kind, "url", results[i].URL, "err", results[i].Err)
		}
		for _, x := range o {
			k := pair{x.Dealer, x.Product}
			if seen[k] {
				continue // a dealer's product page and feed both list it: the page, read first, wins
			}
			seen[k] = true
			all = append(all, x)
		}
	}
	kept, dropped, err := s.dropOutliers(ctx, all)
	if err != nil {
		return FetchSummary{}, err
	}
	for _, d := range dropped {
		s.log.Warn("dealer prices: outlier dropped", "dealer", d.Dealer, "product", d.Product, "price", d.Price.String(), "median", d.Median.StringFixed(2))
	}
	if err := s.save(ctx, cat, kept); err != nil {
		return FetchSummary{}, err
	}
	if _, err := s.store.PruneDealerObservations(ctx, db.NewDate(s.now().Add(-HistoryKeep))); err != nil {
		s.log.Warn("dealer prices: pruning history", "err", err)
	}
	return FetchSummary{Sources: results, Stored: len(kept), Outliers: dropped, Duration: s.now().Sub(began)}, nil
}

// dropOutliers judges each new quote against the product's other fresh quotes (new and
// stored) and drops those over OutlierPct from the median.
func (s *Service) dropOutliers(ctx context.Context, fresh []Observation) (kept []Observation, dropped []Dropped, err error) {
	stored, err := s.store.DealerQuotesSince(ctx, s.now().Add(-s.cfg.MaxAge))
	if err != nil {
		return nil, nil, err
	}
	type entry struct {
		price decimal.Decimal
		idx   int // index into fresh, or -1 for a stored quote
	}
	byProduct := map[string][]entry{}
	newPairs := map[pair]bool{}
	for i, o := range fresh {
		byProduct[o.Product] = append(byProduct[o.Product], entry{o.Price, i})
		newPairs[pair{o.Dealer, o.Product}] = true
	}
	for _, r := range stored {
		if _, ok := byProduct[r.Product]; ok && !newPairs[pair{r.Dealer, r.Product}] {
			byProduct[r.Product] = append(byProduct[r.Product], entry{r.Price, -1})
		}
	}
	drop := map[int]decimal.Decimal{}
	for _, es := range byProduct {
		ps := make([]decimal.Decimal, len(es))
		for i, e := range es {
			ps[i] = e.price
		}
		out, median := Outliers(ps)
		for i, e := range es {
			if out[i] && e.idx >= 0 {
				drop[e.idx] = median
			}
		}
	}
	for i, o := range fresh {
		if m, ok := drop[i]; ok {
			dropped = append(dropped, Dropped{Dealer: o.Dealer, Product: o.Product, Price: o.Price, Median: m})
			continue
		}
		kept = append(kept, o)
	}
	sort.Slice(dropped, func(i, j int) bool {
		return dropped[i].Product+dropped[i].Dealer < dropped[j].Product+dropped[j].Dealer
	})
	return kept, dropped, nil
}

// tierJSON is how tiers are stored.
type tierJSON struct {
	Min   int    `json:"min"`
	Max   int    `json:"max"`
	Price string `json:"price"`
}

func encodeTiers(ts []Tier) string {
	out := make([]tierJSON, len(ts))
	for i, t := range ts {
		out[i] = tierJSON{t.MinQty, t.MaxQty, t.Price.String()}
	}
	b, _ := json.Marshal(out)
	return string(b)
}

func decodeTiers(s string) []Tier {
	var in []tierJSON
	if json.Unmarshal([]byte(s), &in) != nil {
		return nil
	}
	var out []Tier
	for _, t := range in {
		if p, err := decimal.NewFromString(t.Price); err == nil {
			out = append(out, Tier{MinQty: t.Min, MaxQty: t.Max, Price: p})
		}
	}
	return out
}

// save stores the kept quotes and, where the metal has a spot, their premium observations.
func (s *Service) save(ctx context.Context, cat Catalogue, kept []Observation) error {
	now := s.now().UTC()
	spots := map[metals.Metal]Spot{}
	var rows []db.DealerQuoteRow
	var hist []db.DealerObservationRow
	for _, o := range kept {
		p, ok := cat.Product(o.Product)
		if !ok {
			continue
		}
		rows = append(rows, db.DealerQuoteRow{Dealer: o.Dealer, Product: o.Product, Price: o.Price, InStock: o.InStock, URL: o.URL,
			Tiers: encodeTiers(o.Tiers), Source: o.Source, FetchedAt: now})
		sp, ok := spots[p.Metal]
		if !ok {
			sp = s.spot(p.Metal)
			spots[p.Metal] = sp
		}
		// History compares with live spot only: a premium over a days-old price would be wrong.
		if prem, ok := PremiumPct(o.Price, sp.Price, p.FineOz); ok && sp.Known && !sp.Stale {
			hist = append(hist, db.DealerObservationRow{Dealer: o.Dealer, Product: o.Product, Day: db.NewDate(now), ObservedAt: now,
				Price: o.Price, Spot: sp.Price, PremiumPct: prem})
		}
	}
	return s.store.SaveDealerQuotes(ctx, rows, hist)
}

// leaderLockKey is the advisory lock of the instance that fetches dealer prices.
const leaderLockKey = 7302016

// followerRetry is how often an instance without the lock asks for it again.
const followerRetry = 5 * time.Second

// Run is the background job: on the leader it fetches every Interval until ctx ends. Offline,
// or without a contact address, it logs why and returns.
func (s *Service) Run(ctx context.Context) {
	if s.cfg.Offline {
		s.log.Info("dealer prices: offline, dealer sites are not fetched")
		return
	}
	if s.cfg.ContactEmail == "" {
		s.log.Info("dealer prices: OUNCE_CONTACT_EMAIL is not set, so dealer sites are not fetched; serving stored quotes")
		return
	}
	s.store.RunAsLeader(ctx, leaderLockKey, followerRetry, func(ctx context.Context) {
		for {
			s.runPass(ctx)
			select {
			case <-ctx.Done():
				return
			case <-time.After(s.cfg.Interval):
			}
		}
	})
}

// runPass is one scheduled pass, bounded so a stuck site cannot hold the loop.
func (s *Service) runPass(ctx context.Context) {
	pctx, cancel := context.WithTimeout(ctx, max(s.cfg.Interval, 10*time.Minute))
	defer cancel()
	sum, err := s.FetchOnce(pctx)
	if err != nil {
		if ctx.Err() == nil && !errors.Is(err, context.Canceled) {
			s.log.Error("dealer prices: pass failed", "err", err)
		}
		return
	}
	failed := 0
	for _, r := range sum.Sources {
		if r.Err != nil {
			failed++
		}
	}
	s.log.Info("dealer prices: pass", "sources", len(sum.Sources), "failed", failed, "stored", sum.Stored, "outliers", len(sum.Outliers),
		"duration_ms", sum.Duration.Milliseconds())
}
