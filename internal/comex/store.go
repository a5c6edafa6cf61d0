package comex

import (
	"context"

	"github.com/ouncehq/ounce/db"
)

// Store is what the comex service uses of the storage: its reach, declared where it is used.
// *db.Store satisfies it (the composition root passes that).
type Store interface {
	CountVaultReports(ctx context.Context) (int, error)
	LatestOpenInterest(ctx context.Context, metal string) (db.OpenInterest, error)
	LatestVaultDepositories(ctx context.Context, metal string) (db.Date, []db.VaultDepository, error)
	ReplaceVaultSource(ctx context.Context, source string, reports []db.VaultReport) error
	SaveVaultReports(ctx context.Context, reports []db.VaultReport) error
	SeedVaultReports(ctx context.Context, reports []db.VaultReport) error
	SetOpenInterest(ctx context.Context, oi db.OpenInterest) error
	VaultHistory(ctx context.Context, metal string) ([]db.VaultReport, error)
}

var _ Store = (*db.Store)(nil)
