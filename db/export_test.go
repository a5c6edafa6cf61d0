package db

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"
)

// ExecForTest runs raw SQL (? placeholders) on the store's pool, for store tests that build
// states no Store method makes (legacy rows, deleting an account). Test builds only.
func (s *Store) ExecForTest(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return s.db.ExecContext(ctx, s.rebind(query), args...)
}

// LedgerForTest lists every row of the position ledger (all members), one line each, sorted:
// what the store maintained, for comparison with a recomputation.
func (s *Store) LedgerForTest(ctx context.Context) ([]string, error) {
	var out []string
	for _, q := range []string{
		`SELECT 'day', user_id, metal, day, ` + prefixed("", ledgerCols) + ` FROM position_days`,
		`SELECT 'total', user_id, metal, NULL, ` + prefixed("", ledgerCols) + ` FROM position_totals`,
	} {
		rows, err := s.db.QueryContext(ctx, q)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var kind, metal string
			var user int64
			var day Date
			var v ledgerSums
			dest := []any{&kind, &user, &metal, &day}
			for i := range v {
				dest = append(dest, &v[i])
			}
			if err := rows.Scan(dest...); err != nil {
				rows.Close()
				return nil, err
			}
			out = append(out, fmt.Sprintf("%s u%d %s %s %v", kind, user, metal, day.Format(DateLayout), v))
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	sort.Strings(out)
	return out, nil
}

// IsUniqueViolationForTest and IsForeignKeyViolationForTest expose the typed driver-code
// checks to the engine tests.
var (
	IsUniqueViolationForTest     = isUniqueViolation
	IsForeignKeyViolationForTest = isForeignKeyViolation
)

// SchemaColumn is one column as the engine's catalogue describes it.
type SchemaColumn struct {
	Table, Name, Type string
	NotNull, PK       bool
}

// SchemaIndex is one index: its table, columns in order, and whether it is unique or partial.
type SchemaIndex struct {
	Table, Name     string
	Columns         []string
	Unique, Partial bool
}

// SchemaForTest reads the migrated schema from the engine's own catalogue (sqlite_master and
// PRAGMAs; PostgreSQL's information_schema and pg_index), for the parity test.
func (s *Store) SchemaForTest(ctx context.Context) ([]SchemaColumn, []SchemaIndex, error) {
	if s.Engine == Postgres {
		return s.schemaPostgres(ctx)
	}
	return s.schemaSQLite(ctx)
}

func (s *Store) schemaSQLite(ctx context.Context) ([]SchemaColumn, []SchemaIndex, error) {
	var tables []string
	if err := s.db.SelectContext(ctx, &tables, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`); err != nil {
		return nil, nil, err
	}
	var cols []SchemaColumn
	var idx []SchemaIndex
	for _, t := range tables {
		var info []struct {
			CID     int     `db:"cid"`
			Name    string  `db:"name"`
			Type    string  `db:"type"`
			NotNull bool    `db:"notnull"`
			Default *string `db:"dflt_value"`
			PK      int     `db:"pk"`
		}
		if err := s.db.SelectContext(ctx, &info, `SELECT * FROM pragma_table_info(?)`, t); err != nil {
			return nil, nil, err
		}
		for _, c := range info {
			cols = append(cols, SchemaColumn{Table: t, Name: c.Name, Type: c.Type, NotNull: c.NotNull, PK: c.PK > 0})
		}
		var list []struct {
			Seq     int    `db:"seq"`
			Name    string `db:"name"`
			Unique  bool   `db:"unique"`
			Origin  string `db:"origin"`
			Partial bool   `db:"partial"`
		}
		if err := s.db.SelectContext(ctx, &list, `SELECT * FROM pragma_index_list(?)`, t); err != nil {
			return nil, nil, err
		}
		for _, l := range list {
			var names []string
			if err := s.db.SelectContext(ctx, &names, `SELECT COALESCE(name, '<expr>') FROM pragma_index_xinfo(?) WHERE key = 1 ORDER BY seqno`, l.Name); err != nil {
				return nil, nil, err
			}
			idx = append(idx, SchemaIndex{Table: t, Name: l.Name, Columns: names, Unique: l.Unique, Partial: l.Partial})
		}
	}
	return cols, idx, nil
}

func (s *Store) schemaPostgres(ctx context.Context) ([]SchemaColumn, []SchemaIndex, error) {
	var rows []struct {
		Table   string `db:"table_name"`
		Name    string `db:"column_name"`
		Type    string `db:"data_type"`
		NotNull bool   `db:"not_null"`
		PK      bool   `db:"pk"`
	}
	err := s.db.SelectContext(ctx, &rows, `SELECT c.table_name, c.column_name, c.data_type, c.is_nullable = 'NO' AS not_null,
			EXISTS (SELECT 1 FROM information_schema.table_constraints tc JOIN information_schema.key_column_usage k
				ON k.constraint_name = tc.constraint_name AND k.table_schema = tc.table_schema AND k.table_name = tc.table_name
				WHERE tc.constraint_type = 'PRIMARY KEY' AND tc.table_schema = c.table_schema AND tc.table_name = c.table_name AND k.column_name = c.column_name) AS pk
		FROM information_schema.columns c JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
		WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE' ORDER BY c.table_name, c.ordinal_position`)
	if err != nil {
		return nil, nil, err
	}
	cols := make([]SchemaColumn, len(rows))
	for i, r := range rows {
		cols[i] = SchemaColumn{Table: r.Table, Name: r.Name, Type: r.Type, NotNull: r.NotNull, PK: r.PK}
	}
	var ix []struct {
		Table   string `db:"tbl"`
		Name    string `db:"idx"`
		Cols    string `db:"cols"`
		Unique  bool   `db:"indisunique"`
		Partial bool   `db:"partial"`
	}
	err = s.db.SelectContext(ctx, &ix, `SELECT t.relname AS tbl, i.relname AS idx, x.indisunique, x.indpred IS NOT NULL AS partial,
			(SELECT string_agg(COALESCE(a.attname, '<expr>'), ',' ORDER BY k.n) FROM unnest(x.indkey) WITH ORDINALITY AS k(attnum, n)
				LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum AND k.attnum > 0
				) AS cols
		FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
		JOIN pg_namespace n ON n.oid = t.relnamespace WHERE n.nspname = current_schema() ORDER BY t.relname, i.relname`)
	if err != nil {
		return nil, nil, err
	}
	var idx []SchemaIndex
	for _, r := range ix {
		idx = append(idx, SchemaIndex{Table: r.Table, Name: r.Name, Columns: strings.Split(r.Cols, ","), Unique: r.Unique, Partial: r.Partial})
	}
	return cols, idx, nil
}
