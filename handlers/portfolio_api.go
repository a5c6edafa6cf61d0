package handlers

import (
	"net/http"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/portfolio"
)

// PortfolioMetalJSON is one metal of the portfolio summary.
type PortfolioMetalJSON struct {
	Oz              Num  `json:"oz"`
	Spot            *Num `json:"spot"`
	Value           *Num `json:"value"`
	Cost            Num  `json:"cost"`
	UnrealizedPL    *Num `json:"unrealized_pl"`
	UnrealizedPLPct *Num `json:"unrealized_pl_pct"`
	AllocationPct   *Num `json:"allocation_pct"`
	DayChange       *Num `json:"day_change"`
	Stale           bool `json:"stale"`
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
	TotalValue      *Num       `json:"total_value"`
	TotalCost       Num        `json:"total_cost"`
	UnrealizedPL    *Num       `json:"unrealized_pl"`
	UnrealizedPLPct *Num       `json:"unrealized_pl_pct"`
	DayChange       *Num       `json:"day_change"`
	DayChangePct    *Num       `json:"day_change_pct"`
	// DayChangeLeftOut lists the held metals day_change does not include because their
	// change is not today's.
	DayChangeLeftOut []string                      `json:"day_change_left_out"`
	RealizedPL       Num                           `json:"realized_pl"`
	HoldingsCount    int64                         `json:"holdings_count"`
	Metals           map[string]PortfolioMetalJSON `json:"metals"`
}

// AnalyticsMetalJSON is one metal of GET /v1/analytics.
type AnalyticsMetalJSON struct {
	Oz                     Num     `json:"oz"`
	CostBasis              Num     `json:"cost_basis"`
	AvgCostPerOz           *Num    `json:"avg_cost_per_oz"`
	BreakEvenPrice         *Num    `json:"break_even_price"`
	Spot                   *Num    `json:"spot"`
	DistanceToBreakEvenPct *Num    `json:"distance_to_break_even_pct"`
	Value                  *Num    `json:"value"`
	UnrealizedPL           *Num    `json:"unrealized_pl"`
	UnrealizedPLPct        *Num    `json:"unrealized_pl_pct"`
	RealizedPL             Num     `json:"realized_pl"`
	AllocationPct          *Num    `json:"allocation_pct"`
	WeightAllocationPct    Num     `json:"weight_allocation_pct"`
	Purchases              int64   `json:"purchases"`
	Sales                  int64   `json:"sales"`
	FirstPurchase          *string `json:"first_purchase"`
	LastPurchase           *string `json:"last_purchase"`
	AvgPremiumPct          *Num    `json:"avg_premium_pct"`
}

// AnalyticsTotalsJSON sums the metals of GET /v1/analytics.
type AnalyticsTotalsJSON struct {
	Oz              Num     `json:"oz"`
	CostBasis       Num     `json:"cost_basis"`
	Value           *Num    `json:"value"`
	UnrealizedPL    *Num    `json:"unrealized_pl"`
	UnrealizedPLPct *Num    `json:"unrealized_pl_pct"`
	RealizedPL      Num     `json:"realized_pl"`
	Purchases       int64   `json:"purchases"`
	Sales           int64   `json:"sales"`
	FirstPurchase   *string `json:"first_purchase"`
	LastPurchase    *string `json:"last_purchase"`
	AvgPremiumPct   *Num    `json:"avg_premium_pct"`
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
	Date  string `json:"date"`
	Value Num    `json:"value"`
	Cost  Num    `json:"cost"`
}

// PortfolioHistoryJSON is the body of GET /v1/portfolio/history.
type PortfolioHistoryJSON struct {
	Range  string               `json:"range"`
	From   *string              `json:"from"`
	To     *string              `json:"to"`
	Count  int                  `json:"count"`
	Points []PortfolioPointJSON `json:"points"`
}

// numOrNull renders an unknown value as JSON null.
func numOrNull(d *decimal.Decimal, f func(decimal.Decimal) Num) *Num {
	if d == nil {
		return nil
	}
	n := f(*d)
	return &n
}

// asOfOrNull is the time of the newest price, null without one.
func asOfOrNull(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	t = t.UTC()
	return &t
}

// dayOrNull is the calendar date of t, null for the zero time.
func dayOrNull(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := t.Format(time.DateOnly)
	return &s
}

// dateOrNull is a calendar date, null for none.
func dateOrNull(d db.Date) *string {
	if d.IsZero() {
		return nil
	}
	s := d.String()
	return &s
}

// portfolioJSON renders a valuation.
func portfolioJSON(v portfolio.Portfolio) PortfolioJSON {
	out := PortfolioJSON{AsOf: asOfOrNull(v.AsOf), Stale: v.Stale, TotalValue: numOrNull(v.TotalValue, money), TotalCost: money(v.TotalCost),
		UnrealizedPL: numOrNull(v.UnrealizedPL, money), UnrealizedPLPct: numOrNull(v.UnrealizedPLPct, pct),
		DayChange: numOrNull(v.DayChange, money), DayChangePct: numOrNull(v.DayChangePct, pct), RealizedPL: money(v.Realized),
		HoldingsCount: v.Lots, Metals: map[string]PortfolioMetalJSON{}, DayChangeLeftOut: []string{}}
	for _, m := range v.DayChangeLeftOut {
		out.DayChangeLeftOut = append(out.DayChangeLeftOut, string(m))
	}
	for _, p := range v.Positions {
		j := PortfolioMetalJSON{Oz: ounces(p.HeldOz), Spot: numOrNull(p.Spot, priceNum), Value: numOrNull(p.Value, money),
			Cost: money(p.Cost), UnrealizedPL: numOrNull(p.UnrealizedPL, money), UnrealizedPLPct: numOrNull(p.UnrealizedPLPct, pct),
			AllocationPct: numOrNull(p.AllocationPct, pct), DayChange: numOrNull(p.DayChange, money), Stale: p.Stale(),
			ChangeFrom: dayOrNull(p.ChangeFrom), ChangeAsOf: dayOrNull(p.ChangeAsOf)}
		if p.DayChangeNote != "" {
			j.DayChangeNote = &p.DayChangeNote
		}
		out.Metals[string(p.Metal)] = j
	}
	return out
}

// analyticsJSON renders analytics.
func analyticsJSON(a portfolio.Analytics) AnalyticsJSON {
	out := AnalyticsJSON{AsOf: asOfOrNull(a.AsOf), Stale: a.Stale, Metals: map[string]AnalyticsMetalJSON{}}
	for _, m := range a.Metals {
		out.Metals[string(m.Metal)] = AnalyticsMetalJSON{
			Oz: ounces(m.HeldOz), CostBasis: money(m.Cost), AvgCostPerOz: numOrNull(m.AvgCostPerOz(), money), BreakEvenPrice: numOrNull(m.BreakEven(), money),
			Spot: numOrNull(m.Spot, priceNum), DistanceToBreakEvenPct: numOrNull(m.DistanceToBreakEvenPct(), pct),
			Value: numOrNull(m.Value, money), UnrealizedPL: numOrNull(m.UnrealizedPL, money), UnrealizedPLPct: numOrNull(m.UnrealizedPLPct, pct),
			RealizedPL: money(m.Realized), AllocationPct: numOrNull(m.AllocationPct, pct), WeightAllocationPct: pct(m.WeightPct),
			Purchases: m.Purchases, Sales: m.Sales, FirstPurchase: dateOrNull(m.FirstPurchase), LastPurchase: dateOrNull(m.LastPurchase),
			AvgPremiumPct: numOrNull(m.AvgPremiumPct, pct),
		}
	}
	t := a.Totals
	out.Totals = AnalyticsTotalsJSON{Oz: ounces(t.HeldOz), CostBasis: money(t.Cost), Value: numOrNull(t.Value, money),
		UnrealizedPL: numOrNull(t.UnrealizedPL, money), UnrealizedPLPct: numOrNull(t.UnrealizedPLPct, pct), RealizedPL: money(t.Realized),
		Purchases: t.Purchases, Sales: t.Sales, FirstPurchase: dateOrNull(t.FirstPurchase), LastPurchase: dateOrNull(t.LastPurchase),
		AvgPremiumPct: numOrNull(t.AvgPremiumPct, pct)}
	return out
}

// portfolioHistoryJSON renders the value-over-time series.
func portfolioHistoryJSON(hist portfolio.History) PortfolioHistoryJSON {
	out := PortfolioHistoryJSON{Range: string(hist.Range), Points: make([]PortfolioPointJSON, len(hist.Points))}
	for i, p := range hist.Points {
		out.Points[i] = PortfolioPointJSON{Date: p.Date.Format(db.DateLayout), Value: money(p.Value), Cost: money(p.Cost)}
	}
	out.Count = len(out.Points)
	if out.Count > 0 {
		out.From, out.To = &out.Points[0].Date, &out.Points[out.Count-1].Date
	}
	return out
}

// APIPortfolio answers GET /v1/portfolio.
func (h *Handlers) APIPortfolio(c *fiber.Ctx) error {
	u, err := requireUser(c)
	if err != nil {
		return err
	}
	v, err := h.portfolio.Portfolio(h.ctx(c), u)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "private, no-store")
	return writeJSON(c, http.StatusOK, portfolioJSON(v))
}

// APIAnalytics answers GET /v1/analytics.
func (h *Handlers) APIAnalytics(c *fiber.Ctx) error {
	u, err := requireUser(c)
	if err != nil {
		return err
	}
	a, err := h.portfolio.Analytics(h.ctx(c), u)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "private, no-store")
	return writeJSON(c, http.StatusOK, analyticsJSON(a))
}

// APIPortfolioHistory answers GET /v1/portfolio/history.
func (h *Handlers) APIPortfolioHistory(c *fiber.Ctx) error {
	u, err := requireUser(c)
	if err != nil {
		return err
	}
	hist, err := h.portfolio.History(h.ctx(c), u, c.Query("range"))
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "private, no-store")
	return writeJSON(c, http.StatusOK, portfolioHistoryJSON(hist))
}
