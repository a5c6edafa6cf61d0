package priceshttp

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/ouncehq/ounce/handlers/kit"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/portfolio"
	"github.com/ouncehq/ounce/views/components"
	"github.com/ouncehq/ounce/views/format"
	"github.com/ouncehq/ounce/views/pages"
)

// The page's meta description (search results, link previews).
const (
	junkDescription   = "Melt value of pre-1965 US silver coins, by coin count or face value, at the latest silver price."
	whatIfDescription = "Enter target prices per troy ounce for gold, silver, platinum and palladium to see each as a multiple of the last price and, signed in, what your holdings would be worth."
)

// PageRoutes are the markets and calculator pages.
func (h *Handlers) PageRoutes() []kit.PageRoute {
	return kit.PagesFor(kit.AuthNone, []kit.PageRoute{
		{Method: "GET", Path: "/markets", Handler: h.MarketsPage},
		{Method: "GET", Path: "/markets/chart", Handler: h.MarketsChart},
		{Method: "GET", Path: "/events/prices", Handler: h.PriceEvents},
		{Method: "GET", Path: "/calculators/junk-silver", Handler: h.JunkSilverPage},
		{Method: "GET", Path: "/calculators/junk-silver/result", Handler: h.JunkSilverResult},
		{Method: "GET", Path: "/calculators/what-if", Handler: h.WhatIfPage},
		{Method: "GET", Path: "/calculators/what-if/result", Handler: h.WhatIfResult},
	})
}

// calculator is one calculator's page: its head, the view a request's query makes, and how
// that view is drawn, whole and its result alone.
type calculator[V any] struct {
	title, description string
	view               func(h *Handlers, c *fiber.Ctx) V
	page               func(m components.Meta, v V) templ.Component
	result             func(v V) templ.Component
}

// answer draws the calculator for a request: the whole page, or for the result route
// (fragment) only the result when HTMX asks, as the user types.
func (k calculator[V]) answer(h *Handlers, c *fiber.Ctx, fragment bool) error {
	v := k.view(h, c)
	full := k.page(h.Meta(c, k.title, "calculators").Describe(k.description), v)
	if !fragment {
		return kit.Render(c, http.StatusOK, full)
	}
	return kit.Page(c, http.StatusOK, full, k.result(v))
}

// coinLabels name the junk-silver coin types on the calculator page.
var coinLabels = map[string]string{
	"dimes": "Dimes (90%)", "quarters": "Quarters (90%)", "half_dollars": "Half dollars (90%)",
	"kennedy_40": "Kennedy halves (40%)", "dollars": "Morgan/Peace dollars", "war_nickels": "War nickels (35%)",
	"face_90": "90% coins by face ($)", "face_40": "40% halves by face ($)",
}

// fieldErrors is the one voice of form errors on pages: a sentence per field, and the summary.
func fieldErrors(err error) (summary string, fields map[string]string) {
	return kit.ErrorSentence(kit.AsProblem(err)), kit.FieldSentences(apperr.FieldsOf(err))
}

func (h *Handlers) junkView(c *fiber.Ctx) pages.JunkSilverView {
	counts := map[string]string{}
	v := pages.JunkSilverView{Basis: c.Query("basis")}
	res, err := h.portfolio.JunkSilver(h.Ctx(c), queryMap(c, coinParams()), c.Query("basis"))
	summary, errs := fieldErrors(err)
	for _, coin := range metals.Coins {
		counts[coin.Param] = c.Query(coin.Param)
		v.Coins = append(v.Coins, pages.CoinInput{Param: coin.Param, Label: coinLabels[coin.Param], Value: counts[coin.Param],
			OzPerCoin: coin.SilverOz.String(), Error: errs[coin.Param]})
	}
	for _, f := range metals.FaceLots {
		v.Faces = append(v.Faces, pages.CoinInput{Param: f.Param, Label: coinLabels[f.Param], Value: c.Query(f.Param),
			OzPerCoin: f.OzPerDollar(c.Query("basis") == portfolio.BasisCirculated).String(), Error: errs[f.Param]})
	}
	if err != nil {
		v.Result.Error = summary
		for _, in := range append(append([]pages.CoinInput{}, v.Coins...), v.Faces...) {
			if in.Error != "" {
				// The panel stands apart from the inputs, so each sentence names its field.
				v.Result.FieldErrors = append(v.Result.FieldErrors, in.Label+": "+strings.ToLower(in.Error[:1])+in.Error[1:])
			}
		}
		return v
	}
	r := pages.JunkResultView{Face: format.USD(res.TotalFaceValue), Oz: format.Oz(res.TotalSilverOz), Melt: format.USD(res.TotalMelt),
		PerFace: format.USD(res.MeltPerFaceDollar), Spot: format.PriceUSD(res.Spot.Price), SpotAsOf: format.DateTime(res.Spot.AsOf), Stale: res.Spot.Stale}
	for _, cm := range res.Coins {
		r.Rows = append(r.Rows, pages.JunkRow{Label: coinLabels[cm.Type], Quantity: format.Int(cm.Quantity), Face: format.USD(cm.FaceValue),
			Oz: format.Oz(cm.SilverOz), Melt: format.USD(cm.MeltValue)})
	}
	for _, fm := range res.Face {
		r.Rows = append(r.Rows, pages.JunkRow{Label: coinLabels[fm.Type], Quantity: "by face", Face: format.USD(fm.FaceValue),
			Oz: format.Oz(fm.SilverOz), Melt: format.USD(fm.MeltValue)})
	}
	v.Result = r
	return v
}

// coinParams are the junk-silver form's fields: the coin counts, then the by-face lots.
func coinParams() []string {
	out := make([]string, 0, len(metals.Coins)+len(metals.FaceLots))
	for _, c := range metals.Coins {
		out = append(out, c.Param)
	}
	for _, f := range metals.FaceLots {
		out = append(out, f.Param)
	}
	return out
}

// queryMap reads the named query parameters ("" when absent).
func queryMap(c *fiber.Ctx, names []string) map[string]string {
	out := make(map[string]string, len(names))
	for _, n := range names {
		out[n] = c.Query(n)
	}
	return out
}

// junkSilver is the junk-silver calculator.
var junkSilver = calculator[pages.JunkSilverView]{title: "Junk silver calculator", description: junkDescription, view: (*Handlers).junkView,
	page: pages.JunkSilver, result: func(v pages.JunkSilverView) templ.Component { return pages.JunkResult(v.Result) }}

// JunkSilverPage is the junk-silver calculator.
func (h *Handlers) JunkSilverPage(c *fiber.Ctx) error { return junkSilver.answer(h, c, false) }

// JunkSilverResult is the result fragment, recomputed as the user types.
func (h *Handlers) JunkSilverResult(c *fiber.Ctx) error { return junkSilver.answer(h, c, true) }

func (h *Handlers) whatIfView(c *fiber.Ctx) pages.WhatIfView {
	targets := queryMap(c, metals.Names())
	u, signedIn := kit.UserFrom(c)
	var up *account.User
	if signedIn {
		up = &u
	}
	v := pages.WhatIfView{SignedIn: signedIn}
	snap := h.board(h.Ctx(c))
	for _, sc := range portfolio.Scenarios {
		q := url.Values{}
		for _, m := range metals.All {
			if sp, ok := snap.Prices[m]; ok {
				q.Set(string(m), sp.Price.Mul(sc.Multiple).Round(2).String())
			}
		}
		v.Scenarios = append(v.Scenarios, pages.WhatIfScenario{Name: sc.Name, Label: sc.Label, Query: q.Encode()})
	}
	res, err := h.portfolio.Speculation(h.Ctx(c), targets, up)
	summary, errs := fieldErrors(err)
	if err != nil {
		v.Result.Error = summary
	}
	var dated []format.Dated
	for _, m := range metals.All {
		row := pages.WhatIfRow{Metal: string(m), Title: m.Title(), TargetInput: targets[string(m)], Error: errs[string(m)], CurrentLabel: "Today"}
		if sp, ok := snap.Prices[m]; ok {
			// "Today" only for a live price; a last-known one names its date.
			dated = append(dated, format.Dated{Name: strings.ToLower(m.Title()), At: sp.AsOf})
			if sp.Stale {
				row.CurrentDate = format.PriceTime(sp.AsOf)
				row.CurrentLabel = "Last known price (" + row.CurrentDate + ")"
				if at := sp.AsOf.UTC(); at.Hour() == 0 && at.Minute() == 0 {
					row.CurrentLabel = "Last close (" + row.CurrentDate + ")"
				}
			}
		}
		if err == nil {
			row.Current, row.Target = format.PriceUSD(res.Current[m]), format.PriceUSD(res.Targets[m])
			row.Multiplier = res.Multipliers[m].StringFixed(2) + "×"
			if res.Portfolio != nil {
				l := res.Portfolio.Metals[m]
				row.Oz, row.CurrentValue, row.ProjectedValue = format.Oz(l.Oz), format.USD(l.CurrentValue), format.USD(l.ProjectedValue)
			}
		} else if sp, ok := snap.Prices[m]; ok {
			row.Current = format.PriceUSD(sp.Price)
		}
		v.Rows = append(v.Rows, row)
	}
	v.Result.CurrentHeader, v.Result.CurrentWhen = "Today", "today"
	if snap.AnyStale() {
		v.Result.CurrentHeader, v.Result.CurrentWhen = "Last price", "at the last known prices ("+format.DatedList(dated)+")"
	}
	if err == nil {
		v.Result.Rows, v.Result.Stale = v.Rows, res.Stale
		if res.Note != "" {
			v.Result.Note = kit.Capitalize(res.Note) + "."
		}
		if p := res.Portfolio; p != nil {
			v.Result.HasPortfolio = true
			v.Result.CurrentValue, v.Result.ProjectedValue = format.USD(p.CurrentValue), format.USD(p.ProjectedValue)
			v.Result.Gain, v.Result.GainPct = format.SignedUSD(p.Gain), format.SignedPct(p.GainPct)
		}
	}
	return v
}

// whatIf is the what-if calculator.
var whatIf = calculator[pages.WhatIfView]{title: "What-if calculator", description: whatIfDescription, view: (*Handlers).whatIfView,
	page: pages.WhatIf, result: func(v pages.WhatIfView) templ.Component { return pages.WhatIfResult(v.Result) }}

// WhatIfPage is the what-if calculator.
func (h *Handlers) WhatIfPage(c *fiber.Ctx) error { return whatIf.answer(h, c, false) }

// WhatIfResult is the projection fragment.
func (h *Handlers) WhatIfResult(c *fiber.Ctx) error { return whatIf.answer(h, c, true) }
