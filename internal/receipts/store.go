package receipts

import (
	"context"
	"time"

	"github.com/ouncehq/ounce/db"
)

// Store is what the receipts service uses of the storage: its reach, declared where it is used.
// *db.Store satisfies it (the composition root passes that).
type Store interface {
	ReceiptScansSince(ctx context.Context, userID int64, since time.Time) (int, error)
	ReleaseReceiptScan(ctx context.Context, userID, id int64) error
	ReserveReceiptScan(ctx context.Context, userID int64, now time.Time, window time.Duration, limit int) (id int64, ok bool, reset time.Time, err error)
}

var _ Store = (*db.Store)(nil)
