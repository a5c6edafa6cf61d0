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
	title   string
	summary string
}

// demoEntries are written to show every category without describing any real
// event: each is generic and says it is a sample.
var demoEntries = []demoEntry{
	{"gold-volatile-session",
		"Demo: Gold jumps sharply in a volatile session",
		"Sample headline for the offline demo. It shows how Ounce flags a fast intraday move as breaking news."},
	{"silver-stop-orders",
		"Demo: Silver plunges as stop orders cascade",
		"Sample headline for the offline demo. Sudden drops like this are tagged breaking so they stand out in the list."},
	{"silver-industrial-demand",
		"Demo: Industrial demand keeps the silver supply balance in focus",
		"Sample headline for the offline demo about physical supply and industrial use of silver."},
	{"gold-coin-premiums",
		"Demo: Dealer premiums on gold coins ease as supply catches up",
		"Sample headline for the offline demo about coin premiums, the cost a stacker pays above spot."},
	{"central-bank-reserves",
		"Demo: Central bank buying keeps gold reserves in focus",
		"Sample headline for the offline demo about official-sector gold purchases."},
	{"rate-decision-silver",
		"Demo: What an interest rate hold by the central bank could mean for silver",
		"Sample headline for the offline demo about monetary policy and metals that pay no income."},
	{"sales-tax-bullion",
		"Demo: State lawmakers debate a sales tax exemption for bullion",
		"Sample headline for the offline demo about taxes on buying coins and bars."},
	{"platinum-import-duty",
		"Demo: Import duty changes and what they mean for platinum bar buyers",
		"Sample headline for the offline demo about tariffs and the delivered cost of metal."},
	{"platinum-mine-output",
		"Demo: Platinum producer reports lower mine output for the quarter",
		"Sample headline for the offline demo about mining companies and production."},
	{"gold-junior-drilling",
		"Demo: Junior gold miner publishes new exploration drilling results",
		"Sample headline for the offline demo about exploration companies."},
	{"gold-etf-inflows",
		"Demo: Investors add to gold ETF holdings for another week",
		"Sample headline for the offline demo about fund flows into metal-backed products."},
	{"palladium-speculators",
		"Demo: Speculators trim net long positions in palladium futures",
		"Sample headline for the offline demo about futures positioning."},
	{"gold-safe-haven",
		"Demo: Safe-haven buying lifts gold as geopolitical tensions rise",
		"Sample headline for the offline demo about political risk and haven demand."},
	{"palladium-sanctions",
		"Demo: Sanctions risk and the palladium market",
		"Sample headline for the offline demo about sanctions and metal trade flows."},
	{"silver-technical-outlook",
		"Demo: Technical outlook for silver after a quiet week",
		"Sample commentary for the offline demo: chart levels and what analysts watch."},
	{"gold-silver-ratio",
		"Demo: Is the gold-to-silver ratio telling stackers anything?",
		"Sample commentary for the offline demo about the ratio between the two metals' prices."},
}

// DemoItems is the sample market-intel list shown on an offline first start,
// before any feed has been fetched. Every item is dated now, the time Ounce
// created it (no invented publication times), carries Demo and DemoSource, and
// is classified without prices; a caller with prices can run Classify on them
// again to refresh the analysis.
func DemoItems(now time.Time) []Item {
	now = now.UTC().Truncate(time.Minute)
	out := make([]Item, 0, len(demoEntries))
	for _, e := range demoEntries {
		it := Item{
			Title:       e.title,
			URL:         demoURLPrefix + e.slug,
			Source:      DemoSource,
			Summary:     e.summary,
			PublishedAt: now,
			Demo:        true,
		}
		out = append(out, Classify(it, PriceContext{}))
	}
	return out
}
