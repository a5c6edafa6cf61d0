package db_test

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
)

// typeFamily maps an engine's column type to what the code can rely on of it. SQLite's
// declared types are affinities; what matters is that both engines store the same kind of
// value.
func typeFamily(t string) string {
	t = strings.ToLower(strings.TrimSpace(t))
	switch {
	case t == "integer" || t == "bigint" || t == "int" || t == "smallint" || strings.HasPrefix(t, "bigserial") || strings.HasPrefix(t, "serial"):
		return "integer"
	case t == "text" || strings.HasPrefix(t, "varchar") || strings.HasPrefix(t, "character") || t == "uuid" || t == "citext":
		return "text"
	case t == "boolean" || t == "bool":
		return "boolean"
	case t == "real" || t == "double precision" || t == "double" || t == "float":
		return "float"
	case strings.HasPrefix(t, "numeric") || strings.HasPrefix(t, "decimal"):
		return "numeric"
	case strings.HasPrefix(t, "timestamp") || t == "datetime":
		return "timestamp"
	case t == "date":
		return "date"
	case t == "blob" || t == "bytea":
		return "bytes"
	case t == "json" || t == "jsonb":
		return "json"
	}
	return "?" + t
}

type engineSchema struct {
	cols map[string]db.SchemaColumn // "table.column"
	idx  map[string]bool            // "table(col,col) unique partial"
}

func readSchema(t *testing.T, s *db.Store) engineSchema {
	t.Helper()
	cols, idx, err := s.SchemaForTest(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := engineSchema{cols: map[string]db.SchemaColumn{}, idx: map[string]bool{}}
	pks := map[string][]db.SchemaColumn{}
	for _, c := range cols {
		if c.Table == "schema_migrations" {
			continue
		}
		if c.PK {
			c.NotNull = true // a PostgreSQL key is never null; SQLite only enforces it for INTEGER keys
			pks[c.Table] = append(pks[c.Table], c)
		}
		out.cols[c.Table+"."+c.Name] = c
	}
	for _, x := range idx {
		if x.Table == "schema_migrations" {
			continue
		}
		k := fmt.Sprintf("%s(%s) unique=%v partial=%v", x.Table, strings.Join(x.Columns, ","), x.Unique, x.Partial)
		if same, ok := acceptedIndex[k]; ok && s.Engine == db.Postgres {
			k = same
		}
		out.idx[k] = true
	}
	if s.Engine == db.SQLite {
		// A single INTEGER PRIMARY KEY is SQLite's rowid: the table is its index, and the
		// catalogue lists none. PostgreSQL lists the key's unique index.
		for table, pk := range pks {
			if len(pk) == 1 && strings.EqualFold(pk[0].Type, "integer") {
				out.idx[fmt.Sprintf("%s(%s) unique=true partial=false", table, pk[0].Name)] = true
			}
		}
	}
	return out
}

// TestSchemaParity migrates both engines and compares what the code relies on: the same
// tables and columns, of the same kind of type, nullable alike, with the same indexes (by
// table, columns in order, uniqueness and partiality; names are the engines' own).
func TestSchemaParity(t *testing.T) {
	base, ok := dbtest.PostgresURL(t)
	if !ok {
		t.Skip(dbtest.SkipNoPostgres)
	}
	sqlite, pgStore := dbtest.SQLite(t), dbtest.Postgres(t, base)
	for _, d := range schemaDiffs(readSchema(t, sqlite), readSchema(t, pgStore)) {
		t.Error(d)
	}
	// The comparison can fail: a column, a nullability and an index only one engine has are
	// each reported.
	ctx := context.Background()
	for _, q := range []string{`ALTER TABLE holdings ADD COLUMN drift_probe TEXT`, `CREATE INDEX drift_probe_idx ON sales (fees)`} {
		if _, err := sqlite.ExecForTest(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := pgStore.ExecForTest(ctx, `ALTER TABLE users ALTER COLUMN time_zone DROP NOT NULL`); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(schemaDiffs(readSchema(t, sqlite), readSchema(t, pgStore)), "\n")
	for _, want := range []string{"column only in sqlite: holdings.drift_probe", "index only in sqlite: sales(fees)", "nullability of users.time_zone"} {
		if !strings.Contains(got, want) {
			t.Errorf("drift not reported: %q in\n%s", want, got)
		}
	}
}

// schemaDiffs lists every difference between the engines' schemas not accepted below.
func schemaDiffs(lite, pg engineSchema) []string {
	var diffs []string
	for k, a := range lite.cols {
		b, ok := pg.cols[k]
		switch {
		case !ok:
			diffs = append(diffs, "column only in sqlite: "+k)
		case typeFamily(a.Type) != typeFamily(b.Type) && acceptedFamilies[typeFamily(a.Type)+"/"+typeFamily(b.Type)] == "" && acceptedType[k] == "":
			diffs = append(diffs, fmt.Sprintf("type of %s: sqlite %s (%s), postgres %s (%s)", k, a.Type, typeFamily(a.Type), b.Type, typeFamily(b.Type)))
		case a.NotNull != b.NotNull:
			diffs = append(diffs, fmt.Sprintf("nullability of %s: sqlite not null=%v, postgres not null=%v", k, a.NotNull, b.NotNull))
		}
	}
	for k := range pg.cols {
		if _, ok := lite.cols[k]; !ok {
			diffs = append(diffs, "column only in postgres: "+k)
		}
	}
	for k := range lite.idx {
		if !pg.idx[k] {
			diffs = append(diffs, "index only in sqlite: "+k)
		}
	}
	for k := range pg.idx {
		if !lite.idx[k] {
			diffs = append(diffs, "index only in postgres: "+k)
		}
	}
	sort.Strings(diffs)
	diffs = slices.Compact(diffs)
	return diffs
}

// acceptedFamilies are the type differences every table has on purpose ("sqlite/postgres"),
// each with why: SQLite has no exact decimal, date or boolean type.
var acceptedFamilies = map[string]string{
	"text/numeric":    "exact decimals are stored as their decimal text on SQLite and scanned into shopspring/decimal on both engines",
	"text/date":       "days are stored as YYYY-MM-DD text on SQLite; db.Date writes and reads that form on both engines, and it sorts as dates do",
	"integer/boolean": "SQLite booleans are 0/1 integers; database/sql scans both into bool",
}

// acceptedType lists single columns whose types differ by engine on purpose, each with why.
var acceptedType = map[string]string{
	"sessions.expiry": "the scs session stores' own formats: sqlite3store keeps a julianday REAL, postgresstore a timestamptz",
}

// acceptedIndex maps a PostgreSQL index to the SQLite one that enforces the same thing by
// other means, each written down with why.
var acceptedIndex = map[string]string{
	// Emails are unique regardless of case: lower(email) on PostgreSQL, COLLATE NOCASE on
	// SQLite (and NormalizeEmail lowercases every stored address anyway).
	"users(<expr>) unique=true partial=false": "users(email) unique=true partial=false",
}
