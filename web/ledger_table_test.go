package web_test

import (
	"database/sql"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/portfolio"
)

var lotRowRe = regexp.MustCompile(`<tr id="lot-[^"]+" data-lot="([^"]+)"`)

// TestLedgerTableView: /holdings?view=table sorts by date, metal, form, location, cost and
// value (each header a named link, the sorted one with aria-sort) and filters by metal, form,
// location, tag and purchase dates, server-side; its bulk form moves the checked lots (a
// transfer each) and tags them, and a foreign lot among them changes nothing; its amounts are
// marked for privacy mode (both engines).
func TestLedgerTableView(t *testing.T) {
	eachEngine(t, pfMarket(t, pfQuotes), func(t *testing.T, e *env) {
		ctx := t.Context()
		b := e.browser()
		b.signUp("table@example.com")
		u, err := e.store.UserByEmail(ctx, "table@example.com")
		if err != nil {
			t.Fatal(err)
		}
		loc := func(userID int64, name, kind string) string {
			l, err := e.store.InsertLocation(ctx, db.Location{UserID: userID, Name: name, Kind: kind})
			if err != nil {
				t.Fatal(err)
			}
			return l.ID
		}
		home, bank := loc(u.ID, "Home safe", "home"), loc(u.ID, "Bank box", "bank_box")
		lot := func(userID int64, metal, name string, qty int64, oz, price, date, where, tags string) string {
			t.Helper()
			h, err := e.store.InsertHolding(ctx, portfolio.WithTotals(db.Holding{UserID: userID, Metal: metal, ProductName: name, Quantity: qty, WeightOz: pfD(oz),
				PurchasePrice: pfD(price), Fees: pfD("0"), PurchaseDate: pfDate(date)}))
			if err != nil {
				t.Fatal(err)
			}
			if err := e.store.PlaceHolding(ctx, userID, h.ID, sql.NullString{String: where, Valid: where != ""}, &tags); err != nil {
				t.Fatal(err)
			}
			return h.ID
		}
		// Cost: eagle 2800 > round 2000 > bar 1550; value: eagle 2650.40 > bar 1562.50 > round 625.
		eagle := lot(u.ID, "gold", "1 oz Gold Eagle", 1, "1", "2800", "2025-01-10", home, "gift")
		bar := lot(u.ID, "silver", "10 oz Silver Bar", 5, "10", "310", "2025-06-01", bank, "")
		round := lot(u.ID, "silver", "1 oz Silver Round", 20, "1", "100", "2024-03-03", "", "gift,tube")

		order := func(q string) []string {
			t.Helper()
			r := b.get("/holdings?view=table&" + q)
			if r.Status != 200 {
				t.Fatalf("table %s: %d", q, r.Status)
			}
			var out []string
			for _, m := range lotRowRe.FindAllStringSubmatch(string(r.Body), -1) {
				out = append(out, m[1])
			}
			return out
		}
		names := map[string]string{eagle: "eagle", bar: "bar", round: "round"}
		check := func(q string, want ...string) {
			t.Helper()
			var got []string
			for _, id := range order(q) {
				got = append(got, names[id])
			}
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("%s: %v, want %v", q, got, want)
			}
		}
		check("", "bar", "eagle", "round") // newest purchase first
		check("sort=date&dir=asc", "round", "eagle", "bar")
		check("sort=metal&dir=asc", "eagle", "bar", "round")
		check("sort=metal&dir=desc", "bar", "round", "eagle")
		check("sort=form&dir=asc", "bar", "eagle", "round") // Bars, Coins, Rounds
		check("sort=location&dir=asc", "bar", "eagle", "round")
		check("sort=location&dir=desc", "round", "eagle", "bar")
		check("sort=cost&dir=desc", "eagle", "round", "bar")
		check("sort=cost&dir=asc", "bar", "round", "eagle")
		check("sort=value&dir=desc", "eagle", "bar", "round")
		check("sort=value&dir=asc", "round", "bar", "eagle")
		check("metal=silver", "bar", "round")
		check("form=bar", "bar")
		check("form=coin&metal=silver")
		check("location_id="+home, "eagle")
		check("location_id=none", "round")
		check("tag=gift&sort=date&dir=asc", "round", "eagle")
		check("from=2025-01-01&to=2025-05-31", "eagle")
		check("from=2025-01-10", "bar", "eagle")
		// A value the table does not know is refused, naming the parameter (never ignored:
		// the member would see an order they did not ask for).
		for q, param := range map[string]string{"sort=nonsense": "sort", "sort=cost&dir=sideways": "dir", "from=yesterday": "from",
			"from=2025-02-01&to=2025-01-01": "to", "form=ingot": "form", "page=0": "page", "per_page=500": "per_page"} {
			if r := b.get("/holdings?view=table&" + q); r.Status != 400 || !strings.Contains(strings.ToLower(string(r.Body)), param) {
				t.Errorf("table %s: %d, want 400 naming %s", q, r.Status, param)
			}
		}

		// Accessible headers: each sortable column is a link with a name; the sorted one says so.
		page := string(b.get("/holdings?view=table&sort=cost&dir=asc").Body)
		if !regexp.MustCompile(`<th scope="col" aria-sort="ascending"[^>]*><a href="/holdings\?[^"]*sort=cost[^"]*"[^>]*>Cost basis left <span class="sr-only">: sort descending</span>`).MatchString(page) {
			t.Errorf("the sorted column header lacks aria-sort or its link")
		}
		if n := strings.Count(page, "aria-sort="); n != 1 {
			t.Errorf("%d headers carry aria-sort, want 1", n)
		}
		if !strings.Contains(page, `aria-label="Select 10 oz Silver Bar bought`) {
			t.Errorf("a lot's checkbox has no name")
		}
		// Privacy mode hides the table's amounts: every cost and value cell is marked.
		if n := len(regexp.MustCompile(`<td [^>]*data-amount>\$[\d,.]+</td>`).FindAllString(page, -1)); n != 6 {
			t.Errorf("%d amount cells marked for privacy mode, want 6", n)
		}
		// The cards view is unchanged and is still the default.
		if s := string(b.get("/holdings").Body); strings.Contains(s, `id="ledger-table"`) || !strings.Contains(s, `id="holding-`+eagle+`"`) {
			t.Errorf("the default ledger view changed")
		}

		// Bulk move of two checked lots: a transfer each, back to the same table view.
		transfers := func(id string) int {
			ts, err := e.store.TransfersOf(ctx, u.ID, id)
			if err != nil {
				t.Fatal(err)
			}
			return len(ts)
		}
		b.get("/holdings?view=table&sort=metal&dir=asc")
		back := "view=table&sort=metal&dir=asc&evil=1"
		r := b.post("/holdings/bulk/apply", url.Values{"ids": {eagle, round}, "action": {"move"}, "to_location_id": {bank}, "date": {"2026-11-15"},
			"note": {"to the bank"}, "back": {back}}, false)
		if r.Status != 303 || !strings.HasPrefix(r.Header.Get("Location"), "/holdings?") || !strings.Contains(r.Header.Get("Location"), "bulk=2") ||
			!strings.Contains(r.Header.Get("Location"), "sort=metal") || strings.Contains(r.Header.Get("Location"), "evil") {
			t.Fatalf("bulk move: %d %s", r.Status, r.Header.Get("Location"))
		}
		if s := string(b.get(r.Header.Get("Location")).Body); !strings.Contains(s, "Moved 2 lots; a transfer is recorded for each.") {
			t.Errorf("the table does not say what the bulk move did")
		}
		if transfers(eagle) != 1 || transfers(round) != 1 || transfers(bar) != 0 {
			t.Errorf("transfers after the bulk move: %d %d %d", transfers(eagle), transfers(round), transfers(bar))
		}
		check("location_id="+bank+"&sort=date&dir=asc", "round", "eagle", "bar")

		// A lot of another member among the checked ones: nothing changes.
		other, err := e.store.InsertUser(ctx, "other-table@example.com", "x", db.TierGold, false)
		if err != nil {
			t.Fatal(err)
		}
		theirs := lot(other.ID, "gold", "Their coin", 1, "1", "2000", "2025-01-01", "", "")
		r = b.post("/holdings/bulk/apply", url.Values{"ids": {bar, theirs}, "action": {"move"}, "to_location_id": {home}, "back": {back}}, false)
		if r.Status != 404 || !strings.Contains(string(r.Body), "Nothing was changed") || !strings.Contains(string(r.Body), theirs) {
			t.Errorf("bulk with a foreign lot: %d", r.Status)
		}
		if transfers(bar) != 0 || order("location_id="+home) != nil {
			t.Errorf("a refused bulk move moved lots")
		}
		if ts, _ := e.store.TransfersOf(ctx, other.ID, theirs); len(ts) != 0 {
			t.Errorf("another member's lot moved")
		}
		if r := b.post("/holdings/bulk/apply", url.Values{"action": {"move"}, "to_location_id": {home}, "back": {back}}, false); r.Status != 422 || !strings.Contains(string(r.Body), "Nothing was changed") {
			t.Errorf("bulk with nothing checked: %d", r.Status)
		}

		// Bulk tag and untag.
		if r := b.post("/holdings/bulk/apply", url.Values{"ids": {bar, eagle}, "action": {"tag"}, "tag": {"Stacked"}, "back": {back}}, false); r.Status != 303 {
			t.Fatalf("bulk tag: %d %s", r.Status, r.Body)
		}
		check("tag=stacked&sort=date&dir=asc", "eagle", "bar")
		if r := b.post("/holdings/bulk/apply", url.Values{"ids": {eagle, round}, "action": {"untag"}, "tag": {"gift"}, "back": {back}}, false); r.Status != 303 {
			t.Fatalf("bulk untag: %d %s", r.Status, r.Body)
		}
		check("tag=gift")
		check("tag=tube", "round")

		// The form needs its CSRF token like every other.
		req := url.Values{"ids": {bar}, "action": {"tag"}, "tag": {"x"}, "_csrf": {"wrong"}}
		if r := b.post("/holdings/bulk/apply", req, false); r.Status != 403 {
			t.Errorf("bulk without a valid CSRF token: %d", r.Status)
		}
	})
}
