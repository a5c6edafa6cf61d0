package news

import (
	"context"
	"time"

	"github.com/ouncehq/ounce/db"
)

// Store is what the news service uses of the storage: its reach, declared where it is used.
// *db.Store satisfies it (the composition root passes that).
type Store interface {
	CountNews(ctx context.Context) (all, real int, err error)
	FeedHealthByURL(ctx context.Context, url string) (db.FeedHealth, error)
	InsertNewsItems(ctx context.Context, items []db.NewsItem) ([]db.NewsItem, error)
	RecentNews(ctx context.Context, since time.Time, limit int) ([]db.NewsItem, error)
	SaveFeedHealth(ctx context.Context, f db.FeedHealth) error
}

var _ Store = (*db.Store)(nil)
