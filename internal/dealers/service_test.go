package dealers

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/prices"
)

// market is an offline price service over the store, seeded from the embedded history (so
// its prices are stale last-known closes until live ones are applied).
func market(t *testing.T, s *db.Store, now func() time.Time) *prices.Service {
	t.Helper()
	svc, err := prices.NewService(context.Background(), s, prices.ServiceConfig{Offline: true, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// live publishes live spot prices.
func live(svc *prices.Service, at time.Time, quotes map[metals.Metal]string) {
	snap := prices.Snapshot{AsOf: at, Prices: map[metals.Metal]prices.Spot{}}
	for m, p := range quotes {
		snap.Prices[m] = prices.Spot{Metal: m, Symbol: m.Symbol(), Price: d(p), PrevClose: d(p), AsOf: at, Source: "test-feed"}
	}
	svc.Feed().Apply(snap)
}

func productQuotes(t *testing.T, c Comparison, id string) ProductQuotes {
	t.Helper()
	for _, p := range c.Products {
		if p.Product.ID == id {
			return p
		}
	}
	t.Fatalf("no %s in comparison", id)
	return ProductQuotes{}
}

// TestOfflineDemoQuotes: offline with nothing fetched, every product shows demo quotes
// labelled demo, priced from published premium ranges at the board's (stale, dated) spot, and
// the premiums shown are exactly price ÷ (spot × fine oz) − 1.
func TestOfflineDemoQuotes(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		now := func() time.Time { return time.Date(2026, 8, 12, 15, 0, 0, 0, time.UTC) }
		m := market(t, s, now)
		svc := New(Deps{Store: s, Prices: m, Now: now, Config: Config{Offline: true}})
		c, err := svc.Compare(ctx, Query{Metal: metals.Silver, Weight: d("1")})
		if err != nil {
			t.Fatal(err)
		}
		if !c.Demo || !c.Offline || !c.Spot.Known || !c.Spot.Stale || c.Spot.AsOf.IsZero() {
			t.Fatalf("comparison header %+v", c)
		}
		ids := []string{}
		for _, pq := range c.Products {
			ids = append(ids, pq.Product.ID)
			if !pq.Demo || len(pq.Quotes) < 3 || pq.Best == nil {
				t.Errorf("%s: demo=%v quotes=%d best=%v", pq.Product.ID, pq.Demo, len(pq.Quotes), pq.Best)
			}
			r := demoPremiums[pq.Product.ID]
			for i, q := range pq.Quotes {
				if q.Source != SourceDemo || !q.Demo() {
					t.Errorf("%s %s source %q", pq.Product.ID, q.Dealer.Slug, q.Source)
				}
				want, _ := PremiumPct(q.Price, c.Spot.Price, pq.Product.FineOz)
				if q.PremiumPct == nil || !q.PremiumPct.Equal(want) {
					t.Errorf("%s %s premium %v, want %s", pq.Product.ID, q.Dealer.Slug, q.PremiumPct, want)
				}
				// Rounding the price to cents moves the premium by far less than 0.1 point.
				if q.PremiumPct.LessThan(r.lo.Sub(d("0.1"))) || q.PremiumPct.GreaterThan(r.hi.Add(d("0.1"))) {
					t.Errorf("%s %s premium %s outside %s–%s", pq.Product.ID, q.Dealer.Slug, q.PremiumPct, r.lo, r.hi)
				}
				if i > 0 && q.Price.LessThan(pq.Quotes[i-1].Price) {
					t.Errorf("%s not sorted by price", pq.Product.ID)
				}
				if !strings.HasPrefix(q.URL, "https://") || q.UpdatedAt != c.Spot.AsOf {
					t.Errorf("%s %s url %q updated %v", pq.Product.ID, q.Dealer.Slug, q.URL, q.UpdatedAt)
				}
			}
		}
		want := "silver-american-eagle-1oz silver-maple-leaf-1oz silver-krugerrand-1oz silver-britannia-1oz silver-philharmonic-1oz silver-kangaroo-1oz silver-round-1oz silver-bar-1oz"
		if strings.Join(ids, " ") != want {
			t.Errorf("1 oz silver products %v", ids)
		}
		// The advisor's view of the same numbers says they are demo.
		pp, err := svc.Premiums(ctx, metals.Silver, d("1"))
		if err != nil || len(pp) != 8 || !pp[0].Demo || pp[0].LowestPremium == nil || pp[0].LowestPremium.GreaterThan(*pp[0].MedianPremium) {
			t.Fatalf("premiums %+v %v", pp, err)
		}
		// Without any price, no demo numbers are invented.
		bare := New(Deps{Store: s, Now: now, Config: Config{Offline: true}})
		c, err = bare.Compare(ctx, Query{Metal: metals.Gold})
		if err != nil || c.Spot.Known || c.Demo || len(c.Products) == 0 || len(c.Products[0].Quotes) != 0 {
			t.Fatalf("no board: %+v %v", c, err)
		}
		// Demo history lies over the real daily closes.
		h, err := svc.History(ctx, HistoryQuery{Product: "silver-american-eagle-1oz", Days: 30})
		if err != nil || !h.Demo || len(h.Overall) < 5 || len(h.Dealers) < 3 {
			t.Fatalf("history %+v %v", h, err)
		}
		for _, p := range h.Overall {
			if p.Min.GreaterThan(p.Median) || p.Quotes < 3 {
				t.Errorf("history point %+v", p)
			}
		}
	})
}

func TestQueryValidation(t *testing.T) {
	svc := New(Deps{Store: dbtest.SQLite(t)})
	ctx := context.Background()
	for q, field := range map[*Query]string{
		{}:                                    "metal",
		{Metal: "copper"}:                     "metal",
		{Metal: metals.Gold, Form: "ingot"}:   "form",
		{Metal: metals.Gold, Weight: d("-1")}: "weight",
	} {
		_, err := svc.Compare(ctx, *q)
		if f := apperr.FieldsOf(err); len(f) != 1 || f[0].Field != field {
			t.Errorf("%+v: %v", *q, err)
		}
	}
	for hq, field := range map[HistoryQuery]string{{}: "product", {Product: "nope"}: "product", {Product: "gold-bar-1oz", Days: 400}: "days"} {
		if _, err := svc.History(ctx, hq); apperr.FieldsOf(err) == nil || apperr.FieldsOf(err)[0].Field != field {
			t.Errorf("%+v: %v", hq, err)
		}
	}
}

// dealerSites serves every dealer fixture page from a loopback server of its own, as the
// dealer would, plus a JSON feed and a robots.txt that closes one path to Ounce.
func dealerSites(t *testing.T) map[string]*site {
	pages := map[string]string{
		"apmex": "apmex.html", "jm-bullion": "jm-bullion.html", "sd-bullion": "sd-bullion.html", "monument-metals": "monument-metals.html",
		"hero-bullion": "hero-bullion.html", "bullion-exchanges": "bullion-exchanges.html", "summit-metals": "summit-metals.html",
		"provident-metals": "provident-metals.html", "money-metals": "money-metals.html",
	}
	out := map[string]*site{}
	for slug, file := range pages {
		routes := map[string]string{"/product/silver-eagle": string(readFixture(t, "pages/"+file))}
		robots := ""
		switch slug {
		case "hero-bullion":
			routes["/feeds/prices.json"] = string(readFixture(t, "feeds/aggregator.json"))
		case "jm-bullion":
			routes["/members/gold-eagle"] = string(readFixture(t, "pages/jm-bullion-gold-eagle.html"))
			robots = "User-agent: *\nDisallow: /members/\n"
		}
		out[slug] = newSite(t, robots, routes)
	}
	return out
}

// importFor builds the import file that points the nine dealers at their loopback sites.
func importFor(sites map[string]*site) []byte {
	var f struct {
		Dealers  []map[string]string `json:"dealers"`
		Listings []map[string]string `json:"listings"`
		Feeds    []map[string]any    `json:"feeds"`
	}
	for _, dl := range BuiltInDealers {
		s := sites[dl.Slug]
		tmpl := "{url}"
		if dl.Slug == "apmex" {
			tmpl = s.URL + "/aff?partner=ounce&to={url}"
		}
		f.Dealers = append(f.Dealers, map[string]string{"slug": dl.Slug, "name": dl.Name, "site": s.URL + "/", "affiliate_url_template": tmpl})
		f.Listings = append(f.Listings, map[string]string{"dealer": dl.Slug, "product": "silver-american-eagle-1oz", "url": s.URL + "/product/silver-eagle"})
	}
	f.Listings = append(f.Listings, map[string]string{"dealer": "jm-bullion", "product": "gold-american-eagle-1oz", "url": sites["jm-bullion"].URL + "/members/gold-eagle"})
	f.Feeds = append(f.Feeds, map[string]any{"dealer": "hero-bullion", "url": sites["hero-bullion"].URL + "/feeds/prices.json", "items_path": "data.products",
		"fields": map[string]string{"sku": "sku", "price": "pricing.unit", "in_stock": "stock.available"},
		"skus":   map[string]string{"JUNK90-1": "silver-junk-90-face", "ASE-RY": "silver-american-eagle-1oz", "BAR10": "silver-bar-10oz"}})
	b, _ := json.Marshal(f)
	return b
}

// TestFetchParseAndRank is the whole pipeline against loopback dealer sites in the dealers'
// page shapes: import, one polite pass, outliers dropped, quotes ranked with premiums at spot,
// a second pass answered 304, staleness, and history.
func TestFetchParseAndRank(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		sites := dealerSites(t)
		clock := newFakeClock()
		m := market(t, s, clock.now)
		live(m, clock.now(), map[metals.Metal]string{metals.Silver: "64.00", metals.Gold: "4405.80"})
		f := testFetcher(clock)
		svc := New(Deps{Store: s, Prices: m, Now: clock.now, Fetcher: f, Config: Config{ContactEmail: "ops@ounce.example"}})

		res, err := svc.Import(ctx, importFor(sites))
		if err != nil {
			t.Fatalf("import: %v %v", err, ImportErrors(err))
		}
		if res != (ImportResult{Dealers: 9, Listings: 10, Feeds: 1}) {
			t.Fatalf("import result %+v", res)
		}
		sum, err := svc.FetchOnce(ctx)
		if err != nil {
			t.Fatal(err)
		}
		failed := map[string]string{}
		for _, r := range sum.Sources {
			if r.Err != nil {
				failed[r.Dealer+" "+r.Kind] = r.Err.Error()
			}
		}
		if len(sum.Sources) != 11 || len(failed) != 1 || !strings.Contains(failed["jm-bullion page"], "robots.txt") {
			t.Fatalf("sources %d, failed %v", len(sum.Sources), failed)
		}
		for _, p := range sites["jm-bullion"].paths() {
			if strings.HasPrefix(p, "/members/") {
				t.Errorf("fetched %s against robots.txt", p)
			}
		}
		// Nine eagle pages (the feed's eagle loses to hero-bullion's page), junk and a bar from
		// the feed; the tube of twenty is the outlier.
		if sum.Stored != 10 || len(sum.Outliers) != 1 || sum.Outliers[0].Dealer != "money-metals" || !sum.Outliers[0].Price.Equal(d("1559.80")) {
			t.Fatalf("stored %d outliers %+v", sum.Stored, sum.Outliers)
		}

		c, err := svc.Compare(ctx, Query{Metal: metals.Silver})
		if err != nil {
			t.Fatal(err)
		}
		if c.Spot.Stale || !c.Spot.Price.Equal(d("64")) {
			t.Fatalf("spot %+v", c.Spot)
		}
		eagle := productQuotes(t, c, "silver-american-eagle-1oz")
		var got []string
		for _, q := range eagle.Quotes {
			got = append(got, fmt.Sprintf("%s %s %v %s", q.Dealer.Slug, q.Price.StringFixed(2), q.InStock, q.PremiumPct.StringFixed(2)))
		}
		want := []string{
			"summit-metals 76.79 false 19.98", "sd-bullion 76.97 true 20.27", "hero-bullion 77.10 true 20.47", "monument-metals 77.45 true 21.02",
			"provident-metals 78.05 true 21.95", "bullion-exchanges 78.20 true 22.19", "jm-bullion 78.75 true 23.05", "apmex 79.49 true 24.20",
		}
		if strings.Join(got, "|") != strings.Join(want, "|") || eagle.Demo {
			t.Fatalf("eagle quotes\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if eagle.Best == nil || eagle.Best.Dealer.Slug != "sd-bullion" {
			t.Errorf("best %+v", eagle.Best)
		}
		for _, q := range eagle.Quotes {
			if q.Source != SourcePage {
				t.Errorf("%s source %s", q.Dealer.Slug, q.Source)
			}
			if q.Dealer.Slug == "apmex" {
				if len(q.Tiers) != 4 || q.URL != sites["apmex"].URL+"/aff?partner=ounce&to="+strings.ReplaceAll(strings.ReplaceAll(sites["apmex"].URL, ":", "%3A"), "/", "%2F")+"%2Fproduct%2Fsilver-eagle" {
					t.Errorf("apmex tiers %d url %s", len(q.Tiers), q.URL)
				}
			}
		}
		junk := productQuotes(t, c, "silver-junk-90-face")
		if junk.Demo || len(junk.Quotes) != 1 || junk.Quotes[0].Source != SourceFeed || junk.Quotes[0].PremiumPct.StringFixed(2) != "8.83" ||
			junk.Quotes[0].PricePerOz.StringFixed(2) != "69.65" {
			t.Errorf("junk %+v", junk.Quotes)
		}
		if maple := productQuotes(t, c, "silver-maple-leaf-1oz"); !maple.Demo || !c.Demo {
			t.Error("products without fetched quotes stay demo, and the comparison says so")
		}

		// History records today's premiums of the fetched quotes.
		h, err := svc.History(ctx, HistoryQuery{Product: "silver-american-eagle-1oz"})
		if err != nil || h.Demo || len(h.Overall) != 1 || h.Overall[0].Quotes != 8 || h.Overall[0].Min.StringFixed(2) != "19.98" || len(h.Dealers) != 8 {
			t.Fatalf("history %+v %v", h, err)
		}

		// A second pass: every page answers 304 and the kept copy is used.
		clock.advance(time.Hour)
		sum, err = svc.FetchOnce(ctx)
		if err != nil {
			t.Fatal(err)
		}
		nm := 0
		for _, r := range sum.Sources {
			if r.NotModified {
				nm++
			}
		}
		if nm != 10 || sum.Stored != 10 {
			t.Fatalf("second pass: %d not modified, %d stored", nm, sum.Stored)
		}
		// The same host was never asked twice within five seconds of the fake clock's slots.
		for slug, st := range sites {
			if n := len(st.paths()); n < 3 {
				t.Errorf("%s asked %d times", slug, n)
			}
		}

		// A day and a bit later nothing was fetched: the quotes are hidden and demo returns.
		clock.advance(DefaultMaxAge + time.Minute)
		c, err = svc.Compare(ctx, Query{Metal: metals.Silver, Weight: d("1")})
		if err != nil {
			t.Fatal(err)
		}
		if eagle := productQuotes(t, c, "silver-american-eagle-1oz"); !eagle.Demo || eagle.Quotes[0].Source != SourceDemo {
			t.Errorf("stale quotes still shown: %+v", eagle.Quotes[0])
		}
	})
}

// TestClicksOnlyResolveCatalogueURLs: a click gives the catalogue URL of a carried pair and is
// logged; anything else — unknown names, URLs posing as names, pairs not carried — is refused.
func TestClicksOnlyResolveCatalogueURLs(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		svc := New(Deps{Store: s, Config: Config{Offline: true}})
		imp := `{"dealers":[{"slug":"coin-shop","name":"Coin Shop","site":"https://coins.example/","affiliate_url_template":"https://aff.example/go?u={url}"}],
			"listings":[{"dealer":"coin-shop","product":"gold-bar-1oz","url":"https://shop.coins.example/gold/1oz"},
			{"dealer":"apmex","product":"silver-bar-10oz","url":"https://www.apmex.com/product/10oz"}]}`
		if _, err := svc.Import(ctx, []byte(imp)); err != nil {
			t.Fatal(err, ImportErrors(err))
		}
		u, err := svc.Click(ctx, ClickInput{Dealer: "coin-shop", ProductID: "gold-bar-1oz", Referrer: "https://ounce.example/dealers?metal=gold&token=secret", Via: ViaWeb})
		if err != nil || u != "https://aff.example/go?u=https%3A%2F%2Fshop.coins.example%2Fgold%2F1oz" {
			t.Fatalf("listing click %q %v", u, err)
		}
		if u, err := svc.Click(ctx, ClickInput{Dealer: "apmex", ProductID: "silver-bar-10oz"}); err != nil || u != "https://www.apmex.com/product/10oz" {
			t.Errorf("apmex listing %q %v", u, err)
		}
		// A demo pair goes to the dealer's site.
		var demoProduct string
		for _, p := range metals.Products {
			if demoCarries(BuiltInDealers[1], p) {
				demoProduct = p.ID
				break
			}
		}
		if u, err := svc.Click(ctx, ClickInput{Dealer: "jm-bullion", ProductID: demoProduct}); err != nil || u != "https://www.jmbullion.com/" {
			t.Errorf("demo pair %q %v", u, err)
		}
		for _, in := range []ClickInput{
			{Dealer: "//evil.example", ProductID: "gold-bar-1oz"},
			{Dealer: "https://evil.example/", ProductID: "gold-bar-1oz"},
			{Dealer: "coin-shop", ProductID: "javascript:alert(1)"},
			{Dealer: "javascript:alert(1)", ProductID: "//evil.example"},
			{Dealer: "nobody", ProductID: "gold-bar-1oz"},
			{Dealer: "coin-shop", ProductID: "silver-bar-10oz"}, // not carried: an imported dealer has no demo assortment
			{Dealer: "", ProductID: ""},
		} {
			u, err := svc.Click(ctx, in)
			if apperr.KindOf(err) != apperr.Invalid || u != "" {
				t.Errorf("%+v → %q %v", in, u, err)
			}
		}
		rows, _ := s.DealerClicks(ctx, time.Time{})
		if len(rows) != 3 || rows[0].Referrer != "ounce.example/dealers" || rows[0].Via != ViaWeb || rows[1].Via != ViaAPI {
			t.Fatalf("logged %+v", rows)
		}
		counts, err := svc.ClickCounts(ctx, time.Time{})
		if err != nil || len(counts) != 3 || counts[0].Clicks != 1 {
			t.Errorf("counts %+v %v", counts, err)
		}
	})
}

// TestImportValidatesEveryRow: a file with problems changes nothing and names every bad row.
func TestImportValidatesEveryRow(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		svc := New(Deps{Store: s})
		bad := `{
		 "dealers": [
		   {"slug": "Good Shop", "name": "x", "site": "https://a.example/"},
		   {"slug": "ok-shop", "name": "OK Shop", "site": "//evil.example/", "affiliate_url_template": "https://aff.example/"},
		   {"slug": "js-shop", "name": "JS", "site": "javascript:alert(1)", "affiliate_url_template": "javascript:{url}"},
		   {"slug": "fine-shop", "name": "Fine Shop", "site": "https://fine.example/"}
		 ],
		 "products": [
		   {"id": "silver-american-eagle-1oz", "name": "Eagle", "metal": "silver", "weight_oz": 1, "form": "coin", "purity": 0.999},
		   {"id": "silver-libertad-1oz", "name": "Libertad", "metal": "copper", "weight_oz": "0", "form": "ingot", "purity": 1.5}
		 ],
		 "listings": [
		   {"dealer": "fine-shop", "product": "gold-bar-1oz", "url": "https://evil.example/gold"},
		   {"dealer": "fine-shop", "product": "no-such", "url": "/relative"},
		   {"dealer": "ghost", "product": "gold-bar-1oz", "url": "https://fine.example/x"}
		 ],
		 "feeds": [
		   {"dealer": "fine-shop", "url": "ftp://fine.example/f", "items_path": "a..b", "fields": {"sku": "", "price": "p"}, "skus": {"S1": "nope"}}
		 ]
		}`
		_, err := svc.Import(ctx, []byte(bad))
		rows := ImportErrors(err)
		var got []string
		for _, r := range rows {
			got = append(got, r.Row+"."+r.Field)
		}
		want := "dealers[0].slug dealers[1].site dealers[1].affiliate_url_template dealers[2].site dealers[2].affiliate_url_template " +
			"products[0].id products[1].metal products[1].weight_oz products[1].form products[1].purity " +
			"listings[0].url listings[1].product listings[1].url listings[2].dealer " +
			"feeds[0].url feeds[0].items_path feeds[0].fields.sku feeds[0].skus.S1"
		if strings.Join(got, " ") != want {
			t.Errorf("errors\n%s\nwant\n%s", strings.Join(got, " "), want)
		}
		if cat, _ := s.DealerCatalogue(ctx); len(cat.Dealers)+len(cat.Products)+len(cat.Listings)+len(cat.Feeds) != 0 {
			t.Fatalf("a failed import stored %+v", cat)
		}
		for _, file := range []string{`{}`, `{"dealers": [], "extra": 1}`, `not json`, `{"dealers":[]} {"x":1}`} {
			if rows := ImportErrors(func() error { _, err := svc.Import(ctx, []byte(file)); return err }()); len(rows) != 1 || rows[0].Row != "file" {
				t.Errorf("%s: %+v", file, rows)
			}
		}
		// A good file: a product of its own, listed and fed, usable at once.
		good := `{"dealers":[{"slug":"fine-shop","name":"Fine Shop","site":"https://www.fine.example/","affiliate_url_template":"{url}"}],
		  "products":[{"id":"silver-libertad-1oz","name":"Mexican Silver Libertad 1 oz","metal":"silver","weight_oz":"1","form":"coin","purity":"0.999"}],
		  "listings":[{"dealer":"fine-shop","product":"silver-libertad-1oz","url":"https://fine.example/libertad"}],
		  "feeds":[{"dealer":"fine-shop","url":"https://feeds.other.example/p.json","items_path":"","fields":{"sku":"id","price":"p"},"skus":{"L1":"silver-libertad-1oz"}}]}`
		res, err := svc.Import(ctx, []byte(good))
		if err != nil || res != (ImportResult{1, 1, 1, 1}) {
			t.Fatalf("good import %+v %v %v", res, err, ImportErrors(err))
		}
		tracked, err := svc.Products(ctx, metals.Silver)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, tp := range tracked {
			if tp.Product.ID == "silver-libertad-1oz" {
				found = len(tp.Dealers) == 1 && tp.Dealers[0].Slug == "fine-shop" && !tp.Product.FineOz.Equal(decimal.Zero)
			}
		}
		if !found {
			t.Error("imported product not tracked")
		}
	})
}

// TestFixturesAreOurs guards the promise in testdata/README.md: every fixture is listed there.
func TestFixturesAreOurs(t *testing.T) {
	readme, _ := os.ReadFile(filepath.Join("testdata", "README.md"))
	entries, _ := os.ReadDir(filepath.Join("testdata", "pages"))
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "bad-") && !strings.Contains(string(readme), "pages/"+e.Name()) {
			t.Errorf("%s is not described in testdata/README.md", e.Name())
		}
	}
}

// TestAffiliateTemplateForms: a template starting with {url} appends its parameters to the
// product URL kept as it is; one starting with a scheme wraps the URL query-escaped; anything
// else is refused at import, naming the field.
func TestAffiliateTemplateForms(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		svc := New(Deps{Store: s, Config: Config{Offline: true}})
		imp := `{"dealers":[
			{"slug":"tag-shop","name":"Tag Shop","site":"https://tag.example/","affiliate_url_template":"{url}?ref=import"},
			{"slug":"amp-shop","name":"Amp Shop","site":"https://amp.example/","affiliate_url_template":"{url}&ref=import&x=1"},
			{"slug":"wrap-shop","name":"Wrap Shop","site":"https://wrap.example/","affiliate_url_template":"https://aff.example/go?u={url}&id=7"}],
			"listings":[
			{"dealer":"tag-shop","product":"gold-bar-1oz","url":"https://tag.example/gold/1oz"},
			{"dealer":"tag-shop","product":"silver-bar-10oz","url":"https://tag.example/p?id=10#buy"},
			{"dealer":"amp-shop","product":"gold-bar-1oz","url":"https://amp.example/gold?sku=G1"},
			{"dealer":"wrap-shop","product":"gold-bar-1oz","url":"https://wrap.example/gold?sku=G1"}]}`
		if _, err := svc.Import(ctx, []byte(imp)); err != nil {
			t.Fatal(err, ImportErrors(err))
		}
		for _, c := range []struct{ dealer, product, want string }{
			{"tag-shop", "gold-bar-1oz", "https://tag.example/gold/1oz?ref=import"},
			{"tag-shop", "silver-bar-10oz", "https://tag.example/p?id=10&ref=import#buy"},
			{"amp-shop", "gold-bar-1oz", "https://amp.example/gold?sku=G1&ref=import&x=1"},
			{"wrap-shop", "gold-bar-1oz", "https://aff.example/go?u=https%3A%2F%2Fwrap.example%2Fgold%3Fsku%3DG1&id=7"},
		} {
			if u, err := svc.Click(ctx, ClickInput{Dealer: c.dealer, ProductID: c.product}); err != nil || u != c.want {
				t.Errorf("%s %s → %q %v, want %q", c.dealer, c.product, u, err, c.want)
			}
		}
		for _, tmpl := range []string{"{url}ref=x", "{url}/x", "{url}.evil.example/", "{url}#x", "x{url}", "ftp://a.example/{url}", "{url}?a={url}"} {
			file := `{"dealers":[{"slug":"bad-shop","name":"Bad","site":"https://bad.example/","affiliate_url_template":` + strconv.Quote(tmpl) + `}]}`
			rows := ImportErrors(func() error { _, err := svc.Import(ctx, []byte(file)); return err }())
			if len(rows) != 1 || rows[0].Field != "affiliate_url_template" {
				t.Errorf("%s: %+v", tmpl, rows)
			}
		}
	})
}
