package portfoliohttp

import (
	"context"
	"time"

	"github.com/ouncehq/ounce/handlers/kit"

	"github.com/gofiber/fiber/v2"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/portfolio"
	"github.com/ouncehq/ounce/internal/quote"
)

// PortfolioMetalJSON is one metal of the portfolio summary.
type PortfolioMetalJSON struct {
	Oz              kit.Num  `json:"oz" doc:"Fine troy ounces still held."`
	Spot            *kit.Num `json:"spot" doc:"Spot price per ounce used (per the answer's unit: per gram with unit=g), live unless stale, at its source's precision up to 4 decimals (whole units in a currency without minor units); null when Ounce has no price for the metal."`
	Value           *kit.Num `json:"value" doc:"oz × spot computed at full precision, then rounded to cents, USD; null when held without a price."`
	Cost            kit.Num  `json:"cost" doc:"Remaining cost basis, USD."`
	UnrealizedPL    *kit.Num `json:"unrealized_pl" doc:"value − cost, USD."`
	UnrealizedPLPct *kit.Num `json:"unrealized_pl_pct" doc:"unrealized_pl as a percentage of cost; null when cost is zero."`
	AllocationPct   *kit.Num `json:"allocation_pct" doc:"Share of the portfolio's value, percent (the four add up to 100 when value > 0)."`
	DayChange       *kit.Num `json:"day_change" doc:"Ounces held before today × today's change in spot, USD. Null when the metal's change is not today's (price not live, or its previous close is not the preceding trading session); 0 when nothing was held before today."`
	Stale           bool     `json:"stale" doc:"The spot price is not live (or missing)."`
	// DayChangeNote says why day_change is null for a metal held before today (its change
	// is not today's); ChangeFrom/ChangeAsOf date the move the price board has.
	DayChangeNote *string `json:"day_change_note" doc:"Why day_change is null for a metal held before today, naming the dates of the move the board has."`
	ChangeFrom    *string `json:"change_from" schema:"format=date" doc:"Trading day of the previous close the metal's price change is measured from; null when unknown."`
	ChangeAsOf    *string `json:"change_as_of" schema:"format=date" doc:"Trading day of the price the change is measured to; null when no change is known."`
	// BreakEvenPrice is per the answer's unit (issue 25).
	BreakEvenPrice *kit.Num `json:"break_even_price" schema:"optional" doc:"Spot price per the answer's unit (per troy ounce by default, per gram with unit=g), in its currency, at which the metal's value equals its remaining cost basis: cost ÷ fine weight held, rounded to the currency's minor units. Null when nothing is held."`
}

// UnitJSON names the weight unit of an answer's prices per weight (issue 25).
type UnitJSON struct {
	Unit string `json:"unit" schema:"optional,enum=units" doc:"Weight unit of every price per weight in this answer (spot, break_even_price): the unit parameter, else your weight unit, else oz; g, kg or tola (11.6638038 g). Fields named _oz stay troy ounces."`
}

// PortfolioJSON is the body of GET /v1/portfolio (and of the MCP get_portfolio tool).
type PortfolioJSON struct {
	AsOf            *time.Time `json:"as_of" doc:"Time of the newest price used."`
	Stale           bool       `json:"stale" doc:"Some price behind these numbers is not live; say so when quoting them."`
	TotalValue      *kit.Num   `json:"total_value" doc:"USD; null when a held metal has no price."`
	TotalCost       kit.Num    `json:"total_cost" doc:"Remaining cost basis, USD."`
	UnrealizedPL    *kit.Num   `json:"unrealized_pl" doc:"total_value − total_cost, USD."`
	UnrealizedPLPct *kit.Num   `json:"unrealized_pl_pct" doc:"Percent of total_cost; null when total_cost is zero."`
	DayChange       *kit.Num   `json:"day_change" doc:"Change in value since the previous close of what was held before today, USD, summed over the metals whose change is today's only (see day_change_left_out); null when every metal held before today is left out."`
	DayChangePct    *kit.Num   `json:"day_change_pct" doc:"day_change as a percentage of the value at the previous close of what it covers."`
	// DayChangeLeftOut lists the held metals day_change does not include because their
	// change is not today's.
	DayChangeLeftOut []string                      `json:"day_change_left_out" schema:"items.enum=metals" doc:"Metals held before today that day_change leaves out because their change is not today's (the price is not live, or its previous close is not the preceding trading session); each metal's day_change_note says why."`
	RealizedPL       kit.Num                       `json:"realized_pl" doc:"Profit or loss realized by every recorded sale, USD."`
	HoldingsCount    int64                         `json:"holdings_count" doc:"Holdings with units still held."`
	Metals           map[string]PortfolioMetalJSON `json:"metals" schema:"permetal"`
	CurrencyJSON
	UnitJSON
}

// AnalyticsMetalJSON is one metal of GET /v1/analytics.
type AnalyticsMetalJSON struct {
	Oz                     kit.Num  `json:"oz" doc:"Fine troy ounces still held."`
	CostBasis              kit.Num  `json:"cost_basis" doc:"Remaining cost basis after sales, USD."`
	AvgCostPerOz           *kit.Num `json:"avg_cost_per_oz" doc:"Total paid (fees included) ÷ fine ounces, over every purchase including sold units; always per troy ounce, whatever the unit; null with no purchases."`
	BreakEvenPrice         *kit.Num `json:"break_even_price" doc:"Spot price per ounce (per the answer's unit: per gram with unit=g) at which value equals the remaining cost basis; null when nothing is held."`
	Spot                   *kit.Num `json:"spot" doc:"Spot price per ounce (per the answer's unit), live unless stale, at its source's precision up to 4 decimals (whole units in a currency without minor units)."`
	DistanceToBreakEvenPct *kit.Num `json:"distance_to_break_even_pct" doc:"(break_even_price − spot) ÷ spot × 100: negative when spot is above break-even."`
	Value                  *kit.Num `json:"value" doc:"USD."`
	UnrealizedPL           *kit.Num `json:"unrealized_pl" doc:"USD."`
	UnrealizedPLPct        *kit.Num `json:"unrealized_pl_pct" doc:"Percent of cost_basis."`
	RealizedPL             kit.Num  `json:"realized_pl" doc:"Realized by sales of this metal, USD."`
	AllocationPct          *kit.Num `json:"allocation_pct" doc:"Share of portfolio value, percent."`
	WeightAllocationPct    kit.Num  `json:"weight_allocation_pct" doc:"Share of fine ounces held, percent."`
	Purchases              int64    `json:"purchases" doc:"Holdings (purchases) recorded, sold ones included."`
	Sales                  int64    `json:"sales" doc:"Sales recorded."`
	FirstPurchase          *string  `json:"first_purchase" schema:"format=date" doc:"Earliest purchase date."`
	LastPurchase           *string  `json:"last_purchase" schema:"format=date" doc:"Latest purchase date."`
	AvgPremiumPct          *kit.Num `json:"avg_premium_pct" doc:"What the dated, priced purchases cost over their metal's value at the spot of each purchase date, percent: (Σ price paid ÷ Σ spot_at_purchase × fine oz − 1) × 100, so each purchase's premium counts in proportion to the melt value it had when bought (fees and zero-cost gifts left out)."`
}

// AnalyticsTotalsJSON sums the metals of GET /v1/analytics.
type AnalyticsTotalsJSON struct {
	Oz              kit.Num  `json:"oz" doc:"Fine troy ounces of all metals still held."`
	CostBasis       kit.Num  `json:"cost_basis" doc:"USD."`
	Value           *kit.Num `json:"value" doc:"USD."`
	UnrealizedPL    *kit.Num `json:"unrealized_pl" doc:"USD."`
	UnrealizedPLPct *kit.Num `json:"unrealized_pl_pct" doc:"Percent of cost_basis."`
	RealizedPL      kit.Num  `json:"realized_pl" doc:"USD."`
	Purchases       int64    `json:"purchases"`
	Sales           int64    `json:"sales"`
	FirstPurchase   *string  `json:"first_purchase" schema:"format=date"`
	LastPurchase    *string  `json:"last_purchase" schema:"format=date"`
	AvgPremiumPct   *kit.Num `json:"avg_premium_pct" doc:"Over all metals, percent, weighted by melt value at purchase as per metal (an ounce of gold weighs more than an ounce of silver)."`
}

// AnalyticsJSON is the body of GET /v1/analytics (and of the MCP get_analytics tool).
type AnalyticsJSON struct {
	AsOf   *time.Time                    `json:"as_of"`
	Stale  bool                          `json:"stale"`
	Metals map[string]AnalyticsMetalJSON `json:"metals" schema:"permetal"`
	Totals AnalyticsTotalsJSON           `json:"totals"`
	// Custody (issue 28): the value held split by where it is kept and by product form.
	AllocationByLocation []AllocationJSON `json:"allocation_by_location" doc:"Value still held by storage location (key: the location id, or unassigned), largest first; values sum to totals.value. Empty when a held metal has no price."`
	AllocationByForm     []AllocationJSON `json:"allocation_by_form" doc:"Value still held by product form (key: coin, bar, round, junk or other: the catalogue's form when the product name is a catalogue product, else read from the name's words), largest first."`
	CurrencyJSON
	UnitJSON
}

// AllocationJSON is one part of an allocation of GET /v1/analytics.
type AllocationJSON struct {
	Key           string  `json:"key"`
	Name          string  `json:"name"`
	Value         kit.Num `json:"value" doc:"Fine ounces still held × spot, in the answer's currency."`
	AllocationPct kit.Num `json:"allocation_pct" doc:"Share of the value, percent (the parts add up to 100)."`
}

func allocationJSON(sl []portfolio.Slice, cur string) []AllocationJSON {
	out := make([]AllocationJSON, len(sl))
	for i, s := range sl {
		out[i] = AllocationJSON{Key: s.Key, Name: s.Name, Value: kit.MoneyIn(s.Value, cur), AllocationPct: kit.Pct(s.Pct)}
	}
	return out
}

// CurrencyJSON names the currency of an answer's amounts and the exchange rate that converted
// today's dollar prices into it (issue 25).
type CurrencyJSON struct {
	Currency   string  `json:"currency" schema:"optional" doc:"ISO 4217 code of every amount in this answer (the fields documented as USD are in it): the currency parameter, else your display currency. Amounts are rounded to its minor units (cents; whole yen, won and krónur)."`
	FXRateDate *string `json:"fx_rate_date" schema:"optional,format=date" doc:"Day of the exchange rate that converted today's USD spot (the last published on or before today); null for USD. Each lot's cost counts at the rate of its purchase day, each sale at its sale day's; a lot bought in this currency keeps its exact cost."`
	FXStale    bool    `json:"fx_stale" schema:"optional" doc:"The exchange rate is old (offline, or the ECB file unreachable): quote fx_rate_date with the figures."`
}

// currencyJSON renders what converted a valuation.
func currencyJSON(f portfolio.FXUsed) CurrencyJSON {
	out := CurrencyJSON{Currency: f.Currency, FXStale: f.Stale, FXRateDate: kit.DayOrNull(f.RateDate)}
	if out.Currency == "" {
		out.Currency = "USD"
	}
	return out
}

// CurrencyParam is the currency query parameter of the valuation routes.
func CurrencyParam() kit.Param {
	return kit.Param{Name: "currency", In: "query", Description: "ISO 4217 code to answer in (default: your display currency, USD without one); an unknown code is 400 listing the supported ones.",
		Schema: kit.Schema{"type": "string", "pattern": "^[A-Za-z]{3}$"}, Example: "EUR"}
}

// PortfolioPointJSON is one date of the value-over-time series.
type PortfolioPointJSON struct {
	Date  string  `json:"date" schema:"format=date"`
	Value kit.Num `json:"value" doc:"Ounces held that day × that day's close (before daily data, the month's average, as in the price history's ALL), USD."`
	Cost  kit.Num `json:"cost" doc:"Cost basis held that day, USD."`
}

// PortfolioHistoryJSON is the body of GET /v1/portfolio/history.
type PortfolioHistoryJSON struct {
	Range  string               `json:"range" schema:"enum=Ranges"`
	From   *string              `json:"from" schema:"format=date" doc:"First date shown; null without points."`
	To     *string              `json:"to" schema:"format=date" doc:"Last date shown."`
	Count  int                  `json:"count"`
	Points []PortfolioPointJSON `json:"points"`
	// Start, Through and Stale are the window, as GET /v1/prices/history answers them.
	Start   *string `json:"start" schema:"format=date" doc:"First calendar day of the window (null for ALL, and without holdings or prices)."`
	Through *string `json:"through" schema:"format=date" doc:"Newest close of the metals you hold (null without holdings or prices)."`
	Stale   bool    `json:"stale" doc:"true when through is before today: the range then counts back from through, the window GET /v1/prices/history shows for those metals."`
	// Each day's value is at that day's exchange rate; fx_rate_date is today's.
	CurrencyJSON
}

// fxCurrency is the currency of a valuation's amounts (USD when unnamed).
func fxCurrency(f portfolio.FXUsed) string {
	if f.Currency == "" {
		return "USD"
	}
	return f.Currency
}

// perUnitOrNil re-expresses a price per troy ounce per unit; nil stays nil.
func perUnitOrNil(d *decimal.Decimal, unit metals.Unit) *decimal.Decimal {
	if d == nil {
		return nil
	}
	v := quote.PerUnit(*d, unit)
	return &v
}

// portfolioJSON renders a valuation, its prices per weight per unit.
func portfolioJSON(v portfolio.Portfolio, unit metals.Unit) PortfolioJSON {
	cur := fxCurrency(v.FX)
	money := kit.MoneyOf(cur)
	out := PortfolioJSON{AsOf: kit.AsOfOrNull(v.AsOf), Stale: v.Stale, TotalValue: kit.NumOrNull(v.TotalValue, money), TotalCost: kit.MoneyIn(v.TotalCost, cur),
		UnrealizedPL: kit.NumOrNull(v.UnrealizedPL, money), UnrealizedPLPct: kit.NumOrNull(v.UnrealizedPLPct, kit.Pct),
		DayChange: kit.NumOrNull(v.DayChange, money), DayChangePct: kit.NumOrNull(v.DayChangePct, kit.Pct), RealizedPL: kit.MoneyIn(v.Realized, cur),
		HoldingsCount: v.Lots, Metals: map[string]PortfolioMetalJSON{}, DayChangeLeftOut: []string{},
		CurrencyJSON: currencyJSON(v.FX), UnitJSON: UnitJSON{Unit: string(unit)}}
	for _, m := range v.DayChangeLeftOut {
		out.DayChangeLeftOut = append(out.DayChangeLeftOut, string(m))
	}
	for _, p := range v.Positions {
		j := PortfolioMetalJSON{Oz: kit.Ounces(p.HeldOz), Spot: kit.NumOrNull(perUnitOrNil(p.Spot, unit), kit.PriceOf(cur)), Value: kit.NumOrNull(p.Value, money),
			Cost: kit.MoneyIn(p.Cost, cur), UnrealizedPL: kit.NumOrNull(p.UnrealizedPL, money), UnrealizedPLPct: kit.NumOrNull(p.UnrealizedPLPct, kit.Pct),
			AllocationPct: kit.NumOrNull(p.AllocationPct, kit.Pct), DayChange: kit.NumOrNull(p.DayChange, money), Stale: p.Stale(),
			ChangeFrom: kit.DayOrNull(p.ChangeFrom), ChangeAsOf: kit.DayOrNull(p.ChangeAsOf),
			BreakEvenPrice: kit.NumOrNull(perUnitOrNil(p.BreakEven(), unit), money)}
		if p.DayChangeNote != "" {
			j.DayChangeNote = &p.DayChangeNote
		}
		out.Metals[string(p.Metal)] = j
	}
	return out
}

// analyticsJSON renders analytics, its prices per weight (spot, break-even) per unit.
func analyticsJSON(a portfolio.Analytics, unit metals.Unit) AnalyticsJSON {
	cur := fxCurrency(a.FX)
	money := kit.MoneyOf(cur)
	out := AnalyticsJSON{AsOf: kit.AsOfOrNull(a.AsOf), Stale: a.Stale, Metals: map[string]AnalyticsMetalJSON{}, CurrencyJSON: currencyJSON(a.FX), UnitJSON: UnitJSON{Unit: string(unit)}}
	for _, m := range a.Metals {
		out.Metals[string(m.Metal)] = AnalyticsMetalJSON{
			Oz: kit.Ounces(m.HeldOz), CostBasis: kit.MoneyIn(m.Cost, cur), AvgCostPerOz: kit.NumOrNull(m.AvgCostPerOz(), money), BreakEvenPrice: kit.NumOrNull(perUnitOrNil(m.BreakEven(), unit), money),
			Spot: kit.NumOrNull(perUnitOrNil(m.Spot, unit), kit.PriceOf(cur)), DistanceToBreakEvenPct: kit.NumOrNull(m.DistanceToBreakEvenPct(), kit.Pct),
			Value: kit.NumOrNull(m.Value, money), UnrealizedPL: kit.NumOrNull(m.UnrealizedPL, money), UnrealizedPLPct: kit.NumOrNull(m.UnrealizedPLPct, kit.Pct),
			RealizedPL: kit.MoneyIn(m.Realized, cur), AllocationPct: kit.NumOrNull(m.AllocationPct, kit.Pct), WeightAllocationPct: kit.Pct(m.WeightPct),
			Purchases: m.Purchases, Sales: m.Sales, FirstPurchase: kit.DateOrNull(m.FirstPurchase), LastPurchase: kit.DateOrNull(m.LastPurchase),
			AvgPremiumPct: kit.NumOrNull(m.AvgPremiumPct, kit.Pct),
		}
	}
	t := a.Totals
	out.Totals = AnalyticsTotalsJSON{Oz: kit.Ounces(t.HeldOz), CostBasis: kit.MoneyIn(t.Cost, cur), Value: kit.NumOrNull(t.Value, money),
		UnrealizedPL: kit.NumOrNull(t.UnrealizedPL, money), UnrealizedPLPct: kit.NumOrNull(t.UnrealizedPLPct, kit.Pct), RealizedPL: kit.MoneyIn(t.Realized, cur),
		Purchases: t.Purchases, Sales: t.Sales, FirstPurchase: kit.DateOrNull(t.FirstPurchase), LastPurchase: kit.DateOrNull(t.LastPurchase),
		AvgPremiumPct: kit.NumOrNull(t.AvgPremiumPct, kit.Pct)}
	out.AllocationByLocation, out.AllocationByForm = allocationJSON(a.ByLocation, cur), allocationJSON(a.ByForm, cur)
	return out
}

// portfolioHistoryJSON renders the value-over-time series.
func portfolioHistoryJSON(hist portfolio.History) PortfolioHistoryJSON {
	cur := fxCurrency(hist.FX)
	out := PortfolioHistoryJSON{Range: string(hist.Range), Points: make([]PortfolioPointJSON, len(hist.Points)),
		Start: kit.DayOrNull(hist.Start), Through: kit.DayOrNull(hist.Through), Stale: hist.Stale, CurrencyJSON: currencyJSON(hist.FX)}
	for i, p := range hist.Points {
		out.Points[i] = PortfolioPointJSON{Date: p.Date.Format(time.DateOnly), Value: kit.MoneyIn(p.Value, cur), Cost: kit.MoneyIn(p.Cost, cur)}
	}
	out.Count = len(out.Points)
	if out.Count > 0 {
		out.From, out.To = &out.Points[0].Date, &out.Points[out.Count-1].Date
	}
	return out
}

// UnitParam is the unit query parameter of the valuation routes that show prices per weight.
func UnitParam() kit.Param {
	return kit.Param{Name: "unit", In: "query", Description: "Weight unit of spot and break_even_price (default: your weight unit, oz without one); anything else is 400 naming unit.",
		Schema: kit.Schema{"type": "string", "enum": metals.UnitNames()}, Example: "g"}
}

// APIPortfolio answers GET /v1/portfolio.
func (h *Handlers) APIPortfolio(c *fiber.Ctx) error {
	return kit.PrivateMemberJSON(c, func(u account.User) (PortfolioJSON, error) {
		return valuedIn(h.Ctx(c), h, u, c.Query("currency"), c.Query("unit"), h.portfolio.PortfolioIn, portfolioJSON)
	}, kit.Same[PortfolioJSON])
}

// valuedIn answers a valuation of the member's stack in the currency and weight unit asked
// for (default: the member's settings), as the REST route and its MCP tool both do: value
// works the figures out in the currency, conv renders them with prices per unit.
func valuedIn[V, T any](ctx context.Context, h *Handlers, u account.User, currency, unit string,
	value func(context.Context, account.User, string) (V, error), conv func(V, metals.Unit) T) (T, error) {
	var out T
	cur, err := h.portfolio.Currency(ctx, u, currency, "currency")
	if err != nil {
		return out, err
	}
	wu, err := quote.Unit(&u, unit)
	if err != nil {
		return out, err
	}
	v, err := value(ctx, u, cur)
	if err != nil {
		return out, err
	}
	return conv(v, wu), nil
}

// APIAnalytics answers GET /v1/analytics.
func (h *Handlers) APIAnalytics(c *fiber.Ctx) error {
	return kit.PrivateMemberJSON(c, func(u account.User) (AnalyticsJSON, error) {
		return valuedIn(h.Ctx(c), h, u, c.Query("currency"), c.Query("unit"), h.portfolio.AnalyticsIn, analyticsJSON)
	}, kit.Same[AnalyticsJSON])
}

// APIPortfolioHistory answers GET /v1/portfolio/history.
func (h *Handlers) APIPortfolioHistory(c *fiber.Ctx) error {
	return kit.PrivateMemberJSON(c, func(u account.User) (portfolio.History, error) {
		cur, err := h.portfolio.Currency(h.Ctx(c), u, c.Query("currency"), "currency")
		if err != nil {
			return portfolio.History{}, err
		}
		return h.portfolio.HistoryFor(h.Ctx(c), u, c.Query("range"), c.Query("from"), c.Query("to"), cur)
	}, portfolioHistoryJSON)
}
