package web_test

import (
	"bufio"
	"context"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/app"
	"github.com/ouncehq/ounce/internal/metals"
)

var liveAt = time.Date(2026, 11, 20, 15, 30, 0, 0, time.UTC) // a Friday afternoon, COMEX open

func livePrices(o *app.Options) {
	setPrices(o.Market, liveAt, map[metals.Metal][2]string{
		metals.Gold: {"2000.00", "1990.00"}, metals.Silver: {"31.20", "30.00"},
		metals.Platinum: {"1000.00", "1010.00"}, metals.Palladium: {"1000.00", "1000.00"},
	})
}

func marketEnv(t *testing.T, s *db.Store, live bool) *env {
	return newEnv(t, s, func(o *app.Options) {
		o.Now = func() time.Time { return liveAt.Add(10 * time.Second) }
		withMarket(t)(o)
		if live {
			livePrices(o)
		}
	})
}

func TestSpotPricesFromMemoryWithValidators(t *testing.T) {
	e := marketEnv(t, sqliteStore(t), true)
	r := e.api("GET", "/v1/prices", "", nil)
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	body := r.JSON(t)
	silver := body["prices"].(map[string]any)["silver"].(map[string]any)
	want := map[string]any{"metal": "silver", "symbol": "XAG", "price": 31.2, "prev_close": 30.0, "change": 1.2, "change_pct": 4.0, "source": "test-feed", "stale": false}
	for k, v := range want {
		if silver[k] != v {
			t.Errorf("silver.%s = %v, want %v", k, silver[k], v)
		}
	}
	if body["markets_open"] != true {
		t.Errorf("markets_open = %v on a Friday afternoon", body["markets_open"])
	}
	etag := r.Header.Get("ETag")
	cc := r.Header.Get("Cache-Control")
	if etag == "" || !strings.Contains(cc, "max-age=60") {
		t.Fatalf("validators: etag %q cache-control %q", etag, cc)
	}
	req := httptest.NewRequest("GET", "/v1/prices", nil)
	req.Header.Set("If-None-Match", etag)
	if r := e.do(req); r.Status != 304 {
		t.Fatalf("conditional GET: %d", r.Status)
	}
	// A new tick changes the ETag.
	setPrices(e.app.Market, liveAt.Add(time.Minute), map[metals.Metal][2]string{metals.Silver: {"31.50", "30.00"}})
	if r := e.api("GET", "/v1/prices", "", nil); r.Header.Get("ETag") == etag {
		t.Fatal("ETag unchanged after a new tick")
	}
}

func TestSpotPricesOfflineAreStaleAndSourced(t *testing.T) {
	e := marketEnv(t, sqliteStore(t), false)
	body := e.api("GET", "/v1/prices", "", nil).JSON(t)
	for _, m := range metals.Names() {
		p, ok := body["prices"].(map[string]any)[m].(map[string]any)
		if !ok {
			t.Fatalf("%s missing", m)
		}
		if p["stale"] != true || !strings.Contains(p["source"].(string), "embedded history") || p["as_of"] == nil {
			t.Fatalf("%s offline = %v", m, p)
		}
	}
	gold := body["prices"].(map[string]any)["gold"].(map[string]any)
	if gold["price"] != 4405.8 || !strings.HasPrefix(gold["as_of"].(string), "2026-08-17") {
		t.Fatalf("gold offline = %v (want the last LBMA PM close, 2026-08-17)", gold)
	}
}

func TestPriceHistory(t *testing.T) {
	e := marketEnv(t, sqliteStore(t), false)
	for _, c := range []struct{ q, field string }{
		{"", "metal"}, {"metal=tin", "metal"}, {"metal=gold&range=2Y", "range"}, {"metal=gold&max_points=1", "max_points"},
		{"metal=gold&max_points=10001", "max_points"}, {"metal=gold&max_points=ten", "max_points"},
	} {
		r := e.api("GET", "/v1/prices/history?"+c.q, "", nil)
		errs, _ := r.JSON(t)["errors"].([]any)
		if r.Status != 400 || len(errs) == 0 || errs[0].(map[string]any)["field"] != c.field {
			t.Errorf("%q: %d %s", c.q, r.Status, r.Body)
		}
	}
	r := e.api("GET", "/v1/prices/history?metal=gold&range=ALL&max_points=300", "", nil)
	h := r.JSON(t)
	pts := h["points"].([]any)
	if h["from"] != "1950-01-01" || h["granularity"] != "monthly+daily" || h["count"] != float64(len(pts)) || len(pts) > 300 || len(pts) < 250 || h["unit"] != "USD/oz" {
		t.Fatalf("ALL: from %v gran %v count %v", h["from"], h["granularity"], h["count"])
	}
	prev := ""
	for _, p := range pts {
		d := p.(map[string]any)["date"].(string)
		if d <= prev {
			t.Fatalf("not ascending at %s", d)
		}
		prev = d
	}
	def := e.api("GET", "/v1/prices/history?metal=silver", "", nil).JSON(t)
	if def["range"] != "1Y" || def["granularity"] != "daily" || def["count"].(float64) < 150 {
		t.Fatalf("default range: %v %v %v", def["range"], def["granularity"], def["count"])
	}
}

func TestJunkSilverHandComputed(t *testing.T) {
	e := marketEnv(t, sqliteStore(t), true)
	// Silver at $31.20. Uncirculated: 10 dimes = 0.7234 oz = $22.57008 → $22.57; all coins
	// together 4.51254 oz over $6.50 face, and the total is the sum of the six lines shown,
	// 3 × 22.57 + 13.85 + 24.13 + 35.11 = $140.80 (the exact $140.791248 rounded once gave
	// $140.79, a cent short of the lines beside it).
	r := e.api("GET", "/v1/junk-silver?dimes=10&quarters=4&half_dollars=2&kennedy_40=3&dollars=1&war_nickels=20", "", nil)
	b := r.JSON(t)
	if r.Status != 200 || b["total_silver_oz"] != 4.51254 || b["total_melt_value"] != 140.8 || b["total_face_value"] != 6.5 || b["melt_per_face_dollar"] != 21.66 || b["basis"] != "uncirculated" {
		t.Fatalf("totals: %s", r.Body)
	}
	coins := b["coins"].([]any)
	want := map[string][3]float64{ // face, silver oz, melt
		"dimes": {1, 0.7234, 22.57}, "quarters": {1, 0.72336, 22.57}, "half_dollars": {1, 0.72338, 22.57},
		"kennedy_40": {1.5, 0.44376, 13.85}, "dollars": {1, 0.77344, 24.13}, "war_nickels": {1, 1.1252, 35.11},
	}
	if len(coins) != 6 {
		t.Fatalf("coins: %v", coins)
	}
	for _, c := range coins {
		m := c.(map[string]any)
		w := want[m["type"].(string)]
		if m["face_value"] != w[0] || m["silver_oz"] != w[1] || m["melt_value"] != w[2] {
			t.Errorf("%v: got face %v oz %v melt %v, want %v", m["type"], m["face_value"], m["silver_oz"], m["melt_value"], w)
		}
	}
	// Circulated: worn dimes at 0.715 oz per $1 face → 10 dimes = 0.715 oz = $22.308.
	b = e.api("GET", "/v1/junk-silver?dimes=10&dollars=1&basis=circulated", "", nil).JSON(t)
	c0 := b["coins"].([]any)[0].(map[string]any)
	if c0["silver_oz_per_coin"] != 0.0715 || c0["melt_value"] != 22.31 || b["coins"].([]any)[1].(map[string]any)["silver_oz"] != 0.77344 {
		t.Fatalf("circulated: %v", b)
	}
	// No parameters: zeros, 200.
	b = e.api("GET", "/v1/junk-silver", "", nil).JSON(t)
	if b["total_melt_value"] != 0.0 || len(b["coins"].([]any)) != 0 || b["spot"].(map[string]any)["price"] != 31.2 {
		t.Fatalf("empty: %v", b)
	}
	// By face value: $10 face of worn 90% coins is 7.15 oz = $223.08 at $31.20.
	b = e.api("GET", "/v1/junk-silver?face_90=10&basis=circulated", "", nil).JSON(t)
	if f := b["face"].([]any); len(f) != 1 || f[0].(map[string]any)["type"] != "face_90" || b["total_silver_oz"] != 7.15 || b["total_melt_value"] != 223.08 || b["total_face_value"] != 10.0 {
		t.Fatalf("by face: %v", b)
	}
	for _, q := range []string{"dimes=-1", "quarters=1.5", "dollars=abc", "war_nickels=10000001", "basis=worn", "face_90=ten", "face_40=-5", "face_90=0.001"} {
		field := strings.SplitN(q, "=", 2)[0]
		r := e.api("GET", "/v1/junk-silver?"+q, "", nil)
		errs, _ := r.JSON(t)["errors"].([]any)
		if r.Status != 400 || len(errs) == 0 || errs[0].(map[string]any)["field"] != field {
			t.Errorf("%s: %d %s", q, r.Status, r.Body)
		}
	}
}

func TestSpeculationHandComputed(t *testing.T) {
	eachEngine(t, func(o *app.Options) {
		o.Now = func() time.Time { return liveAt.Add(10 * time.Second) }
		withMarket(t)(o)
		livePrices(o)
	}, func(t *testing.T, e *env) {
		_, key := e.user("spec@example.com", db.TierGold)
		e.api("POST", "/v1/holdings", key, map[string]any{"metal": "silver", "quantity": 10, "weight_oz": 1, "purchase_price": 20})
		e.api("POST", "/v1/holdings", key, map[string]any{"metal": "gold", "quantity": 5, "weight_oz": 0.1, "purchase_price": 150})
		anon := e.api("GET", "/v1/speculation?silver=62.40", "", nil).JSON(t)
		if anon["portfolio"] != nil || anon["multipliers"].(map[string]any)["silver"] != 2.0 || anon["targets"].(map[string]any)["gold"] != 2000.0 {
			t.Fatalf("anonymous: %v", anon)
		}
		bull := anon["scenarios"].(map[string]any)["bull"].(map[string]any)
		if bull["gold"] != 2500.0 || bull["silver"] != 39.0 {
			t.Fatalf("bull scenario: %v", bull)
		}
		// 10 oz silver 31.20→62.40 and 0.5 oz gold at 2000: 312 + 1000 = 1312 → 624 + 1000 = 1624.
		p := e.api("GET", "/v1/speculation?silver=62.40", key, nil).JSON(t)["portfolio"].(map[string]any)
		if p["current_value"] != 1312.0 || p["projected_value"] != 1624.0 || p["gain"] != 312.0 || p["gain_pct"] != 23.78 {
			t.Fatalf("portfolio: %v", p)
		}
		if s := p["metals"].(map[string]any)["silver"].(map[string]any); s["oz"] != 10.0 || s["projected_value"] != 624.0 {
			t.Fatalf("silver line: %v", s)
		}
		for _, q := range []string{"gold=0", "gold=-5", "silver=abc", "platinum=10000001"} {
			field := strings.SplitN(q, "=", 2)[0]
			r := e.api("GET", "/v1/speculation?"+q, "", nil)
			errs, _ := r.JSON(t)["errors"].([]any)
			if r.Status != 400 || len(errs) == 0 || errs[0].(map[string]any)["field"] != field {
				t.Errorf("%s: %d %s", q, r.Status, r.Body)
			}
		}
	})
}

func TestMarketsPagesAndCalculatorFragments(t *testing.T) {
	e := marketEnv(t, sqliteStore(t), true)
	d := doc(t, e.do(httptest.NewRequest("GET", "/markets", nil)))
	if got := d.Find(`[data-metal-price="silver"]`).Text(); got != "$31.20" {
		t.Fatalf("silver card = %q", got)
	}
	if d.Find("#price-ticker[sse-swap=prices]").Length() != 1 || d.Find("svg#chart-gold title").First().Text() == "" {
		t.Fatal("ticker not wired to SSE or chart without title")
	}
	req := httptest.NewRequest("GET", "/markets/chart?metal=silver&range=5Y", nil)
	req.Header.Set("HX-Request", "true")
	frag := doc(t, e.do(req))
	if frag.Find("header").Length() != 0 || frag.Find("svg#chart-silver").Length() != 1 {
		t.Fatal("chart fragment")
	}
	req = httptest.NewRequest("GET", "/calculators/junk-silver/result?dimes=10", nil)
	req.Header.Set("HX-Request", "true")
	if body := string(e.do(req).Body); !strings.Contains(body, "$22.57") || strings.Contains(body, "<header") {
		t.Fatalf("junk fragment: %s", body)
	}
	// By face value on the page: $10 face of worn 90% coins, listed with the coins counted.
	req = httptest.NewRequest("GET", "/calculators/junk-silver/result?face_90=%2410&dimes=10&basis=circulated", nil)
	req.Header.Set("HX-Request", "true")
	if body := string(e.do(req).Body); !strings.Contains(body, "7.865 oz of silver in $11.00 face") || !strings.Contains(body, "90% coins by face ($)") {
		t.Fatalf("junk by face fragment: %s", body)
	}
	if d := doc(t, e.do(httptest.NewRequest("GET", "/calculators/junk-silver?face_90=10", nil))); d.Find(`input#f-face_90[name=face_90][value="10"]`).Length() != 1 || d.Find(`input#f-face_40[name=face_40]`).Length() != 1 {
		t.Fatal("the page has no face-value fields, or lost the entered value")
	}
	req = httptest.NewRequest("GET", "/calculators/junk-silver/result?dimes=-2", nil)
	req.Header.Set("HX-Request", "true")
	if body := string(e.do(req).Body); !strings.Contains(body, "Dimes (90%): enter 0 or more dimes.") {
		t.Fatalf("junk error fragment: %s", body)
	}
	if r := e.do(httptest.NewRequest("GET", "/calculators/what-if?gold=4000", nil)); r.Status != 200 || !strings.Contains(string(r.Body), "2.00×") {
		t.Fatalf("what-if page: %d", r.Status)
	}
}

func TestPriceEventsStreamTicks(t *testing.T) {
	e := marketEnv(t, sqliteStore(t), true)
	base := e.live()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", base+"/events/prices", nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("content type %q", res.Header.Get("Content-Type"))
	}
	rd := bufio.NewReader(res.Body)
	next := func() string {
		var ev strings.Builder
		for {
			line, err := rd.ReadString('\n')
			if err != nil {
				t.Fatalf("stream ended: %v", err)
			}
			if line == "\n" && ev.Len() > 0 {
				return ev.String()
			}
			ev.WriteString(line)
		}
	}
	first := next()
	if !strings.HasPrefix(first, "event: prices\n") || !strings.Contains(first, "$31.20") {
		t.Fatalf("first event: %s", first)
	}
	setPrices(e.app.Market, liveAt.Add(time.Minute), map[metals.Metal][2]string{metals.Silver: {"32.85", "30.00"}})
	if ev := next(); !strings.Contains(ev, "$32.85") {
		t.Fatalf("tick not streamed: %s", ev)
	}
}

// A page names the ticker it was rendered with; its stream does not send that same board
// again (a swap of what the page shows), and sends the next tick as usual. A stream without
// the key — or with a stale one — gets the current board at once.
func TestPriceEventsSkipTheBoardThePageShows(t *testing.T) {
	e := marketEnv(t, sqliteStore(t), true)
	base := e.live()
	page, err := http.Get(base + "/markets")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(page.Body)
	page.Body.Close()
	m := regexp.MustCompile(`sse-connect="(/events/prices\?have=[0-9a-z]+)"`).FindSubmatch(body)
	if m == nil {
		t.Fatal("the markets page names no ticker key in its stream URL")
	}
	open := func(path string) (*bufio.Reader, func()) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		req, _ := http.NewRequestWithContext(ctx, "GET", base+path, nil)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return bufio.NewReader(res.Body), func() { res.Body.Close(); cancel() }
	}
	next := func(rd *bufio.Reader) string {
		var ev strings.Builder
		for {
			line, err := rd.ReadString('\n')
			if err != nil {
				t.Fatalf("stream ended: %v", err)
			}
			if line == "\n" && ev.Len() > 0 {
				return ev.String()
			}
			ev.WriteString(line)
		}
	}
	// Without the key (and with a key of another board) the current board comes at once.
	plain, closePlain := open("/events/prices")
	defer closePlain()
	if ev := next(plain); !strings.Contains(ev, "$31.20") {
		t.Fatalf("first event without a key: %s", ev)
	}
	other, closeOther := open("/events/prices?have=0")
	defer closeOther()
	if ev := next(other); !strings.Contains(ev, "$31.20") {
		t.Fatalf("first event with another key: %s", ev)
	}
	// With the page's key, the first event to arrive is the next tick, not the board shown.
	keyed, closeKeyed := open(html.UnescapeString(string(m[1])))
	defer closeKeyed()
	setPrices(e.app.Market, liveAt.Add(time.Minute), map[metals.Metal][2]string{metals.Silver: {"32.85", "30.00"}})
	if ev := next(keyed); !strings.Contains(ev, "$32.85") {
		t.Fatalf("the keyed stream's first event is not the new tick: %s", ev)
	}
}
