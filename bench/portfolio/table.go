package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/ouncehq/ounce/bench/benchkit"
	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/app"
)

var csrfRe = regexp.MustCompile(`name="_csrf" value="([^"]+)"`)

// tableRun measures the ledger's table view (issue 28) over every lot of a member with
// holdings lots: a signed-in browser session (cookie) asking for pages of /holdings?view=table
// sorted by cost, first and deep, and filtered. It prints table rows and returns notes.
func tableRun(ctx context.Context, name string, s *db.Store, raw *sqlx.DB, holdings, requests int) []string {
	_, err := s.Migrate(ctx)
	benchkit.Must(err)
	market := benchkit.LiveMarket(ctx, s)
	a, err := app.New(app.Options{Store: s, Market: market, Config: app.Config{Site: kit.Site{BaseURL: "http://127.0.0.1"}, Account: account.Config{NewUsersGold: true}},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	benchkit.Must(err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	benchkit.Must(err)
	go func() { _ = a.Server.App.Listener(ln) }()
	defer func() { _ = a.Server.App.Shutdown() }()
	base := "http://" + ln.Addr().String()

	// Sign up through the form, as a member does; the jar keeps the session.
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Transport: &http.Transport{MaxIdleConnsPerHost: 8},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Get(base + "/signup")
	benchkit.Must(err)
	body, _ := io.ReadAll(res.Body)
	_ = res.Body.Close()
	m := csrfRe.FindSubmatch(body)
	if m == nil {
		panic("no CSRF token on /signup")
	}
	res, err = c.PostForm(base+"/signup", url.Values{"_csrf": {string(m[1])}, "email": {"table@example.com"}, "password": {"a long enough password for the bench"}})
	benchkit.Must(err)
	_, _ = io.Copy(io.Discard, res.Body)
	_ = res.Body.Close()
	u, err := s.UserByEmail(ctx, "table@example.com")
	benchkit.Must(err)
	seedStart := time.Now()
	benchkit.Seed(ctx, s, u.ID, holdings)
	seeded := time.Since(seedStart)
	if s.Engine == db.Postgres {
		_, err = raw.ExecContext(ctx, `VACUUM ANALYZE holdings, sales, position_days, position_totals`)
		benchkit.Must(err)
	}
	get := func(path string) func() {
		return func() {
			res, err := c.Get(base + path)
			benchkit.Must(err)
			_, _ = io.Copy(io.Discard, res.Body)
			_ = res.Body.Close()
			if res.StatusCode != 200 {
				panic(fmt.Sprintf("%s: status %d", path, res.StatusCode))
			}
		}
	}
	last := (holdings + 49) / 50
	sqlPage := func(offset int) func() {
		return func() {
			_, _, err := s.HoldingsByUser(ctx, u.ID, db.HoldingFilter{Sort: db.SortCost, Limit: 50, Offset: offset})
			benchkit.Must(err)
		}
	}
	rows := []row{
		{"SQL only: a page of 50 by cost (page 1)", sqlPage(0), nil, []int{1}},
		{fmt.Sprintf("SQL only: a page of 50 by cost (page %d)", last), sqlPage((last - 1) * 50), nil, []int{1}},
		{"`/holdings?view=table` (newest first, 50 a page)", get("/holdings?view=table"), nil, []int{1}},
		{"`/holdings?view=table&sort=cost&dir=asc` (page 1 of 50)", get("/holdings?view=table&sort=cost&dir=asc"), nil, []int{1, 4}},
		{fmt.Sprintf("`…&sort=cost&dir=asc&page=%d` (the last page)", last), get(fmt.Sprintf("/holdings?view=table&sort=cost&dir=asc&page=%d", last)), nil, []int{1}},
		{"`…&sort=cost&dir=desc&per_page=200`", get("/holdings?view=table&sort=cost&dir=desc&per_page=200"), nil, []int{1}},
		{"`…&sort=value&dir=desc` (at the live spot)", get("/holdings?view=table&sort=value&dir=desc"), nil, []int{1}},
		{"`…&sort=form&form=coin&metal=silver&from=2020-01-01`", get("/holdings?view=table&sort=form&form=coin&metal=silver&from=2020-01-01"), nil, []int{1}},
		{"`GET /holdings` (the cards, newest 200, for comparison)", get("/holdings"), nil, []int{1}},
	}
	measureRows(name, rows, requests)
	return []string{fmt.Sprintf("- %s: seeding %d holdings took %s.", name, holdings, seeded.Round(time.Millisecond))}
}
