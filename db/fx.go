package db

import (
	"context"
	"time"
)

// FXRate is one stored exchange rate: units of Currency per 1 EUR on Day, as published (the
// text keeps the source's digits), from Source ("ECB daily", "import:FILE").
type FXRate struct {
	Currency string `db:"currency"`
	Day      Date   `db:"day"`
	PerEUR   string `db:"per_eur"`
	Source   string `db:"source"`
}

// UpsertFXRates adds or corrects rates in one transaction: all of them or, on an error, none.
func (s *Store) UpsertFXRates(ctx context.Context, rates []FXRate) error {
	return writeKeyed(ctx, s, fxRates, rates, true)
}

// InsertMissingFXRates adds rates for (currency, day) pairs not stored yet and leaves stored
// ones, an operator's correction among them, as they are.
func (s *Store) InsertMissingFXRates(ctx context.Context, rates []FXRate) error {
	return writeKeyed(ctx, s, fxRates, rates, false)
}

// fxRates is how rates are written: keyed by currency and day.
var fxRates = keyedTable[FXRate]{what: "store fx rates", head: `INSERT INTO fx_rates (currency, day, per_eur, source, updated_at) VALUES `,
	placeholders: "?, ?, ?, ?, ?", key: `currency, day`, set: `per_eur = excluded.per_eur, source = excluded.source, updated_at = excluded.updated_at`,
	args: func(r FXRate, now time.Time) []any { return []any{r.Currency, r.Day, r.PerEUR, r.Source, now} }}

// FXRateOnOrBefore is the stored rate of currency on day or, failing that, the last one
// before it; ErrNotFound when none is stored that early.
func (s *Store) FXRateOnOrBefore(ctx context.Context, currency string, day Date) (FXRate, error) {
	var r FXRate
	err := s.db.GetContext(ctx, &r, s.rebind(`SELECT currency, day, per_eur, source FROM fx_rates
		WHERE currency = ? AND day <= ? ORDER BY day DESC LIMIT 1`), currency, day)
	return r, notFound(err)
}

// FXCurrencies lists the currencies with at least one stored rate, sorted.
func (s *Store) FXCurrencies(ctx context.Context) ([]string, error) {
	var out []string
	err := s.db.SelectContext(ctx, &out, `SELECT DISTINCT currency FROM fx_rates ORDER BY currency`)
	return out, err
}

// LatestFXDay is the newest day with a stored rate (the zero Date when none is stored).
func (s *Store) LatestFXDay(ctx context.Context) (Date, error) {
	var d Date
	err := s.db.GetContext(ctx, &d, `SELECT MAX(day) FROM fx_rates`)
	return d, err
}
