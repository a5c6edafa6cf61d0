package main

import (
	"flag"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ouncehq/ounce/internal/app"
	"github.com/ouncehq/ounce/internal/dealers"
	"github.com/ouncehq/ounce/internal/fx"
	"github.com/ouncehq/ounce/internal/outbound"
	"github.com/ouncehq/ounce/internal/prices"
)

// config is every setting, read once from the environment (flags override). Process-level
// settings live here; everything the running service needs is parsed straight into App, whose
// parts internal/app hands whole to the services they configure.
type config struct {
	Addr              string
	DatabaseURL       string
	DataDir           string
	LogLevel          string
	ShutdownTimeout   time.Duration
	RequireMembership bool
	StripeConfigured  bool
	App               app.Config
}

func envDuration(name string, def time.Duration) (time.Duration, error) {
	v := strings.TrimSpace(os.Getenv(name))
	if v == "" {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		if n, err2 := strconv.Atoi(v); err2 == nil {
			d, err = time.Duration(n)*time.Second, nil
		}
	}
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s must be a duration like 60s or 5m, got %q", name, v)
	}
	return d, nil
}

func envBool(name string) (bool, error) {
	v := strings.TrimSpace(os.Getenv(name))
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("%s must be true/false/1/0, got %q", name, v)
	}
	return b, nil
}

func envInt(name string, def int) (int, error) {
	v := strings.TrimSpace(os.Getenv(name))
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s must be a non-negative integer, got %q", name, v)
	}
	return n, nil
}

// intVar is one integer setting: where it goes, its variable and its default when unset.
type intVar struct {
	dst  *int
	name string
	def  int
}

// envInts reads each setting with envInt, in order, stopping at the first bad value.
func envInts(vars ...intVar) error {
	for _, v := range vars {
		n, err := envInt(v.name, v.def)
		if err != nil {
			return err
		}
		*v.dst = n
	}
	return nil
}

func envList(name string) []string {
	var out []string
	for _, p := range strings.Split(os.Getenv(name), ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func envOr(name, def string) string {
	if v := strings.TrimSpace(os.Getenv(name)); v != "" {
		return v
	}
	return def
}

// loadConfig reads the environment, then lets flags on fs override it.
func loadConfig(fs *flag.FlagSet, args []string) (config, error) {
	var c config
	var err error
	app := &c.App
	c.Addr = envOr("OUNCE_ADDR", "127.0.0.1:8080")
	c.DatabaseURL = os.Getenv("DATABASE_URL")
	c.DataDir = envOr("OUNCE_DATA_DIR", "./data")
	c.LogLevel = strings.ToLower(envOr("OUNCE_LOG_LEVEL", "info"))
	if _, ok := logLevels[c.LogLevel]; !ok {
		return c, fmt.Errorf("OUNCE_LOG_LEVEL must be debug, info, warn or error, got %q", c.LogLevel)
	}
	c.ShutdownTimeout = 20 * time.Second
	app.Site.BaseURL = os.Getenv("OUNCE_BASE_URL")
	app.Site.Version = readBuild().Version
	offline, err := envBool("OUNCE_OFFLINE")
	if err != nil {
		return c, err
	}
	if c.RequireMembership, err = envBool("OUNCE_REQUIRE_MEMBERSHIP"); err != nil {
		return c, err
	}
	if app.HTTP.Metrics, err = envBool("OUNCE_METRICS"); err != nil {
		return c, err
	}
	if err := loadBilling(app); err != nil {
		return c, err
	}
	c.StripeConfigured = app.Billing.SecretKey != ""
	app.Site.PaymentsEnabled = c.StripeConfigured
	if err := loadLimits(app); err != nil {
		return c, err
	}
	if err := loadSources(app); err != nil {
		return c, err
	}
	if err := loadReceipts(app); err != nil {
		return c, err
	}
	app.Site.ContactEmail, app.Site.LegalURL = os.Getenv("OUNCE_CONTACT_EMAIL"), os.Getenv("OUNCE_LEGAL_URL")
	if err := loadDealerConfig(app); err != nil {
		return c, err
	}
	if app.Social.AddressKey = os.Getenv("OUNCE_SOCIAL_SECRET"); app.Social.AddressKey != "" && len(app.Social.AddressKey) < 16 {
		return c, fmt.Errorf("OUNCE_SOCIAL_SECRET must be at least 16 characters (it keys the hash of visitor addresses)")
	}
	if err := loadAlerts(app); err != nil {
		return c, err
	}
	if err := loadMailConfig(app); err != nil {
		return c, err
	}
	if err := parseServeFlags(&c, &offline, fs, args); err != nil {
		return c, err
	}
	err = finishConfig(&c, offline)
	return c, err
}

// loadLimits reads the rate limits and the connection and stream caps.
func loadLimits(app *app.Config) error {
	err := envInts(
		intVar{&app.HTTP.RateLimitPerKey, "OUNCE_RATE_LIMIT_PER_KEY", 120},
		intVar{&app.HTTP.RateLimitPerIP, "OUNCE_RATE_LIMIT_PER_IP", 60},
		intVar{&app.HTTP.CostlyPerMember, "OUNCE_RATE_LIMIT_COSTLY", 10},
		intVar{&app.Account.SignUpsPerIP, "OUNCE_SIGNUP_LIMIT_PER_IP", 5},
		// 0 (unset) lets the server derive each cap from the open-file limit.
		intVar{&app.HTTP.MaxConnections, "OUNCE_MAX_CONNECTIONS", 0},
		intVar{&app.HTTP.MaxStreams, "OUNCE_MAX_STREAMS", 0},
		intVar{&app.HTTP.MaxStreamsPerClient, "OUNCE_MAX_STREAMS_PER_CLIENT", 0},
	)
	if err != nil {
		return err
	}
	app.HTTP.TrustedProxies = envList("OUNCE_TRUSTED_PROXIES")
	app.HTTP.CORSOrigins = envList("OUNCE_CORS_ORIGINS")
	return nil
}

// loadSources reads the price providers and the other outside sources.
func loadSources(app *app.Config) error {
	var err error
	app.Prices.Providers = envList("OUNCE_PRICE_PROVIDERS")
	if len(app.Prices.Providers) == 0 {
		app.Prices.Providers = []string{"gold-api"}
	}
	if app.Prices.Interval, err = envDuration("OUNCE_PRICE_INTERVAL", time.Minute); err != nil {
		return err
	}
	if app.Prices.Interval < 10*time.Second {
		return fmt.Errorf("OUNCE_PRICE_INTERVAL must be at least 10s, got %s", app.Prices.Interval)
	}
	app.Prices.Keys = prices.Keys{MetalsDev: os.Getenv("OUNCE_METALSDEV_KEY"), MetalpriceAPI: os.Getenv("OUNCE_METALPRICEAPI_KEY"), GoldAPI: os.Getenv("OUNCE_GOLDAPI_KEY"), BaseURLs: map[string]string{}}
	for _, kv := range envList("OUNCE_PRICE_BASE_URLS") {
		name, u, ok := strings.Cut(kv, "=")
		if !ok || !strings.HasPrefix(u, "http") {
			return fmt.Errorf("OUNCE_PRICE_BASE_URLS wants provider=http://host entries, got %q", kv)
		}
		app.Prices.Keys.BaseURLs[strings.TrimSpace(name)] = strings.TrimSpace(u)
	}
	switch h := strings.ToLower(envOr("OUNCE_HISTORY", "full")); h {
	case "full":
	case "open":
		app.Prices.OpenHistoryOnly = true
	default:
		return fmt.Errorf("OUNCE_HISTORY must be full or open, got %q", h)
	}
	app.News.Feeds = os.Getenv("OUNCE_NEWS_FEEDS")
	if app.Intel.Interval, err = envDuration("OUNCE_INTEL_INTERVAL", time.Hour); err != nil {
		return err
	}
	app.Intel.LLMBaseURL, app.Intel.LLMModel, app.Intel.LLMAPIKey = os.Getenv("OUNCE_LLM_BASE_URL"), os.Getenv("OUNCE_LLM_MODEL"), os.Getenv("OUNCE_LLM_API_KEY")
	if (app.Intel.LLMBaseURL == "") != (app.Intel.LLMModel == "") {
		return fmt.Errorf("OUNCE_LLM_BASE_URL and OUNCE_LLM_MODEL go together")
	}
	app.Vault.BaseURL = os.Getenv("OUNCE_CME_BASE_URL")
	if app.FX.URL = envOr("OUNCE_FX_URL", fx.DefaultURL); !strings.HasPrefix(app.FX.URL, "https://") && !strings.HasPrefix(app.FX.URL, "http://") {
		return fmt.Errorf("OUNCE_FX_URL must be an http(s) URL, got %q", app.FX.URL)
	}
	return nil
}

// loadReceipts reads the limits of receipt scanning.
func loadReceipts(app *app.Config) error {
	err := envInts(
		intVar{&app.Receipts.FreeScans, "OUNCE_RECEIPT_FREE_SCANS", 5},
		intVar{&app.Receipts.GoldScansPerHour, "OUNCE_RECEIPT_GOLD_SCANS_PER_HOUR", 60},
	)
	if err != nil {
		return err
	}
	if app.Receipts.ToolTimeout, err = envDuration("OUNCE_RECEIPT_TOOL_TIMEOUT", 20*time.Second); err != nil {
		return err
	}
	if app.Receipts.ScanTimeout, err = envDuration("OUNCE_RECEIPT_SCAN_TIMEOUT", 60*time.Second); err != nil {
		return err
	}
	if app.Receipts.ToolMemoryMB, err = envInt("OUNCE_RECEIPT_TOOL_MEMORY_MB", 1024); err != nil {
		return err
	}
	if app.Receipts.ToolMemoryMB < 128 {
		return fmt.Errorf("OUNCE_RECEIPT_TOOL_MEMORY_MB must be at least 128, got %d", app.Receipts.ToolMemoryMB)
	}
	return nil
}

// loadAlerts reads the delivery settings of price alerts.
func loadAlerts(app *app.Config) error {
	var err error
	app.Alerts.ExpoAccessToken, app.Alerts.ExpoAPIURL = os.Getenv("OUNCE_EXPO_ACCESS_TOKEN"), os.Getenv("OUNCE_EXPO_API_URL")
	if u := app.Alerts.ExpoAPIURL; u != "" && !strings.HasPrefix(u, "https://") && !strings.HasPrefix(u, "http://") {
		return fmt.Errorf("OUNCE_EXPO_API_URL must be an http(s) URL, got %q", u)
	}
	if app.Alerts.AllowPrivate, err = outbound.ParseAllow(os.Getenv("OUNCE_PUSH_ALLOW_PRIVATE")); err != nil {
		return fmt.Errorf("OUNCE_PUSH_ALLOW_PRIVATE must be comma-separated CIDRs: %v", err)
	}
	return nil
}

// parseServeFlags lets serve's flags (fs, nil for other commands) override the environment.
func parseServeFlags(c *config, offline *bool, fs *flag.FlagSet, args []string) error {
	app := &c.App
	if fs != nil {
		fs.StringVar(&c.Addr, "addr", c.Addr, "listen address (OUNCE_ADDR)")
		fs.StringVar(&c.DatabaseURL, "database-url", c.DatabaseURL, "postgres:// URL; empty for embedded SQLite (DATABASE_URL)")
		fs.StringVar(&c.DataDir, "data-dir", c.DataDir, "directory of the embedded database (OUNCE_DATA_DIR)")
		fs.StringVar(&app.Site.BaseURL, "base-url", app.Site.BaseURL, "public URL of this service (OUNCE_BASE_URL)")
		fs.BoolVar(offline, "offline", *offline, "never touch the network (OUNCE_OFFLINE)")
		fs.BoolVar(&app.HTTP.Metrics, "metrics", app.HTTP.Metrics, "serve /metrics (OUNCE_METRICS)")
		if err := fs.Parse(args); err != nil {
			return err
		}
		if fs.NArg() > 0 {
			return fmt.Errorf("unexpected argument %q", fs.Arg(0))
		}
	}
	return nil
}

// finishConfig derives what follows from the settings read and checks the address, the base
// URL and the trusted proxies.
func finishConfig(c *config, offline bool) error {
	app := &c.App
	app.SetOffline(offline)
	app.Account.NewUsersGold = !c.RequireMembership && !c.StripeConfigured
	if _, _, err := net.SplitHostPort(c.Addr); err != nil {
		return fmt.Errorf("OUNCE_ADDR %q is not host:port", c.Addr)
	}
	if app.Site.BaseURL == "" {
		app.Site.BaseURL = "http://" + c.Addr
	}
	app.Site.BaseURL = strings.TrimRight(app.Site.BaseURL, "/")
	if !strings.HasPrefix(app.Site.BaseURL, "http://") && !strings.HasPrefix(app.Site.BaseURL, "https://") {
		return fmt.Errorf("OUNCE_BASE_URL must start with http:// or https://")
	}
	for _, p := range app.HTTP.TrustedProxies {
		if net.ParseIP(p) == nil {
			if _, _, err := net.ParseCIDR(p); err != nil {
				return fmt.Errorf("OUNCE_TRUSTED_PROXIES: %q is neither an IP nor a CIDR", p)
			}
		}
	}
	return nil
}

// sqlitePath is where the embedded database lives.
func (c config) sqlitePath() string { return filepath.Join(c.DataDir, "ounce.db") }

// loadDealerConfig reads the dealer-price settings: how often quotes are fetched, how old a
// shown quote may be, and the contact address the fetcher names to dealer sites.
func loadDealerConfig(app *app.Config) error {
	var err error
	if app.Dealers.Interval, err = envDuration("OUNCE_QUOTE_INTERVAL", dealers.DefaultInterval); err != nil {
		return err
	}
	if app.Dealers.Interval < dealers.MinInterval {
		return fmt.Errorf("OUNCE_QUOTE_INTERVAL must be at least 10s, got %s", app.Dealers.Interval)
	}
	if app.Dealers.MaxAge, err = envDuration("OUNCE_QUOTE_MAX_AGE", dealers.DefaultMaxAge); err != nil {
		return err
	}
	app.Dealers.ContactEmail = strings.TrimSpace(os.Getenv("OUNCE_CONTACT_EMAIL"))
	if e := app.Dealers.ContactEmail; e != "" && (!strings.Contains(e, "@") || strings.ContainsAny(e, " ()<>;\r\n")) {
		return fmt.Errorf("OUNCE_CONTACT_EMAIL must be an email address, got %q", e)
	}
	return nil
}

// loadBilling reads the OUNCE_STRIPE_* settings. They stand together: a secret key without a
// plan price or webhook secret would take money without granting Gold, so that is an error.
func loadBilling(app *app.Config) error {
	b := &app.Billing
	b.SecretKey = strings.TrimSpace(os.Getenv("OUNCE_STRIPE_SECRET_KEY"))
	b.WebhookSecret = strings.TrimSpace(os.Getenv("OUNCE_STRIPE_WEBHOOK_SECRET"))
	b.PriceMonthly = strings.TrimSpace(os.Getenv("OUNCE_STRIPE_PRICE_MONTHLY"))
	b.PriceYearly = strings.TrimSpace(os.Getenv("OUNCE_STRIPE_PRICE_YEARLY"))
	b.APIBase = strings.TrimRight(strings.TrimSpace(os.Getenv("OUNCE_STRIPE_API_BASE")), "/")
	if b.APIBase != "" {
		if u, err := url.Parse(b.APIBase); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("OUNCE_STRIPE_API_BASE must be an http:// or https:// URL, got %q", b.APIBase)
		}
	}
	if b.SecretKey == "" {
		for _, name := range []string{"OUNCE_STRIPE_WEBHOOK_SECRET", "OUNCE_STRIPE_PRICE_MONTHLY", "OUNCE_STRIPE_PRICE_YEARLY"} {
			if strings.TrimSpace(os.Getenv(name)) != "" {
				return fmt.Errorf("%s is set but OUNCE_STRIPE_SECRET_KEY is not", name)
			}
		}
		return nil
	}
	if !strings.HasPrefix(b.SecretKey, "sk_") && !strings.HasPrefix(b.SecretKey, "rk_") {
		return fmt.Errorf("OUNCE_STRIPE_SECRET_KEY must be a Stripe secret or restricted key (sk_… or rk_…)")
	}
	if b.WebhookSecret == "" {
		return fmt.Errorf("OUNCE_STRIPE_WEBHOOK_SECRET is required with OUNCE_STRIPE_SECRET_KEY (the whsec_… signing secret of the webhook endpoint)")
	}
	if b.PriceMonthly == "" && b.PriceYearly == "" {
		return fmt.Errorf("OUNCE_STRIPE_PRICE_MONTHLY or OUNCE_STRIPE_PRICE_YEARLY is required with OUNCE_STRIPE_SECRET_KEY (a Stripe Price id, price_…)")
	}
	for name, v := range map[string]string{"OUNCE_STRIPE_PRICE_MONTHLY": b.PriceMonthly, "OUNCE_STRIPE_PRICE_YEARLY": b.PriceYearly} {
		if v != "" && !strings.HasPrefix(v, "price_") {
			return fmt.Errorf("%s must be a Stripe Price id (price_…), got %q", name, v)
		}
	}
	return nil
}
