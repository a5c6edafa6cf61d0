package db

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/shopspring/decimal"
)

// VaultReport is one metal's COMEX warehouse totals for one activity date, in troy ounces,
// with the depository rows when the report came from a CME workbook (the seed history has
// totals only). Pledged is part of Registered and NULL when the report gives none.
type VaultReport struct {
	Metal        string              `db:"metal"`
	ActivityDate Date                `db:"activity_date"`
	ReportDate   Date                `db:"report_date"`
	Registered   decimal.Decimal     `db:"registered"`
	Pledged      decimal.NullDecimal `db:"pledged"`
	Eligible     decimal.Decimal     `db:"eligible"`
	Source       string              `db:"source"`
	UpdatedAt    time.Time           `db:"updated_at"`
	Depositories []VaultDepository   `db:"-"`
}

// VaultDepository is one warehouse line of a report, in sheet order.
type VaultDepository struct {
	Name       string          `db:"name"`
	Registered decimal.Decimal `db:"registered"`
	Pledged    decimal.Decimal `db:"pledged"`
	Eligible   decimal.Decimal `db:"eligible"`
	Total      decimal.Decimal `db:"total"`
}

// vaultPlaces is the precision CME publishes ounces with; both engines store exactly this.
const vaultPlaces = 3

func r3(d decimal.Decimal) string { return d.Round(vaultPlaces).String() }

// SaveVaultReports stores reports in one transaction. A report for a (metal, activity date)
// already stored replaces it, depository rows included, because a workbook is the better
// record of the day than what was there before.
func (s *Store) SaveVaultReports(ctx context.Context, reports []VaultReport) error {
	return s.writeVault(ctx, reports, true)
}

// SeedVaultReports stores reports whose (metal, activity date) is not stored yet, leaving
// anything already stored (an import, a fetched report) as it is.
func (s *Store) SeedVaultReports(ctx context.Context, reports []VaultReport) error {
	return s.writeVault(ctx, reports, false)
}

// ReplaceVaultSource deletes every report stored from source, then stores reports whose
// (metal, activity date) is not stored by another source, in one transaction: how a
// corrected bundled history replaces the old one without touching imported reports.
func (s *Store) ReplaceVaultSource(ctx context.Context, source string, reports []VaultReport) error {
	return s.WithTx(ctx, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, tx.Rebind(`DELETE FROM vault_depositories WHERE EXISTS (SELECT 1 FROM vault_reports r
			WHERE r.metal = vault_depositories.metal AND r.activity_date = vault_depositories.activity_date AND r.source = ?)`), source); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, tx.Rebind(`DELETE FROM vault_reports WHERE source = ?`), source); err != nil {
			return err
		}
		return s.writeVaultTx(ctx, tx, reports, false)
	})
}

func (s *Store) writeVault(ctx context.Context, reports []VaultReport, replace bool) error {
	if len(reports) == 0 {
		return nil
	}
	return s.WithTx(ctx, func(tx *sqlx.Tx) error { return s.writeVaultTx(ctx, tx, reports, replace) })
}

func (s *Store) writeVaultTx(ctx context.Context, tx *sqlx.Tx, reports []VaultReport, replace bool) error {
	now := s.now()
	conflict := ` ON CONFLICT (metal, activity_date) DO NOTHING`
	if replace {
		conflict = ` ON CONFLICT (metal, activity_date) DO UPDATE SET report_date = excluded.report_date, registered = excluded.registered,
			pledged = excluded.pledged, eligible = excluded.eligible, source = excluded.source, updated_at = excluded.updated_at`
	}
	ins := tx.Rebind(`INSERT INTO vault_reports (metal, activity_date, report_date, registered, pledged, eligible, source, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)` + conflict)
	for _, r := range reports {
		var pledged any
		if r.Pledged.Valid {
			pledged = r3(r.Pledged.Decimal)
		}
		res, err := tx.ExecContext(ctx, ins, r.Metal, r.ActivityDate, r.ReportDate, r3(r.Registered), pledged, r3(r.Eligible), r.Source, now)
		if err != nil {
			return fmt.Errorf("save vault report %s %s: %w", r.Metal, r.ActivityDate, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			continue // kept what was stored
		}
		if _, err := tx.ExecContext(ctx, tx.Rebind(`DELETE FROM vault_depositories WHERE metal = ? AND activity_date = ?`), r.Metal, r.ActivityDate); err != nil {
			return err
		}
		for i, d := range r.Depositories {
			if _, err := tx.ExecContext(ctx, tx.Rebind(`INSERT INTO vault_depositories (metal, activity_date, position, name, registered, pledged, eligible, total)
					VALUES (?, ?, ?, ?, ?, ?, ?, ?)`), r.Metal, r.ActivityDate, i, d.Name, r3(d.Registered), r3(d.Pledged), r3(d.Eligible), r3(d.Total)); err != nil {
				return fmt.Errorf("save depository %q: %w", d.Name, err)
			}
		}
	}
	return nil
}

// CountVaultReports reports how many vault reports are stored, all metals.
func (s *Store) CountVaultReports(ctx context.Context) (int, error) {
	var n int
	err := s.db.GetContext(ctx, &n, `SELECT count(*) FROM vault_reports`)
	return n, err
}

// VaultHistory returns a metal's reports (totals only) in ascending date order.
func (s *Store) VaultHistory(ctx context.Context, metal string) ([]VaultReport, error) {
	out := []VaultReport{}
	err := s.db.SelectContext(ctx, &out, s.rebind(`SELECT metal, activity_date, report_date, registered, pledged, eligible, source, updated_at
		FROM vault_reports WHERE metal = ? ORDER BY activity_date`), metal)
	return out, err
}

// LatestVaultDepositories returns the depository rows of a metal's newest report that has
// any, with that report's activity date; ErrNotFound when no stored report has them.
func (s *Store) LatestVaultDepositories(ctx context.Context, metal string) (Date, []VaultDepository, error) {
	var day Date
	err := s.db.GetContext(ctx, &day, s.rebind(`SELECT activity_date FROM vault_depositories WHERE metal = ? ORDER BY activity_date DESC LIMIT 1`), metal)
	if err != nil {
		return Date{}, nil, notFound(err)
	}
	out := []VaultDepository{}
	err = s.db.SelectContext(ctx, &out, s.rebind(`SELECT name, registered, pledged, eligible, total FROM vault_depositories
		WHERE metal = ? AND activity_date = ? ORDER BY position`), metal, day)
	return day, out, err
}

// OpenInterest is the futures open interest of a metal's main COMEX contract on a day.
type OpenInterest struct {
	Metal     string    `db:"metal"`
	Day       Date      `db:"day"`
	Contracts int64     `db:"contracts"`
	UpdatedAt time.Time `db:"updated_at"`
}

// SetOpenInterest records (or corrects) the open interest of a metal on a day.
func (s *Store) SetOpenInterest(ctx context.Context, oi OpenInterest) error {
	_, err := s.db.ExecContext(ctx, s.rebind(`INSERT INTO vault_open_interest (metal, day, contracts, updated_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (metal, day) DO UPDATE SET contracts = excluded.contracts, updated_at = excluded.updated_at`),
		oi.Metal, oi.Day, oi.Contracts, s.now())
	if err != nil {
		return fmt.Errorf("set open interest: %w", err)
	}
	return nil
}

// LatestOpenInterest returns the newest open interest recorded for a metal; ErrNotFound when
// none was ever recorded.
func (s *Store) LatestOpenInterest(ctx context.Context, metal string) (OpenInterest, error) {
	var oi OpenInterest
	err := s.db.GetContext(ctx, &oi, s.rebind(`SELECT metal, day, contracts, updated_at FROM vault_open_interest WHERE metal = ? ORDER BY day DESC LIMIT 1`), metal)
	return oi, notFound(err)
}
