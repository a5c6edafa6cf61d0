package db

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

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
