package web_test

import (
	"database/sql"
	"fmt"
	"html"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/portfolio"
)

var (
	checkedLotRe = regexp.MustCompile(`<input type="checkbox" name="ids" value="([^"]+)"[^>]* checked`)
	backRe       = regexp.MustCompile(`<input type="hidden" name="back" value="([^"]*)"`)
)

// TestLedgerTableEveryLot: with more lots than the ledger ever listed at once (450), the
// table sorts, filters and pages all of them, not the newest 200: sorted by cost ascending
// the cheapest lot of all (also the oldest) opens page 1 and the pages together hold every
// lot once, in order; metal, form, location, tag and date filters combine; a bad sort is a
// 400 naming sort on the page and the API; the lots selected on page 3 are tagged in bulk,
// back on page 3 (both engines).
func TestLedgerTableEveryLot(t *testing.T) {
	eachEngine(t, pfMarket(t, pfQuotes), func(t *testing.T, e *env) {
		ctx := t.Context()
		b := e.browser()
		b.signUp("every@example.com")
		u, err := e.store.UserByEmail(ctx, "every@example.com")
		if err != nil {
			t.Fatal(err)
		}
		home, err := e.store.InsertLocation(ctx, db.Location{UserID: u.ID, Name: "Home safe", Kind: "home"})
		if err != nil {
			t.Fatal(err)
		}
		type seeded struct {
			metal, form, where, tag string
			day                     time.Time
			price                   int
		}
		products := []struct{ metal, name, form string }{{"gold", "1 oz Gold Eagle", "coin"}, {"silver", "10 oz Silver Bar", "bar"}, {"silver", "1 oz Silver Round", "round"}}
		const n = 450
		lots := map[string]seeded{}
		start := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
		for i := range n {
			p := products[i%3]
			// Every price differs; the cheapest (1000) is lot 0, the oldest purchase.
			s := seeded{metal: p.metal, form: p.form, day: start.AddDate(0, 0, i), price: 1000 + (i*7919)%n}
			if i%4 == 0 {
				s.where = home.ID
			}
			if i%7 == 0 {
				s.tag = "seven"
			}
			h, err := e.store.InsertHolding(ctx, portfolio.WithTotals(db.Holding{UserID: u.ID, Metal: s.metal, ProductName: p.name, Quantity: 1, WeightOz: pfD("1"),
				PurchasePrice: pfD(fmt.Sprint(s.price)), Fees: pfD("0"), PurchaseDate: db.NewDate(s.day)}))
			if err != nil {
				t.Fatal(err)
			}
			if s.where != "" || s.tag != "" {
				if err := e.store.PlaceHolding(ctx, u.ID, h.ID, sql.NullString{String: s.where, Valid: s.where != ""}, &s.tag); err != nil {
					t.Fatal(err)
				}
			}
			lots[h.ID] = s
		}
		get := func(q string) (ids []string, body string) {
			t.Helper()
			r := b.get("/holdings?view=table&" + q)
			if r.Status != 200 {
				t.Fatalf("table %s: %d", q, r.Status)
			}
			for _, m := range lotRowRe.FindAllStringSubmatch(string(r.Body), -1) {
				ids = append(ids, m[1])
			}
			return ids, string(r.Body)
		}

		// The cards view lists the newest 200 and says so, pointing at the table for the rest.
		if r := b.get("/holdings"); r.Status != 200 || !strings.Contains(string(r.Body), "450 holdings, newest 200 shown") ||
			!strings.Contains(string(r.Body), `<a href="/holdings?view=table" class="underline">the table lists every lot`) {
			t.Fatalf("cards view of 450 lots: %d, no count or no way to the table", r.Status)
		}

		// By cost, ascending, 200 a page: three pages, the true cheapest first.
		var all []string
		for page := 1; page <= 3; page++ {
			ids, body := get(fmt.Sprintf("sort=cost&dir=asc&per_page=200&page=%d", page))
			want := map[int]int{1: 200, 2: 200, 3: 50}[page]
			if len(ids) != want {
				t.Fatalf("page %d lists %d lots, want %d", page, len(ids), want)
			}
			if page == 1 && lots[ids[0]].price != 1000 {
				t.Errorf("page 1 opens with a lot of %d, want the cheapest (1000)", lots[ids[0]].price)
			}
			showing := fmt.Sprintf("Showing %d–%d of 450 lots", (page-1)*200+1, (page-1)*200+want)
			if !strings.Contains(body, showing) {
				t.Errorf("page %d does not say %q", page, showing)
			}
			if page == 3 && (!strings.Contains(body, `aria-current="page"`) || strings.Contains(body, `rel="next"`) || !strings.Contains(body, `rel="prev"`)) {
				t.Errorf("the last page's links are wrong")
			}
			all = append(all, ids...)
		}
		if len(all) != n {
			t.Fatalf("the pages hold %d lots, want %d", len(all), n)
		}
		seen := map[string]bool{}
		for i, id := range all {
			if seen[id] {
				t.Fatalf("lot %s listed twice", id)
			}
			seen[id] = true
			if i > 0 && lots[all[i-1]].price > lots[id].price {
				t.Fatalf("position %d: %d after %d", i, lots[id].price, lots[all[i-1]].price)
			}
		}
		// Descending by cost: the dearest lot of all first, though it is not among the newest.
		if ids, _ := get("sort=cost&dir=desc&per_page=25"); len(ids) != 25 || lots[ids[0]].price != 1000+n-1 {
			t.Errorf("by cost descending: %d lots, first %d", len(ids), lots[ids[0]].price)
		}
		// By date ascending (the oldest 25 were never among the newest 200).
		if ids, _ := get("sort=date&dir=asc&per_page=25"); len(ids) != 25 || !lots[ids[0]].day.Equal(start) {
			t.Errorf("by date ascending: %d lots, first bought %v", len(ids), lots[ids[0]].day)
		}
		// A page past the last shows the last.
		if ids, body := get("sort=cost&dir=asc&per_page=200&page=9"); len(ids) != 50 || !strings.Contains(body, "Showing 401–450 of 450 lots") {
			t.Errorf("a page past the end: %d lots", len(ids))
		}

		// The filters combine, over every lot.
		from, to := start.AddDate(0, 0, 30), start.AddDate(0, 0, 400)
		filters := []struct {
			q    string
			keep func(s seeded) bool
		}{
			{"metal=silver&to=" + start.AddDate(0, 0, 250).Format(time.DateOnly), func(s seeded) bool {
				return s.metal == "silver" && !s.day.After(start.AddDate(0, 0, 250))
			}},
			{"form=bar", func(s seeded) bool { return s.form == "bar" }},
			{"location_id=none&tag=seven", func(s seeded) bool { return s.where == "" && s.tag == "seven" }},
			{"metal=silver&form=round&location_id=" + home.ID, func(s seeded) bool { return s.form == "round" && s.where == home.ID }},
			{"tag=seven&from=" + from.Format(time.DateOnly) + "&to=" + to.Format(time.DateOnly), func(s seeded) bool {
				return s.tag == "seven" && !s.day.Before(from) && !s.day.After(to)
			}},
			{"metal=gold&location_id=" + home.ID + "&tag=seven&from=" + from.Format(time.DateOnly), func(s seeded) bool {
				return s.metal == "gold" && s.where == home.ID && s.tag == "seven" && !s.day.Before(from)
			}},
		}
		for _, f := range filters {
			var want []string
			for id, s := range lots {
				if f.keep(s) {
					want = append(want, id)
				}
			}
			got, body := get(f.q + "&sort=cost&dir=asc&per_page=200")
			if len(want) > 200 {
				t.Fatalf("%s: a filter for one page keeps %d", f.q, len(want))
			}
			slices.Sort(want)
			sorted := slices.Clone(got)
			slices.Sort(sorted)
			if !slices.Equal(sorted, want) {
				t.Errorf("%s: %d lots, want %d", f.q, len(got), len(want))
			}
			if len(want) > 0 && !strings.Contains(body, fmt.Sprintf("of %d lot", len(want))) {
				t.Errorf("%s: the page does not count the %d matches", f.q, len(want))
			}
		}

		// A sort the table does not know: 400 naming it, on the page and in the API.
		if r := b.get("/holdings?view=table&sort=weight"); r.Status != 400 || !strings.Contains(string(r.Body), "another sort") {
			t.Errorf("bad sort on the page: %d", r.Status)
		}
		_, key := e.user("every-api@example.com", db.TierGold)
		r := e.api("GET", "/v1/holdings?sort=weight", key, nil)
		if r.Status != 400 || !strings.Contains(string(r.Body), `"field":"sort"`) {
			t.Errorf("bad sort in the API: %d %s", r.Status, r.Body)
		}
		// The API sorts and filters through the same query; without them, newest first as before.
		for i, price := range []float64{50, 20, 35} {
			h := validHolding()
			h["purchase_price"], h["purchase_date"] = price, fmt.Sprintf("2026-10-0%d", i+1)
			if r := e.api("POST", "/v1/holdings", key, h); r.Status != 201 {
				t.Fatalf("lot: %d %s", r.Status, r.Body)
			}
		}
		prices := func(q string) string {
			t.Helper()
			r := e.api("GET", "/v1/holdings"+q, key, nil)
			if r.Status != 200 {
				t.Fatalf("%s: %d %s", q, r.Status, r.Body)
			}
			var out []string
			for _, x := range r.JSON(t)["holdings"].([]any) {
				out = append(out, fmt.Sprint(x.(map[string]any)["purchase_price"]))
			}
			return strings.Join(out, ",")
		}
		for q, want := range map[string]string{"": "35,20,50", "?sort=cost&order=asc": "20,35,50", "?sort=cost": "50,35,20",
			"?order=asc": "50,20,35", "?from=2026-10-02&to=2026-10-02": "20", "?form=bar": "", "?form=coin&sort=date&order=asc&limit=2&offset=1": "20,35"} {
			if got := prices(q); got != want {
				t.Errorf("GET /v1/holdings%s: prices %s, want %s", q, got, want)
			}
		}
		for q, field := range map[string]string{"?order=up": "order", "?from=2026-13-01": "from", "?form=ingot": "form", "?from=2026-10-02&to=2026-10-01": "to"} {
			if r := e.api("GET", "/v1/holdings"+q, key, nil); r.Status != 400 || !strings.Contains(string(r.Body), `"field":"`+field+`"`) {
				t.Errorf("GET /v1/holdings%s: %d %s", q, r.Status, r.Body)
			}
		}

		// Select every lot of page 3 (without JavaScript: the server checks them) and tag them.
		ids, body := get("sort=cost&dir=asc&per_page=100&page=3&select=page")
		var checked []string
		for _, m := range checkedLotRe.FindAllStringSubmatch(body, -1) {
			checked = append(checked, m[1])
		}
		if len(ids) != 100 || !slices.Equal(checked, ids) {
			t.Fatalf("select all on page 3: %d of %d checked", len(checked), len(ids))
		}
		bm := backRe.FindStringSubmatch(body)
		if bm == nil {
			t.Fatal("the bulk form has no way back")
		}
		back := html.UnescapeString(bm[1])
		pr := b.post("/holdings/bulk/apply", url.Values{"ids": checked, "action": {"tag"}, "tag": {"Page three"}, "back": {back}}, false)
		loc := pr.Header.Get("Location")
		if pr.Status != 303 || !strings.Contains(loc, "page=3") || !strings.Contains(loc, "bulk=100") || !strings.Contains(loc, "per_page=100") {
			t.Fatalf("bulk tag: %d %s", pr.Status, loc)
		}
		tagged, _ := get("tag=page+three&per_page=200&sort=cost&dir=asc")
		if !slices.Equal(tagged, ids) {
			t.Errorf("tagged %d lots, want the 100 of page 3", len(tagged))
		}
		for _, id := range tagged {
			if p := lots[id].price; p < 1200 || p >= 1300 {
				t.Errorf("a lot of %d tagged; page 3 by cost holds 1200 to 1299", p)
			}
		}
	})
}
