package portfoliohttp

import (
	"net/http"
	"time"

	"github.com/ouncehq/ounce/handlers/kit"

	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/internal/portfolio"
)

// PortfolioMetalJSON is one metal of the portfolio summary.
type PortfolioMetalJSON struct {
	Oz              kit.Num  `json:"oz"`
	Spot            *kit.Num `json:"spot"`
	Value           *kit.Num `json:"value"`
	Cost            kit.Num  `json:"cost"`
	UnrealizedPL    *kit.Num `json:"unrealized_pl"`
	UnrealizedPLPct *kit.Num `json:"unrealized_pl_pct"`
	AllocationPct   *kit.Num `json:"allocation_pct"`
	DayChange       *kit.Num `json:"day_change"`
	Stale           bool     `json:"stale"`
	// DayChangeNote says why day_change is null for a metal held before today (its change
	// is not today's); ChangeFrom/ChangeAsOf date the move the price board has.
	DayChangeNote *string `json:"day_change_note"`
	ChangeFrom    *string `json:"change_from"`
	ChangeAsOf    *string `json:"change_as_of"`
}

// PortfolioJSON is the body of GET /v1/portfolio (and of the MCP get_portfolio tool).
type PortfolioJSON struct {
	AsOf            *time.Time `json:"as_of"`
	Stale           bool       `json:"stale"`
	TotalValue      *kit.Num   `json:"total_value"`
	TotalCost       kit.Num    `json:"total_cost"`
	UnrealizedPL    *kit.Num   `json:"unrealized_pl"`
	UnrealizedPLPct *kit.Num   `json:"unrealized_pl_pct"`
	DayChange       *kit.Num   `json:"day_change"`
	DayChangePct    *kit.Num   `json:"day_change_pct"`
	// DayChangeLeftOut lists the held metals day_change does not include because their
	// change is not today's.
	DayChangeLeftOut []string                      `json:"day_change_left_out"`
	RealizedPL       kit.Num                       `json:"realized_pl"`
	HoldingsCount    int64                         `json:"holdings_count"`
	Metals           map[string]PortfolioMetalJSON `json:"metals"`
}

// AnalyticsMetalJSON is one metal of GET /v1/analytics.
type AnalyticsMetalJSON struct {
	Oz                     kit.Num  `json:"oz"`
	CostBasis              kit.Num  `json:"cost_basis"`
	AvgCostPerOz           *kit.Num `json:"avg_cost_per_oz"`
	BreakEvenPrice         *kit.Num `json:"break_even_price"`
	Spot                   *kit.Num `json:"spot"`
	DistanceToBreakEvenPct *kit.Num `json:"distance_to_break_even_pct"`
	Value                  *kit.Num `json:"value"`
	UnrealizedPL           *kit.Num `json:"unrealized_pl"`
	UnrealizedPLPct        *kit.Num `json:"unrealized_pl_pct"`
	RealizedPL             kit.Num  `json:"realized_pl"`
	AllocationPct          *kit.Num `json:"allocation_pct"`
	WeightAllocationPct    kit.Num  `json:"weight_allocation_pct"`
	Purchases              int64    `json:"purchases"`
	Sales                  int64    `json:"sales"`
	FirstPurchase          *string  `json:"first_purchase"`
	LastPurchase           *string  `json:"last_purchase"`
	AvgPremiumPct          *kit.Num `json:"avg_premium_pct"`
}

// AnalyticsTotalsJSON sums the metals of GET /v1/analytics.
type AnalyticsTotalsJSON struct {
	Oz              kit.Num  `json:"oz"`
	CostBasis       kit.Num  `json:"cost_basis"`
	Value           *kit.Num `json:"value"`
	UnrealizedPL    *kit.Num `json:"unrealized_pl"`
	UnrealizedPLPct *kit.Num `json:"unrealized_pl_pct"`
	RealizedPL      kit.Num  `json:"realized_pl"`
	Purchases       int64    `json:"purchases"`
	Sales           int64    `json:"sales"`
	FirstPurchase   *string  `json:"first_purchase"`
	LastPurchase    *string  `json:"last_purchase"`
	AvgPremiumPct   *kit.Num `json:"avg_premium_pct"`
}

// AnalyticsJSON is the body of GET /v1/analytics (and of the MCP get_analytics tool).
type AnalyticsJSON struct {
	AsOf   *time.Time                    `json:"as_of"`
	Stale  bool                          `json:"stale"`
	Metals map[string]AnalyticsMetalJSON `json:"metals"`
	Totals AnalyticsTotalsJSON           `json:"totals"`
}

// PortfolioPointJSON is one date of the value-over-time series.
type PortfolioPointJSON struct {
	Date  string  `json:"date"`
	Value kit.Num `json:"value"`
	Cost  kit.Num `json:"cost"`
}

// PortfolioHistoryJSON is the body of GET /v1/portfolio/history.
type PortfolioHistoryJSON struct {
	Range  string               `json:"range"`
	From   *string              `json:"from"`
	To     *string              `json:"to"`
	Count  int                  `json:"count"`
	Points []PortfolioPointJSON `json:"points"`
	// Start, Through and Stale are the window, as GET /v1/prices/history answers them.
	Start   *string `json:"start"`
	Through *string `json:"through"`
	Stale   bool    `json:"stale"`
}

// portfolioJSON renders a valuation.
func portfolioJSON(v portfolio.Portfolio) PortfolioJSON {
	out := PortfolioJSON{AsOf: kit.AsOfOrNull(v.AsOf), Stale: v.Stale, TotalValue: kit.NumOrNull(v.TotalValue, kit.Money), TotalCost: kit.Money(v.TotalCost),
		UnrealizedPL: kit.NumOrNull(v.UnrealizedPL, kit.Money), UnrealizedPLPct: kit.NumOrNull(v.UnrealizedPLPct, kit.Pct),
		DayChange: kit.NumOrNull(v.DayChange, kit.Money), DayChangePct: kit.NumOrNull(v.DayChangePct, kit.Pct), RealizedPL: kit.Money(v.Realized),
		HoldingsCount: v.Lots, Metals: map[string]PortfolioMetalJSON{}, DayChangeLeftOut: []string{}}
	for _, m := range v.DayChangeLeftOut {
		out.DayChangeLeftOut = append(out.DayChangeLeftOut, string(m))
	}
	for _, p := range v.Positions {
		j := PortfolioMetalJSON{Oz: kit.Ounces(p.HeldOz), Spot: kit.NumOrNull(p.Spot, kit.PriceNum), Value: kit.NumOrNull(p.Value, kit.Money),
			Cost: kit.Money(p.Cost), UnrealizedPL: kit.NumOrNull(p.UnrealizedPL, kit.Money), UnrealizedPLPct: kit.NumOrNull(p.UnrealizedPLPct, kit.Pct),
			AllocationPct: kit.NumOrNull(p.AllocationPct, kit.Pct), DayChange: kit.NumOrNull(p.DayChange, kit.Money), Stale: p.Stale(),
			ChangeFrom: kit.DayOrNull(p.ChangeFrom), ChangeAsOf: kit.DayOrNull(p.ChangeAsOf)}
		if p.DayChangeNote != "" {
			j.DayChangeNote = &p.DayChangeNote
		}
		out.Metals[string(p.Metal)] = j
	}
	return out
}

// analyticsJSON renders analytics.
func analyticsJSON(a portfolio.Analytics) AnalyticsJSON {
	out := AnalyticsJSON{AsOf: kit.AsOfOrNull(a.AsOf), Stale: a.Stale, Metals: map[string]AnalyticsMetalJSON{}}
	for _, m := range a.Metals {
		out.Metals[string(m.Metal)] = AnalyticsMetalJSON{
			Oz: kit.Ounces(m.HeldOz), CostBasis: kit.Money(m.Cost), AvgCostPerOz: kit.NumOrNull(m.AvgCostPerOz(), kit.Money), BreakEvenPrice: kit.NumOrNull(m.BreakEven(), kit.Money),
			Spot: kit.NumOrNull(m.Spot, kit.PriceNum), DistanceToBreakEvenPct: kit.NumOrNull(m.DistanceToBreakEvenPct(), kit.Pct),
			Value: kit.NumOrNull(m.Value, kit.Money), UnrealizedPL: kit.NumOrNull(m.UnrealizedPL, kit.Money), UnrealizedPLPct: kit.NumOrNull(m.UnrealizedPLPct, kit.Pct),
			RealizedPL: kit.Money(m.Realized), AllocationPct: kit.NumOrNull(m.AllocationPct, kit.Pct), WeightAllocationPct: kit.Pct(m.WeightPct),
			Purchases: m.Purchases, Sales: m.Sales, FirstPurchase: kit.DateOrNull(m.FirstPurchase), LastPurchase: kit.DateOrNull(m.LastPurchase),
			AvgPremiumPct: kit.NumOrNull(m.AvgPremiumPct, kit.Pct),
		}
	}
	t := a.Totals
	out.Totals = AnalyticsTotalsJSON{Oz: kit.Ounces(t.HeldOz), CostBasis: kit.Money(t.Cost), Value: kit.NumOrNull(t.Value, kit.Money),
		UnrealizedPL: kit.NumOrNull(t.UnrealizedPL, kit.Money), UnrealizedPLPct: kit.NumOrNull(t.UnrealizedPLPct, kit.Pct), RealizedPL: kit.Money(t.Realized),
		Purchases: t.Purchases, Sales: t.Sales, FirstPurchase: kit.DateOrNull(t.FirstPurchase), LastPurchase: kit.DateOrNull(t.LastPurchase),
		AvgPremiumPct: kit.NumOrNull(t.AvgPremiumPct, kit.Pct)}
	return out
}

// portfolioHistoryJSON renders the value-over-time series.
func portfolioHistoryJSON(hist portfolio.History) PortfolioHistoryJSON {
	out := PortfolioHistoryJSON{Range: string(hist.Range), Points: make([]PortfolioPointJSON, len(hist.Points)),
		Start: kit.DayOrNull(hist.Start), Through: kit.DayOrNull(hist.Through), Stale: hist.Stale}
	for i, p := range hist.Points {
		out.Points[i] = PortfolioPointJSON{Date: p.Date.Format(time.DateOnly), Value: kit.Money(p.Value), Cost: kit.Money(p.Cost)}
	}
	out.Count = len(out.Points)
	if out.Count > 0 {
		out.From, out.To = &out.Points[0].Date, &out.Points[out.Count-1].Date
	}
	return out
}

// APIPortfolio answers GET /v1/portfolio.
func (h *Handlers) APIPortfolio(c *fiber.Ctx) error {
	u, err := kit.RequireUser(c)
	if err != nil {
		return err
	}
	v, err := h.portfolio.Portfolio(h.Ctx(c), u)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "private, no-store")
	return kit.WriteJSON(c, http.StatusOK, portfolioJSON(v))
}

// APIAnalytics answers GET /v1/analytics.
func (h *Handlers) APIAnalytics(c *fiber.Ctx) error {
	u, err := kit.RequireUser(c)
	if err != nil {
		return err
	}
	a, err := h.portfolio.Analytics(h.Ctx(c), u)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "private, no-store")
	return kit.WriteJSON(c, http.StatusOK, analyticsJSON(a))
}

// APIPortfolioHistory answers GET /v1/portfolio/history.
func (h *Handlers) APIPortfolioHistory(c *fiber.Ctx) error {
	u, err := kit.RequireUser(c)
	if err != nil {
		return err
	}
	hist, err := h.portfolio.History(h.Ctx(c), u, c.Query("range"))
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "private, no-store")
	return kit.WriteJSON(c, http.StatusOK, portfolioHistoryJSON(hist))
}
