package db

import (
	"context"
	"database/sql/driver"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
)

// NewsItem is one stored market-intel headline with its classification. Metals holds metal
// identifiers in display order.
type NewsItem struct {
	ID          string    `db:"id"`
	URL         string    `db:"url"`
	Title       string    `db:"title"`
	Source      string    `db:"source"`
	Summary     string    `db:"summary"`
	PublishedAt time.Time `db:"published_at"`
	FetchedAt   time.Time `db:"fetched_at"`
	Category    string    `db:"category"`
	Metals      MetalList `db:"metals"`
	Relevance   int       `db:"relevance"`
	Analysis    string    `db:"analysis"`
	Demo        bool      `db:"demo"`
	FeedURL     string    `db:"feed_url"`
}

const newsCols = `id, url, title, source, summary, published_at, fetched_at, category, metals, relevance, analysis, demo, feed_url`

// InsertNewsItems stores items not stored yet (the URL is the key) in one transaction and
// returns the ones it stored, with ID and FetchedAt filled.
func (s *Store) InsertNewsItems(ctx context.Context, items []NewsItem) ([]NewsItem, error) {
	if len(items) == 0 {
		return nil, nil
	}
	now := s.now()
	var stored []NewsItem
	err := s.WithTx(ctx, func(tx *sqlx.Tx) error {
		stored = stored[:0]
		q := tx.Rebind(`INSERT INTO news_items (` + newsCols + `) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (url) DO NOTHING`)
		for _, it := range items {
			it.ID = newID("n_")
			it.FetchedAt = now
			it.PublishedAt = it.PublishedAt.UTC().Truncate(time.Second)
			res, err := tx.ExecContext(ctx, q, it.ID, it.URL, it.Title, it.Source, it.Summary, it.PublishedAt, it.FetchedAt,
				it.Category, it.Metals, it.Relevance, it.Analysis, it.Demo, it.FeedURL)
			if err != nil {
				return fmt.Errorf("insert news item: %w", err)
			}
			if n, _ := res.RowsAffected(); n > 0 {
				stored = append(stored, it)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return stored, nil
}

// NewsFilter narrows and pages the market-intel list.
type NewsFilter struct {
	Category string
	Metal    string
	// Since, when set, keeps items published at or after it.
	Since  time.Time
	Limit  int
	Offset int
}

// hideDemoWhenReal keeps bundled demo rows out of a list once any real row exists in the
// table, so samples fill an empty first start and disappear when real content arrives.
func hideDemoWhenReal(table string) string {
	return `(demo = FALSE OR NOT EXISTS (SELECT 1 FROM ` + table + ` r WHERE r.demo = FALSE))`
}

// NewsItems lists stored items newest first, with the unpaged total. Demo items are left out
// once any real item is stored.
func (s *Store) NewsItems(ctx context.Context, f NewsFilter) ([]NewsItem, int, error) {
	where := []string{hideDemoWhenReal("news_items")}
	var args []any
	if f.Category != "" {
		where = append(where, `category = ?`)
		args = append(args, f.Category)
	}
	if f.Metal != "" {
		where = append(where, `metals LIKE ?`)
		args = append(args, "%,"+f.Metal+",%")
	}
	if !f.Since.IsZero() {
		where = append(where, `published_at >= ?`)
		args = append(args, f.Since.UTC())
	}
	if f.Limit <= 0 {
		f.Limit = 20
	}
	return page[NewsItem](ctx, s, "news items", newsCols, `news_items WHERE `+strings.Join(where, ` AND `), args,
		`published_at DESC, id DESC`, f.Limit, f.Offset)
}

// RecentNews returns every item published at or after since, newest first, demo items
// included only while no real item exists. It feeds clustering and deduplication.
func (s *Store) RecentNews(ctx context.Context, since time.Time, limit int) ([]NewsItem, error) {
	out, _, err := s.NewsItems(ctx, NewsFilter{Since: since, Limit: limit})
	return out, err
}

// CountNews reports how many items are stored and how many of them are real (not demo).
func (s *Store) CountNews(ctx context.Context) (all, real int, err error) {
	var row struct {
		All  int `db:"all_items"`
		Real int `db:"real_items"`
	}
	err = s.db.GetContext(ctx, &row, `SELECT count(*) AS all_items, COALESCE(SUM(CASE WHEN demo THEN 0 ELSE 1 END), 0) AS real_items FROM news_items`)
	return row.All, row.Real, err
}

// FeedHealth is the stored memory of one news feed: the validators of its last answer, for
// conditional GETs, and when it last worked or failed.
type FeedHealth struct {
	URL          string     `db:"url"`
	Name         string     `db:"name"`
	ETag         string     `db:"etag"`
	LastModified string     `db:"last_modified"`
	LastOK       *time.Time `db:"last_ok"`
	LastAttempt  *time.Time `db:"last_attempt"`
	LastError    string     `db:"last_error"`
}

// FeedHealthByURL returns the stored state of a feed; a feed never polled is ErrNotFound.
func (s *Store) FeedHealthByURL(ctx context.Context, url string) (FeedHealth, error) {
	var f FeedHealth
	err := s.db.GetContext(ctx, &f, s.rebind(`SELECT url, name, etag, last_modified, last_ok, last_attempt, last_error FROM news_feeds WHERE url = ?`), url)
	return f, notFound(err)
}

// SaveFeedHealth records a feed's state after a fetch, successful or not.
func (s *Store) SaveFeedHealth(ctx context.Context, f FeedHealth) error {
	_, err := s.db.ExecContext(ctx, s.rebind(`INSERT INTO news_feeds (url, name, etag, last_modified, last_ok, last_attempt, last_error)
		VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (url) DO UPDATE SET name = excluded.name, etag = excluded.etag, last_modified = excluded.last_modified,
			last_ok = excluded.last_ok, last_attempt = excluded.last_attempt, last_error = excluded.last_error`),
		f.URL, f.Name, f.ETag, f.LastModified, timeOrNil(f.LastOK), timeOrNil(f.LastAttempt), f.LastError)
	if err != nil {
		return fmt.Errorf("save feed health: %w", err)
	}
	return nil
}

// FeedHealths lists every polled feed by URL.
func (s *Store) FeedHealths(ctx context.Context) ([]FeedHealth, error) {
	out := []FeedHealth{}
	err := s.db.SelectContext(ctx, &out, `SELECT url, name, etag, last_modified, last_ok, last_attempt, last_error FROM news_feeds ORDER BY url`)
	return out, err
}

// MetalList is a list of metal identifiers stored as ",gold,silver," so that a LIKE on
// ",gold," finds rows about one metal on either engine.
type MetalList []string

// Value implements driver.Valuer.
func (l MetalList) Value() (driver.Value, error) {
	if len(l) == 0 {
		return "", nil
	}
	return "," + strings.Join(l, ",") + ",", nil
}

// Scan implements sql.Scanner.
func (l *MetalList) Scan(src any) error {
	var s string
	switch v := src.(type) {
	case nil:
	case string:
		s = v
	case []byte:
		s = string(v)
	default:
		return fmt.Errorf("db.MetalList: cannot scan %T", src)
	}
	out := MetalList{}
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	*l = out
	return nil
}
