package db

import (
	"context"
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// Article is one stored Stack Signal piece. Prices are those quoted at publication (NULL for
// a metal the article does not quote). The counters belong to the social features.
type Article struct {
	ID             string              `db:"id"`
	Slug           string              `db:"slug"`
	Title          string              `db:"title"`
	Summary        string              `db:"summary"`
	Commentary     string              `db:"commentary"`
	Category       string              `db:"category"`
	Metals         MetalList           `db:"metals"`
	Sources        ArticleSources      `db:"sources"`
	PriceGold      decimal.NullDecimal `db:"price_gold"`
	PriceSilver    decimal.NullDecimal `db:"price_silver"`
	PricePlatinum  decimal.NullDecimal `db:"price_platinum"`
	PricePalladium decimal.NullDecimal `db:"price_palladium"`
	PublishedAt    time.Time           `db:"published_at"`
	PublishedDay   Date                `db:"published_day"`
	IsSynthesis    bool                `db:"is_synthesis"`
	Demo           bool                `db:"demo"`
	Writer         string              `db:"writer"`
	FallbackReason string              `db:"fallback_reason"`
	ViewCount      int64               `db:"view_count"`
	LikeCount      int64               `db:"like_count"`
	CommentCount   int64               `db:"comment_count"`
	CreatedAt      time.Time           `db:"created_at"`
}

// ArticleSource is one outlet an article links to.
type ArticleSource struct {
	Name  string `json:"name"`
	Title string `json:"title"`
	URL   string `json:"url"`
}

// ArticleSources is stored as a JSON array, because sources are only ever read with their
// article.
type ArticleSources []ArticleSource

// Value implements driver.Valuer.
func (a ArticleSources) Value() (driver.Value, error) {
	if a == nil {
		a = ArticleSources{}
	}
	b, err := json.Marshal(a)
	return string(b), err
}

// Scan implements sql.Scanner.
func (a *ArticleSources) Scan(src any) error {
	var b []byte
	switch v := src.(type) {
	case nil:
		*a = ArticleSources{}
		return nil
	case string:
		b = []byte(v)
	case []byte:
		b = v
	default:
		return fmt.Errorf("db.ArticleSources: cannot scan %T", src)
	}
	out := ArticleSources{}
	if err := json.Unmarshal(b, &out); err != nil {
		return fmt.Errorf("db.ArticleSources: %w", err)
	}
	*a = out
	return nil
}

const articleCols = `id, slug, title, summary, commentary, category, metals, sources, price_gold, price_silver, price_platinum, price_palladium,
	published_at, published_day, is_synthesis, demo, writer, fallback_reason, view_count, like_count, comment_count, created_at`

// InsertArticle stores a new article, filling ID, PublishedDay and CreatedAt. inserted is
// false, with no error, when an article with the same slug (or the day's synthesis) is
// already stored: writing is idempotent, and the first version stands.
func (s *Store) InsertArticle(ctx context.Context, a Article) (out Article, inserted bool, err error) {
	a.ID = newID("a_")
	a.CreatedAt = s.now()
	a.PublishedAt = a.PublishedAt.UTC().Truncate(time.Microsecond)
	a.PublishedDay = NewDate(a.PublishedAt)
	round := func(d decimal.NullDecimal) decimal.NullDecimal {
		if d.Valid {
			d.Decimal = d.Decimal.Round(4)
		}
		return d
	}
	a.PriceGold, a.PriceSilver, a.PricePlatinum, a.PricePalladium = round(a.PriceGold), round(a.PriceSilver), round(a.PricePlatinum), round(a.PricePalladium)
	res, err := s.db.ExecContext(ctx, s.rebind(`INSERT INTO articles (`+articleCols+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`),
		a.ID, a.Slug, a.Title, a.Summary, a.Commentary, a.Category, a.Metals, a.Sources,
		a.PriceGold, a.PriceSilver, a.PricePlatinum, a.PricePalladium,
		a.PublishedAt, a.PublishedDay, a.IsSynthesis, a.Demo, a.Writer, a.FallbackReason, a.ViewCount, a.LikeCount, a.CommentCount, a.CreatedAt)
	if err != nil {
		return Article{}, false, fmt.Errorf("insert article: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return Article{}, false, nil
	}
	return a, true, nil
}

// ArticleBySlug returns the article with that slug.
func (s *Store) ArticleBySlug(ctx context.Context, slug string) (Article, error) {
	var a Article
	err := s.db.GetContext(ctx, &a, s.rebind(`SELECT `+articleCols+` FROM articles WHERE slug = ?`), slug)
	return a, notFound(err)
}

// ArticleByID returns the article with that id.
func (s *Store) ArticleByID(ctx context.Context, id string) (Article, error) {
	var a Article
	err := s.db.GetContext(ctx, &a, s.rebind(`SELECT `+articleCols+` FROM articles WHERE id = ?`), id)
	return a, notFound(err)
}

// ArticleExists reports whether an article with that slug is stored.
func (s *Store) ArticleExists(ctx context.Context, slug string) (bool, error) {
	var n int
	err := s.db.GetContext(ctx, &n, s.rebind(`SELECT count(*) FROM articles WHERE slug = ?`), slug)
	return n > 0, err
}

// SynthesisExists reports whether the synthesis of a day is stored (demo selects the demo
// synthesis or the real one).
func (s *Store) SynthesisExists(ctx context.Context, day Date, demo bool) (bool, error) {
	var n int
	err := s.db.GetContext(ctx, &n, s.rebind(`SELECT count(*) FROM articles WHERE is_synthesis = TRUE AND published_day = ? AND demo = ?`), day, demo)
	return n > 0, err
}

// ArticleFilter narrows and pages the Stack Signal list.
type ArticleFilter struct {
	// Category is one of the eight categories or SYNTHESIS; empty means all.
	Category string
	Limit    int
	Offset   int
}

// Articles lists articles newest first with the unpaged total. Demo articles are left out once
// any real article is stored.
func (s *Store) Articles(ctx context.Context, f ArticleFilter) ([]Article, int, error) {
	where := []string{hideDemoWhenReal("articles")}
	var args []any
	if f.Category != "" {
		where = append(where, `category = ?`)
		args = append(args, f.Category)
	}
	if f.Limit <= 0 {
		f.Limit = 20
	}
	return page[Article](ctx, s, "articles", articleCols, `articles WHERE `+strings.Join(where, ` AND `), args,
		`published_at DESC, is_synthesis DESC, id DESC`, f.Limit, f.Offset)
}

// LatestSynthesis returns the newest real synthesis, or the newest demo synthesis while no
// real one exists.
func (s *Store) LatestSynthesis(ctx context.Context) (Article, error) {
	var a Article
	err := s.db.GetContext(ctx, &a, `SELECT `+articleCols+` FROM articles WHERE is_synthesis = TRUE
		ORDER BY demo ASC, published_at DESC, id DESC LIMIT 1`)
	return a, notFound(err)
}

// CountArticles reports how many articles are stored.
func (s *Store) CountArticles(ctx context.Context) (int, error) {
	var n int
	err := s.db.GetContext(ctx, &n, `SELECT count(*) FROM articles`)
	return n, err
}
