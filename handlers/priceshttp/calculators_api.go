package priceshttp

import (
	"context"
	"time"

	"github.com/ouncehq/ounce/handlers/kit"

	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/portfolio"
	"github.com/ouncehq/ounce/internal/quote"
)

// SpotRef is the price a calculation used, with its age.
type SpotRef struct {
	Price kit.Num   `json:"price"`
	AsOf  time.Time `json:"as_of"`
	Stale bool      `json:"stale"`
}

// JunkCoinJSON is one coin type in a junk-silver result.
type JunkCoinJSON struct {
	Type            string  `json:"type" schema:"enum=Coins"`
	Quantity        int64   `json:"quantity"`
	FaceValue       kit.Num `json:"face_value"`
	SilverOzPerCoin kit.Num `json:"silver_oz_per_coin"`
	SilverOz        kit.Num `json:"silver_oz"`
	MeltValue       kit.Num `json:"melt_value"`
}

// JunkFaceJSON is junk silver entered by face value in a junk-silver result.
type JunkFaceJSON struct {
	Type                  string  `json:"type" schema:"enum=Faces"`
	FaceValue             kit.Num `json:"face_value"`
	SilverOzPerFaceDollar kit.Num `json:"silver_oz_per_face_dollar"`
	SilverOz              kit.Num `json:"silver_oz"`
	MeltValue             kit.Num `json:"melt_value"`
}

// JunkSilverJSON is the body of GET /v1/junk-silver.
type JunkSilverJSON struct {
	Spot              SpotRef        `json:"spot"`
	Basis             string         `json:"basis" schema:"enum=uncirculated|circulated"`
	Coins             []JunkCoinJSON `json:"coins"`
	Face              []JunkFaceJSON `json:"face" doc:"Junk silver entered by face value (face_90, face_40); totals include it."`
	TotalFaceValue    kit.Num        `json:"total_face_value"`
	TotalSilverOz     kit.Num        `json:"total_silver_oz"`
	TotalMeltValue    kit.Num        `json:"total_melt_value"`
	MeltPerFaceDollar kit.Num        `json:"melt_per_face_dollar"`
	kit.QuoteJSON
}

// SpeculationJSON is the body of GET /v1/speculation.
type SpeculationJSON struct {
	Current     map[string]kit.Num            `json:"current" schema:"permetal"`
	Targets     map[string]kit.Num            `json:"targets" schema:"permetal"`
	Multipliers map[string]kit.Num            `json:"multipliers" schema:"permetal"`
	Scenarios   map[string]map[string]kit.Num `json:"scenarios" schema:"keys=bull|moon|hyper,items.permetal"`
	Stale       bool                          `json:"stale"`
	Portfolio   *SpeculationPortfolio         `json:"portfolio"`
	kit.QuoteJSON
}

// SpeculationPortfolio projects a member's stack at the target prices.
type SpeculationPortfolio struct {
	CurrentValue   kit.Num                             `json:"current_value"`
	ProjectedValue kit.Num                             `json:"projected_value"`
	Gain           kit.Num                             `json:"gain"`
	GainPct        kit.Num                             `json:"gain_pct"`
	Metals         map[string]SpeculationPortfolioLine `json:"metals" schema:"permetal"`
}

// SpeculationPortfolioLine is one metal of a projection.
type SpeculationPortfolioLine struct {
	Oz             kit.Num `json:"oz"`
	CurrentValue   kit.Num `json:"current_value"`
	ProjectedValue kit.Num `json:"projected_value"`
}

// junkSilverJSON renders a result in cur: melt values in its minor units, face values in
// dollars (what is stamped on the coins).
func junkSilverJSON(r portfolio.JunkSilver, cur string) JunkSilverJSON {
	out := JunkSilverJSON{Spot: SpotRef{Price: kit.PriceIn(r.Spot.Price, cur), AsOf: r.Spot.AsOf.UTC(), Stale: r.Spot.Stale}, Basis: r.Basis, Coins: []JunkCoinJSON{}, Face: []JunkFaceJSON{},
		TotalFaceValue: kit.Money(r.TotalFaceValue), TotalSilverOz: kit.Ounces(r.TotalSilverOz), TotalMeltValue: kit.MoneyIn(r.TotalMelt, cur), MeltPerFaceDollar: kit.MoneyIn(r.MeltPerFaceDollar, cur)}
	for _, c := range r.Coins {
		out.Coins = append(out.Coins, JunkCoinJSON{Type: c.Type, Quantity: c.Quantity, FaceValue: kit.Money(c.FaceValue),
			SilverOzPerCoin: kit.Ounces(c.SilverOzPerCoin), SilverOz: kit.Ounces(c.SilverOz), MeltValue: kit.MoneyIn(c.MeltValue, cur)})
	}
	for _, f := range r.Face {
		out.Face = append(out.Face, JunkFaceJSON{Type: f.Type, FaceValue: kit.Money(f.FaceValue),
			SilverOzPerFaceDollar: kit.Ounces(f.SilverOzPerFaceDollar), SilverOz: kit.Ounces(f.SilverOz), MeltValue: kit.MoneyIn(f.MeltValue, cur)})
	}
	return out
}

// speculationJSON renders a what-if in cur: prices per weight and money as its minor units say.
func speculationJSON(s portfolio.Speculation, cur string) SpeculationJSON {
	out := SpeculationJSON{Current: map[string]kit.Num{}, Targets: map[string]kit.Num{}, Multipliers: map[string]kit.Num{}, Scenarios: map[string]map[string]kit.Num{}, Stale: s.Stale}
	for _, m := range metals.All {
		out.Current[string(m)], out.Targets[string(m)] = kit.PriceIn(s.Current[m], cur), kit.PriceIn(s.Targets[m], cur)
		out.Multipliers[string(m)] = kit.Num{D: s.Multipliers[m].Round(4), Places: 4}
	}
	for name, row := range s.Scenarios {
		r := map[string]kit.Num{}
		for m, p := range row {
			r[string(m)] = kit.PriceIn(p, cur)
		}
		out.Scenarios[name] = r
	}
	if p := s.Portfolio; p != nil {
		sp := &SpeculationPortfolio{CurrentValue: kit.MoneyIn(p.CurrentValue, cur), ProjectedValue: kit.MoneyIn(p.ProjectedValue, cur), Gain: kit.MoneyIn(p.Gain, cur),
			GainPct: kit.Pct(p.GainPct), Metals: map[string]SpeculationPortfolioLine{}}
		for m, l := range p.Metals {
			sp.Metals[string(m)] = SpeculationPortfolioLine{Oz: kit.Ounces(l.Oz), CurrentValue: kit.MoneyIn(l.CurrentValue, cur), ProjectedValue: kit.MoneyIn(l.ProjectedValue, cur)}
		}
		out.Portfolio = sp
	}
	return out
}

// JunkSilver is GET /v1/junk-silver's use case in its wire form, shared by the MCP tool and
// the calculator page. counts maps a coin parameter to its raw value ("" when absent).
func (h *Handlers) JunkSilver(ctx context.Context, counts map[string]string, basis string, t quote.Target) (JunkSilverJSON, error) {
	r, err := h.portfolio.JunkSilver(ctx, counts, basis)
	if err != nil {
		return JunkSilverJSON{}, err
	}
	out := junkSilverJSON(t.Junk(r), t.Currency)
	out.QuoteJSON = kit.QuoteOf(t)
	return out, nil
}

// speculationToolJSON is the answer of GET /v1/speculation and of the MCP tool: the
// projection and, for a free member, a note that projecting their own stack is part of Gold
// membership (their portfolio is null).
type speculationToolJSON struct {
	SpeculationJSON
	Note string `json:"note,omitempty" doc:"Only for a free member's key: projecting your own stack is part of Gold membership, so portfolio is null."`
}

// speculationTool is the what-if in its wire form. targets maps a metal to its raw value (""
// when absent); u is the caller when a valid key or session came with it.
func (h *Handlers) speculationTool(ctx context.Context, targets map[string]string, u *account.User, t quote.Target) (speculationToolJSON, error) {
	// Targets are in the answer's currency and unit: the dollar service sees none of them
	// unless that is USD per ounce.
	usdTargets := targets
	if !t.IsUSDOunce() {
		usdTargets = nil
	}
	s, err := h.portfolio.Speculation(ctx, usdTargets, u)
	if err != nil {
		return speculationToolJSON{}, err
	}
	if s, err = t.Speculation(s, targets); err != nil {
		return speculationToolJSON{}, err
	}
	out := speculationToolJSON{SpeculationJSON: speculationJSON(s, t.Currency)}
	out.QuoteJSON = kit.QuoteOf(t)
	if s.Note != "" {
		out.Note = kit.Capitalize(s.Note) + "."
	}
	return out, nil
}

// APIJunkSilver answers GET /v1/junk-silver.
func (h *Handlers) APIJunkSilver(c *fiber.Ctx) error {
	t, err := kit.QuoteFor(c, h.quotes, true)
	if err != nil {
		return err
	}
	res, err := h.JunkSilver(h.Ctx(c), queryMap(c, coinParams()), c.Query("basis"), t)
	return kit.JSONResult(c, res, err)
}

// APISpeculation answers GET /v1/speculation.
func (h *Handlers) APISpeculation(c *fiber.Ctx) error {
	targets := map[string]string{}
	for _, m := range metals.All {
		targets[string(m)] = c.Query(string(m))
	}
	var up *account.User
	if u, ok := kit.UserFrom(c); ok {
		up = &u
	}
	t, err := kit.QuoteFor(c, h.quotes, true)
	if err != nil {
		return err
	}
	res, err := h.speculationTool(h.Ctx(c), targets, up, t)
	return kit.JSONResult(c, res, err)
}
