package db

import (
	"context"
	"database/sql"
	"errors"
	"strconv"

	"github.com/jmoiron/sqlx"
)

// PricesImportChannel carries the new price revision after `ounce prices import` stored
// closes (PostgreSQL), so every running instance re-reads its history at once.
const PricesImportChannel = "ounce_prices_import"

// PriceRevision is the stored revision of the price history (0 before any import).
func (s *Store) PriceRevision(ctx context.Context) (int64, error) {
	var rev int64
	err := s.db.GetContext(ctx, &rev, `SELECT revision FROM price_revision WHERE id = 1`)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return rev, err
}

// BumpPriceRevision records that imported closes were stored and returns the new revision. On
// PostgreSQL it also notifies PricesImportChannel in the same transaction, so listeners hear
// it only once the revision (and the closes stored before it) are visible.
func (s *Store) BumpPriceRevision(ctx context.Context) (int64, error) {
	var rev int64
	err := s.WithTx(ctx, func(tx *sqlx.Tx) error {
		if err := tx.GetContext(ctx, &rev, `UPDATE price_revision SET revision = revision + 1 WHERE id = 1 RETURNING revision`); err != nil {
			return err
		}
		if s.Engine == Postgres {
			_, err := tx.ExecContext(ctx, `SELECT pg_notify($1, $2)`, PricesImportChannel, strconv.FormatInt(rev, 10))
			return err
		}
		return nil
	})
	return rev, err
}
