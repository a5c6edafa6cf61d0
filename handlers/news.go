package handlers

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/news"
)

// NewsItemJSON is the wire form of one market-intel headline.
type NewsItemJSON struct {
	ID          string    `json:"id"`
	Title       string    `json:"title"`
	URL         string    `json:"url"`
	Source      string    `json:"source"`
	PublishedAt time.Time `json:"published_at"`
	Category    string    `json:"category"`
	Metals      []string  `json:"metals"`
	Relevance   int       `json:"relevance"`
	Analysis    string    `json:"analysis"`
	// Demo marks bundled sample content, never real news.
	Demo bool `json:"demo"`
}

// NewsItemToJSON renders a stored item.
func NewsItemToJSON(it db.NewsItem) NewsItemJSON {
	ms := []string(it.Metals)
	if ms == nil {
		ms = []string{}
	}
	return NewsItemJSON{ID: it.ID, Title: it.Title, URL: it.URL, Source: it.Source, PublishedAt: it.PublishedAt.UTC(),
		Category: it.Category, Metals: ms, Relevance: it.Relevance, Analysis: it.Analysis, Demo: it.Demo}
}

// MarketIntelPage is one page of the market-intel list, newest first.
type MarketIntelPage struct {
	Items []NewsItemJSON `json:"items"`
	Limit int            `json:"limit"`
	Total int            `json:"total"`
}

// metalParam reads an optional metal; def applies when raw is empty.
func parseMetalParam(raw, def string) (string, error) {
	if strings.TrimSpace(raw) == "" {
		return def, nil
	}
	// Exactly the documented enum, as everywhere in /v1.
	if m := metals.Metal(raw); m.Valid() {
		return string(m), nil
	}
	return "", Invalid("metal", "must be one of gold, silver, platinum, palladium")
}

// newsCategoryNames lists the eight categories for enums and messages.
func newsCategoryNames() []string {
	out := make([]string, len(news.Categories))
	for i, c := range news.Categories {
		out[i] = string(c)
	}
	return out
}

// MarketIntel is the use case behind the market-intel list. Parameters arrive as raw query
// strings and are validated here: limit 1…50 (default 20), category one of the eight (any
// letter case), metal one of the four.
func (h *Handlers) MarketIntel(ctx context.Context, limit, category, metal string) (MarketIntelPage, error) {
	n, err := parseIntParam("limit", limit, 20, 1, 50)
	if err != nil {
		return MarketIntelPage{}, err
	}
	var cat string
	if strings.TrimSpace(category) != "" {
		c, err := news.ParseCategory(category)
		if err != nil {
			return MarketIntelPage{}, Invalid("category", "must be one of "+strings.Join(newsCategoryNames(), ", "))
		}
		cat = string(c)
	}
	m, err := parseMetalParam(metal, "")
	if err != nil {
		return MarketIntelPage{}, err
	}
	items, total, err := h.store.NewsItems(ctx, db.NewsFilter{Category: cat, Metal: m, Limit: n})
	if err != nil {
		return MarketIntelPage{}, err
	}
	out := MarketIntelPage{Items: make([]NewsItemJSON, len(items)), Limit: n, Total: total}
	for i, it := range items {
		out.Items[i] = NewsItemToJSON(it)
	}
	return out, nil
}

// priceContext is what the classifier and the writers may quote: the live board, flagged
// stale when any price did not refresh on time. No price service means no prices at all.
func (h *Handlers) priceContext() news.PriceContext {
	pc := news.PriceContext{Prices: map[metals.Metal]news.PricePoint{}}
	if h.market == nil {
		return pc
	}
	for m, sp := range h.market.Snapshot().Prices {
		if sp.Price.IsPositive() {
			pc.Prices[m] = news.PricePoint{Price: sp.Price, ChangePct: sp.ChangePct}
			pc.Stale = pc.Stale || sp.Stale
		}
	}
	return pc
}

// newsItemRow turns a classified item into its stored row.
func newsItemRow(it news.Item, feedURL string) db.NewsItem {
	ms := make(db.MetalList, len(it.Metals))
	for i, m := range it.Metals {
		ms[i] = string(m)
	}
	return db.NewsItem{URL: it.URL, Title: it.Title, Source: it.Source, Summary: it.Summary, PublishedAt: it.PublishedAt,
		Category: string(it.Category), Metals: ms, Relevance: it.Relevance, Analysis: it.Analysis, Demo: it.Demo, FeedURL: feedURL}
}

// newsFromRow turns a stored row back into the news package's item, for deduplication.
func newsFromRow(r db.NewsItem) news.Item {
	ms := make([]metals.Metal, len(r.Metals))
	for i, m := range r.Metals {
		ms[i] = metals.Metal(m)
	}
	return news.Item{Title: r.Title, URL: r.URL, Source: r.Source, Summary: r.Summary, PublishedAt: r.PublishedAt, Demo: r.Demo,
		Category: news.Category(r.Category), Metals: ms, Relevance: r.Relevance, Analysis: r.Analysis}
}

// FeedHealthJSON is the wire form of one feed's health.
type FeedHealthJSON struct {
	URL         string     `json:"url"`
	Name        string     `json:"name"`
	LastOK      *time.Time `json:"last_ok"`
	LastAttempt *time.Time `json:"last_attempt"`
	LastError   *string    `json:"last_error"`
}

func feedHealthJSON(f db.FeedHealth) FeedHealthJSON {
	out := FeedHealthJSON{URL: f.URL, Name: f.Name}
	if f.LastOK != nil {
		t := f.LastOK.UTC()
		out.LastOK = &t
	}
	if f.LastAttempt != nil {
		t := f.LastAttempt.UTC()
		out.LastAttempt = &t
	}
	if f.LastError != "" {
		e := f.LastError
		out.LastError = &e
	}
	return out
}

// newsFeeds is the configured feed list, or the defaults when none is configured.
func (h *Handlers) newsFeeds() ([]news.Feed, error) {
	feeds, err := news.ParseFeedList(h.cfg.NewsFeeds)
	if err != nil {
		return nil, NewProblem(http.StatusServiceUnavailable, ProbUnavailable, "OUNCE_NEWS_FEEDS is not usable: "+err.Error())
	}
	if len(feeds) == 0 {
		feeds = news.DefaultFeeds()
	}
	return feeds, nil
}

// feedFetchTimeout bounds one feed download; feeds are fetched in parallel, so this is
// roughly how long ingestion can take in all.
const feedFetchTimeout = 20 * time.Second

// ingestNews polls every feed (conditional GETs from the stored validators), persists each
// feed's health, and stores the new, classified items. It returns how many items it stored
// and the health of the feeds it polled. Never called offline.
func (h *Handlers) ingestNews(ctx context.Context) (int, []FeedHealthJSON, error) {
	feeds, err := h.newsFeeds()
	if err != nil {
		return 0, nil, err
	}
	client := &http.Client{Timeout: feedFetchTimeout}
	fetcher := news.Fetcher{Client: client}
	type result struct {
		items  []news.Item
		health db.FeedHealth
	}
	results := make([]result, len(feeds))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for i, f := range feeds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			prev := news.FeedState{URL: f.URL}
			if st, err := h.store.FeedHealthByURL(ctx, f.URL); err == nil {
				prev.ETag, prev.LastModified, prev.LastError = st.ETag, st.LastModified, st.LastError
				if st.LastOK != nil {
					prev.LastOK = *st.LastOK
				}
				if st.LastAttempt != nil {
					prev.LastAttempt = *st.LastAttempt
				}
			}
			fctx, cancel := context.WithTimeout(ctx, feedFetchTimeout)
			defer cancel()
			items, st, err := fetcher.Fetch(fctx, f, prev)
			if err != nil {
				h.log.Warn("news feed failed", "feed", f.URL, "err", err)
				if st.LastError == "" {
					st.LastError = err.Error()
				}
			}
			fh := db.FeedHealth{URL: f.URL, Name: f.Name, ETag: st.ETag, LastModified: st.LastModified, LastError: st.LastError}
			if !st.LastOK.IsZero() {
				t := st.LastOK
				fh.LastOK = &t
			}
			if !st.LastAttempt.IsZero() {
				t := st.LastAttempt
				fh.LastAttempt = &t
			}
			results[i] = result{items: items, health: fh}
		}()
	}
	wg.Wait()

	now := h.now().UTC()
	existingRows, err := h.store.RecentNews(ctx, now.AddDate(0, 0, -7), 5000)
	if err != nil {
		return 0, nil, err
	}
	existing := make([]news.Item, len(existingRows))
	for i, r := range existingRows {
		existing[i] = newsFromRow(r)
	}
	pc := h.priceContext()
	var rows []db.NewsItem
	health := make([]FeedHealthJSON, 0, len(results))
	for _, r := range results {
		if err := h.store.SaveFeedHealth(ctx, r.health); err != nil {
			return 0, nil, err
		}
		health = append(health, feedHealthJSON(r.health))
		fresh := news.Dedupe(existing, r.items)
		existing = append(existing, fresh...)
		for _, it := range fresh {
			if it.PublishedAt.After(now) {
				it.PublishedAt = now // a feed's clock running ahead must not pin an item to the top
			}
			rows = append(rows, newsItemRow(news.Classify(it, pc), r.health.URL))
		}
	}
	stored, err := h.store.InsertNewsItems(ctx, rows)
	if err != nil {
		return 0, health, err
	}
	return len(stored), health, nil
}
