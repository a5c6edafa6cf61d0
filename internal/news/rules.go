package news

// The classifier's vocabulary. Each term is a phrase of words matched against
// the tokenised headline; a trailing '*' on a word matches any word starting
// with it, '#' matches any number and '$' and '%' match those signs. Weights are
// in tenths so the arithmetic stays in integers and results never depend on
// floating-point rounding. A term counts once per field however often it occurs.
//
// Weights express how strongly a phrase on its own points at a category:
// around 40 names the category outright ("central bank", "etf", "flash
// crash"), around 25 is a strong hint, 10-15 only tips a close call.

type ruleSet struct {
	cat   Category
	terms []weighted
}

type weighted struct {
	w     int
	terms []string
}

var rules = []ruleSet{
	{Breaking, []weighted{
		{40, []string{"nosedive*", "tanks", "tanked", "worst session", "worst day", "violent*", "routed",
			"rout", "frenzy", "flash crash*", "record high*", "fresh record*", "new record high*", "plunge*",
			"plummet*", "crash", "crashes", "crashed", "crater*", "soar*", "rocket*", "skyrocket*", "tumble*",
			"trading halt*", "halted trading", "trading suspended", "suspended trading", "suspends trading",
			"biggest one day", "biggest daily", "biggest weekly", "smash*", "sell off", "selloff", "erases",
			"wipes", "meltdown", "freefall", "free fall"}},
		{25, []string{"surge*", "unprecedented", "peak", "in a day", "matter of minutes", "sheds", "blasts",
			"spike*", "slump*", "sink*", "sank", "jump*", "highest since", "lowest level", "highest level",
			"# year low", "# year high", "# month low", "# month high", "multi year low", "multi year high",
			"decade high", "decade low", "in a decade", "over a decade", "sudden*", "shock", "wild",
			"volatile", "swing*", "margin calls", "liquidation*", "stop orders", "scramble", "in minutes",
			"within the hour", "under an hour", "single session", "halt*", "suspended", "delayed", "failure",
			"outage*", "fat finger", "breaks out", "explosive", "for the first time", "first time", "limit up",
			"limit down", "brutal", "panic*"}},
		{15, []string{"record", "slides", "rebound*", "rush", "tops $", "above $", "below $", "past $",
			"through $", "$ barrier", "slid", "rall*", "drops", "dive*", "spikes"}},
	}},
	{SupplyDemand, []weighted{
		{40, []string{"inventor*", "scrap", "balanced", "mine supply", "global supply", "deficit", "shortage*",
			"autocatalyst*", "lease rate*", "consumption", "wedding season", "diwali", "akshaya",
			"supply deficit", "market deficit", "physical demand", "jewellery demand", "industrial demand",
			"solar demand", "coin sales", "bar and coin", "recycl*", "substitut*"}},
		{25, []string{"demand", "hybrid*", "vehicle*", "supply", "solar", "industrial", "jewel*", "import*",
			"premium*", "mint", "refiner*", "catalyst*", "fuel cell*", "electronics", "tightness",
			"wholesaler*", "dentistry", "dental", "kilobar*", "stockpile", "shortfall", "tight supply",
			"physical", "orders", "photovoltaic*", "ev sales", "electric vehicle*", "automaker*"}},
		{15, []string{"coin*", "vault*", "bars", "dealers", "tight*", "use", "uses", "usage", "production",
			"export*", "buyers", "buying"}},
	}},
	{CentralBank, []weighted{
		{45, []string{"central bank*", "monetary official*", "rate setter*", "official gold",
			"official buying", "official purchases", "federal reserve", "fomc", "ecb", "bank of england",
			"boj", "pboc", "people s bank", "reserve bank", "national bank", "bundesbank",
			"monetary authority", "official sector", "jackson hole", "central banker*"}},
		{35, []string{"fed", "monetary", "borrowing costs", "powell", "rate cut*", "rate hike*", "cuts rates",
			"hikes rates", "trims rates", "raises rates", "holds rates", "rates steady", "rates on hold",
			"deposit rate", "policy rate", "monetary policy", "dovish", "hawkish", "quantitative",
			"easing cycle", "rate decision"}},
		{25, []string{"reserves", "imf", "repatriat*", "easing", "minutes", "interest rate*", "gold holdings",
			"rate cuts", "pivot"}},
		{10, []string{"rates", "tonnes", "holdings", "inflation"}},
	}},
	{Policy, []weighted{
		{45, []string{"bans exports", "customs", "trade deficit", "import curb*", "reporting requirement*",
			"export ban*", "ban on exports", "tax*", "vat", "capital gains", "tariff*", "import duty",
			"legal tender", "export control*", "anti money laundering", "legislat*", "lawmaker*", "senate",
			"cftc", "position limits", "margin requirement*", "critical raw materials", "budget deficit",
			"court", "state law", "regulator*", "irs", "trade policy"}},
		{30, []string{"duty", "curbs", "requirement*", "duties", "bill", "law", "laws", "regulat*", "rules",
			"ruling", "ban", "bans", "banned", "government*", "budget", "audit*", "reporting", "disclosure*",
			"propos*", "stockpil*", "royalty regime", "treasury", "exempt*", "threshold", "legal",
			"sanctioned", "under review", "raises margin*", "mandat*", "licen*"}},
		{10, []string{"state", "states", "policy", "exports", "review"}},
	}},
	{Mining, []weighted{
		{45, []string{"mine", "mines", "miner", "miners", "miner s", "feasibility", "all in sustaining",
			"aisc", "tailings", "heap leach", "open pit", "exploration", "artisanal", "maiden resource",
			"streaming deal", "royalty company", "mining company", "producer*"}},
		{30, []string{"ore", "mining", "output", "explor*", "strike", "workforce", "mill", "underground",
			"deposit", "guidance", "earnings", "acqui*", "all share", "takeover", "ore grades", "grade*",
			"resource", "project", "ramp up", "commission*", "permit*", "expansion", "dividend", "juniors",
			"majors", "production"}},
		{10, []string{"deal", "costs", "operation*", "site", "future production", "energy costs", "flood*",
			"collapse*", "cut*"}},
	}},
	{Investment, []weighted{
		{45, []string{"etf*", "money managers", "exchange traded", "speculator*", "net short*", "etp*",
			"inflow*", "hedge fund*", "managed money", "net long*", "commitments of traders", "open interest",
			"ira", "iras", "rollover*", "pension*", "family office*", "endowment*", "sovereign wealth",
			"tokeni*", "dollar cost averaging", "fund flow*", "portfolio*", "positioning", "managed futures",
			"brokerage", "investor*"}},
		{30, []string{"fund", "pile into", "funds", "allocation*", "allocat*", "retirement", "savers",
			"wealth", "trust", "longs", "exposure", "stake", "options", "real assets", "client*",
			"take profits", "profit taking", "positions", "bitcoin", "rotate*", "invest*"}},
		{15, []string{"holdings", "hedge", "bearish", "short", "trading", "buy"}},
	}},
	{Geopolitical, []weighted{
		{45, []string{"tension*", "armed", "clash*", "war", "wars", "missile*", "sanction*", "haven*",
			"geopolitic*", "coup", "ceasefire", "peace talks", "military", "brics", "dedollari*", "diplomatic",
			"terror*", "frozen reserves", "escalat*", "election*", "protest*", "nuclear"}},
		{30, []string{"middle east", "threat*", "rival*", "security", "taiwan", "ukraine", "russia*",
			"red sea", "shipping disruption*", "attack*", "cyber", "crisis", "dispute", "risk premium",
			"beijing", "invad*", "troops", "strikes", "hostilit*", "regime", "embargo*"}},
		{10, []string{"risk appetite", "uncertainty", "washington", "china", "worries", "risk"}},
	}},
	{Analysis, []weighted{
		{45, []string{"forecast*", "newsletter", "outlook", "technical*", "price target*", "chart*",
			"moving average", "rsi", "overbought", "oversold", "elliott wave", "opinion", "commentary",
			"deep dive", "predict*", "strategist*", "valuation*", "undervalued", "overvalued", "market wrap",
			"q a", "explainer", "explained", "analyst view"}},
		{30, []string{"analyst*", "cautious", "pattern", "resistance", "support", "consolidat*", "bear market",
			"bull market", "bulls", "bears", "explain*", "economist*", "ratio", "weekly", "review", "wrap",
			"mid year", "momentum", "real yields", "inflation hedge", "sideways", "correction", "downside",
			"model*", "case for", "what it means", "could", "view", "target", "signal*", "eye"}},
		{15, []string{"why", "is the", "may", "might", "relationship", "risks", "should", "next"}},
	}},
}

// stackerTerms raise relevance: they concern what a holder of physical metal
// buys, pays or owes directly.
var stackerTerms = []string{"coin*", "bars", "bar", "premium*", "dealer*", "mint", "sales tax", "capital gains", "vat",
	"legal tender", "physical", "backorder*", "ira", "iras", "vault*", "buy back", "melt", "bullion"}

// metalTerms map words to the metals they name. "bullion" and "precious metals"
// are handled in code because their meaning depends on the rest of the text.
var metalTerms = []struct {
	term   string
	metals []string
}{
	{"gold", []string{"gold"}},
	{"golds", []string{"gold"}},
	{"xau", []string{"gold"}},
	{"xauusd", []string{"gold"}},
	{"yellow metal", []string{"gold"}},
	{"krugerrand*", []string{"gold"}},
	{"kilobar*", []string{"gold"}},
	{"gld", []string{"gold"}},
	{"silver", []string{"silver"}},
	{"silvers", []string{"silver"}},
	{"xag", []string{"silver"}},
	{"xagusd", []string{"silver"}},
	{"white metal", []string{"silver"}},
	{"slv", []string{"silver"}},
	{"platinum", []string{"platinum"}},
	{"xpt", []string{"platinum"}},
	{"palladium", []string{"palladium"}},
	{"xpd", []string{"palladium"}},
	{"pgm", []string{"platinum", "palladium"}},
	{"pgms", []string{"platinum", "palladium"}},
	{"platinum group", []string{"platinum", "palladium"}},
}
