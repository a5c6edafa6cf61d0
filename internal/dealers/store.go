package dealers

import (
	"context"
	"time"

	"github.com/ouncehq/ounce/db"
)

// Store is what the dealers service uses of the storage: its reach, declared where it is used.
// *db.Store satisfies it (the composition root passes that).
type Store interface {
	DealerCatalogue(ctx context.Context) (db.DealerCatalogueRows, error)
	DealerClickCounts(ctx context.Context, since time.Time) ([]db.DealerClickCount, error)
	DealerObservations(ctx context.Context, product string, from db.Date) ([]db.DealerObservationRow, error)
	DealerQuotesSince(ctx context.Context, since time.Time) ([]db.DealerQuoteRow, error)
	ImportDealerCatalogue(ctx context.Context, in db.DealerCatalogueRows) error
	InsertDealerClick(ctx context.Context, c db.DealerClickRow) (inserted bool, err error)
	PruneDealerObservations(ctx context.Context, before db.Date) (int64, error)
	RunAsLeader(ctx context.Context, key int64, retry time.Duration, lead func(ctx context.Context))
	SaveDealerQuotes(ctx context.Context, quotes []db.DealerQuoteRow, obs []db.DealerObservationRow) error
	Secret(ctx context.Context, name string, fresh func() string) (string, error)
}

var _ Store = (*db.Store)(nil)
