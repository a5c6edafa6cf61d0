package db

import (
	"context"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/shopspring/decimal"
)

// Close granularities.
const (
	Daily   = "daily"
	Monthly = "monthly"
)

// PriceClose is one stored close: a daily close, or a monthly average.
type PriceClose struct {
	Metal       string          `db:"metal"`
	Granularity string          `db:"granularity"`
	Day         Date            `db:"day"`
	Price       decimal.Decimal `db:"price"`
	Source      string          `db:"source"`
}

// CountCloses returns how many closes are stored.
func (s *Store) CountCloses(ctx context.Context) (int, error) {
	var n int
	err := s.db.GetContext(ctx, &n, `SELECT count(*) FROM price_closes`)
	return n, err
}

// CountClosesFrom counts stored closes whose source ends with suffix.
func (s *Store) CountClosesFrom(ctx context.Context, suffix string) (int, error) {
	var n int
	err := s.db.GetContext(ctx, &n, s.rebind(`SELECT count(*) FROM price_closes WHERE source LIKE ?`), "%"+suffix)
	return n, err
}

// UpsertCloses adds or corrects closes in one transaction, in multi-row batches so a
// first start can load 75 years of history quickly.
func (s *Store) UpsertCloses(ctx context.Context, closes []PriceClose) error {
	return writeKeyed(ctx, s, priceCloses, closes, true)
}

// InsertMissingCloses adds closes for days not stored yet and leaves existing ones (say, an
// imported correction) as they are.
func (s *Store) InsertMissingCloses(ctx context.Context, closes []PriceClose) error {
	return writeKeyed(ctx, s, priceCloses, closes, false)
}

// priceCloses is how closes are written: keyed by metal, granularity and day.
var priceCloses = keyedTable[PriceClose]{what: "upsert closes", head: `INSERT INTO price_closes (metal, granularity, day, price, source, updated_at) VALUES `,
	placeholders: "?, ?, ?, ?, ?, ?", key: `metal, granularity, day`, set: `price = excluded.price, source = excluded.source, updated_at = excluded.updated_at`,
	args: func(c PriceClose, now time.Time) []any {
		return []any{c.Metal, c.Granularity, c.Day, c.Price.String(), c.Source, now}
	}}

// Closes returns every close of one granularity, per metal, ascending by day.
func (s *Store) Closes(ctx context.Context, granularity string) ([]PriceClose, error) {
	out := []PriceClose{}
	err := s.db.SelectContext(ctx, &out, s.rebind(`SELECT metal, granularity, day, price, source FROM price_closes WHERE granularity = ? ORDER BY metal, day`), granularity)
	return out, err
}

// LatestQuote is the last live price stored for a metal.
type LatestQuote struct {
	Metal     string          `db:"metal"`
	Price     decimal.Decimal `db:"price"`
	PrevClose decimal.Decimal `db:"prev_close"`
	AsOf      time.Time       `db:"as_of"`
	Source    string          `db:"source"`
}

// SaveLatest records the newest live quote per metal and rolls it into that session's daily close.
func (s *Store) SaveLatest(ctx context.Context, quotes []LatestQuote, session Date) error {
	now := s.now()
	return s.WithTx(ctx, func(tx *sqlx.Tx) error {
		for _, q := range quotes {
			if _, err := tx.ExecContext(ctx, tx.Rebind(`INSERT INTO price_latest (metal, price, prev_close, as_of, source) VALUES (?, ?, ?, ?, ?)
				ON CONFLICT (metal) DO UPDATE SET price = excluded.price, prev_close = excluded.prev_close, as_of = excluded.as_of, source = excluded.source`),
				q.Metal, q.Price.String(), q.PrevClose.String(), q.AsOf.UTC(), q.Source); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, tx.Rebind(`INSERT INTO price_closes (metal, granularity, day, price, source, updated_at) VALUES (?, 'daily', ?, ?, ?, ?)
				ON CONFLICT (metal, granularity, day) DO UPDATE SET price = excluded.price, source = excluded.source, updated_at = excluded.updated_at`),
				q.Metal, session, q.Price.String(), "live:"+q.Source, now); err != nil {
				return err
			}
		}
		return nil
	})
}

// Latest returns the stored last quotes.
func (s *Store) Latest(ctx context.Context) ([]LatestQuote, error) {
	out := []LatestQuote{}
	err := s.db.SelectContext(ctx, &out, `SELECT metal, price, prev_close, as_of, source FROM price_latest ORDER BY metal`)
	return out, err
}
