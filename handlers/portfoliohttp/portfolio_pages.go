package portfoliohttp

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/ouncehq/ounce/handlers/kit"

	"github.com/gofiber/fiber/v2"
	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/portfolio"
	"github.com/ouncehq/ounce/views/components"
	"github.com/ouncehq/ounce/views/format"
	"github.com/ouncehq/ounce/views/pages"
)

// dashboardRows caps the dashboard's holdings table; the holdings page lists everything.
const dashboardRows = 100

// portfolioLive reports whether pages can follow the price feed's event stream.
func (h *Handlers) portfolioLive() bool { return h.portfolio.Live() }

// dashboardSummaryView is the live headline: totals, allocation and break-even per metal.
func (h *Handlers) dashboardSummaryView(c *fiber.Ctx, u account.User, v portfolio.Portfolio) pages.DashboardSummaryView {
	cur, unit := valuationCurrency(v.FX), displayUnit(u)
	out := pages.DashboardSummaryView{
		Live: h.portfolioLive(), TotalValue: format.MoneyPtr(v.TotalValue, cur), TotalCost: format.Money(v.TotalCost, cur),
		UnrealizedPL: signedMoneyPtr(v.UnrealizedPL, cur), UnrealizedPLPct: format.SignedPctPtr(v.UnrealizedPLPct), PLTone: kit.Tone(v.UnrealizedPL),
		DayChange: signedMoneyPtr(v.DayChange, cur), DayTone: kit.Tone(v.DayChange), RealizedPL: format.SignedMoney(v.Realized, cur), RealizedTone: kit.Tone(&v.Realized),
		Stale: v.Stale, Count: format.Int(v.Lots), FXNote: fxNote(v.FX),
	}
	// "Today" only for moves of live prices from the preceding session's close.
	out.DayLabel = "Today"
	if v.DayChange != nil {
		out.DayChangePct = format.SignedPctPtr(v.DayChangePct)
	} else {
		out.DayLabel, out.DayTone, out.DayChangePct = "Day change", "", "no live change"
	}
	if len(v.DayChangeLeftOut) > 0 {
		out.DayNote = "Day change leaves out " + strings.Join(kit.MapSlice(v.DayChangeLeftOut, metals.Metal.Title), ", ") + ": no live move from the previous session's close."
	}
	if !v.AsOf.IsZero() {
		out.AsOf = format.DateTime(v.AsOf)
	}
	if v.Stale {
		// Last-known prices are of their own days: each metal's date is named.
		var dated []format.Dated
		for _, p := range v.Positions {
			if p.Spot != nil {
				dated = append(dated, format.Dated{Name: strings.ToLower(p.Metal.Title()), At: p.SpotAsOf})
			}
		}
		if len(dated) > 0 {
			out.AsOf = format.DatedList(dated)
		}
	}
	donut := components.Donut{ID: "allocation", Title: "Allocation by value"}
	var parts []string
	for _, p := range v.Positions {
		row := pages.BreakEvenRow{Metal: string(p.Metal), Title: p.Metal.Title(), Held: p.HeldOz.IsPositive(),
			Oz: format.Oz(p.HeldOz), Cost: format.Money(p.Cost, cur), BreakEven: breakEvenText(p.BreakEven(), cur, unit), Spot: spotText(p.Spot, cur, unit),
			Distance: format.SignedPctPtr(p.DistanceToBreakEvenPct()), DistanceTone: "flat"}
		if d := p.DistanceToBreakEvenPct(); d != nil {
			// Spot above break-even (a negative distance) is good news.
			row.DistanceTone = kit.Tone(negated(*d))
		}
		out.BreakEven = append(out.BreakEven, row)
		if a := p.AllocationPct; a != nil && a.IsPositive() {
			f, _ := a.Float64() // drawing only; the label keeps the exact share
			s := components.DonutSlice{Metal: string(p.Metal), Label: p.Metal.Title(), Pct: format.Pct(*a), Value: format.MoneyPtr(p.Value, cur), Frac: f}
			donut.Slices = append(donut.Slices, s)
			parts = append(parts, s.Label+" "+s.Pct)
		}
	}
	switch {
	case v.TotalValue == nil:
		donut.Note = "Allocation needs a price for every metal you hold."
	case len(donut.Slices) == 0:
		donut.Note = "Nothing held yet."
	default:
		donut.Desc = "Share of the stack's value by metal: " + strings.Join(parts, ", ") + "."
	}
	out.Allocation = donut
	out.ByLocation, out.ByForm = h.allocationRows(c, u, v)
	return out
}

// allocationRows are the value by location (only once the member keeps a location) and by
// form; none when the allocation cannot be made (a held metal without a price).
func (h *Handlers) allocationRows(c *fiber.Ctx, u account.User, v portfolio.Portfolio) (byLoc, byForm []pages.AllocationRow) {
	loc, form, err := h.portfolio.Allocations(h.Ctx(c), u, v)
	if err != nil {
		return nil, nil
	}
	cur := valuationCurrency(v.FX)
	rows := func(sl []portfolio.Slice) []pages.AllocationRow {
		out := make([]pages.AllocationRow, len(sl))
		for i, s := range sl {
			out[i] = pages.AllocationRow{Name: s.Name, Value: format.Money(s.Value, cur), Pct: format.Pct(s.Pct)}
		}
		return out
	}
	if len(loc) > 1 || (len(loc) == 1 && loc[0].Key != portfolio.Unassigned) {
		byLoc = rows(loc)
	}
	return byLoc, rows(form)
}

func negated(d decimal.Decimal) *decimal.Decimal { n := d.Neg(); return &n }

// lotColumns are the sortable columns of the dashboard's holdings table.
var lotColumns = []struct {
	key, label string
	right      bool
	defDesc    bool
}{
	{portfolio.LotsByProduct, "Product", false, false},
	{portfolio.LotsByMetal, "Metal", false, false},
	{portfolio.LotsByOz, "Fine oz", true, true},
	{portfolio.LotsByCost, "Cost basis", true, true},
	{portfolio.LotsByValue, "Value", true, true},
	{portfolio.LotsByPL, "P/L", true, true},
	{portfolio.LotsByDate, "Bought", false, true},
}

// dashboardHoldingsView lists the lots still held with live value and P/L, sorted in SQL.
func (h *Handlers) dashboardHoldingsView(c *fiber.Ctx, u account.User) (pages.DashboardHoldingsView, error) {
	lots, err := h.portfolio.HeldLots(h.Ctx(c), u, c.Query("sort"), c.Query("dir"), dashboardRows)
	if err != nil {
		return pages.DashboardHoldingsView{}, err
	}
	dir := "asc"
	if lots.Desc {
		dir = "desc"
	}
	v := pages.DashboardHoldingsView{Live: h.portfolioLive(), Sort: lots.Order, Dir: dir, Shown: len(lots.Lots), Total: lots.Total,
		ShownText: format.Int(int64(len(lots.Lots))), TotalText: format.Int(int64(lots.Total))}
	for _, col := range lotColumns {
		sc := pages.SortColumn{Key: col.key, Label: col.label, Right: col.right, AriaSort: "none"}
		next := "asc"
		if col.defDesc {
			next = "desc"
		}
		if col.key == lots.Order {
			sc.Active = true
			sc.AriaSort = map[string]string{"asc": "ascending", "desc": "descending"}[dir]
			next = map[string]string{"asc": "desc", "desc": "asc"}[dir]
		}
		q := "?sort=" + col.key + "&dir=" + next
		sc.Href, sc.HXGet = "/"+q, "/dashboard/holdings"+q
		v.Columns = append(v.Columns, sc)
	}
	for _, l := range lots.Lots {
		row := pages.DashboardHoldingRow{ID: l.ID, Metal: string(l.Metal), MetalTitle: l.Metal.Title(), Product: l.Name(),
			Units: format.Int(l.Remaining()), Oz: format.Oz(l.HeldOz), Cost: format.Money(l.HeldCost, l.Currency()),
			Value: format.MoneyPtr(l.Value, l.Currency()), PL: signedMoneyPtr(l.PL, l.Currency()), PLTone: kit.Tone(l.PL), Date: pageDate(l.PurchaseDate)}
		if l.SoldQuantity > 0 {
			row.Units += " of " + format.Int(l.Quantity)
		}
		if l.PLPct != nil {
			row.PLPct = format.SignedPct(*l.PLPct)
		}
		v.Rows = append(v.Rows, row)
	}
	return v, nil
}

// dashboardChartView is the value-over-time chart for a range, or between two dates (from,
// to) when either is given.
func (h *Handlers) dashboardChartView(c *fiber.Ctx, u account.User, rng, from, to string) (pages.DashboardChartView, error) {
	v := pages.DashboardChartView{Ranges: pfRangeNames(), From: from, To: to}
	hist, err := h.portfolio.HistoryFor(h.Ctx(c), u, rng, from, to, memberCurrency(u))
	if err != nil {
		return v, err
	}
	cur := valuationCurrency(hist.FX)
	v.Range = string(hist.Range)
	v.Chart = components.Chart{ID: "portfolio-chart", Title: "Stack value and cost basis, " + v.Range, YPrefix: format.Symbol(cur)}
	if hist.Range == portfolio.RangeCustom {
		v.Chart.Title = "Stack value and cost basis, " + format.Date(hist.Start) + " to " + format.Date(pfCustomEnd(to, hist))
	}
	if hist.Stale {
		// The prices end before today: say the range counts back from their last close.
		v.Chart.Title += " to " + format.Date(hist.Through)
	}
	value := components.ChartSeries{Name: "Value", Class: "stroke-amber-600 dark:stroke-amber-400"}
	cost := components.ChartSeries{Name: "Cost basis", Class: "stroke-slate-400 dark:stroke-slate-500"}
	for _, p := range hist.Points {
		day := format.ISODate(p.Date)
		fv, _ := p.Value.Round(2).Float64() // drawing only: labels keep the exact amounts
		fc, _ := p.Cost.Round(2).Float64()
		value.Points = append(value.Points, components.ChartPoint{X: day, Y: fv, Label: format.Money(p.Value, cur)})
		cost.Points = append(cost.Points, components.ChartPoint{X: day, Y: fc, Label: format.Money(p.Cost, cur)})
	}
	v.Chart.Series = []components.ChartSeries{value, cost}
	if n := len(hist.Points); n > 0 {
		first, last := hist.Points[0], hist.Points[n-1]
		v.Chart.Description = "Value of the stack at each close from " + format.Date(first.Date) + " to " + format.Date(last.Date) + ": " +
			format.Money(first.Value, cur) + " to " + format.Money(last.Value, cur) + "; cost basis " + format.Money(first.Cost, cur) + " to " + format.Money(last.Cost, cur) + "."
	} else {
		v.Chart.Description = "No closes cover your holdings in this range."
	}
	return v, nil
}

// DashboardPage is "/" for a Gold member: the live portfolio.
func (h *Handlers) DashboardPage(c *fiber.Ctx) error {
	u, _ := kit.UserFrom(c)
	val, err := h.portfolio.PortfolioIn(h.Ctx(c), u, memberCurrency(u))
	if err != nil {
		return err
	}
	v := pages.DashboardView{Live: h.portfolioLive(), Ticker: h.ticker(), Summary: h.dashboardSummaryView(c, u, val), Empty: val.Empty()}
	v.Flash = kit.Flash(c, "sale", "Sale recorded.")
	if c.Query("imported") != "" {
		v.Flash = "Import finished."
	}
	if v.Holdings, err = h.dashboardHoldingsView(c, u); err != nil {
		return err
	}
	if h.briefCard != nil {
		if v.Brief, err = h.briefCard(c); err != nil {
			return err
		}
	}
	from, to := c.Query("from"), c.Query("to")
	if v.Chart, err = h.dashboardChartView(c, u, c.Query("range"), from, to); err != nil {
		if apperr.KindOf(err) != apperr.Invalid {
			return err
		}
		bad := err
		// A bad range or date in the address shows the default rather than failing the page,
		// and says so: the chart is never silently another range than the one asked for.
		if v.Chart, err = h.dashboardChartView(c, u, "", "", ""); err != nil {
			return err
		}
		if from != "" || to != "" {
			v.Chart.From, v.Chart.To = from, to
			v.Chart.Note = "Those dates cannot be shown (" + pfFieldMessage(bad) + "): showing " + v.Chart.Range + " instead."
		} else {
			v.Chart.Note = "There is no range “" + c.Query("range") + "”: showing " + v.Chart.Range + " instead."
		}
	}
	return kit.Render(c, http.StatusOK, pages.Dashboard(h.Meta(c, "Dashboard", "home").Describe("Your stack at a glance: what your holdings are worth at the latest prices, and how they have done."), v))
}

// DashboardSummary is the live summary fragment, refreshed on every price event.
func (h *Handlers) DashboardSummary(c *fiber.Ctx) error {
	u, _ := kit.UserFrom(c)
	val, err := h.portfolio.PortfolioIn(h.Ctx(c), u, memberCurrency(u))
	if err != nil {
		return err
	}
	return kit.RenderNoStore(c, pages.DashboardSummary(h.dashboardSummaryView(c, u, val)))
}

// DashboardHoldings is the sortable holdings table fragment with live values.
func (h *Handlers) DashboardHoldings(c *fiber.Ctx) error {
	u, _ := kit.UserFrom(c)
	v, err := h.dashboardHoldingsView(c, u)
	if err != nil {
		return err
	}
	return kit.RenderNoStore(c, pages.DashboardHoldings(v))
}

// DashboardChart is the value-over-time chart fragment for the range buttons and the dates.
func (h *Handlers) DashboardChart(c *fiber.Ctx) error {
	u, _ := kit.UserFrom(c)
	v, err := h.dashboardChartView(c, u, c.Query("range"), c.Query("from"), c.Query("to"))
	if err != nil {
		return err
	}
	return kit.Render(c, http.StatusOK, pages.DashboardChart(v))
}

// pfFieldMessage is a field error as "from: must not be after to".
func pfFieldMessage(err error) string {
	var e *apperr.Error
	if errors.As(err, &e) && len(e.Fields) > 0 {
		return e.Fields[0].Field + ": " + e.Fields[0].Message
	}
	return err.Error()
}

// pfCustomEnd is the last day of a custom window: to, or the day the chart was drawn on.
func pfCustomEnd(to string, hist portfolio.History) time.Time {
	if d, err := time.Parse(time.DateOnly, to); err == nil {
		return d
	}
	if n := len(hist.Points); n > 0 {
		return hist.Points[n-1].Date
	}
	return hist.Start
}

// memberCurrency is the member's display currency (USD when unset).
func memberCurrency(u account.User) string { return account.SettingsOf(u).DisplayCurrency }

// displayUnit is the member's weight unit (troy ounces when unset or unknown).
func displayUnit(u account.User) metals.Unit { return account.SettingsOf(u).WeightUnit }

// valuationCurrency is the currency a valuation's amounts are in (USD when unnamed).
func valuationCurrency(fx portfolio.FXUsed) string {
	if fx.Currency == "" {
		return "USD"
	}
	return fx.Currency
}

// fxNote names the rate that converted today's dollars, and says when it is old; empty for
// dollars, which need no rate.
func fxNote(fx portfolio.FXUsed) string {
	if fx.Currency == "" || fx.Currency == "USD" || fx.RateDate.IsZero() {
		return ""
	}
	s := "Values in " + fx.Currency + " at the ECB rate of " + format.Date(fx.RateDate)
	if fx.Stale {
		s += " (stale)"
	}
	return s + "."
}

// perUnit converts a price per troy ounce into one per the member's unit.
func perUnit(perOz decimal.Decimal, unit metals.Unit) decimal.Decimal {
	d, err := metals.PricePer(perOz, unit)
	if err != nil {
		return perOz
	}
	return d
}

// breakEvenText is the break-even price in the display currency and unit. Per ounce it is
// shown to the cent as it always was; per gram, kilogram or tola at price precision with the
// unit named ("€122.57/g").
func breakEvenText(perOz *decimal.Decimal, cur string, unit metals.Unit) string {
	return perUnitText(perOz, cur, unit, format.Money)
}

// spotText is spot in the display currency and unit, the unit named when it is not ounces.
func spotText(perOz *decimal.Decimal, cur string, unit metals.Unit) string {
	return perUnitText(perOz, cur, unit, format.PriceIn)
}

// perUnitText is a price per ounce in the display currency and unit: per ounce as perOunce
// writes it, per any other unit at price precision with the unit named, a dash when unknown.
func perUnitText(perOz *decimal.Decimal, cur string, unit metals.Unit, perOunce func(decimal.Decimal, string) string) string {
	switch {
	case perOz == nil:
		return format.Dash
	case unit == metals.Ounce:
		return perOunce(*perOz, cur)
	}
	return format.PricePerUnit(perUnit(*perOz, unit), cur, string(unit))
}
