package intel

import (
	"context"
	"time"

	"github.com/ouncehq/ounce/db"
)

// Store is what the intel service uses of the storage: its reach, declared where it is used.
// *db.Store satisfies it (the composition root passes that).
type Store interface {
	ArticleBySlug(ctx context.Context, slug string) (db.Article, error)
	ArticleExists(ctx context.Context, slug string) (bool, error)
	Articles(ctx context.Context, f db.ArticleFilter) ([]db.Article, int, error)
	CountArticles(ctx context.Context) (int, error)
	InsertArticle(ctx context.Context, a db.Article) (out db.Article, inserted bool, err error)
	LatestSynthesis(ctx context.Context) (db.Article, error)
	NewsItems(ctx context.Context, f db.NewsFilter) ([]db.NewsItem, int, error)
	RecentNews(ctx context.Context, since time.Time, limit int) ([]db.NewsItem, error)
	RunAsLeader(ctx context.Context, key int64, retry time.Duration, lead func(ctx context.Context))
	SynthesisExists(ctx context.Context, day db.Date, demo bool) (bool, error)
}

var _ Store = (*db.Store)(nil)
