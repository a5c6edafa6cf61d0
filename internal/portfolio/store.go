package portfolio

import (
	"context"
	"database/sql"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/metals"
)

// Store is what the portfolio service uses of the storage: its reach, declared where it is used.
// *db.Store satisfies it (the composition root passes that); the lot and sale writes take this
// package's rules as decide funcs.
type Store interface {
	AllHoldings(ctx context.Context, userID int64) ([]db.Holding, error)
	AllSales(ctx context.Context, userID int64) ([]db.Sale, error)
	CostEvents(ctx context.Context, userID int64) ([]db.CostEvent, error)
	CurrencySums(ctx context.Context, userID int64) ([]db.CurrencyDaySums, error)
	HasLotsOutside(ctx context.Context, userID int64, currency string) (bool, error)
	CountHoldings(ctx context.Context, userID int64) (int, error)
	DeleteHolding(ctx context.Context, userID int64, id string) error
	DeleteDisposal(ctx context.Context, userID int64, id string, undo db.UndoRule) (db.Disposal, []db.Sale, error)
	DeleteSale(ctx context.Context, userID int64, saleID string, undo db.UndoRule) (db.Sale, error)
	DisposalByID(ctx context.Context, userID int64, id string) (db.Disposal, []db.Sale, error)
	AllDisposals(ctx context.Context, userID int64) ([]db.Disposal, error)
	HeldLots(ctx context.Context, userID int64, order string, desc bool, spot map[metals.Metal]float64, limit int) ([]db.HeldLot, int, error)
	HistoryChanges(ctx context.Context, userID int64, since db.Date) ([]db.PositionChange, error)
	HoldingByID(ctx context.Context, userID int64, id string) (db.Holding, error)
	HoldingsByUser(ctx context.Context, userID int64, f db.HoldingFilter) ([]db.Holding, int, error)
	ProductNamesOf(ctx context.Context, userID int64) ([]string, error)
	TagSetsOf(ctx context.Context, userID int64) ([]string, error)
	SalesOfHoldings(ctx context.Context, userID int64, ids []string) ([]db.Sale, error)
	ImportHoldingsWithSales(ctx context.Context, userID int64, rows []db.Holding, sales []db.ImportedSale, decide db.SaleRule, replay db.DisposalReplay) (db.ImportResult, error)
	InsertHolding(ctx context.Context, h db.Holding) (db.Holding, error)
	InsertDisposal(ctx context.Context, userID int64, in db.Disposal, decide db.DisposalRule) (db.Disposal, []db.Sale, error)
	InsertSale(ctx context.Context, userID int64, holdingID string, in db.Sale, decide db.SaleRule) (db.Sale, error)
	LedgerRevision(ctx context.Context, userID int64) (int64, error)
	LotSpots(ctx context.Context, after string, limit int) ([]db.LotSpot, error)
	PositionTotals(ctx context.Context, userID int64, before db.Date, detail db.TotalsDetail) ([]db.MetalTotals, error)
	ProductLots(ctx context.Context, userID int64, metal, product string) ([]db.SaleLot, error)
	RunAsLeader(ctx context.Context, key int64, retry time.Duration, lead func(ctx context.Context))
	SalesByUser(ctx context.Context, userID int64, f db.SaleFilter) (db.SalesPage, error)
	TaxSlices(ctx context.Context, userID int64, from, to db.Date) ([]db.TaxSlice, error)
	SetLotSpot(ctx context.Context, l db.LotSpot, spot decimal.NullDecimal, ref decimal.Decimal) error
	UpdateHolding(ctx context.Context, h db.Holding) (db.Holding, error)
	// Custody (custody.go, allocation.go).
	HeldByPlace(ctx context.Context, userID int64) ([]db.PlaceHeld, error)
	LocationByID(ctx context.Context, userID int64, id string) (db.Location, error)
	LocationsByUser(ctx context.Context, userID int64) ([]db.Location, error)
	MoveHolding(ctx context.Context, userID int64, holdingID string, to sql.NullString, on db.Date, note string) (db.Transfer, error)
	PlaceHolding(ctx context.Context, userID int64, holdingID string, loc sql.NullString, tags *string) error
	SetHoldingTags(ctx context.Context, userID int64, holdingID, tags string) error
	TransfersOf(ctx context.Context, userID int64, holdingID string) ([]db.Transfer, error)
}

var _ Store = (*db.Store)(nil)
