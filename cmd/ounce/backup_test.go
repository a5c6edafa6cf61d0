package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/app"
	"github.com/ouncehq/ounce/web"
)

// backupClock is the one clock of every server in these tests, so a read answers the same on
// the original and on the restored database.
var backupClock = time.Date(2026, 11, 20, 15, 0, 0, 0, time.UTC)

type member struct{ email, key string }

// testServer is the real application over s, in process, without its background jobs.
func testServer(t *testing.T, s *db.Store) *web.Server {
	t.Helper()
	s.Now = func() time.Time { return backupClock }
	cfg, err := loadConfig(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	market, err := app.NewMarket(context.Background(), cfg.App, s, log)
	if err != nil {
		t.Fatal(err)
	}
	a, err := app.New(app.Options{Store: s, Logger: log, Market: market, Config: cfg.App, Now: func() time.Time { return backupClock }})
	if err != nil {
		t.Fatal(err)
	}
	return a.Server
}

func call(t *testing.T, srv *web.Server, method, target, key, body string) (int, string) {
	t.Helper()
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := srv.App.Test(req, -1)
	if err != nil {
		t.Fatalf("%s %s: %v", method, target, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

func addMembers(t *testing.T, s *db.Store, n int) []member {
	t.Helper()
	ctx := context.Background()
	acct := account.New(account.Deps{Store: s, Config: account.Config{NewUsersGold: true}})
	var ms []member
	for i := range n {
		u, err := acct.CreateUser(ctx, account.NewUser{Credentials: account.Credentials{Email: fmt.Sprintf("m%d@example.com", i), Password: "a long passphrase"}, Tier: "gold"})
		if err != nil {
			t.Fatal(err)
		}
		key, _, err := acct.CreateAPIKey(ctx, u, "backup test")
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, member{u.Email, key})
	}
	return ms
}

// load writes holdings for the members in turn, from one writer, until stop is closed.
// (One writer: with several, SQLite writers wait on each other's locks for seconds.)
func load(t *testing.T, srv *web.Server, ms []member, stop <-chan struct{}) *sync.WaitGroup {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for n := 0; ; n++ {
			select {
			case <-stop:
				return
			default:
			}
			i := n % len(ms)
			body := fmt.Sprintf(`{"metal":"silver","product_name":"Bar %d","quantity":%d,"weight_oz":1,"purchase_price":31.25,"purchase_date":"2026-11-02"}`, n, n%7+1)
			if code, b := call(t, srv, "POST", "/v1/holdings", ms[i].key, body); code != 201 && code != 200 {
				t.Errorf("write under load: %d %s", code, b)
				return
			}
		}
	}()
	return &wg
}

// memberReads is every /v1 GET without a path parameter that the OpenAPI document lists, and
// each of the member's holdings and their sales.
func memberReads(t *testing.T, srv *web.Server, m member) []string {
	t.Helper()
	_, doc := call(t, srv, "GET", "/openapi.json", "", "")
	var spec struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal([]byte(doc), &spec); err != nil {
		t.Fatal(err)
	}
	var reads []string
	for p, ops := range spec.Paths {
		if _, ok := ops["get"]; ok && strings.HasPrefix(p, "/v1/") && !strings.Contains(p, "{") {
			if p == "/v1/reports/inventory" {
				// Its default PDF is stamped with the moment it was made; the CSV holds the same lines.
				p += "?format=csv"
			}
			reads = append(reads, p)
		}
	}
	reads = append(reads, "/v1/holdings/export?format=csv", "/v1/holdings/export?format=json")
	_, list := call(t, srv, "GET", "/v1/holdings", m.key, "")
	for _, id := range regexp.MustCompile(`"id":"(h_[0-9a-z]+)"`).FindAllStringSubmatch(list, -1) {
		reads = append(reads, "/v1/holdings/"+id[1], "/v1/holdings/"+id[1]+"/sales")
	}
	sort.Strings(reads)
	if len(reads) < 10 {
		t.Fatalf("only %d reads found: %v", len(reads), reads)
	}
	return reads
}

// sameReads compares every read of every member on the two servers.
func sameReads(t *testing.T, a, b *web.Server, ms []member) {
	t.Helper()
	n := 0
	for _, m := range ms {
		for _, path := range memberReads(t, a, m) {
			ca, ba := call(t, a, "GET", path, m.key, "")
			cb, bb := call(t, b, "GET", path, m.key, "")
			if ca != cb || ba != bb {
				t.Errorf("%s GET %s: original %d %.300s\nrestored %d %.300s", m.email, path, ca, ba, cb, bb)
			}
			n++
		}
	}
	t.Logf("%d reads of %d members compared", n, len(ms))
}

// warm reads everything once, so state a server makes on first use (the VAPID key pair,
// made at start by a running server) exists before the copy is taken.
func warm(t *testing.T, srv *web.Server, ms []member) {
	for _, m := range ms {
		for _, path := range memberReads(t, srv, m) {
			call(t, srv, "GET", path, m.key, "")
		}
	}
}

// holdingsOf is the member's whole holdings list as the API answers it, by id, read page by
// page: a first page alone holds a different 50 of the original and of a shorter copy.
func holdingsOf(t *testing.T, srv *web.Server, m member) map[string]string {
	out := map[string]string{}
	for offset := 0; ; offset += 200 {
		_, body := call(t, srv, "GET", fmt.Sprintf("/v1/holdings?limit=200&offset=%d", offset), m.key, "")
		var v struct {
			Holdings []json.RawMessage `json:"holdings"`
			Total    int               `json:"total"`
		}
		if err := json.Unmarshal([]byte(body), &v); err != nil {
			t.Fatalf("holdings: %v %.200s", err, body)
		}
		for _, h := range v.Holdings {
			var id struct{ ID string }
			if err := json.Unmarshal(h, &id); err != nil || id.ID == "" {
				t.Fatalf("holding without id: %s", h)
			}
			out[id.ID] = string(h)
		}
		if len(v.Holdings) == 0 || offset+len(v.Holdings) >= v.Total {
			return out
		}
	}
}

// prefixOf checks a copy taken under load: every holding it has is the original's, unchanged,
// and it has at least what had been acknowledged before the copy began.
func prefixOf(t *testing.T, orig, copied *web.Server, ms []member, before map[string]int) {
	t.Helper()
	for _, m := range ms {
		o, c := holdingsOf(t, orig, m), holdingsOf(t, copied, m)
		if len(c) < before[m.email] {
			t.Errorf("%s: the copy has %d holdings, %d were stored before it began", m.email, len(c), before[m.email])
		}
		for id, h := range c {
			if o[id] != h {
				t.Errorf("%s: holding %s in the copy is %s, the original %s", m.email, id, h, o[id])
			}
		}
	}
}

func counts(t *testing.T, srv *web.Server, ms []member) map[string]int {
	out := map[string]int{}
	for _, m := range ms {
		out[m.email] = len(holdingsOf(t, srv, m))
	}
	return out
}

func backupEnv(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	t.Setenv("OUNCE_OFFLINE", "1")
	t.Setenv("OUNCE_RATE_LIMIT_PER_KEY", "0")
	t.Setenv("OUNCE_RATE_LIMIT_PER_IP", "0")
}

// TestBackupUnderLoadRestoresEveryRead: ounce backup while members write, then ounce restore
// into a fresh directory; the copy taken under load is consistent, and the copy taken once
// writes stop answers every /v1 read of every member exactly as the original.
func TestBackupUnderLoadRestoresEveryRead(t *testing.T) {
	backupEnv(t)
	ctx := context.Background()
	src, dir := t.TempDir(), t.TempDir()
	t.Setenv("OUNCE_DATA_DIR", src)
	s, err := db.Open(ctx, "", filepath.Join(src, "ounce.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	orig := testServer(t, s)
	ms := addMembers(t, s, 3)

	stop := make(chan struct{})
	wg := load(t, orig, ms, stop)
	// Let every writer store something before the copy starts.
	for deadline := time.Now().Add(20 * time.Second); ; {
		c := counts(t, orig, ms)
		if c[ms[0].email] > 2 && c[ms[1].email] > 2 && c[ms[2].email] > 2 {
			break
		}
		if time.Now().After(deadline) {
			close(stop)
			wg.Wait()
			t.Fatalf("writers stored too little: %v", c)
		}
		time.Sleep(20 * time.Millisecond)
	}
	before := counts(t, orig, ms)
	underLoad := filepath.Join(dir, "under-load.db")
	if out, err := runCLI(t, "", "backup", underLoad); err != nil || !strings.Contains(out, "backed up") {
		t.Fatalf("backup under load: %q %v", out, err)
	}
	close(stop)
	wg.Wait()
	if t.Failed() {
		return
	}
	warm(t, orig, ms)
	quiet := filepath.Join(dir, "quiet.db")
	if out, err := runCLI(t, "", "backup", quiet); err != nil {
		t.Fatalf("backup: %q %v", out, err)
	}
	if _, err := runCLI(t, "", "backup", quiet); !isUsage(err) {
		t.Fatalf("a second backup over an existing file: %v", err)
	}

	restoreInto := func(file string) *web.Server {
		fresh := t.TempDir()
		t.Setenv("OUNCE_DATA_DIR", fresh)
		if out, err := runCLI(t, "", "restore", file); err != nil || !strings.Contains(out, "restored") {
			t.Fatalf("restore %s: %q %v", file, out, err)
		}
		// Not empty now: restoring again needs --force.
		if _, err := runCLI(t, "", "restore", file); !isUsage(err) || !strings.Contains(err.Error(), "--force") {
			t.Fatalf("restore over a database that is not empty: %v", err)
		}
		if _, err := runCLI(t, "", "restore", file, "--force"); err != nil {
			t.Fatalf("restore --force: %v", err)
		}
		r, err := db.Open(ctx, "", filepath.Join(fresh, "ounce.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = r.Close() })
		if _, err := r.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		return testServer(t, r)
	}
	prefixOf(t, orig, restoreInto(underLoad), ms, before)
	sameReads(t, orig, restoreInto(quiet), ms)
}

// TestPostgresBackupRecipe runs the README's PostgreSQL recipe (pg_dump, then pg_restore into
// a fresh database) under the same load, and compares every read the same way.
func TestPostgresBackupRecipe(t *testing.T) {
	base, ok := dbtest.PostgresURL(t)
	if !ok {
		t.Skip("OUNCE_TEST_POSTGRES_URL is not set")
	}
	for _, tool := range []string{"pg_dump", "pg_restore"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is needed for the PostgreSQL backup recipe: %v", tool, err)
		}
	}
	backupEnv(t)
	t.Setenv("OUNCE_DATA_DIR", t.TempDir())
	ctx := context.Background()
	u := dbtest.PostgresSchema(t, base)
	schema := mustURL(t, u).Query().Get("search_path")
	s := dbtest.OpenPostgres(t, u)
	orig := testServer(t, s)
	ms := addMembers(t, s, 3)
	dir := t.TempDir()

	// The recipe names the database by its URL; the tests' schema is picked with -n.
	dump := func(file string) {
		out, err := exec.Command("pg_dump", "--format=custom", "--no-owner", "-n", schema, "--file="+file, base).CombinedOutput()
		if err != nil {
			t.Fatalf("pg_dump: %v\n%s", err, out)
		}
	}
	restore := func(file string) *web.Server {
		var b [4]byte
		_, _ = rand.Read(b[:])
		name := "ounce_restore_" + hex.EncodeToString(b[:])
		admin, err := sqlx.ConnectContext(ctx, "postgres", base)
		if err != nil {
			t.Fatal(err)
		}
		defer admin.Close()
		if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if a, err := sqlx.Connect("postgres", base); err == nil {
				_, _ = a.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)")
				_ = a.Close()
			}
		})
		fresh := mustURL(t, base)
		fresh.Path = "/" + name
		if out, err := exec.Command("pg_restore", "--no-owner", "--exit-on-error", "--dbname="+fresh.String(), file).CombinedOutput(); err != nil {
			t.Fatalf("pg_restore: %v\n%s", err, out)
		}
		q := fresh.Query()
		q.Set("search_path", schema)
		fresh.RawQuery = q.Encode()
		r := dbtest.OpenPostgres(t, fresh.String())
		return testServer(t, r)
	}

	stop := make(chan struct{})
	wg := load(t, orig, ms, stop)
	for deadline := time.Now().Add(20 * time.Second); ; {
		c := counts(t, orig, ms)
		if c[ms[0].email] > 2 && c[ms[1].email] > 2 && c[ms[2].email] > 2 {
			break
		}
		if time.Now().After(deadline) {
			close(stop)
			wg.Wait()
			t.Fatalf("writers stored too little: %v", c)
		}
		time.Sleep(20 * time.Millisecond)
	}
	before := counts(t, orig, ms)
	underLoad := filepath.Join(dir, "under-load.dump")
	dump(underLoad)
	close(stop)
	wg.Wait()
	if t.Failed() {
		return
	}
	warm(t, orig, ms)
	quiet := filepath.Join(dir, "quiet.dump")
	dump(quiet)
	prefixOf(t, orig, restore(underLoad), ms, before)
	sameReads(t, orig, restore(quiet), ms)

	// ounce backup itself points a PostgreSQL operator at the recipe.
	t.Setenv("DATABASE_URL", u)
	if _, err := runCLI(t, "", "backup", filepath.Join(dir, "x")); !isUsage(err) || !strings.Contains(err.Error(), "pg_dump") {
		t.Fatalf("ounce backup on PostgreSQL: %v", err)
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
