package intelhttp

import (
	"net/url"
	"strconv"

	"github.com/ouncehq/ounce/handlers/kit"

	"github.com/gofiber/fiber/v2"
	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/comex"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/views/components"
	"github.com/ouncehq/ounce/views/format"
	"github.com/ouncehq/ounce/views/pages"
)

// The page's meta description (search results, link previews).
const vaultDescription = "COMEX warehouse stocks from the exchange's daily depository reports: registered ounces that can settle futures, and eligible ounces beside them."

// vaultPageDays are the history lengths the page offers; the first is its default.
var vaultPageDays = []int{90, 30, 180, 365}

func vaultHref(metal string, days int) string {
	q := url.Values{"metal": {metal}}
	if days != vaultPageDays[0] {
		q.Set("days", strconv.Itoa(days))
	}
	return "/vault?" + q.Encode()
}

// oz is whole ounces with the unit.
func oz(d decimal.Decimal) string { return format.WholeOz(d) + " oz" }

// VaultPage is Vault Watch for one metal (?metal=, default silver; ?days=, default 90).
func (h *Handlers) VaultPage(c *fiber.Ctx) error {
	q, err := vaultQuery(c.Query("metal"), c.Query("days"), vaultPageDays[0])
	if err != nil {
		return err
	}
	m := q.Metal
	v := pages.VaultView{Metal: string(m), MetalTitle: m.Title(), Admin: account.IsAdmin(kit.Caller(c))}
	for _, x := range metals.All {
		v.MetalTabs = append(v.MetalTabs, pages.Chip{Label: x.Title(), Href: vaultHref(string(x), q.Days), Active: x == m})
	}
	for _, d := range []int{30, 90, 180, 365} {
		v.DayChips = append(v.DayChips, pages.Chip{Label: format.Count(int64(d), "day", "days"), Href: vaultHref(string(m), d), Active: d == q.Days})
	}
	w, err := h.vault.VaultWatch(h.Ctx(c), q)
	if apperr.KindOf(err) == apperr.NotFound {
		return kit.Render(c, fiber.StatusOK, pages.Vault(h.Meta(c, "Vault Watch", "vault").Describe(vaultDescription), v))
	}
	if err != nil {
		return err
	}
	fillVaultView(&v, w)
	return kit.Render(c, fiber.StatusOK, pages.Vault(h.Meta(c, "Vault Watch", "vault").Describe(vaultDescription), v))
}

// fillVaultView formats a metal's figures for the page.
func fillVaultView(v *pages.VaultView, w comex.Watch) {
	v.Found, v.AsOf, v.Source, v.Stale = true, format.ISODate(w.AsOf), w.Source, w.Stale
	since := " oz since the previous report"
	v.Stats = []pages.VaultStat{
		// Movements are facts, not good or bad news: no red or green.
		{Label: "Registered", Value: oz(w.Registered), Note: format.SignedWholeOz(w.RegisteredChange) + since},
		{Label: "Eligible", Value: oz(w.Eligible), Note: format.SignedWholeOz(w.EligibleChange) + since},
		{Label: "Combined", Value: oz(w.Combined), Note: format.SignedWholeOz(w.CombinedChange) + since},
		{Label: "Registered share", Value: format.Pct(w.RegisteredSharePct), Note: "of combined stocks can settle futures"},
	}
	dz := pages.VaultStat{Label: "Days to zero", Value: "Not measured", Note: w.DaysToZeroReason}
	if w.RegisteredPerDay != nil && w.DaysToZero == nil {
		dz.Value = "Not draining"
	}
	if w.DaysToZero != nil {
		// The figure the API publishes (tenths), shown whole past a hundred days.
		days, places := w.DaysToZero.Round(1), int32(1)
		if days.GreaterThanOrEqual(decimal.NewFromInt(100)) {
			places = 0
		}
		dz.Value = format.Number(days, places) + " business days"
		dz.Note = "until registered runs out at " + format.WholeOz(w.RegisteredPerDay.Neg()) + " oz a business day, the pace from " +
			format.Date(w.DrainFrom) + " to " + format.Date(w.DrainTo) + " (" + format.Count(int64(w.DrainBusinessDays), "business day", "business days") + ")"
	}
	oi := pages.VaultStat{Label: "Open interest", Value: "Not recorded", Note: "CME futures open interest is not published with the warehouse reports and has not been recorded here"}
	if v.Admin {
		oi.Note = "Admin: set it with: ounce vault open-interest"
	}
	if w.OpenInterestOz != nil {
		oi.Value = oz(*w.OpenInterestOz)
		oi.Note = "as of " + format.ISODate(w.OpenInterestAsOf)
	}
	ratio := pages.VaultStat{Label: "Oversubscribed ratio", Value: "Unknown", Note: "needs open interest"}
	if w.OversubscribedRatio != nil {
		ratio.Value = format.Number(*w.OversubscribedRatio, 2) + " : 1"
		ratio.Note = "ounces claimed per registered ounce"
	}
	v.Stats = append(v.Stats, dz, oi, ratio)

	first := ""
	if len(w.History) > 0 {
		first = format.ISODate(w.History[0].Date)
	}
	chart := components.Chart{ID: "vault-chart",
		Title:       w.Metal.Title() + " in COMEX warehouses: registered and eligible troy ounces",
		Description: "Line chart of " + format.Int(int64(len(w.History))) + " reports from " + first + " to " + v.AsOf + ". Registered " + oz(w.Registered) + " and eligible " + oz(w.Eligible) + " on the latest report."}
	reg := components.ChartSeries{Name: "registered", Legend: "Registered (available for delivery)", Class: "stroke-amber-600 dark:stroke-amber-400", Swatch: "bg-amber-600 dark:bg-amber-400"}
	elig := components.ChartSeries{Name: "eligible", Legend: "Eligible (stored, not on warrant)", Class: "stroke-sky-600 dark:stroke-sky-400", Swatch: "bg-sky-600 dark:bg-sky-400"}
	for _, d := range w.History {
		// Floats only place the lines; the labels keep the exact figures.
		x := format.ISODate(d.Date)
		reg.Points = append(reg.Points, components.ChartPoint{X: x, Y: d.Registered.InexactFloat64(), Label: oz(d.Registered)})
		elig.Points = append(elig.Points, components.ChartPoint{X: x, Y: d.Eligible.InexactFloat64(), Label: oz(d.Eligible)})
	}
	chart.Series = []components.ChartSeries{reg, elig}
	v.Chart = chart
	for i := len(w.History) - 1; i >= 0; i-- {
		d := w.History[i]
		v.History = append(v.History, pages.VaultHistRow{Date: format.ISODate(d.Date), Registered: format.WholeOz(d.Registered), Eligible: format.WholeOz(d.Eligible),
			Combined: format.WholeOz(d.Combined), RegChange: format.SignedWholeOz(d.RegisteredChange)})
	}
	if !w.DepositoriesAsOf.IsZero() {
		v.DepsAsOf = format.ISODate(w.DepositoriesAsOf)
	}
	for _, d := range w.Depositories {
		v.ShowPledged = v.ShowPledged || d.Pledged.IsPositive()
		v.Deps = append(v.Deps, pages.VaultDepRow{Name: d.Name, Registered: format.WholeOz(d.Registered), Pledged: format.WholeOz(d.Pledged),
			Eligible: format.WholeOz(d.Eligible), Total: format.WholeOz(d.Total)})
	}
}
