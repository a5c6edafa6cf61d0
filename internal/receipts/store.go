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
	// A scan's file waits with it for the confirmation, which attaches it to the new lots.
	SaveReceiptFile(ctx context.Context, userID, scanID int64, body []byte, now time.Time) error
	ReceiptFile(ctx context.Context, userID, scanID int64, now time.Time) ([]byte, error)
	DeleteReceiptFile(ctx context.Context, userID, scanID int64) error
	ImportReceiptHoldings(ctx context.Context, userID int64, rows []db.Holding, sales []db.ImportedSale, decide db.SaleRule, replay db.DisposalReplay) (db.ImportResult, []string, error)
}

// Documents attaches a file to a member's lot: the custody service's Upload, which sniffs the
// type, refuses polyglots, re-encodes images without their metadata and keeps the per-file
// and per-member limits (an over-quota file is TooLarge). *custody.Service satisfies it.
type Documents interface {
	Upload(ctx context.Context, u db.User, holdingID, name string, body []byte) (db.Document, error)
}

var _ Store = (*db.Store)(nil)
