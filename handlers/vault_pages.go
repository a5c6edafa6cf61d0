package handlers

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/gofiber/fiber/v2"
	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/internal/comex"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/views/components"
	"github.com/ouncehq/ounce/views/pages"
)

// vaultPageDays are the history lengths the page offers; the first is its default.
var vaultPageDays = []int{90, 30, 180, 365}

func vaultHref(metal string, days int) string {
	q := url.Values{"metal": {metal}}
	if days != vaultPageDays[0] {
		q.Set("days", strconv.Itoa(days))
	}
	return "/vault?" + q.Encode()
}

// VaultPage is Vault Watch for one metal (?metal=, default silver; ?days=, default 90).
func (h *Handlers) VaultPage(c *fiber.Ctx) error {
	metal, err := parseMetalParam(c.Query("metal"), string(metals.Silver))
	if err != nil {
		return err
	}
	days, err := parseIntParam("days", c.Query("days"), vaultPageDays[0], 1, 365)
	if err != nil {
		return err
	}
	m := metals.Metal(metal)
	v := pages.VaultView{Metal: metal, MetalTitle: m.Title()}
	for _, x := range metals.All {
		v.MetalTabs = append(v.MetalTabs, pages.Chip{Label: x.Title(), Href: vaultHref(string(x), days), Active: x == m})
	}
	for _, d := range []int{30, 90, 180, 365} {
		v.DayChips = append(v.DayChips, pages.Chip{Label: strconv.Itoa(d) + " days", Href: vaultHref(metal, d), Active: d == days})
	}
	w, err := h.VaultWatch(h.ctx(c), metal, strconv.Itoa(days))
	if err != nil {
		if p := AsProblem(err); p.Status != http.StatusNotFound {
			return err
		}
		return render(c, http.StatusOK, pages.Vault(h.meta(c, "Vault Watch", "vault"), v))
	}
	v.Found, v.AsOf, v.Source, v.Stale = true, w.AsOf, w.Source, w.Stale
	v.Stats = []pages.VaultStat{
		{Label: "Registered", Value: wholeOz(w.RegisteredOz.D) + " oz", Note: signedOz(w.RegisteredChangeOz.D) + " oz since the previous report", Tone: vaultTone(w.RegisteredChangeOz.D)},
		{Label: "Eligible", Value: wholeOz(w.EligibleOz.D) + " oz", Note: signedOz(w.EligibleChangeOz.D) + " oz since the previous report", Tone: vaultTone(w.EligibleChangeOz.D)},
		{Label: "Combined", Value: wholeOz(w.CombinedOz.D) + " oz", Note: signedOz(w.CombinedChangeOz.D) + " oz since the previous report", Tone: vaultTone(w.CombinedChangeOz.D)},
		{Label: "Registered share", Value: w.RegisteredSharePct.String() + "%", Note: "of combined stocks can settle futures"},
	}
	dz := pages.VaultStat{Label: "Days to zero", Value: "Not draining", Note: "registered stocks did not fall over the last " + strconv.Itoa(comex.DrainWindow) + " reports"}
	if w.DaysToZero != nil {
		days := w.DaysToZero.D
		if days.GreaterThanOrEqual(decimal.NewFromInt(100)) {
			dz.Value = digitsGrouped(days.Round(0).StringFixed(0))
		} else {
			dz.Value = days.StringFixed(1)
		}
		dz.Value += " trading days"
		dz.Note = "until registered runs out at the average drain of the last " + strconv.Itoa(comex.DrainWindow) + " reports"
	}
	oi := pages.VaultStat{Label: "Open interest", Value: "Not recorded", Note: "set it with: ounce vault open-interest"}
	if w.OpenInterestOz != nil {
		oi.Value = wholeOz(w.OpenInterestOz.D) + " oz"
		oi.Note = "as of " + *w.OpenInterestAsOf
	}
	ratio := pages.VaultStat{Label: "Oversubscribed ratio", Value: "Unknown", Note: "needs open interest"}
	if w.OversubscribedRatio != nil {
		ratio.Value = w.OversubscribedRatio.String() + " : 1"
		ratio.Note = "ounces claimed per registered ounce"
	}
	v.Stats = append(v.Stats, dz, oi, ratio)

	chart := components.Chart{ID: "vault-chart",
		Title:       m.Title() + " in COMEX warehouses: registered and eligible troy ounces",
		Description: "Line chart of " + strconv.Itoa(len(w.History)) + " reports from " + firstDate(w.History) + " to " + w.AsOf + ". Registered " + wholeOz(w.RegisteredOz.D) + " oz and eligible " + wholeOz(w.EligibleOz.D) + " oz on the latest report."}
	reg := components.ChartSeries{Name: "registered", Legend: "Registered (available for delivery)", Class: "stroke-amber-600 dark:stroke-amber-400", Swatch: "bg-amber-600 dark:bg-amber-400"}
	elig := components.ChartSeries{Name: "eligible", Legend: "Eligible (stored, not on warrant)", Class: "stroke-sky-600 dark:stroke-sky-400", Swatch: "bg-sky-600 dark:bg-sky-400"}
	for _, d := range w.History {
		// Floats only place the lines; the labels keep the exact figures.
		reg.Points = append(reg.Points, components.ChartPoint{X: d.Date, Y: d.RegisteredOz.D.InexactFloat64(), Label: wholeOz(d.RegisteredOz.D) + " oz"})
		elig.Points = append(elig.Points, components.ChartPoint{X: d.Date, Y: d.EligibleOz.D.InexactFloat64(), Label: wholeOz(d.EligibleOz.D) + " oz"})
	}
	chart.Series = []components.ChartSeries{reg, elig}
	v.Chart = chart
	for i := len(w.History) - 1; i >= 0; i-- {
		d := w.History[i]
		v.History = append(v.History, pages.VaultHistRow{Date: d.Date, Registered: wholeOz(d.RegisteredOz.D), Eligible: wholeOz(d.EligibleOz.D),
			Combined: wholeOz(d.CombinedOz.D), RegChange: signedOz(d.RegisteredChangeOz.D), RegTone: vaultTone(d.RegisteredChangeOz.D)})
	}
	if w.DepositoriesAsOf != nil {
		v.DepsAsOf = *w.DepositoriesAsOf
	}
	for _, d := range w.Depositories {
		v.ShowPledged = v.ShowPledged || d.PledgedOz.D.IsPositive()
		v.Deps = append(v.Deps, pages.VaultDepRow{Name: d.Name, Registered: wholeOz(d.RegisteredOz.D), Pledged: wholeOz(d.PledgedOz.D),
			Eligible: wholeOz(d.EligibleOz.D), Total: wholeOz(d.TotalOz.D)})
	}
	return render(c, http.StatusOK, pages.Vault(h.meta(c, "Vault Watch", "vault"), v))
}

func firstDate(h []VaultDayJSON) string {
	if len(h) == 0 {
		return ""
	}
	return h[0].Date
}
