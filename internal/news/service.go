package news

import (
	"cmp"
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/outbound"
	"github.com/ouncehq/ounce/internal/reach"
	"github.com/ouncehq/ounce/internal/wallclock"
)

// feedFetchTimeout bounds one feed download; feeds are fetched in parallel, so this is
// roughly how long ingestion can take in all.
const feedFetchTimeout = 20 * time.Second

// feedParallelism is how many feeds are downloaded at once.
const feedParallelism = 4

// Config is ingestion's view of the outside world.
type Config struct {
	// Feeds is the operator's feed list (OUNCE_NEWS_FEEDS): a list or a file, see
	// ParseFeedList; empty means DefaultFeeds.
	Feeds string
	// Offline never fetches; Ingest does nothing.
	Offline bool
}

// Deps are what the ingestion service is built from.
type Deps struct {
	Store  *db.Store
	Config Config
	Logger *slog.Logger
	Now    func() time.Time
}

// Service ingests news: it polls the configured feeds with conditional GETs from the stored
// validators, keeps each feed's health, and stores new headlines deduplicated and classified.
// It is the part of this package that persists; everything else stays pure.
type Service struct {
	store   Store
	cfg     Config
	log     *slog.Logger
	reach   *reach.Reporter
	now     func() time.Time
	fetcher Fetcher
}

// New builds the service; the feed client is made here, its deadlines come per fetch.
func New(d Deps) *Service {
	d.Logger = cmp.Or(d.Logger, slog.Default())
	d.Now = wallclock.Or(d.Now)
	return &Service{store: d.Store, cfg: d.Config, log: d.Logger, now: d.Now, reach: reach.New(d.Logger, "news feeds", "the stored headlines"),
		fetcher: Fetcher{Client: outbound.OperatorClient(outbound.Options{Timeout: feedFetchTimeout})}}
}

// Offline reports whether the service never fetches.
func (s *Service) Offline() bool { return s.cfg.Offline }

// Feeds is the configured feed list, or the defaults when none is configured. An unusable
// configuration is Unavailable: ingestion cannot run until the operator fixes it.
func (s *Service) Feeds() ([]Feed, error) {
	feeds, err := ParseFeedList(s.cfg.Feeds)
	if err != nil {
		return nil, apperr.Wrap(apperr.Unavailable, err, "OUNCE_NEWS_FEEDS is not usable: "+err.Error())
	}
	if len(feeds) == 0 {
		feeds = DefaultFeeds()
	}
	return feeds, nil
}

// SeedDemo stores the demo items, classified against pc, when no news is stored at all, and
// reports whether it did. It never touches the network.
func (s *Service) SeedDemo(ctx context.Context, pc PriceContext) (bool, error) {
	all, _, err := s.store.CountNews(ctx)
	if err != nil || all > 0 {
		return false, err
	}
	demo := DemoItems(s.now().UTC())
	rows := make([]db.NewsItem, len(demo))
	for i, it := range demo {
		rows[i] = itemRow(Classify(it, pc), "")
	}
	if _, err := s.store.InsertNewsItems(ctx, rows); err != nil {
		return false, err
	}
	return true, nil
}

// Ingest polls every feed, persists each feed's health, and stores the new items classified
// against pc. It returns how many items it stored and the health of the feeds it polled. A
// feed that fails is recorded in its health and costs only its own items. Offline it does
// nothing.
func (s *Service) Ingest(ctx context.Context, pc PriceContext) (int, []db.FeedHealth, error) {
	if s.cfg.Offline {
		return 0, nil, nil
	}
	feeds, err := s.Feeds()
	if err != nil {
		return 0, nil, err
	}
	type result struct {
		items  []Item
		health db.FeedHealth
	}
	results := make([]result, len(feeds))
	var wg sync.WaitGroup
	sem := make(chan struct{}, feedParallelism)
	for i, f := range feeds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			items, fh := s.poll(ctx, f)
			results[i] = result{items: items, health: fh}
		}()
	}
	wg.Wait()

	now := s.now().UTC()
	existingRows, err := s.store.RecentNews(ctx, now.AddDate(0, 0, -7), 5000)
	if err != nil {
		return 0, nil, err
	}
	existing := make([]Item, len(existingRows))
	for i, r := range existingRows {
		existing[i] = itemFromRow(r)
	}
	var rows []db.NewsItem
	health := make([]db.FeedHealth, 0, len(results))
	for _, r := range results {
		if err := s.store.SaveFeedHealth(ctx, r.health); err != nil {
			return 0, nil, err
		}
		health = append(health, r.health)
		fresh := Dedupe(existing, r.items)
		existing = append(existing, fresh...)
		for _, it := range fresh {
			if it.PublishedAt.After(now) {
				it.PublishedAt = now // a feed's clock running ahead must not pin an item to the top
			}
			rows = append(rows, itemRow(Classify(it, pc), r.health.URL))
		}
	}
	stored, err := s.store.InsertNewsItems(ctx, rows)
	if err != nil {
		return 0, health, err
	}
	return len(stored), health, nil
}

// poll fetches one feed from its stored state and returns its items and new health.
func (s *Service) poll(ctx context.Context, f Feed) ([]Item, db.FeedHealth) {
	prev := FeedState{URL: f.URL}
	if st, err := s.store.FeedHealthByURL(ctx, f.URL); err == nil {
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
	items, st, err := s.fetcher.Fetch(fctx, f, prev)
	if err != nil {
		// Unreachable feeds are one INFO line for all of them, not a warning each per run.
		if !s.reach.Failed(ctx, f.URL, err) {
			s.log.Warn("news feed failed", "feed", f.URL, "err", err)
		}
		if st.LastError == "" {
			st.LastError = err.Error()
		}
	}
	if err == nil {
		s.reach.OK(ctx, f.URL)
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
	return items, fh
}

// itemRow turns a classified item into its stored row.
func itemRow(it Item, feedURL string) db.NewsItem {
	ms := make(db.MetalList, len(it.Metals))
	for i, m := range it.Metals {
		ms[i] = string(m)
	}
	return db.NewsItem{URL: it.URL, Title: it.Title, Source: it.Source, Summary: it.Summary, PublishedAt: it.PublishedAt,
		Category: string(it.Category), Metals: ms, Relevance: it.Relevance, Analysis: it.Analysis, Demo: it.Demo, FeedURL: feedURL}
}

// itemFromRow turns a stored row back into an Item, for deduplication.
func itemFromRow(r db.NewsItem) Item {
	ms := make([]metals.Metal, len(r.Metals))
	for i, m := range r.Metals {
		ms[i] = metals.Metal(m)
	}
	return Item{Title: r.Title, URL: r.URL, Source: r.Source, Summary: r.Summary, PublishedAt: r.PublishedAt, Demo: r.Demo,
		Category: Category(r.Category), Metals: ms, Relevance: r.Relevance, Analysis: r.Analysis}
}
