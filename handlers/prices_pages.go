package handlers

import (
	"context"
	"net/http"
	"net/url"

	"github.com/gofiber/fiber/v2"
	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/views/pages"
)

// pricePages are the markets and calculator pages.
func (h *Handlers) pricePages() []PageRoute {
	return []PageRoute{
		{"GET", "/markets", h.MarketsPage, AuthNone},
		{"GET", "/markets/chart", h.MarketsChart, AuthNone},
		{"GET", "/events/prices", h.PriceEvents, AuthNone},
		{"GET", "/calculators/junk-silver", h.JunkSilverPage, AuthNone},
		{"GET", "/calculators/junk-silver/result", h.JunkSilverResult, AuthNone},
		{"GET", "/calculators/what-if", h.WhatIfPage, AuthNone},
		{"GET", "/calculators/what-if/result", h.WhatIfResult, AuthNone},
	}
}

func signedChange(d decimal.Decimal, money bool) string {
	if money {
		s := usd(d.Abs())
		if d.IsNegative() {
			return "−" + s
		}
		return "+" + s
	}
	s := d.Abs().StringFixed(2) + "%"
	if d.IsNegative() {
		return "−" + s
	}
	return "+" + s
}

func (h *Handlers) junkView(q func(string) string) pages.JunkSilverView {
	counts := map[string]string{}
	v := pages.JunkSilverView{Basis: q("basis")}
	for _, coin := range metals.Coins {
		counts[coin.Param] = q(coin.Param)
		v.Coins = append(v.Coins, pages.CoinInput{Param: coin.Param, Label: coinLabel(coin.Param), Value: q(coin.Param), OzPerCoin: coin.SilverOz.String()})
	}
	res, err := h.JunkSilver(context.Background(), counts, q("basis"))
	if err != nil {
		p := AsProblem(err)
		v.Result.Error = capitalize(p.Detail) + "."
		for _, fe := range p.Errors {
			for i := range v.Coins {
				if v.Coins[i].Param == fe.Field {
					v.Coins[i].Error = capitalize(fe.Message) + "."
				}
			}
		}
		return v
	}
	r := pages.JunkResultView{Face: usd(res.TotalFaceValue.D), Oz: res.TotalSilverOz.String(), Melt: usd(res.TotalMeltValue.D), PerFace: usd(res.MeltPerFaceDollar.D),
		Spot: usd(res.Spot.Price.D), SpotAsOf: res.Spot.AsOf.Format("2 Jan 2006 15:04 MST"), Stale: res.Spot.Stale}
	for _, c := range res.Coins {
		r.Rows = append(r.Rows, pages.JunkRow{Label: coinLabel(c.Type), Quantity: decimal.NewFromInt(c.Quantity).String(), Face: usd(c.FaceValue.D), Oz: c.SilverOz.String(), Melt: usd(c.MeltValue.D)})
	}
	v.Result = r
	return v
}

func coinLabel(param string) string {
	switch param {
	case "dimes":
		return "Dimes (90%)"
	case "quarters":
		return "Quarters (90%)"
	case "half_dollars":
		return "Half dollars (90%)"
	case "kennedy_40":
		return "Kennedy halves (40%)"
	case "dollars":
		return "Morgan/Peace dollars"
	case "war_nickels":
		return "War nickels (35%)"
	}
	return param
}

// JunkSilverPage is the junk-silver calculator.
func (h *Handlers) JunkSilverPage(c *fiber.Ctx) error {
	return render(c, http.StatusOK, pages.JunkSilver(h.meta(c, "Junk silver calculator", "calculators"), h.junkView(func(k string) string { return c.Query(k) })))
}

// JunkSilverResult is the result fragment, recomputed as the user types.
func (h *Handlers) JunkSilverResult(c *fiber.Ctx) error {
	v := h.junkView(func(k string) string { return c.Query(k) })
	return page(c, http.StatusOK, pages.JunkSilver(h.meta(c, "Junk silver calculator", "calculators"), v), pages.JunkResult(v.Result))
}

func (h *Handlers) whatIfView(c *fiber.Ctx) pages.WhatIfView {
	targets := map[string]string{}
	for _, m := range metals.All {
		targets[string(m)] = c.Query(string(m))
	}
	u, signedIn := UserFrom(c)
	var up *db.User
	if signedIn {
		up = &u
	}
	v := pages.WhatIfView{SignedIn: signedIn}
	for _, sc := range scenarioMultiples {
		q := url.Values{}
		if h.market != nil {
			snap := h.market.Snapshot()
			for _, m := range metals.All {
				if sp, ok := snap.Prices[m]; ok {
					q.Set(string(m), sp.Price.Mul(sc.Multiple).Round(2).String())
				}
			}
		}
		v.Scenarios = append(v.Scenarios, pages.WhatIfScenario{Name: sc.Name, Label: sc.Label, Query: q.Encode()})
	}
	res, err := h.Speculation(h.ctx(c), targets, up)
	errs := map[string]string{}
	if err != nil {
		p := AsProblem(err)
		v.Result.Error = capitalize(p.Detail) + "."
		for _, fe := range p.Errors {
			errs[fe.Field] = capitalize(fe.Message) + "."
		}
	}
	for _, m := range metals.All {
		row := pages.WhatIfRow{Metal: string(m), Title: m.Title(), TargetInput: targets[string(m)], Error: errs[string(m)]}
		if err == nil {
			row.Current, row.Target = usd(res.Current[string(m)].D), usd(res.Targets[string(m)].D)
			row.Multiplier = res.Multipliers[string(m)].D.StringFixed(2) + "×"
			if res.Portfolio != nil {
				l := res.Portfolio.Metals[string(m)]
				row.Oz, row.CurrentValue, row.ProjectedValue = l.Oz.String(), usd(l.CurrentValue.D), usd(l.ProjectedValue.D)
			}
		} else if h.market != nil {
			if sp, ok := h.market.Snapshot().Prices[m]; ok {
				row.Current = usd(sp.Price)
			}
		}
		v.Rows = append(v.Rows, row)
	}
	if err == nil {
		v.Result.Rows, v.Result.Stale = v.Rows, res.Stale
		if res.Portfolio != nil {
			p := res.Portfolio
			v.Result.HasPortfolio = true
			v.Result.CurrentValue, v.Result.ProjectedValue = usd(p.CurrentValue.D), usd(p.ProjectedValue.D)
			v.Result.Gain, v.Result.GainPct = signedChange(p.Gain.D, true), signedChange(p.GainPct.D, false)
		}
	}
	return v
}

// WhatIfPage is the what-if calculator.
func (h *Handlers) WhatIfPage(c *fiber.Ctx) error {
	return render(c, http.StatusOK, pages.WhatIf(h.meta(c, "What-if calculator", "calculators"), h.whatIfView(c)))
}

// WhatIfResult is the projection fragment.
func (h *Handlers) WhatIfResult(c *fiber.Ctx) error {
	v := h.whatIfView(c)
	return page(c, http.StatusOK, pages.WhatIf(h.meta(c, "What-if calculator", "calculators"), v), pages.WhatIfResult(v.Result))
}
