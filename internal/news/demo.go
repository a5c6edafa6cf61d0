package news

import "time"

// DemoSource is the Source of every demo item, so the UI and queries can tell
// bundled samples from fetched news.
const DemoSource = "Ounce demo"

// demoURLPrefix is under the reserved .invalid domain so a demo link can never
// resolve to someone's real page.
const demoURLPrefix = "https://ounce.invalid/demo/"

type demoEntry struct {
	slug    string
	age     time.Duration
	title   string
	summary string
}

// demoEntries are written to show every category without describing any real
// event: each is generic and says it is a sample.
var demoEntries = []demoEntry{
	{"gold-volatile-session", 2 * time.Hour,
		"Demo: Gold jumps sharply in a volatile session",
		"Sample headline for the offline demo. It shows how Ounce flags a fast intraday move as breaking news."},
	{"silver-stop-orders", 9 * time.Hour,
		"Demo: Silver plunges as stop orders cascade",
		"Sample headline for the offline demo. Sudden drops like this are tagged breaking so they stand out in the list."},
	{"silver-industrial-demand", 14 * time.Hour,
		"Demo: Industrial demand keeps the silver supply balance in focus",
		"Sample headline for the offline demo about physical supply and industrial use of silver."},
	{"gold-coin-premiums", 20 * time.Hour,
		"Demo: Dealer premiums on gold coins ease as supply catches up",
		"Sample headline for the offline demo about coin premiums, the cost a stacker pays above spot."},
	{"central-bank-reserves", 26 * time.Hour,
		"Demo: Central bank buying keeps gold reserves in focus",
		"Sample headline for the offline demo about official-sector gold purchases."},
	{"rate-decision-silver", 31 * time.Hour,
		"Demo: What an interest rate hold by the central bank could mean for silver",
		"Sample headline for the offline demo about monetary policy and metals that pay no income."},
	{"sales-tax-bullion", 37 * time.Hour,
		"Demo: State lawmakers debate a sales tax exemption for bullion",
		"Sample headline for the offline demo about taxes on buying coins and bars."},
	{"platinum-import-duty", 43 * time.Hour,
		"Demo: Import duty changes and what they mean for platinum bar buyers",
		"Sample headline for the offline demo about tariffs and the delivered cost of metal."},
	{"platinum-mine-output", 49 * time.Hour,
		"Demo: Platinum producer reports lower mine output for the quarter",
		"Sample headline for the offline demo about mining companies and production."},
	{"gold-junior-drilling", 55 * time.Hour,
		"Demo: Junior gold miner publishes new exploration drilling results",
		"Sample headline for the offline demo about exploration companies."},
	{"gold-etf-inflows", 61 * time.Hour,
		"Demo: Investors add to gold ETF holdings for another week",
		"Sample headline for the offline demo about fund flows into metal-backed products."},
	{"palladium-speculators", 67 * time.Hour,
		"Demo: Speculators trim net long positions in palladium futures",
		"Sample headline for the offline demo about futures positioning."},
	{"gold-safe-haven", 72 * time.Hour,
		"Demo: Safe-haven buying lifts gold as geopolitical tensions rise",
		"Sample headline for the offline demo about political risk and haven demand."},
	{"palladium-sanctions", 78 * time.Hour,
		"Demo: Sanctions risk and the palladium market",
		"Sample headline for the offline demo about sanctions and metal trade flows."},
	{"silver-technical-outlook", 84 * time.Hour,
		"Demo: Technical outlook for silver after a quiet week",
		"Sample commentary for the offline demo: chart levels and what analysts watch."},
	{"gold-silver-ratio", 90 * time.Hour,
		"Demo: Is the gold-to-silver ratio telling stackers anything?",
		"Sample commentary for the offline demo about the ratio between the two metals' prices."},
}

// DemoItems is the sample market-intel list shown on an offline first start,
// before any feed has been fetched. Items are dated over the previous few days
// relative to now, carry Demo and DemoSource, and are classified without prices;
// a caller with prices can run Classify on them again to refresh the analysis.
func DemoItems(now time.Time) []Item {
	now = now.UTC().Truncate(time.Minute)
	out := make([]Item, 0, len(demoEntries))
	for _, e := range demoEntries {
		it := Item{
			Title:       e.title,
			URL:         demoURLPrefix + e.slug,
			Source:      DemoSource,
			Summary:     e.summary,
			PublishedAt: now.Add(-e.age),
			Demo:        true,
		}
		out = append(out, Classify(it, PriceContext{}))
	}
	return out
}
