package db

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
)

// oneRow is the outcome of a write to one row named by its key (and owner): the write's
// error, or ErrNotFound when it touched no row.
func oneRow(res sql.Result, err error) error {
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// claimLeased leases, in tx, up to limit rows of a leased-job table (columns id, next_at,
// lease_until) that match pending and are due at now and not leased, for lease milliseconds,
// oldest due first, and returns their ids. On PostgreSQL rows another worker has locked are
// skipped, so two workers never claim the same row.
func (s *Store) claimLeased(ctx context.Context, tx *sqlx.Tx, table, pending string, now, lease int64, limit int) ([]int64, error) {
	q := `SELECT id FROM ` + table + ` WHERE ` + pending + ` AND next_at <= ? AND lease_until <= ? ORDER BY next_at, id LIMIT ?`
	if s.Engine == Postgres {
		q += ` FOR UPDATE SKIP LOCKED`
	}
	var ids []int64
	if err := tx.SelectContext(ctx, &ids, tx.Rebind(q), now, now, limit); err != nil || len(ids) == 0 {
		return nil, err
	}
	in, args, err := sqlx.In(`UPDATE `+table+` SET lease_until = ? WHERE id IN (?)`, now+lease, ids)
	if err != nil {
		return nil, err
	}
	if _, err := tx.ExecContext(ctx, tx.Rebind(in), args...); err != nil {
		return nil, err
	}
	return ids, nil
}

// onConflict is the tail of an insert into a table keyed by key (its columns): with overwrite
// a stored row takes set ("a = excluded.a, …"), else it is left as it is.
func onConflict(key, set string, overwrite bool) string {
	if overwrite {
		return ` ON CONFLICT (` + key + `) DO UPDATE SET ` + set
	}
	return ` ON CONFLICT (` + key + `) DO NOTHING`
}

// keyedTable is how rows of one kind are written by writeKeyed: head is the insert up to
// VALUES, placeholders one row's, args its values (updated_at: now), key the table's key
// columns and set what an overwrite replaces; what names the write in its error.
type keyedTable[T any] struct {
	what, head, placeholders, key, set string
	args                               func(r T, now time.Time) []any
}

// writeKeyed writes rows in multi-row batches in one transaction, all of them or, on an
// error, none: with overwrite a stored row with the same key takes the new values, without
// it the stored row stays as it is.
func writeKeyed[T any](ctx context.Context, s *Store, t keyedTable[T], rows []T, overwrite bool) error {
	if len(rows) == 0 {
		return nil
	}
	now := s.now()
	return s.WithTx(ctx, func(tx *sqlx.Tx) error {
		err := insertBatches(ctx, tx, t.head, rows, 400, t.placeholders, func(r T) []any { return t.args(r, now) }, onConflict(t.key, t.set, overwrite))
		if err != nil {
			return fmt.Errorf("%s: %w", t.what, err)
		}
		return nil
	})
}

// insertBatches writes rows in multi-row INSERTs of up to batch rows each: head is the
// statement up to VALUES ("INSERT INTO t (a, b) VALUES "), placeholders one row's ("?, ?"),
// args that row's values in order and tail what follows the rows (an ON CONFLICT clause, or
// ""). The first failed statement's error is returned as it is.
func insertBatches[T any](ctx context.Context, tx *sqlx.Tx, head string, rows []T, batch int, placeholders string, args func(T) []any, tail string) error {
	for start := 0; start < len(rows); start += batch {
		end := min(start+batch, len(rows))
		var sb strings.Builder
		sb.WriteString(head)
		var vals []any
		for i, r := range rows[start:end] {
			if i > 0 {
				sb.WriteString(",")
			}
			sb.WriteString("(" + placeholders + ")")
			vals = append(vals, args(r)...)
		}
		sb.WriteString(tail)
		if _, err := tx.ExecContext(ctx, tx.Rebind(sb.String()), vals...); err != nil {
			return err
		}
	}
	return nil
}

// eachRow runs the query q with args and calls each on every row, in order. An error of the
// query or of each stops it and comes back prefixed with label ("lot currencies: …"); an
// error met while reading the rows comes back as it is.
func (s *Store) eachRow(ctx context.Context, label, q string, each func(*sql.Rows) error, args ...any) error {
	rows, err := s.db.QueryContext(ctx, s.rebind(q), args...)
	if err != nil {
		return fmt.Errorf("%s: %w", label, err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := each(rows); err != nil {
			return fmt.Errorf("%s: %w", label, err)
		}
	}
	return rows.Err()
}

// dayNumber is the SQL for the day number (days since 1970-01-01) of a DATE expression on
// the store's engine: read as an integer, no date text to parse per row.
func (s *Store) dayNumber(date string) string {
	if s.Engine == Postgres {
		return `(` + date + ` - DATE '1970-01-01')`
	}
	return `CAST(unixepoch(` + date + `) / 86400 AS INTEGER)`
}

// page is one page of a listing and how many rows the listing has in all: the count of
// SELECT … FROM from (a table and its WHERE, with args), then cols of the rows in order,
// limit of them after offset. A listing with no rows is an empty slice, never nil.
func page[T any](ctx context.Context, s *Store, what, cols, from string, args []any, order string, limit, offset int) ([]T, int, error) {
	var total int
	if err := s.db.GetContext(ctx, &total, s.rebind(`SELECT COUNT(*) FROM `+from), args...); err != nil {
		return nil, 0, fmt.Errorf("count %s: %w", what, err)
	}
	out := []T{}
	err := s.db.SelectContext(ctx, &out, s.rebind(`SELECT `+cols+` FROM `+from+` ORDER BY `+order+` LIMIT ? OFFSET ?`),
		append(args[:len(args):len(args)], limit, offset)...)
	return out, total, err
}

// claimRows leases, as claimLeased does, up to limit rows of a leased-job table and reads
// them in the same transaction with query, whose "IN (?)" takes the claimed ids.
func claimRows[T any](ctx context.Context, s *Store, table, pending, query string, now, lease int64, limit int) ([]T, error) {
	var out []T
	err := s.WithTx(ctx, func(tx *sqlx.Tx) error {
		ids, err := s.claimLeased(ctx, tx, table, pending, now, lease, limit)
		if err != nil || len(ids) == 0 {
			return err
		}
		in, args, err := sqlx.In(query, ids)
		if err != nil {
			return err
		}
		return tx.SelectContext(ctx, &out, tx.Rebind(in), args...)
	})
	return out, err
}

// memberRow reads cols of the member's row of table with id; another member's, or none, is
// ErrNotFound.
func memberRow[T any](ctx context.Context, s *Store, cols, table string, userID int64, id any) (T, error) {
	var out T
	err := s.db.GetContext(ctx, &out, s.rebind(`SELECT `+cols+` FROM `+table+` WHERE id = ? AND user_id = ?`), id, userID)
	return out, notFound(err)
}

// deleteMemberRow deletes the member's row of table with id; another member's, or none, is
// ErrNotFound. what names the row in the error of a failed statement.
func (s *Store) deleteMemberRow(ctx context.Context, what, table string, userID int64, id any) error {
	res, err := s.db.ExecContext(ctx, s.rebind(`DELETE FROM `+table+` WHERE id = ? AND user_id = ?`), id, userID)
	if err != nil {
		return fmt.Errorf("delete %s: %w", what, err)
	}
	return oneRow(res, nil)
}

// selectAll reads every row of query (with args) into a list, nil when there are none.
func selectAll[T any](ctx context.Context, s *Store, query string, args ...any) ([]T, error) {
	var out []T
	err := s.db.SelectContext(ctx, &out, s.rebind(query), args...)
	return out, err
}
