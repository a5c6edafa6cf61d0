package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ouncehq/ounce/db"
)

func writeFile(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func openTestStore(t *testing.T, dir string) *db.Store {
	t.Helper()
	s, err := db.Open(context.Background(), "", filepath.Join(dir, "ounce.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// TestDealersImportCommand: a file with any bad row is exit 2, lists every problem and stores
// nothing; a good file is stored.
func TestDealersImportCommand(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("OUNCE_DATA_DIR", dir)
	t.Setenv("DATABASE_URL", "")
	bad := writeFile(t, "bad.json", `{"dealers":[{"slug":"good-shop","name":"Good Shop","site":"https://good.example/"}],
		"listings":[{"dealer":"good-shop","product":"gold-bar-1oz","url":"javascript:alert(1)"},{"dealer":"good-shop","product":"nope","url":"https://good.example/x"}]}`)
	_, err := runCLI(t, "", "dealers", "import", bad)
	if !isUsage(err) || !strings.Contains(err.Error(), "2 problem(s), nothing was imported") ||
		!strings.Contains(err.Error(), "listings[0].url: must start with https:// or http://") || !strings.Contains(err.Error(), "listings[1].product") {
		t.Fatalf("bad import: %v", err)
	}
	s := openTestStore(t, dir)
	if cat, err := s.DealerCatalogue(context.Background()); err != nil || len(cat.Dealers) != 0 {
		t.Fatalf("bad import stored %+v %v", cat, err)
	}
	good := writeFile(t, "good.json", `{"dealers":[{"slug":"good-shop","name":"Good Shop","site":"https://good.example/","affiliate_url_template":"{url}"}],
		"listings":[{"dealer":"good-shop","product":"gold-bar-1oz","url":"https://good.example/gold-bar"}]}`)
	out, err := runCLI(t, "", "dealers", "import", good)
	if err != nil || !strings.Contains(out, "1 dealers, 0 products, 1 listings, 0 feeds") {
		t.Fatalf("good import: %q %v", out, err)
	}
	if _, err := runCLI(t, "", "dealers", "import"); !isUsage(err) {
		t.Errorf("no file: %v", err)
	}
	if _, err := runCLI(t, "", "dealers", "import", filepath.Join(dir, "missing.json")); !isUsage(err) {
		t.Errorf("missing file: %v", err)
	}
}

// TestDealersFetchAndClicksCommands runs one fetch pass against a loopback dealer site (and a
// loopback price provider, so the premium is measured against a live spot) and reports clicks.
func TestDealersFetchAndClicksCommands(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("OUNCE_DATA_DIR", dir)
	t.Setenv("DATABASE_URL", "")
	page, err := os.ReadFile("../../internal/dealers/testdata/pages/sd-bullion.html")
	if err != nil {
		t.Fatal(err)
	}
	var ua string
	shop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			_, _ = w.Write([]byte("User-agent: *\nDisallow: /cart\n"))
		case "/eagle":
			ua = r.Header.Get("User-Agent")
			_, _ = w.Write(page)
		default:
			http.NotFound(w, r)
		}
	}))
	defer shop.Close()
	spot := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		prices := map[string]string{"XAU": "4405.80", "XAG": "64.00", "XPT": "1921.60", "XPD": "1724.50"}
		sym := strings.TrimPrefix(r.URL.Path, "/price/")
		p, ok := prices[sym]
		if !ok {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintf(w, `{"currency":"USD","name":"x","price":%s,"symbol":"%s","updatedAt":"%s"}`, p, sym, time.Now().UTC().Format(time.RFC3339))
	}))
	defer spot.Close()
	t.Setenv("OUNCE_PRICE_PROVIDERS", "gold-api")
	t.Setenv("OUNCE_PRICE_BASE_URLS", "gold-api="+spot.URL)
	t.Setenv("OUNCE_CONTACT_EMAIL", "ops@ounce.example")

	imp := writeFile(t, "shop.json", fmt.Sprintf(`{"dealers":[{"slug":"sd-bullion","name":"SD Bullion","site":"%s/","affiliate_url_template":"{url}"}],
		"listings":[{"dealer":"sd-bullion","product":"silver-american-eagle-1oz","url":"%s/eagle"}]}`, shop.URL, shop.URL))
	if _, err := runCLI(t, "", "dealers", "import", imp); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OUNCE_OFFLINE", "true")
	if _, err := runCLI(t, "", "dealers", "fetch"); err == nil || !strings.Contains(err.Error(), "offline") {
		t.Fatalf("offline fetch: %v", err)
	}
	t.Setenv("OUNCE_OFFLINE", "")
	out, err := runCLI(t, "", "dealers", "fetch")
	if err != nil {
		t.Fatalf("fetch: %v\n%s", err, out)
	}
	if !strings.Contains(out, "1 sources, 0 failed, 1 quotes stored, 0 outliers dropped") || !strings.Contains(out, "sd-bullion") {
		t.Fatalf("summary:\n%s", out)
	}
	if !strings.HasPrefix(ua, "Ounce/") || !strings.Contains(ua, "ops@ounce.example") {
		t.Errorf("User-Agent %q", ua)
	}
	s := openTestStore(t, dir)
	ctx := context.Background()
	quotes, err := s.DealerQuotesSince(ctx, time.Now().Add(-time.Hour))
	if err != nil || len(quotes) != 1 || quotes[0].Price.String() != "76.97" {
		t.Fatalf("stored %+v %v", quotes, err)
	}
	hist, err := s.DealerObservations(ctx, "silver-american-eagle-1oz", db.NewDate(time.Now().AddDate(0, 0, -1)))
	if err != nil || len(hist) != 1 || hist[0].PremiumPct.StringFixed(2) != "20.27" {
		t.Fatalf("history %+v %v", hist, err)
	}

	for _, c := range []db.DealerClickRow{{Dealer: "sd-bullion", Product: "silver-american-eagle-1oz", Via: "web"}, {Dealer: "sd-bullion", Product: "gold-bar-1oz", Via: "api"},
		{Dealer: "apmex", Product: "gold-bar-1oz", Via: "api", ClickedAt: time.Now().AddDate(0, 0, -40)}} {
		if _, err := s.InsertDealerClick(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	out, err = runCLI(t, "", "dealers", "clicks", "--since", "7d")
	if err != nil || !strings.Contains(out, "SD Bullion  sd-bullion  2") || strings.Contains(out, "apmex") || !strings.Contains(out, "total") {
		t.Fatalf("clicks:\n%s %v", out, err)
	}
	out, err = runCLI(t, "", "dealers", "clicks", "--since", time.Now().AddDate(0, 0, -60).Format(time.DateOnly))
	if err != nil || !strings.Contains(out, "apmex") {
		t.Fatalf("clicks since a date:\n%s %v", out, err)
	}
	if _, err := runCLI(t, "", "dealers", "clicks", "--since", "last week"); !isUsage(err) {
		t.Errorf("bad --since: %v", err)
	}
}

func TestDealerConfig(t *testing.T) {
	t.Setenv("OUNCE_QUOTE_INTERVAL", "5s")
	if _, err := loadConfig(nil, nil); err == nil || !strings.Contains(err.Error(), "OUNCE_QUOTE_INTERVAL") {
		t.Errorf("short interval: %v", err)
	}
	t.Setenv("OUNCE_QUOTE_INTERVAL", "15m")
	t.Setenv("OUNCE_QUOTE_MAX_AGE", "soon")
	if _, err := loadConfig(nil, nil); err == nil || !strings.Contains(err.Error(), "OUNCE_QUOTE_MAX_AGE") {
		t.Errorf("bad max age: %v", err)
	}
	t.Setenv("OUNCE_QUOTE_MAX_AGE", "6h")
	t.Setenv("OUNCE_CONTACT_EMAIL", "not an address")
	if _, err := loadConfig(nil, nil); err == nil || !strings.Contains(err.Error(), "OUNCE_CONTACT_EMAIL") {
		t.Errorf("bad contact: %v", err)
	}
	t.Setenv("OUNCE_CONTACT_EMAIL", "ops@ounce.example")
	c, err := loadConfig(nil, nil)
	if err != nil || c.App.Dealers.Interval != 15*time.Minute || c.App.Dealers.MaxAge != 6*time.Hour || c.App.Dealers.ContactEmail != "ops@ounce.example" {
		t.Errorf("config %+v %v", c.App.Dealers, err)
	}
}
