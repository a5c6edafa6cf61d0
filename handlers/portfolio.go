package handlers

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/prices"
)

// portfolioRoutes are the /v1 portfolio, analytics, sales and import/export routes.
func (h *Handlers) portfolioRoutes() []APIRoute {
	return []APIRoute{
		{Method: "GET", Path: "/v1/portfolio", Auth: AuthGold, Handler: h.APIPortfolio, OperationID: "getPortfolio", Tag: "Portfolio",
			Summary:     "Your stack valued at live spot prices",
			Description: "Value is fine ounces still held × live spot; cost basis is quantity × price + fees, less the share of sold units. The day's change counts only holdings bought before the current trading session. All four metals are always present. Where a held metal has no price, its value and everything derived from it is null and stale is true: prices are never invented.",
			Responses:   []Response{{Status: 200, Description: "The portfolio summary.", Schema: pfSummarySchema()}},
			Example:     "GET /v1/portfolio"},
		{Method: "GET", Path: "/v1/portfolio/history", Auth: AuthGold, Handler: h.APIPortfolioHistory, OperationID: "getPortfolioHistory", Tag: "Portfolio",
			Summary:     "Your stack's value over time",
			Description: "For each daily close in the range: the ounces held on that date (purchases and sales up to it; undated holdings from the day they were recorded) × that date's close, and the cost basis held. At most 500 points, downsampled keeping the curve's shape.",
			Params:      []Param{{Name: "range", In: "query", Description: "Window ending today; ALL starts at your first purchase.", Schema: Schema{"type": "string", "enum": pfRangeNames(), "default": string(prices.DefaultRange)}, Example: "1Y"}},
			Responses:   []Response{{Status: 200, Description: "Value and cost per date, oldest first.", Schema: pfHistorySchema()}},
			Example:     "GET /v1/portfolio/history?range=1Y"},
		{Method: "GET", Path: "/v1/analytics", Auth: AuthGold, Handler: h.APIAnalytics, OperationID: "getAnalytics", Tag: "Portfolio",
			Summary:     "Cost basis, break-even and allocation per metal",
			Description: "break_even_price is the spot price per ounce at which a metal's value equals its remaining cost basis (after sales); distance_to_break_even_pct is how far spot would have to move to reach it. avg_cost_per_oz is over every purchase (sold units included, fees included). avg_premium_pct compares the unit prices paid with the historical spot on each purchase date (fees and zero-cost gifts excluded; null without dated purchases or history).",
			Responses:   []Response{{Status: 200, Description: "Analytics per metal and in total.", Schema: pfAnalyticsSchema()}},
			Example:     "GET /v1/analytics"},
		{Method: "POST", Path: "/v1/holdings/:id/sales", Auth: AuthGold, Handler: h.APISalesCreate, OperationID: "createSale", Tag: "Portfolio",
			Summary:     "Record a sale of some or all units of a holding",
			Description: "The units' cost basis is their share of the holding's remaining cost basis (quantity × price + fees); realized P/L = proceeds − sale fees − that cost basis. Selling more units than are still held is 409.",
			Params:      []Param{{Name: "id", In: "path", Required: true, Description: "Holding id.", Schema: Schema{"type": "string", "maxLength": 64}, Example: "h_abc123"}},
			Body:        pfSaleCreateSchema(),
			Responses: []Response{
				{Status: 201, Description: "The sale, with its realized profit or loss.", Schema: pfObject(Schema{"sale": pfSaleSchema()})},
				{Status: 404, Description: "No such holding of yours."},
				{Status: 409, Description: "More units than are still held."},
				{Status: 413, Description: "Body over 64 KiB."},
			},
			Example: `POST /v1/holdings/h_abc123/sales {"quantity":5,"price_per_unit":34.10,"fees":2.50,"sold_on":"2026-11-20"}`},
		{Method: "GET", Path: "/v1/sales", Auth: AuthGold, Handler: h.APISalesList, OperationID: "listSales", Tag: "Portfolio",
			Summary: "List your sales, latest first",
			Params: []Param{
				{Name: "limit", In: "query", Description: "Page size.", Schema: Schema{"type": "integer", "minimum": 1, "maximum": 200, "default": 50}},
				{Name: "offset", In: "query", Description: "Items to skip.", Schema: Schema{"type": "integer", "minimum": 0, "default": 0}},
				{Name: "metal", In: "query", Description: "Only this metal.", Schema: metalSchema()},
				{Name: "holding_id", In: "query", Description: "Only sales of this holding.", Schema: Schema{"type": "string", "maxLength": 64}},
			},
			Responses: []Response{{Status: 200, Description: "A page of sales and the realized P/L of all of them.", Schema: pfObject(Schema{
				"sales": Schema{"type": "array", "items": pfSaleSchema()}, "limit": pfInt(), "offset": pfInt(), "total": pfInt(),
				"realized_pl": pfNum("Realized profit or loss of every sale matching the filter, USD."),
			})}},
			Example: "GET /v1/sales?limit=20"},
		{Method: "GET", Path: "/v1/holdings/export", Auth: AuthGold, Handler: h.APIHoldingsExport, OperationID: "exportHoldings", Tag: "Portfolio",
			Summary:     "Download every holding as CSV or JSON",
			Description: "format=csv (default) answers text/csv with a header row of the importable fields (metal, product_name, quantity, weight_oz, purchase_price, fees, dealer, purchase_date, notes), so an export imports back unchanged; text cells that a spreadsheet would run as a formula are prefixed with an apostrophe, which import removes. format=json answers the JSON below, which also carries ids and sold quantities.",
			Params:      []Param{{Name: "format", In: "query", Description: "csv or json.", Schema: Schema{"type": "string", "enum": []string{"csv", "json"}, "default": "csv"}}},
			Responses: []Response{{Status: 200, Description: "The holdings, oldest purchase first: text/csv for format=csv, application/json for format=json.",
				Contents: map[string]Schema{"text/csv": {"type": "string", "description": "A header row, then one row per holding."}, "application/json": pfExportSchema()}}},
			Example: "GET /v1/holdings/export?format=csv"},
		{Method: "POST", Path: "/v1/holdings/import", Auth: AuthGold, Handler: h.APIHoldingsImport, OperationID: "importHoldings", Tag: "Portfolio",
			Summary:     "Import holdings from CSV, all or nothing",
			Description: "Send the CSV as the body (Content-Type: text/csv) or as the multipart field file. The first row names the columns, in any order, from: metal, product_name, quantity, weight_oz, purchase_price, fees, dealer, purchase_date, notes (metal, quantity, weight_oz and purchase_price are required). Each row is validated like POST /v1/holdings; if any row is bad nothing is stored and the 422 lists every problem as {row, field, message}, rows counted from 1 after the header. Rows that exactly repeat one of your holdings (or an earlier row) on metal, product, quantity, weight, price, fees, dealer and date are skipped and counted. At most 10,000 rows and 5 MiB.",
			BodyByType: map[string]Schema{
				"text/csv":            {"type": "string", "description": "The CSV text."},
				"multipart/form-data": {"type": "object", "required": []string{"file"}, "properties": Schema{"file": Schema{"type": "string", "format": "binary", "description": "The CSV file."}}},
			},
			Responses: []Response{
				{Status: 200, Description: "Imported.", Schema: pfObject(Schema{"imported": pfInt(), "skipped_duplicates": pfInt()})},
				{Status: 413, Description: "More than 10,000 rows or 5 MiB."},
				{Status: 422, Description: "Some rows are invalid; nothing was imported. errors lists {row, field, message}.", Schema: pfImportProblemSchema(), ContentType: "application/problem+json"},
			},
			Example: "POST /v1/holdings/import @holdings.csv"},
	}
}

// portfolioPages are the dashboard's own browser routes (import page and fragments).
func (h *Handlers) portfolioPages() []PageRoute {
	return []PageRoute{
		{"GET", "/dashboard/summary", h.DashboardSummary, AuthMember},
		{"GET", "/dashboard/holdings", h.DashboardHoldings, AuthMember},
		{"GET", "/dashboard/chart", h.DashboardChart, AuthMember},
		{"GET", "/holdings/:id/sell", h.SaleForm, AuthMember},
		{"POST", "/holdings/:id/sell", h.SaleSubmit, AuthMember},
		{"GET", "/portfolio/import", h.ImportPage, AuthMember},
		{"POST", "/portfolio/import/preview", h.ImportPreviewSubmit, AuthMember},
		{"POST", "/portfolio/import", h.ImportCommit, AuthMember},
		{"GET", "/portfolio/export", h.ExportDownload, AuthMember},
	}
}

// dashboard renders the signed-in member's dashboard at "/"; handled is false when the
// visitor should see the public markets page instead.
func (h *Handlers) dashboard(c *fiber.Ctx) (handled bool, err error) {
	u, ok := UserFrom(c)
	if !ok || !u.IsGold() {
		return false, nil
	}
	return true, h.DashboardPage(c)
}

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
}

// PortfolioJSON is the body of GET /v1/portfolio.
type PortfolioJSON struct {
	AsOf            *time.Time                    `json:"as_of"`
	Stale           bool                          `json:"stale"`
	TotalValue      *Num                          `json:"total_value"`
	TotalCost       Num                           `json:"total_cost"`
	UnrealizedPL    *Num                          `json:"unrealized_pl"`
	UnrealizedPLPct *Num                          `json:"unrealized_pl_pct"`
	DayChange       *Num                          `json:"day_change"`
	DayChangePct    *Num                          `json:"day_change_pct"`
	RealizedPL      Num                           `json:"realized_pl"`
	HoldingsCount   int64                         `json:"holdings_count"`
	Metals          map[string]PortfolioMetalJSON `json:"metals"`
}

// pfMetalValuation is one metal valued at the live board; nil pointers are unknown values.
type pfMetalValuation struct {
	t         db.MetalTotals
	spot      *prices.Spot
	value     *decimal.Decimal // rounded to cents
	dayChange *decimal.Decimal // rounded to cents
	prevValue decimal.Decimal  // value before today's move, of what was held before today
	alloc     *decimal.Decimal
	weight    decimal.Decimal
}

// pfValuation is the whole portfolio valued at the live board.
type pfValuation struct {
	asOf       time.Time
	stale      bool
	metals     []pfMetalValuation // metals.All order
	totalValue *decimal.Decimal
	totalCost  decimal.Decimal
	dayChange  *decimal.Decimal
	prevValue  decimal.Decimal
	realized   decimal.Decimal
	lots       int64
}

// pfValue values the user's holdings at the live board. It reads one per-metal aggregate from
// the store, never the holdings one by one.
func (h *Handlers) pfValue(ctx context.Context, u db.User, detail db.TotalsDetail) (pfValuation, error) {
	now := h.now()
	// "Today" is the trading session the live change belongs to: a purchase dated that day
	// (or later) was not held through the move.
	today := db.NewDate(prices.SessionDate(now))
	totals, err := h.store.PortfolioTotals(ctx, u.ID, today, detail)
	if err != nil {
		return pfValuation{}, err
	}
	var snap prices.Snapshot
	if h.market != nil {
		snap = h.market.Snapshot()
	}
	v := pfValuation{asOf: snap.AsOf, stale: h.market == nil, totalCost: decimal.Zero, realized: decimal.Zero, prevValue: decimal.Zero}
	total, day := decimal.Zero, decimal.Zero
	valueKnown, dayKnown := true, true
	for _, t := range totals {
		mv := pfMetalValuation{t: t, prevValue: decimal.Zero}
		if sp, ok := snap.Prices[t.Metal]; ok {
			mv.spot = &sp
			val := metals.Money(t.HeldOz.Mul(sp.Price))
			mv.value = &val
			if sp.Stale {
				v.stale = true
			}
			if !sp.PrevClose.IsZero() {
				dc := metals.Money(t.HeldOzBefore.Mul(sp.Change))
				mv.dayChange = &dc
				mv.prevValue = t.HeldOzBefore.Mul(sp.PrevClose)
			} else if t.HeldOzBefore.IsZero() {
				mv.dayChange = pfPtr(decimal.Zero)
			}
		} else {
			v.stale = true
			if t.HeldOz.IsZero() {
				mv.value = pfPtr(decimal.Zero)
			}
			if t.HeldOzBefore.IsZero() {
				mv.dayChange = pfPtr(decimal.Zero)
			}
		}
		if mv.value == nil {
			valueKnown = false
		} else {
			total = total.Add(*mv.value)
		}
		if mv.dayChange == nil {
			dayKnown = false
		} else {
			day = day.Add(*mv.dayChange)
		}
		v.prevValue = v.prevValue.Add(mv.prevValue)
		v.totalCost = v.totalCost.Add(t.HeldCost)
		v.realized = v.realized.Add(t.Realized)
		v.lots += t.Lots
		v.metals = append(v.metals, mv)
	}
	if valueKnown {
		v.totalValue = &total
		shares := make([]decimal.Decimal, len(v.metals))
		for i, mv := range v.metals {
			shares[i] = *mv.value
		}
		for i, a := range pfShares(shares) {
			v.metals[i].alloc = &a
		}
	}
	if dayKnown {
		v.dayChange = &day
	}
	oz := make([]decimal.Decimal, len(v.metals))
	for i, mv := range v.metals {
		oz[i] = mv.t.HeldOz
	}
	for i, w := range pfShares(oz) {
		v.metals[i].weight = w
	}
	return v, nil
}

// percentShares turns non-negative parts into percentages with two decimals that add up to
// exactly 100 (largest remainder), or all zeros when the parts sum to zero.
func pfShares(parts []decimal.Decimal) []decimal.Decimal {
	out := make([]decimal.Decimal, len(parts))
	sum := decimal.Zero
	for _, p := range parts {
		sum = sum.Add(p)
	}
	if !sum.IsPositive() {
		for i := range out {
			out[i] = decimal.Zero
		}
		return out
	}
	// Work in hundredths of a percent: 10,000 units to hand out.
	type share struct {
		i     int
		units int64
		rest  decimal.Decimal
	}
	shares := make([]share, len(parts))
	given := int64(0)
	for i, p := range parts {
		raw := p.Mul(decimal.NewFromInt(10000)).Div(sum)
		u := raw.Floor()
		shares[i] = share{i: i, units: u.IntPart(), rest: raw.Sub(u)}
		given += shares[i].units
	}
	order := make([]share, len(shares))
	copy(order, shares)
	sort.SliceStable(order, func(a, b int) bool { return order[a].rest.GreaterThan(order[b].rest) })
	for k := 0; given < 10000 && k < len(order); k++ {
		shares[order[k].i].units++
		given++
	}
	for i, s := range shares {
		out[i] = decimal.New(s.units, -2)
	}
	return out
}

func pfOptNum(d *decimal.Decimal, f func(decimal.Decimal) Num) *Num {
	if d == nil {
		return nil
	}
	n := f(*d)
	return &n
}

// pctOf is part/whole × 100, or nil when whole is zero or part unknown.
func pfPctOf(part *decimal.Decimal, whole decimal.Decimal) *decimal.Decimal {
	if part == nil || whole.IsZero() {
		return nil
	}
	p := part.Mul(decimal.NewFromInt(100)).Div(whole)
	return &p
}

func pfSub(a *decimal.Decimal, b decimal.Decimal) *decimal.Decimal {
	if a == nil {
		return nil
	}
	d := a.Sub(b)
	return &d
}

func (v pfValuation) asOfPtr() *time.Time {
	if v.asOf.IsZero() {
		return nil
	}
	t := v.asOf.UTC()
	return &t
}

// Portfolio is the use case behind GET /v1/portfolio (and the MCP get_portfolio tool).
func (h *Handlers) Portfolio(ctx context.Context, u db.User) (PortfolioJSON, error) {
	v, err := h.pfValue(ctx, u, db.HeldOnly)
	if err != nil {
		return PortfolioJSON{}, err
	}
	return v.portfolioJSON(), nil
}

func (v pfValuation) portfolioJSON() PortfolioJSON {
	out := PortfolioJSON{AsOf: v.asOfPtr(), Stale: v.stale, TotalValue: pfOptNum(v.totalValue, money), TotalCost: money(v.totalCost),
		DayChange: pfOptNum(v.dayChange, money), RealizedPL: money(v.realized), HoldingsCount: v.lots, Metals: map[string]PortfolioMetalJSON{}}
	pl := pfSub(v.totalValue, v.totalCost)
	out.UnrealizedPL = pfOptNum(pl, money)
	out.UnrealizedPLPct = pfOptNum(pfPctOf(pl, v.totalCost), pct)
	if v.dayChange != nil {
		out.DayChangePct = pfOptNum(pfPctOf(v.dayChange, v.prevValue), pct)
	}
	for _, mv := range v.metals {
		mpl := pfSub(mv.value, mv.t.HeldCost)
		j := PortfolioMetalJSON{Oz: ounces(mv.t.HeldOz), Value: pfOptNum(mv.value, money), Cost: money(mv.t.HeldCost),
			UnrealizedPL: pfOptNum(mpl, money), UnrealizedPLPct: pfOptNum(pfPctOf(mpl, mv.t.HeldCost), pct),
			AllocationPct: pfOptNum(mv.alloc, pct), DayChange: pfOptNum(mv.dayChange, money), Stale: mv.spot == nil || mv.spot.Stale}
		if mv.spot != nil {
			j.Spot = pfOptNum(&mv.spot.Price, money)
		}
		out.Metals[string(mv.t.Metal)] = j
	}
	return out
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

// AnalyticsJSON is the body of GET /v1/analytics.
type AnalyticsJSON struct {
	AsOf   *time.Time                    `json:"as_of"`
	Stale  bool                          `json:"stale"`
	Metals map[string]AnalyticsMetalJSON `json:"metals"`
	Totals AnalyticsTotalsJSON           `json:"totals"`
}

func pfDate(d db.Date) *string {
	if d.IsZero() {
		return nil
	}
	s := d.String()
	return &s
}

// divMoney is a/b rounded to cents, or nil when b is zero.
func pfDivMoney(a, b decimal.Decimal) *Num {
	if b.IsZero() {
		return nil
	}
	n := money(a.Div(b))
	return &n
}

// Analytics is the use case behind GET /v1/analytics (and the MCP get_analytics tool).
func (h *Handlers) Analytics(ctx context.Context, u db.User) (AnalyticsJSON, error) {
	v, err := h.pfValue(ctx, u, db.WithPurchases)
	if err != nil {
		return AnalyticsJSON{}, err
	}
	out := AnalyticsJSON{AsOf: v.asOfPtr(), Stale: v.stale, Metals: map[string]AnalyticsMetalJSON{}}
	paid, ref, err := h.pfPremiumSums(ctx, u, v)
	if err != nil {
		return AnalyticsJSON{}, err
	}
	tot := AnalyticsTotalsJSON{}
	totOz, totPaid, totRef := decimal.Zero, decimal.Zero, decimal.Zero
	var first, last db.Date
	for _, mv := range v.metals {
		t := mv.t
		pl := pfSub(mv.value, t.HeldCost)
		j := AnalyticsMetalJSON{
			Oz: ounces(t.HeldOz), CostBasis: money(t.HeldCost),
			AvgCostPerOz: pfDivMoney(t.BoughtCost, t.BoughtOz), BreakEvenPrice: pfDivMoney(t.HeldCost, t.HeldOz),
			Value: pfOptNum(mv.value, money), UnrealizedPL: pfOptNum(pl, money), UnrealizedPLPct: pfOptNum(pfPctOf(pl, t.HeldCost), pct),
			RealizedPL: money(t.Realized), AllocationPct: pfOptNum(mv.alloc, pct), WeightAllocationPct: pct(mv.weight),
			Purchases: t.Purchases, Sales: t.Sales, FirstPurchase: pfDate(t.FirstPurchase), LastPurchase: pfDate(t.LastPurchase),
			AvgPremiumPct: pfOptNum(pfPctOf(pfSub(pfPtr(paid[t.Metal]), ref[t.Metal]), ref[t.Metal]), pct),
		}
		if mv.spot != nil {
			j.Spot = pfOptNum(&mv.spot.Price, money)
			if !t.HeldOz.IsZero() && mv.spot.Price.IsPositive() {
				be := t.HeldCost.Div(t.HeldOz)
				j.DistanceToBreakEvenPct = pfOptNum(pfPtr(metals.PctChange(mv.spot.Price, be)), pct)
			}
		}
		out.Metals[string(t.Metal)] = j
		totOz = totOz.Add(t.HeldOz)
		totPaid, totRef = totPaid.Add(paid[t.Metal]), totRef.Add(ref[t.Metal])
		tot.Purchases += t.Purchases
		tot.Sales += t.Sales
		if !t.FirstPurchase.IsZero() && (first.IsZero() || t.FirstPurchase.Before(first.Time)) {
			first = t.FirstPurchase
		}
		if t.LastPurchase.After(last.Time) {
			last = t.LastPurchase
		}
	}
	pl := pfSub(v.totalValue, v.totalCost)
	tot.Oz, tot.CostBasis, tot.Value = ounces(totOz), money(v.totalCost), pfOptNum(v.totalValue, money)
	tot.UnrealizedPL, tot.UnrealizedPLPct = pfOptNum(pl, money), pfOptNum(pfPctOf(pl, v.totalCost), pct)
	tot.RealizedPL = money(v.realized)
	tot.FirstPurchase, tot.LastPurchase = pfDate(first), pfDate(last)
	tot.AvgPremiumPct = pfOptNum(pfPctOf(pfSub(&totPaid, totRef), totRef), pct)
	out.Totals = tot
	return out, nil
}

func pfPtr(d decimal.Decimal) *decimal.Decimal { return &d }

// pfPremium is what a member paid for dated, priced purchases per metal, and what those
// ounces were worth at the historical spot of their purchase days.
type pfPremium struct {
	fingerprint string
	paid, ref   map[metals.Metal]decimal.Decimal
}

// pfPremiumCache keeps each member's premium sums until their holdings or the price history
// change: they depend on every purchase (one historical close per purchase day), but not on
// live prices. Entries are validated against a fingerprint read with the portfolio totals on
// every request, so several instances stay correct; the cache is bounded by random eviction.
type pfPremiumCache struct {
	sync.Mutex
	m map[int64]pfPremium
}

const pfPremiumCacheSize = 4096

// pfPremiumSums returns the premium sums of u, from the cache when nothing they depend on has
// changed. Within five minutes a date-only edit made by an instance whose clock runs behind
// could go unnoticed; the time bucket in the fingerprint bounds that.
func (h *Handlers) pfPremiumSums(ctx context.Context, u db.User, v pfValuation) (map[metals.Metal]decimal.Decimal, map[metals.Metal]decimal.Decimal, error) {
	paid, ref := map[metals.Metal]decimal.Decimal{}, map[metals.Metal]decimal.Decimal{}
	if h.market == nil {
		return paid, ref, nil
	}
	var fp strings.Builder
	fmt.Fprintf(&fp, "%d/%d", h.market.Generation(), h.now().Unix()/300)
	for _, mv := range v.metals {
		t := mv.t
		fmt.Fprintf(&fp, "|%d,%s,%s,%s,%s,%s,%s", t.Purchases, t.BoughtOz, t.BoughtCost, t.BoughtFees, t.FirstPurchase, t.LastPurchase, t.LastChange)
	}
	key := u.ID
	cache := &h.premiums
	cache.Lock()
	hit, ok := cache.m[key]
	cache.Unlock()
	if ok && hit.fingerprint == fp.String() {
		return hit.paid, hit.ref, nil
	}
	// Purchases grouped per metal and date in SQL: one historical close per purchase day.
	changes, err := h.store.PositionChanges(ctx, u.ID)
	if err != nil {
		return nil, nil, err
	}
	spotOn := h.pfSpotOn()
	for _, ch := range changes {
		if !ch.Dated || !ch.PricedOz.IsPositive() {
			continue
		}
		spot, ok := spotOn(ch.Metal, ch.Day.Time)
		if !ok {
			continue
		}
		paid[ch.Metal] = paid[ch.Metal].Add(ch.Paid)
		ref[ch.Metal] = ref[ch.Metal].Add(ch.PricedOz.Mul(spot))
	}
	cache.Lock()
	if cache.m == nil {
		cache.m = map[int64]pfPremium{}
	}
	if len(cache.m) >= pfPremiumCacheSize {
		for k := range cache.m {
			delete(cache.m, k)
			break
		}
	}
	cache.m[key] = pfPremium{fingerprint: fp.String(), paid: paid, ref: ref}
	cache.Unlock()
	return paid, ref, nil
}

// pfSpotOn returns, per metal, the historical spot for a purchase day: the last daily close
// on or before it (the monthly average before daily data begins). A day more than a week
// after the last close has none, because a stale close would mislead.
func (h *Handlers) pfSpotOn() func(m metals.Metal, day time.Time) (decimal.Decimal, bool) {
	now := h.now().UTC()
	last := map[metals.Metal]time.Time{}
	for _, m := range metals.All {
		if cs := h.market.DailyCloses(m, now.AddDate(-3, 0, 0), now); len(cs) > 0 {
			last[m] = cs[len(cs)-1].Date
		}
	}
	return func(m metals.Metal, day time.Time) (decimal.Decimal, bool) {
		if l, ok := last[m]; ok && day.After(l.AddDate(0, 0, 7)) {
			return decimal.Zero, false
		}
		return h.market.CloseOn(m, day)
	}
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

// pfMaxHistoryPoints bounds the value-over-time series.
const pfMaxHistoryPoints = 500

// PortfolioHistory is the use case behind GET /v1/portfolio/history: for every daily close in
// the range, the ounces held that day × that day's close, and the cost basis held.
func (h *Handlers) PortfolioHistory(ctx context.Context, u db.User, rng string) (PortfolioHistoryJSON, error) {
	r, err := parseRangeParam(rng)
	if err != nil {
		return PortfolioHistoryJSON{}, err
	}
	out := PortfolioHistoryJSON{Range: string(r), Points: []PortfolioPointJSON{}}
	changes, err := h.store.PositionChanges(ctx, u.ID)
	if err != nil {
		return out, err
	}
	if h.market == nil || len(changes) == 0 {
		return out, nil
	}
	now := h.now().UTC()
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	from := r.Start(now)
	if r == prices.RangeAll || from.Before(changes[0].Day.Time) {
		// Nothing was held before the first purchase: start there.
		from = changes[0].Day.Time
	}
	type series struct {
		closes []prices.Close
		next   int
		last   decimal.Decimal
		known  bool
		oz     decimal.Decimal
		cost   decimal.Decimal
	}
	ser := map[metals.Metal]*series{}
	var days []time.Time
	seen := map[time.Time]bool{}
	for _, m := range metals.All {
		s := &series{closes: h.market.DailyCloses(m, from, today)}
		if c, ok := h.market.CloseOn(m, from.AddDate(0, 0, -1)); ok {
			s.last, s.known = c, true
		}
		for _, c := range s.closes {
			if !seen[c.Date] {
				seen[c.Date] = true
				days = append(days, c.Date)
			}
		}
		ser[m] = s
	}
	sort.Slice(days, func(i, j int) bool { return days[i].Before(days[j]) })
	values := make([]prices.Close, 0, len(days))
	costs := make(map[time.Time]decimal.Decimal, len(days))
	ci := 0
	for _, d := range days {
		for ci < len(changes) && !changes[ci].Day.After(d) {
			s := ser[changes[ci].Metal]
			s.oz, s.cost = s.oz.Add(changes[ci].Oz), s.cost.Add(changes[ci].Cost)
			ci++
		}
		value, cost, ok := decimal.Zero, decimal.Zero, true
		for _, m := range metals.All {
			s := ser[m]
			for s.next < len(s.closes) && !s.closes[s.next].Date.After(d) {
				s.last, s.known = s.closes[s.next].Price, true
				s.next++
			}
			// A sale dated before an undated purchase was recorded could dip below zero.
			oz := decimal.Max(s.oz, decimal.Zero)
			if oz.IsPositive() && !s.known {
				ok = false // held, but no price yet: skip the date rather than guess
				break
			}
			if oz.IsPositive() {
				value = value.Add(oz.Mul(s.last))
			}
			cost = cost.Add(decimal.Max(s.cost, decimal.Zero))
		}
		if !ok {
			continue
		}
		values = append(values, prices.Close{Date: d, Price: value})
		costs[d] = cost
	}
	values = prices.LTTB(values, pfMaxHistoryPoints)
	for _, p := range values {
		out.Points = append(out.Points, PortfolioPointJSON{Date: p.Date.Format(db.DateLayout), Value: money(p.Price), Cost: money(costs[p.Date])})
	}
	out.Count = len(out.Points)
	if out.Count > 0 {
		out.From, out.To = &out.Points[0].Date, &out.Points[out.Count-1].Date
	}
	return out, nil
}

func pfRangeNames() []string {
	out := make([]string, len(prices.Ranges))
	for i, r := range prices.Ranges {
		out[i] = string(r)
	}
	return out
}
