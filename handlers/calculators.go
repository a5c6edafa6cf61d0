package handlers

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/metals"
)

// maxCoins bounds each junk-silver coin count.
const maxCoins = 10_000_000

// SpotRef is the price a calculation used, with its age.
type SpotRef struct {
	Price Num       `json:"price"`
	AsOf  time.Time `json:"as_of"`
	Stale bool      `json:"stale"`
}

// JunkCoinJSON is one coin type in a junk-silver result.
type JunkCoinJSON struct {
	Type            string `json:"type"`
	Quantity        int64  `json:"quantity"`
	FaceValue       Num    `json:"face_value"`
	SilverOzPerCoin Num    `json:"silver_oz_per_coin"`
	SilverOz        Num    `json:"silver_oz"`
	MeltValue       Num    `json:"melt_value"`
}

// JunkSilverJSON is the body of GET /v1/junk-silver.
type JunkSilverJSON struct {
	Spot              SpotRef        `json:"spot"`
	Basis             string         `json:"basis"`
	Coins             []JunkCoinJSON `json:"coins"`
	TotalFaceValue    Num            `json:"total_face_value"`
	TotalSilverOz     Num            `json:"total_silver_oz"`
	TotalMeltValue    Num            `json:"total_melt_value"`
	MeltPerFaceDollar Num            `json:"melt_per_face_dollar"`
}

// spot returns the current price of m, or a 503 when there is none at all.
func (h *Handlers) spot(m metals.Metal) (SpotRef, decimal.Decimal, error) {
	if h.market != nil {
		if sp, ok := h.market.Snapshot().Prices[m]; ok {
			return SpotRef{Price: money(sp.Price), AsOf: sp.AsOf.UTC(), Stale: sp.Stale}, sp.Price, nil
		}
	}
	return SpotRef{}, decimal.Zero, NewProblem(http.StatusServiceUnavailable, ProbUnavailable, "no "+string(m)+" price is available yet")
}

// JunkSilver is the use case behind GET /v1/junk-silver. counts maps a coin parameter to its
// raw query value ("" when absent).
func (h *Handlers) JunkSilver(_ context.Context, counts map[string]string, basis string) (JunkSilverJSON, error) {
	basis = strings.ToLower(strings.TrimSpace(basis))
	if basis == "" {
		basis = "uncirculated"
	}
	if basis != "uncirculated" && basis != "circulated" {
		return JunkSilverJSON{}, Invalid("basis", "must be uncirculated or circulated")
	}
	qty := map[string]int64{}
	var errs []FieldError
	for _, c := range metals.Coins {
		raw := strings.TrimSpace(counts[c.Param])
		if raw == "" {
			continue
		}
		n, err := strconv.ParseInt(raw, 10, 64)
		switch {
		case err != nil:
			errs = append(errs, FieldError{c.Param, "must be a whole number of coins"})
		case n < 0:
			errs = append(errs, FieldError{c.Param, "cannot be negative"})
		case n > maxCoins:
			errs = append(errs, FieldError{c.Param, "must be at most " + strconv.Itoa(maxCoins)})
		default:
			qty[c.Param] = n
		}
	}
	if len(errs) > 0 {
		return JunkSilverJSON{}, InvalidFields(errs)
	}
	ref, price, err := h.spot(metals.Silver)
	if err != nil {
		return JunkSilverJSON{}, err
	}
	out := JunkSilverJSON{Spot: ref, Basis: basis, Coins: []JunkCoinJSON{}}
	var face, oz, melt decimal.Decimal
	for _, c := range metals.Coins {
		n := qty[c.Param]
		if n == 0 {
			continue
		}
		per := c.OzPerCoin(basis == "circulated")
		q := decimal.NewFromInt(n)
		cOz := per.Mul(q)
		cMelt := cOz.Mul(price)
		cFace := c.FaceValue.Mul(q)
		out.Coins = append(out.Coins, JunkCoinJSON{Type: c.Param, Quantity: n, FaceValue: money(cFace), SilverOzPerCoin: ounces(per), SilverOz: ounces(cOz), MeltValue: money(cMelt)})
		face, oz, melt = face.Add(cFace), oz.Add(cOz), melt.Add(cMelt)
	}
	out.TotalFaceValue, out.TotalSilverOz, out.TotalMeltValue = money(face), ounces(oz), money(melt)
	out.MeltPerFaceDollar = money(decimal.Zero)
	if face.IsPositive() {
		out.MeltPerFaceDollar = money(melt.Div(face))
	}
	return out, nil
}

// APIJunkSilver answers GET /v1/junk-silver.
func (h *Handlers) APIJunkSilver(c *fiber.Ctx) error {
	counts := map[string]string{}
	for _, coin := range metals.Coins {
		counts[coin.Param] = c.Query(coin.Param)
	}
	res, err := h.JunkSilver(h.ctx(c), counts, c.Query("basis"))
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, res)
}

// Scenario presets: multiples of today's price.
var scenarioMultiples = []struct {
	Name     string
	Multiple decimal.Decimal
	Label    string
}{
	{"bull", decimal.RequireFromString("1.25"), "Bull: every metal 25% higher"},
	{"moon", decimal.RequireFromString("2"), "Moon: every metal doubles"},
	{"hyper", decimal.RequireFromString("5"), "Hyper: every metal five times today's price"},
}

// SpeculationJSON is the body of GET /v1/speculation.
type SpeculationJSON struct {
	Current     map[string]Num            `json:"current"`
	Targets     map[string]Num            `json:"targets"`
	Multipliers map[string]Num            `json:"multipliers"`
	Scenarios   map[string]map[string]Num `json:"scenarios"`
	Stale       bool                      `json:"stale"`
	Portfolio   *SpeculationPortfolio     `json:"portfolio"`
}

// SpeculationPortfolio projects a user's stack at the target prices.
type SpeculationPortfolio struct {
	CurrentValue   Num                                 `json:"current_value"`
	ProjectedValue Num                                 `json:"projected_value"`
	Gain           Num                                 `json:"gain"`
	GainPct        Num                                 `json:"gain_pct"`
	Metals         map[string]SpeculationPortfolioLine `json:"metals"`
}

// SpeculationPortfolioLine is one metal of a projection.
type SpeculationPortfolioLine struct {
	Oz             Num `json:"oz"`
	CurrentValue   Num `json:"current_value"`
	ProjectedValue Num `json:"projected_value"`
}

var maxTarget = decimal.NewFromInt(10_000_000)

// Speculation is the use case behind GET /v1/speculation. targets maps a metal to its raw
// query value ("" when absent); u is the caller when a valid key came with the request.
func (h *Handlers) Speculation(ctx context.Context, targets map[string]string, u *db.User) (SpeculationJSON, error) {
	tgt := map[metals.Metal]decimal.Decimal{}
	var errs []FieldError
	for _, m := range metals.All {
		raw := strings.TrimSpace(targets[string(m)])
		if raw == "" {
			continue
		}
		d, err := parseBoundedDecimal(raw)
		switch {
		case err != nil:
			errs = append(errs, FieldError{string(m), "must be a number (USD per troy ounce)"})
		case !d.IsPositive():
			errs = append(errs, FieldError{string(m), "must be greater than 0"})
		case d.GreaterThan(maxTarget):
			errs = append(errs, FieldError{string(m), "must be at most 10000000"})
		default:
			tgt[m] = d
		}
	}
	if len(errs) > 0 {
		return SpeculationJSON{}, InvalidFields(errs)
	}
	out := SpeculationJSON{Current: map[string]Num{}, Targets: map[string]Num{}, Multipliers: map[string]Num{}, Scenarios: map[string]map[string]Num{}}
	cur := map[metals.Metal]decimal.Decimal{}
	for _, m := range metals.All {
		ref, price, err := h.spot(m)
		if err != nil {
			return SpeculationJSON{}, err
		}
		out.Stale = out.Stale || ref.Stale
		cur[m] = price
		t, ok := tgt[m]
		if !ok {
			t = price
			tgt[m] = t
		}
		out.Current[string(m)] = money(price)
		out.Targets[string(m)] = money(t)
		out.Multipliers[string(m)] = Num{t.Div(price).Round(4), 4}
	}
	for _, sc := range scenarioMultiples {
		row := map[string]Num{}
		for _, m := range metals.All {
			row[string(m)] = money(cur[m].Mul(sc.Multiple))
		}
		out.Scenarios[sc.Name] = row
	}
	if u != nil {
		// What is still held: sold units are gone from the stack.
		totals, err := h.store.PortfolioTotals(ctx, u.ID, db.NewDate(h.now()), db.HeldOnly)
		if err != nil {
			return SpeculationJSON{}, err
		}
		oz := map[string]decimal.Decimal{}
		for _, t := range totals {
			oz[string(t.Metal)] = t.HeldOz
		}
		p := &SpeculationPortfolio{Metals: map[string]SpeculationPortfolioLine{}}
		var curV, projV decimal.Decimal
		for _, m := range metals.All {
			o := oz[string(m)]
			cv, pv := o.Mul(cur[m]), o.Mul(tgt[m])
			curV, projV = curV.Add(cv), projV.Add(pv)
			p.Metals[string(m)] = SpeculationPortfolioLine{Oz: ounces(o), CurrentValue: money(cv), ProjectedValue: money(pv)}
		}
		p.CurrentValue, p.ProjectedValue, p.Gain = money(curV), money(projV), money(projV.Sub(curV))
		p.GainPct = pct(metals.PctChange(curV, projV))
		out.Portfolio = p
	}
	return out, nil
}

// APISpeculation answers GET /v1/speculation.
func (h *Handlers) APISpeculation(c *fiber.Ctx) error {
	targets := map[string]string{}
	for _, m := range metals.All {
		targets[string(m)] = c.Query(string(m))
	}
	var up *db.User
	if u, ok := UserFrom(c); ok {
		up = &u
	}
	res, err := h.Speculation(h.ctx(c), targets, up)
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, res)
}

func (h *Handlers) calculatorRoutes() []APIRoute {
	num := Schema{"type": "number"}
	spotRef := Schema{"type": "object", "required": []string{"price", "as_of", "stale"}, "properties": Schema{"price": num, "as_of": Schema{"type": "string", "format": "date-time"}, "stale": Schema{"type": "boolean"}}}
	var coinParams []Param
	for _, c := range metals.Coins {
		coinParams = append(coinParams, Param{Name: c.Param, In: "query", Description: c.Label + " (" + c.SilverOz.String() + " oz silver each).", Schema: Schema{"type": "integer", "minimum": 0, "maximum": maxCoins, "default": 0}})
	}
	coinParams = append(coinParams, Param{Name: "basis", In: "query", Description: "uncirculated: the mint's silver content per coin; circulated: worn 90% dimes, quarters and halves at 0.715 oz per $1 face.", Schema: Schema{"type": "string", "enum": []string{"uncirculated", "circulated"}, "default": "uncirculated"}})
	coinTypes := make([]string, len(metals.Coins))
	for i, c := range metals.Coins {
		coinTypes[i] = c.Param
	}
	var targetParams []Param
	for _, m := range metals.All {
		targetParams = append(targetParams, Param{Name: string(m), In: "query", Description: "Target " + string(m) + " price, USD per troy ounce; today's price when omitted.", Schema: Schema{"type": "number", "exclusiveMinimum": true, "minimum": 0, "maximum": 10000000}})
	}
	byMetal := Schema{"type": "object", "required": metals.Names(), "properties": metalProps(num)}
	line := Schema{"type": "object", "required": []string{"oz", "current_value", "projected_value"}, "properties": Schema{"oz": num, "current_value": num, "projected_value": num}}
	return []APIRoute{
		{Method: "GET", Path: "/v1/junk-silver", Handler: h.APIJunkSilver, OperationID: "getJunkSilver", Tag: "Calculators",
			Summary: "Melt value of pre-1965 US silver coins at the current silver price", Params: coinParams,
			Responses: []Response{{Status: 200, Description: "Per-coin breakdown and totals.", Schema: Schema{"type": "object",
				"required": []string{"spot", "basis", "coins", "total_face_value", "total_silver_oz", "total_melt_value", "melt_per_face_dollar"},
				"properties": Schema{"spot": spotRef, "basis": Schema{"type": "string", "enum": []string{"uncirculated", "circulated"}},
					"coins": Schema{"type": "array", "items": Schema{"type": "object", "required": []string{"type", "quantity", "face_value", "silver_oz_per_coin", "silver_oz", "melt_value"}, "properties": Schema{
						"type": Schema{"type": "string", "enum": coinTypes}, "quantity": Schema{"type": "integer"}, "face_value": num, "silver_oz_per_coin": num, "silver_oz": num, "melt_value": num}}},
					"total_face_value": num, "total_silver_oz": num, "total_melt_value": num, "melt_per_face_dollar": num}}}},
			Example: "GET /v1/junk-silver?dimes=50&quarters=40&basis=circulated"},
		{Method: "GET", Path: "/v1/speculation", Handler: h.APISpeculation, OperationID: "getSpeculation", Tag: "Calculators",
			Summary:     "What-if: your stack and the market at target prices",
			Description: "Missing targets default to today's price. Scenarios are presets relative to today's price (bull ×1.25, moon ×2, hyper ×5). With a valid API key the projection covers your own holdings; otherwise portfolio is null.",
			Params:      targetParams,
			Responses: []Response{{Status: 200, Description: "Current prices, targets, multipliers, scenarios and, with a key, your projection.", Schema: Schema{"type": "object",
				"required": []string{"current", "targets", "multipliers", "scenarios", "stale", "portfolio"},
				"properties": Schema{"current": byMetal, "targets": byMetal, "multipliers": byMetal, "stale": Schema{"type": "boolean"},
					"scenarios": Schema{"type": "object", "required": []string{"bull", "moon", "hyper"}, "properties": Schema{"bull": byMetal, "moon": byMetal, "hyper": byMetal}},
					"portfolio": Schema{"type": "object", "nullable": true, "required": []string{"current_value", "projected_value", "gain", "gain_pct", "metals"}, "properties": Schema{
						"current_value": num, "projected_value": num, "gain": num, "gain_pct": num, "metals": Schema{"type": "object", "required": metals.Names(), "properties": metalProps(line)}}},
				}}}},
			Example: "GET /v1/speculation?silver=100&gold=5000"},
	}
}
