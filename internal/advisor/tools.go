package advisor

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/dealers"
	"github.com/ouncehq/ounce/internal/fx"
	"github.com/ouncehq/ounce/internal/intel"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/portfolio"
	"github.com/ouncehq/ounce/internal/prices"
)

// The functions every answer is made from. The built-in engine picks one from the question;
// a model picks them as tools. Each returns a sentence of plain words and the facts behind it.

// Tool names, also the intents of the built-in engine.
const (
	ToolStackValue   = "stack_value"
	ToolProfitLoss   = "profit_loss"
	ToolBreakEven    = "break_even"
	ToolAllocation   = "allocation"
	ToolSpotPrice    = "spot_price"
	ToolPriceRange   = "price_range"
	ToolRatio        = "gold_silver_ratio"
	ToolJunkMelt     = "junk_silver_melt"
	ToolWhatIf       = "what_if"
	ToolPremiums     = "dealer_premiums"
	ToolStackSignal  = "latest_stack_signal"
	ToolComex        = "comex_registered"
	IntentCapability = "capabilities"
)

// args are a function's inputs, as the engine parses them and as a model sends them.
type args struct {
	Metal  string `json:"metal,omitempty"`
	Range  string `json:"range,omitempty"`
	Coin   string `json:"coin,omitempty"`
	Count  int64  `json:"count,omitempty"`
	Face   string `json:"face,omitempty"`
	Target string `json:"target,omitempty"`
	Weight string `json:"weight,omitempty"`
	// Product is a product word the question names ("eagle", "maple leaf", "bar").
	Product string `json:"product,omitempty"`
	// Coins are further kinds of coins counted together with Coin and Count.
	Coins []coinCount `json:"coins,omitempty"`
}

// coinCount is a number of junk coins of one kind.
type coinCount struct {
	Coin  string `json:"coin"`
	Count int64  `json:"count"`
}

func (a args) metal() metals.Metal { return metals.Metal(a.Metal) }

func (a args) json() string {
	b, _ := json.Marshal(a)
	return string(b)
}

// result is what a function found.
type result struct {
	Text  string
	Facts []Fact
	Stale bool
}

type tool struct {
	Name        string
	Description string
	Params      map[string]any
	Run         func(ctx context.Context, u db.User, a args) (result, error)
}

func (s *Service) toolset() []tool {
	metal := map[string]any{"type": "string", "enum": metals.Names(), "description": "gold, silver, platinum or palladium"}
	obj := func(props map[string]any, required ...string) map[string]any {
		o := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
		if len(required) > 0 {
			o["required"] = required
		}
		return o
	}
	return []tool{
		{ToolStackValue, "The member's stack valued at the price board: total, cost basis and each metal.", obj(map[string]any{}), s.stackValue},
		{ToolProfitLoss, "Unrealized and realized profit or loss of the member's stack, and today's change.", obj(map[string]any{}), s.profitLoss},
		{ToolPerformance, "How the member's stack did over a period: start and end value, money put in, gain, time- and money-weighted return, against gold, after inflation.",
			obj(map[string]any{"range": map[string]any{"type": "string", "description": "YTD, MTD, QTD, WTD, 1Y or MAX; since:M or since:M:YYYY for since a month; in:YYYY for a calendar year"}}, "range"), s.stackPerformance},
		{ToolBreakEven, "Break-even spot price per metal held and how far spot is from it.", obj(map[string]any{"metal": metal}), s.breakEven},
		{ToolAllocation, "How the member's stack splits between metals by value and by ounces.", obj(map[string]any{}), s.allocation},
		{ToolSpotPrice, "A metal's price per troy ounce now and its change today (every metal when none is named).", obj(map[string]any{"metal": metal}), s.spotPrice},
		{ToolPriceRange, "A metal's change, high and low over a range of daily closes.", obj(map[string]any{"metal": metal,
			"range": map[string]any{"type": "string", "enum": []string{"1W", "1M", "3M", "6M", "YTD", "1Y", "5Y", "ALL"}}}, "metal", "range"), s.priceRange},
		{ToolRatio, "The gold/silver ratio: ounces of silver one ounce of gold buys.", obj(map[string]any{}), s.ratio},
		{ToolJunkMelt, "Melt value of pre-1965 US 90% silver coins: a number of coins of one kind, or an amount of face value.", obj(map[string]any{
			"coin":  map[string]any{"type": "string", "enum": coinParams()},
			"count": map[string]any{"type": "integer", "minimum": 1},
			"face":  map[string]any{"type": "string", "description": "face value of the US coins, in US dollars (their face is dollars whatever the member's currency), e.g. \"10\""},
			"coins": map[string]any{"type": "array", "description": "more kinds of coins counted together, e.g. 20 dimes and 4 quarters",
				"items": obj(map[string]any{"coin": map[string]any{"type": "string", "enum": coinParams()},
					"count": map[string]any{"type": "integer", "minimum": 1}}, "coin", "count")}}), s.junkMelt},
		{ToolWhatIf, "What the member's metal would be worth at a target price (in their currency per their weight unit).", obj(map[string]any{"metal": metal,
			"target": map[string]any{"type": "string", "description": "price in the member's display currency per their weight unit (as the other functions state prices), e.g. \"3800\""}}, "metal", "target"), s.whatIf},
		{ToolPremiums, "Dealer premiums over spot for a metal's products, optionally of one weight in troy ounces.", obj(map[string]any{"metal": metal,
			"weight":  map[string]any{"type": "string", "description": "troy ounces, e.g. \"1\" or \"0.1\""},
			"product": map[string]any{"type": "string", "enum": productKinds(), "description": "only products of this kind, when the member names one"}}, "metal"), s.premiums},
		{ToolStackSignal, "The latest Stack Signal article (Ounce's market commentary).", obj(map[string]any{"metal": metal}), s.stackSignal},
		{ToolComex, "COMEX registered stocks of a metal and their trend over recent reports.", obj(map[string]any{"metal": metal}, "metal"), s.comexRegistered},
	}
}

func coinParams() []string {
	out := make([]string, len(metals.Coins))
	for i, c := range metals.Coins {
		out[i] = c.Param
	}
	return out
}

func (s *Service) toolByName(name string) (tool, bool) {
	for _, t := range s.tools {
		if t.Name == name {
			return t, true
		}
	}
	return tool{}, false
}

// ToolNames lists the functions, for documents.
func (s *Service) ToolNames() []string {
	out := make([]string, len(s.tools))
	for i, t := range s.tools {
		out[i] = t.Name
	}
	return out
}

func (s *Service) board() prices.Snapshot {
	if s.market == nil {
		return prices.Snapshot{}
	}
	return s.market.Snapshot()
}

// priceFact is the fact of one spot price, naming its date when it is not live.
func priceFact(sp prices.Spot) Fact {
	return Fact{Label: metalName(sp.Metal) + " spot", Value: money(sp.Price) + "/oz", AsOf: sp.AsOf, Source: sourceOf(sp)}
}

// priceFactIn is priceFact in the member's currency and unit (priceFact itself for dollars
// per ounce).
func priceFactIn(sp prices.Spot, v view) Fact {
	if v.usd() {
		return priceFact(sp)
	}
	return Fact{Label: metalName(sp.Metal) + " spot", Value: v.price(v.perUnit(sp.Price)), AsOf: sp.AsOf, Source: sourceOf(sp)}
}

// rateFacts state the exchange rate's day behind converted figures (none in dollars).
func rateFacts(v view) []Fact {
	if v.cur == "USD" {
		return nil
	}
	return []Fact{{Label: "Exchange rate " + v.cur + " per USD", Value: day(v.rateDay), AsOf: v.rateDay, Source: fx.SourceECB}}
}

func sourceOf(sp prices.Spot) string {
	if sp.Stale {
		return "last known price (" + orUnknown(sp.Source) + "), not live"
	}
	return orUnknown(sp.Source)
}

func orUnknown(s string) string {
	if s == "" {
		return "price board"
	}
	return s
}

// staleNote says how old a stale price is, in words the reply can carry.
func staleNote(m metals.Metal, sp prices.Spot) string {
	return fmt.Sprintf("the %s price is the last known one, from %s, not live", m, day(sp.AsOf))
}

func metalName(m metals.Metal) string {
	if m == "" {
		return ""
	}
	return strings.ToUpper(string(m[:1])) + string(m[1:])
}

// stack values the member's holdings in their display currency: the portfolio service's
// valuation in it (today's values at today's rate, each lot's cost at its purchase day's rate,
// a lot bought in that currency at its exact cost), with the view that writes it. Membership
// and emptiness are answered in words. Without exchange rates on the server the valuation is
// in US dollars, which every figure then says.
func (s *Service) stack(ctx context.Context, u db.User) (portfolio.Portfolio, view, string, error) {
	v := s.viewOf(ctx, u, s.now())
	if s.portfolio == nil {
		return portfolio.Portfolio{}, v, "Your holdings are not available on this server.", nil
	}
	p, v, err := s.valuation(ctx, u, v)
	if apperr.KindOf(err) == apperr.MembershipRequired {
		return p, v, "Your stack's value, profit and break-even are part of Gold membership; I can still answer about prices, the gold/silver ratio, junk silver melt, premiums, COMEX and Stack Signal.", nil
	}
	if err != nil {
		return p, v, "", err
	}
	if p.Empty() {
		return p, v, "You have no holdings recorded yet. Add your purchases under Holdings and I can value them.", nil
	}
	return p, v, "", nil
}

// valuation is the portfolio service's valuation of the member's stack in the view's
// currency, and the view with the day of the rate that valued it. Without exchange rates in
// the portfolio service it falls back to US dollars, which the view then writes.
func (s *Service) valuation(ctx context.Context, u db.User, v view) (portfolio.Portfolio, view, error) {
	p, err := s.portfolio.PortfolioIn(ctx, u, v.cur)
	if err != nil && v.cur != "USD" && apperr.KindOf(err) == apperr.Unavailable {
		s.log.Warn("advisor: no valuation in the member's currency; figures in US dollars", "currency", v.cur, "err", err)
		v = view{cur: "USD", unit: v.unit, rate: decimal.NewFromInt(1)}
		p, err = s.portfolio.PortfolioIn(ctx, u, "USD")
	}
	if err == nil && v.cur != "USD" {
		// The rate that valued today's dollars is the one named.
		v.rateDay, v.stale = p.FX.RateDate, p.FX.Stale
	}
	return p, v, err
}

// staleSuffix lists the stale prices behind a valuation, with their dates.
func staleSuffix(p portfolio.Portfolio, board prices.Snapshot) string {
	var notes []string
	for _, x := range p.Positions {
		if !x.HeldOz.IsPositive() {
			continue
		}
		if sp, ok := board.Prices[x.Metal]; ok && sp.Stale {
			notes = append(notes, staleNote(x.Metal, sp))
		} else if !ok {
			notes = append(notes, metalName(x.Metal)+" has no price yet")
		}
	}
	if len(notes) == 0 {
		return ""
	}
	return " Note: " + strings.Join(notes, "; ") + "."
}

func (s *Service) stackValue(ctx context.Context, u db.User, _ args) (result, error) {
	p, v, msg, err := s.stack(ctx, u)
	if err != nil || msg != "" {
		return result{Text: msg}, err
	}
	board := s.board()
	var facts []Fact
	var parts []string
	for _, x := range p.Positions {
		if !x.HeldOz.IsPositive() || x.Value == nil {
			continue
		}
		// Each metal's value is dated with its own price, not the newest price on the board.
		sp := board.Prices[x.Metal]
		worth := v.money(v.own(*x.Value))
		facts = append(facts, Fact{Label: metalName(x.Metal) + " held", Value: v.weight(x.HeldOz) + " worth " + worth, AsOf: sp.AsOf, Source: "your holdings × " + sourceOf(sp)})
		parts = append(parts, fmt.Sprintf("%s of %s (%s)", v.weight(x.HeldOz), x.Metal, worth))
	}
	if p.TotalValue == nil {
		return result{Text: "I cannot value your whole stack: a metal you hold has no price yet." + staleSuffix(p, board), Facts: facts, Stale: true}, nil
	}
	total, cost := v.money(v.own(*p.TotalValue)), v.money(v.own(p.TotalCost))
	facts = append([]Fact{{Label: "Stack value", Value: total, AsOf: p.AsOf, Source: "your holdings × price board"},
		{Label: "Cost basis", Value: cost, Source: costSource(v)}}, facts...)
	facts = append(facts, rateFacts(v)...)
	text := fmt.Sprintf("Your stack is worth %s at spot: %s. You paid %s for what you still hold%s.", total, strings.Join(parts, ", "), cost, costWords(v))
	if n := v.note(); n != "" {
		text += " " + n
	}
	return result{Text: text + staleSuffix(p, board), Facts: facts, Stale: p.Stale}, nil
}

// costSource is where a cost basis comes from: in another currency than dollars, each lot's
// cost at its purchase day's rate.
func costSource(v view) string {
	if v.cur == "USD" {
		return "your holdings"
	}
	return "your holdings, each lot's cost at the exchange rate of its purchase day"
}

// costWords says how a cost basis in another currency than dollars was counted.
func costWords(v view) string {
	if v.cur == "USD" {
		return ""
	}
	return " (each lot's cost at the exchange rate of its purchase day)"
}

func (s *Service) profitLoss(ctx context.Context, u db.User, _ args) (result, error) {
	p, v, msg, err := s.stack(ctx, u)
	if err != nil || msg != "" {
		return result{Text: msg}, err
	}
	board := s.board()
	if p.UnrealizedPL == nil {
		return result{Text: "I cannot work out your profit: a metal you hold has no price yet." + staleSuffix(p, board), Stale: true}, nil
	}
	pl, cost := v.signedMoney(v.own(*p.UnrealizedPL)), v.money(v.own(p.TotalCost))
	facts := []Fact{
		{Label: "Unrealized P/L", Value: pl, AsOf: p.AsOf, Source: "your holdings × price board"},
		{Label: "Cost basis", Value: cost, Source: costSource(v)},
	}
	text := fmt.Sprintf("Your stack is %s on what you paid (%s)", upDown(*p.UnrealizedPL), pl)
	if p.UnrealizedPLPct != nil {
		facts = append(facts, Fact{Label: "Unrealized P/L %", Value: signedPct(*p.UnrealizedPLPct), AsOf: p.AsOf, Source: "your holdings × price board"})
		text += ", " + signedPct(*p.UnrealizedPLPct)
	}
	text += fmt.Sprintf(" on a cost basis of %s%s.", cost, costWords(v))
	if !p.Realized.IsZero() {
		r := v.signedMoney(v.own(p.Realized))
		facts = append(facts, Fact{Label: "Realized P/L", Value: r, Source: "your sales"})
		text += fmt.Sprintf(" Sales so far realized %s.", r)
	}
	if p.DayChange != nil && !p.Stale {
		ch := v.signedMoney(v.own(*p.DayChange))
		facts = append(facts, Fact{Label: "Change today", Value: ch, AsOf: p.AsOf, Source: "price board"})
		text += fmt.Sprintf(" Today it moved %s.", ch)
	}
	if n := v.note(); n != "" && v.cur != "USD" {
		facts = append(facts, rateFacts(v)...)
		text += " " + n
	}
	return result{Text: text + staleSuffix(p, board), Facts: facts, Stale: p.Stale}, nil
}

func upDown(d decimal.Decimal) string {
	if d.IsNegative() {
		return "down"
	}
	return "up"
}

// perOzText writes a price per troy ounce of the portfolio's valuation (in the view's
// currency) per the view's unit: "$2,000.00/oz" for dollars per ounce, "€57.42/g".
func perOzText(d decimal.Decimal, v view) string {
	if v.usd() {
		return money(d) + "/oz"
	}
	return v.price(v.ownPerUnit(d))
}

// spotText writes a position's spot (in the view's currency per ounce) as the view shows it.
func spotText(d decimal.Decimal, v view) string {
	if v.usd() {
		return money(d)
	}
	return v.price(v.ownPerUnit(d))
}

// positionSpotFact is the fact of the spot a position is valued at, in the view's currency
// and unit, dated with its price.
func positionSpotFact(x portfolio.Position, sp prices.Spot, v view) Fact {
	if v.usd() {
		return priceFact(sp)
	}
	return Fact{Label: metalName(x.Metal) + " spot", Value: v.price(v.ownPerUnit(*x.Spot)), AsOf: sp.AsOf, Source: sourceOf(sp)}
}

func (s *Service) breakEven(ctx context.Context, u db.User, a args) (result, error) {
	p, v, msg, err := s.stack(ctx, u)
	if err != nil || msg != "" {
		return result{Text: msg}, err
	}
	board := s.board()
	var facts []Fact
	var lines []string
	for _, x := range p.Positions {
		if !x.HeldOz.IsPositive() || (a.Metal != "" && x.Metal != a.metal()) {
			continue
		}
		be := x.BreakEven()
		if be == nil {
			continue
		}
		facts = append(facts, Fact{Label: metalName(x.Metal) + " break-even", Value: perOzText(*be, v), Source: costSource(v)})
		line := fmt.Sprintf("%s breaks even at %s", metalName(x.Metal), perOzText(*be, v))
		if x.Spot != nil {
			sp := board.Prices[x.Metal]
			facts = append(facts, positionSpotFact(x, sp, v))
			more, mf := breakEvenDistance(x, *be, sp, v)
			line += more
			facts = append(facts, mf...)
		}
		lines = append(lines, line)
	}
	if len(lines) == 0 {
		if a.Metal != "" {
			return result{Text: fmt.Sprintf("You hold no %s, so it has no break-even.", a.Metal)}, nil
		}
		return result{Text: "You hold no metal with a cost to break even on."}, nil
	}
	text := strings.Join(lines, ". ") + "."
	if n := v.note(); n != "" {
		facts = append(facts, rateFacts(v)...)
		text += " " + n
	}
	return result{Text: text + staleSuffix(p, board), Facts: facts, Stale: p.Stale}, nil
}

// breakEvenDistance says how far spot is from a position's break-even. Two different
// percentages: how far spot must rise to reach break-even (of spot), and how far spot stands
// above break-even (of break-even). Each is stated as what it is; both are the same in any
// currency and unit.
func breakEvenDistance(x portfolio.Position, be decimal.Decimal, sp prices.Spot, v view) (string, []Fact) {
	spot := spotText(*x.Spot, v)
	src := "your holdings × " + sourceOf(sp)
	switch {
	case be.GreaterThan(*x.Spot):
		rise := metals.Percent(metals.PctChange(*x.Spot, be))
		return fmt.Sprintf("; spot %s would need to rise %s to reach it", spot, pct(rise)),
			[]Fact{{Label: metalName(x.Metal) + " rise needed to break even (of spot)", Value: pct(rise), AsOf: sp.AsOf, Source: src}}
	case be.LessThan(*x.Spot) && be.IsPositive():
		above := metals.Percent(metals.PctChange(be, *x.Spot))
		below := metals.Percent(metals.PctChange(*x.Spot, be).Neg())
		return fmt.Sprintf("; spot %s is %s above it (break-even is %s below spot)", spot, pct(above), pct(below)),
			[]Fact{{Label: metalName(x.Metal) + " spot above break-even (of break-even)", Value: pct(above), AsOf: sp.AsOf, Source: src},
				{Label: metalName(x.Metal) + " break-even below spot (of spot)", Value: pct(below), AsOf: sp.AsOf, Source: src}}
	}
	return fmt.Sprintf("; spot %s is at it", spot), nil
}

func (s *Service) allocation(ctx context.Context, u db.User, _ args) (result, error) {
	p, v, msg, err := s.stack(ctx, u)
	if err != nil || msg != "" {
		return result{Text: msg}, err
	}
	board := s.board()
	byWeight := "ounces"
	if v.unit != metals.Ounce {
		byWeight = "weight"
	}
	var facts []Fact
	var parts []string
	for _, x := range p.Positions {
		if !x.HeldOz.IsPositive() {
			continue
		}
		facts = append(facts, Fact{Label: metalName(x.Metal) + " held", Value: v.weight(x.HeldOz), Source: "your holdings"})
		if x.AllocationPct != nil {
			facts = append(facts, Fact{Label: metalName(x.Metal) + " share of value", Value: pct(*x.AllocationPct), AsOf: p.AsOf, Source: "your holdings × price board"})
			parts = append(parts, fmt.Sprintf("%s %s of value (%s)", x.Metal, pct(*x.AllocationPct), v.weight(x.HeldOz)))
		} else {
			facts = append(facts, Fact{Label: metalName(x.Metal) + " share of " + byWeight, Value: pct(x.WeightPct), Source: "your holdings"})
			parts = append(parts, fmt.Sprintf("%s %s of %s (%s)", x.Metal, pct(x.WeightPct), byWeight, v.weight(x.HeldOz)))
		}
	}
	return result{Text: "Your allocation: " + strings.Join(parts, ", ") + "." + staleSuffix(p, board), Facts: facts, Stale: p.Stale}, nil
}

func (s *Service) spotPrice(ctx context.Context, u db.User, a args) (result, error) {
	board := s.board()
	v := usdView
	if u.ID != 0 {
		v = s.viewOf(ctx, u, s.now())
	}
	ms := metals.All
	if a.Metal != "" {
		ms = []metals.Metal{a.metal()}
	}
	var facts []Fact
	var parts, notes []string
	stale := false
	for _, m := range ms {
		sp, ok := board.Prices[m]
		if !ok {
			notes = append(notes, "I have no "+string(m)+" price yet")
			continue
		}
		facts = append(facts, priceFactIn(sp, v))
		shown, per, change := money(sp.Price), "per ounce", signedMoney(sp.Change)
		if !v.usd() {
			shown, per, change = v.money(v.perUnit(sp.Price)), "per "+unitWord[v.unit], v.signedMoney(v.perUnit(sp.Change))
		}
		line := fmt.Sprintf("%s is %s %s", metalName(m), shown, per)
		if sp.Stale {
			stale = true
			line = fmt.Sprintf("%s was %s %s at the last known price, from %s (not live)", metalName(m), shown, per, day(sp.AsOf))
		} else if !sp.PrevClose.IsZero() {
			facts = append(facts, Fact{Label: metalName(m) + " change today", Value: change + " (" + signedPct(sp.ChangePct) + ")", AsOf: sp.AsOf, Source: sourceOf(sp)})
			line += fmt.Sprintf(", %s (%s) today", change, signedPct(sp.ChangePct))
		}
		parts = append(parts, line)
	}
	text := strings.Join(parts, "; ")
	if len(notes) > 0 {
		if text != "" {
			text += ". "
		}
		text += strings.Join(notes, "; ")
	}
	text += "."
	if v.cur != "USD" && len(facts) > 0 {
		facts = append(facts, rateFacts(v)...)
		text += " " + v.note()
	}
	return result{Text: text, Facts: facts, Stale: stale}, nil
}

// rangeStart is the first day of a named range at now, and its words.
func rangeStart(r string, now time.Time) (time.Time, string, bool) {
	today := time.Date(now.UTC().Year(), now.UTC().Month(), now.UTC().Day(), 0, 0, 0, 0, time.UTC)
	switch strings.ToUpper(r) {
	case "1W":
		return today.AddDate(0, 0, -7), "the past week", true
	case "YTD":
		return time.Date(today.Year(), 1, 1, 0, 0, 0, 0, time.UTC), "this year so far", true
	case "1M":
		return prices.Range1M.Start(now), "the past month", true
	case "3M":
		return prices.Range3M.Start(now), "the past 3 months", true
	case "6M":
		return prices.Range6M.Start(now), "the past 6 months", true
	case "1Y":
		return prices.Range1Y.Start(now), "the past year", true
	case "5Y":
		return prices.Range5Y.Start(now), "the past 5 years", true
	case "ALL":
		return time.Time{}, "all the history I hold", true
	}
	return time.Time{}, "", false
}

func (s *Service) priceRange(ctx context.Context, u db.User, a args) (result, error) {
	if a.Metal == "" {
		return result{Text: "Which metal: gold, silver, platinum or palladium?"}, nil
	}
	if strings.EqualFold(a.Range, "1D") || a.Range == "" {
		return s.spotPrice(ctx, u, a)
	}
	from, words, ok := rangeStart(a.Range, s.now())
	if !ok {
		return result{}, apperr.InvalidField("range", "must be one of 1W, 1M, 3M, 6M, YTD, 1Y, 5Y, ALL")
	}
	if s.market == nil {
		return result{Text: "I have no price history on this server."}, nil
	}
	m := a.metal()
	closes, through, anchored := s.rangeCloses(m, a.Range, from)
	if len(closes) < 2 {
		return result{Text: fmt.Sprintf("I have too few %s closes for %s.", m, words)}, nil
	}
	v := usdView
	if u.ID != 0 {
		v = s.viewOf(ctx, u, s.now())
	}
	closes, v, fxNote := s.closesIn(ctx, closes, v)
	first, last := closes[0], closes[len(closes)-1]
	hi, lo := first, first
	for _, c := range closes {
		if c.Price.GreaterThan(hi.Price) {
			hi = c
		}
		if c.Price.LessThan(lo.Price) {
			lo = c
		}
	}
	change := metals.Money(last.Price.Sub(first.Price))
	chPct := metals.Percent(metals.PctChange(first.Price, last.Price))
	src := "daily closes"
	pm, sm := money, signedMoney
	if !v.usd() {
		src = "daily closes, each at its day's exchange rate"
		change = v.own(last.Price.Sub(first.Price))
		pm, sm = v.price, v.signedMoney
	}
	facts := []Fact{
		{Label: metalName(m) + " close " + day(first.Date), Value: pm(first.Price), AsOf: first.Date, Source: src},
		{Label: metalName(m) + " close " + day(last.Date), Value: pm(last.Price), AsOf: last.Date, Source: src},
		{Label: metalName(m) + " change over " + words, Value: sm(change) + " (" + signedPct(chPct) + ")", AsOf: last.Date, Source: src},
		{Label: metalName(m) + " high over " + words, Value: pm(hi.Price), AsOf: hi.Date, Source: src},
		{Label: metalName(m) + " low over " + words, Value: pm(lo.Price), AsOf: lo.Date, Source: src},
	}
	text := fmt.Sprintf("Over %s %s went from %s (%s) to %s (%s), %s (%s). The high was %s on %s and the low %s on %s.",
		words, m, pm(first.Price), day(first.Date), pm(last.Price), day(last.Date), sm(change), signedPct(chPct),
		pm(hi.Price), day(hi.Date), pm(lo.Price), day(lo.Date))
	text += fxNote
	if anchored {
		facts = append(facts, Fact{Label: metalName(m) + " newest daily close", Value: day(through), AsOf: through, Source: src})
		text += fmt.Sprintf(" My %s closes end on %s, so %s is counted back from that day.", m, day(through), words)
	}
	return result{Text: text, Facts: facts, Stale: anchored}, nil
}

// closesIn re-expresses dollar closes per troy ounce in the view's currency per its unit,
// each close at its own day's exchange rate (the last on or before it). Without a rate for
// some day the closes stay in dollars per ounce and the note says so.
func (s *Service) closesIn(ctx context.Context, closes []prices.Close, v view) ([]prices.Close, view, string) {
	if v.usd() {
		return closes, v, ""
	}
	out := make([]prices.Close, len(closes))
	for i, c := range closes {
		f := decimal.NewFromInt(1)
		if v.cur != "USD" {
			if s.fx == nil {
				return closes, usdView, ""
			}
			r, err := s.fx.Lookup(ctx, v.cur, c.Date)
			if err != nil {
				return closes, usdView, " These prices are in US dollars per troy ounce: I have no " + v.cur + " rate for every day of that range."
			}
			f = r.PerUSDExact
		}
		out[i] = c
		out[i].Price = v.ownPerUnit(c.Price.Mul(f))
	}
	note := ""
	if v.cur != "USD" {
		note = " Prices are in " + currencyWords(v.cur) + ", each close at its own day's exchange rate."
	}
	if v.unit != metals.Ounce {
		note += " Prices are per " + unitWord[v.unit] + "."
	}
	return out, v, note
}

// rangeCloses are the metal's daily closes of a range: the window GET /v1/prices/history
// serves for the chart ranges (anchored at the newest close when the data ends before the
// range would start), and the same rule for 1W and YTD. anchored says the window was counted
// back from through, the newest close, rather than from today.
func (s *Service) rangeCloses(m metals.Metal, r string, from time.Time) (closes []prices.Close, through time.Time, anchored bool) {
	if pr, err := prices.ParseRange(r); err == nil && r != "" && pr != prices.RangeAll {
		h := s.market.History(m, pr, 0)
		if h.From.IsZero() {
			return nil, h.Through, h.Stale
		}
		return s.market.DailyCloses(m, h.From, h.To), h.Through, h.Stale
	}
	now := s.now()
	all := s.market.DailyCloses(m, time.Time{}, now)
	if len(all) == 0 {
		return nil, time.Time{}, false
	}
	through = all[len(all)-1].Date
	if !from.IsZero() && through.Before(from) {
		// The data ends before the window starts: count it back from the newest close.
		switch strings.ToUpper(r) {
		case "1W":
			from = through.AddDate(0, 0, -7)
		case "YTD":
			from = time.Date(through.Year(), 1, 1, 0, 0, 0, 0, time.UTC)
		}
		anchored = true
	}
	return prices.Since(all, from), through, anchored
}

func (s *Service) ratio(ctx context.Context, u db.User, _ args) (result, error) {
	board := s.board()
	g, okG := board.Prices[metals.Gold]
	sv, okS := board.Prices[metals.Silver]
	if !okG || !okS || !sv.Price.IsPositive() {
		return result{Text: "I need both a gold and a silver price for the ratio, and I do not have them yet."}, nil
	}
	r := g.Price.Div(sv.Price).Round(2)
	facts := []Fact{{Label: "Gold/silver ratio", Value: r.StringFixed(2), AsOf: minTime(g.AsOf, sv.AsOf), Source: "gold spot ÷ silver spot"}, priceFact(g), priceFact(sv)}
	text := fmt.Sprintf("The gold/silver ratio is %s: one ounce of gold (%s) buys %s ounces of silver (%s).", r.StringFixed(2), money(g.Price), r.StringFixed(2), money(sv.Price))
	if v := s.memberView(ctx, u); !v.usd() {
		facts = []Fact{facts[0], priceFactIn(g, v), priceFactIn(sv, v)}
		facts = append(facts, rateFacts(v)...)
		text = fmt.Sprintf("The gold/silver ratio is %s: gold at %s buys %s times its weight in silver at %s. %s", r.StringFixed(2),
			v.price(v.perUnit(g.Price)), r.StringFixed(2), v.price(v.perUnit(sv.Price)), v.note())
	}
	var notes []string
	for _, sp := range []prices.Spot{g, sv} {
		if sp.Stale {
			notes = append(notes, staleNote(sp.Metal, sp))
		}
	}
	if len(notes) > 0 {
		text += " Note: " + strings.Join(notes, "; ") + "."
	}
	return result{Text: text, Facts: facts, Stale: g.Stale || sv.Stale}, nil
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func (s *Service) junkMelt(ctx context.Context, u db.User, a args) (result, error) {
	sp, ok := s.board().Prices[metals.Silver]
	if !ok {
		return result{Text: "I have no silver price yet, so I cannot work out melt value."}, nil
	}
	q := portfolio.SpotQuote{Price: sp.Price, AsOf: sp.AsOf, Stale: sp.Stale}
	// Every part the question counts: coins of several kinds and face value add up.
	qty := map[string]int64{}
	counts := a.Coins
	if a.Count != 0 || a.Coin != "" {
		counts = append([]coinCount{{Coin: a.Coin, Count: a.Count}}, counts...)
	}
	for _, cc := range counts {
		coin := cc.Coin
		if coin == "" {
			coin = "dimes"
		}
		if cc.Count <= 0 {
			return result{}, apperr.InvalidField("count", "must be a positive number of coins")
		}
		if !slices.Contains(coinParams(), coin) {
			return result{}, apperr.InvalidField("coin", "must be one of "+strings.Join(coinParams(), ", "))
		}
		qty[coin] += cc.Count
		if qty[coin] > portfolio.MaxCoins {
			return result{}, apperr.InvalidField("count", fmt.Sprintf("must be at most %d coins", portfolio.MaxCoins))
		}
	}
	faces := map[string]decimal.Decimal{}
	if a.Face != "" {
		face, err := decimal.NewFromString(strings.TrimPrefix(strings.ReplaceAll(a.Face, ",", ""), "$"))
		if err != nil || !face.IsPositive() || face.GreaterThan(decimal.NewFromInt(portfolio.MaxCoins)) {
			return result{}, apperr.InvalidField("face", "must be a positive amount of face value in dollars")
		}
		faces["face_90"] = face
	}
	if len(qty) == 0 && len(faces) == 0 {
		return result{Text: "How many coins, or how much face value? For example: melt value of 20 quarters, or of $10 face."}, nil
	}
	js := portfolio.MeltWithFace(qty, faces, portfolio.BasisUncirculated, q)
	oz, melt := metals.Ounces(js.TotalSilverOz), metals.Money(js.TotalMelt)
	facts := []Fact{priceFact(sp)}
	var parts []string
	for _, c := range js.Coins {
		label := c.Type
		for _, x := range metals.Coins {
			if x.Param == c.Type {
				label = x.Label
			}
		}
		part := fmt.Sprintf("%d %s (%s face)", c.Quantity, label, money(c.FaceValue))
		parts = append(parts, part)
		facts = append(facts, Fact{Label: "Coins counted", Value: part, Source: "your question"},
			Fact{Label: label + " silver content", Value: ounces(metals.Ounces(c.SilverOz)), Source: "US Mint coin specifications"})
	}
	for _, f := range js.Face {
		part := fmt.Sprintf("%s face of 90%% silver coins (%s oz per $1 face)", money(f.FaceValue), f.SilverOzPerFaceDollar.String())
		parts = append(parts, part)
		facts = append(facts, Fact{Label: "Face value counted", Value: money(f.FaceValue), Source: "your question"},
			Fact{Label: "90% silver per $1 face", Value: f.SilverOzPerFaceDollar.String() + " oz", Source: "US Mint coin specifications"},
			Fact{Label: "Face value silver content", Value: ounces(metals.Ounces(f.SilverOz)), Source: "US Mint coin specifications"})
	}
	verb := "hold"
	if len(parts) == 1 && len(js.Face) == 1 {
		verb = "holds"
	}
	v := s.memberView(ctx, u)
	content, worth, at := ounces(oz), money(melt), money(sp.Price)+"/oz"
	if !v.usd() {
		// The face is US dollars (the coins'); the melt value and the price are the member's.
		content, worth, at = v.weight(oz), v.money(v.amount(melt)), v.price(v.perUnit(sp.Price))
		facts[0] = priceFactIn(sp, v)
		facts = append(facts, rateFacts(v)...)
	}
	facts = append(facts, Fact{Label: "Silver content", Value: content, Source: "US Mint coin specifications"},
		Fact{Label: "Melt value", Value: worth, AsOf: sp.AsOf, Source: "silver content × " + sourceOf(sp)})
	what := strings.Join(parts, " and ")
	if len(parts) > 2 {
		what = strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
	}
	text := fmt.Sprintf("%s %s %s of silver, worth %s at %s silver.", what, verb, content, worth, at)
	if !v.usd() {
		text += " " + v.note()
	}
	if sp.Stale {
		text += " Note: " + staleNote(metals.Silver, sp) + "."
	}
	return result{Text: upperFirst(text), Facts: facts, Stale: sp.Stale}, nil
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func (s *Service) whatIf(ctx context.Context, u db.User, a args) (result, error) {
	if a.Metal == "" {
		return result{Text: "Which metal's target price? For example: what if silver hits $50."}, nil
	}
	target, err := decimal.NewFromString(strings.TrimPrefix(strings.ReplaceAll(a.Target, ",", ""), "$"))
	if err != nil || !target.IsPositive() || target.GreaterThan(portfolio.MaxTarget) {
		return result{}, apperr.InvalidField("target", "must be a positive price per ounce")
	}
	m := a.metal()
	sp, ok := s.board().Prices[m]
	if !ok {
		return result{Text: "I have no " + string(m) + " price yet to compare with."}, nil
	}
	// The target is in the member's currency per their unit, as they read prices.
	v := usdView
	if u.ID != 0 {
		v = s.viewOf(ctx, u, s.now())
	}
	spot, shown, targetShown := sp.Price, money(sp.Price), money(target)
	targetFact := money(target) + "/oz"
	if !v.usd() {
		spot = v.perUnit(sp.Price)
		shown, targetShown, targetFact = v.price(spot), v.price(target), v.price(target)
	}
	move := metals.Percent(metals.PctChange(spot, target))
	facts := []Fact{{Label: metalName(m) + " target price", Value: targetFact, Source: "your question"}, priceFactIn(sp, v),
		{Label: "Move to target", Value: signedPct(move), AsOf: sp.AsOf, Source: "target vs spot"}}
	text := fmt.Sprintf("%s at %s would be %s from %s", metalName(m), targetShown, signedPct(move), shown)
	p, pv, msg, err := s.stack(ctx, u)
	if err != nil {
		return result{}, err
	}
	if msg == "" && pv.cur == v.cur {
		more, mf := whatIfHeld(p, m, v.perOz(target), pv, sp)
		text += more
		facts = append(facts, mf...)
	}
	text += "."
	if n := v.note(); n != "" {
		facts = append(facts, rateFacts(v)...)
		text += " " + n
	}
	if sp.Stale {
		text += " Note: " + staleNote(m, sp) + "."
	}
	return result{Text: text, Facts: facts, Stale: sp.Stale}, nil
}

// whatIfHeld is what the member's metal m would be worth at targetPerOz (in the valuation's
// currency per troy ounce), against its value now and its cost, all of the portfolio's
// valuation in that currency.
func whatIfHeld(p portfolio.Portfolio, m metals.Metal, targetPerOz decimal.Decimal, v view, sp prices.Spot) (string, []Fact) {
	var facts []Fact
	text := ""
	for _, x := range p.Positions {
		if x.Metal != m || !x.HeldOz.IsPositive() || x.Spot == nil {
			continue
		}
		proj := portfolio.Project(map[metals.Metal]decimal.Decimal{m: *x.Spot}, map[metals.Metal]decimal.Decimal{m: targetPerOz}, map[metals.Metal]decimal.Decimal{m: x.HeldOz})
		line := proj.Portfolio.Metals[m]
		now, then := v.own(metals.Money(line.CurrentValue)), v.own(metals.Money(line.ProjectedValue))
		gain := then.Sub(now)
		facts = append(facts, Fact{Label: metalName(m) + " held", Value: v.weight(x.HeldOz), Source: "your holdings"},
			Fact{Label: "Value at target", Value: v.money(then), Source: "your holdings × target"},
			Fact{Label: "Value now", Value: v.money(now), AsOf: sp.AsOf, Source: "your holdings × " + sourceOf(sp)},
			Fact{Label: "Gain at target", Value: v.signedMoney(gain), Source: "your holdings × target"})
		text += fmt.Sprintf(": your %s would be worth %s instead of %s (%s)", v.weight(x.HeldOz), v.money(then), v.money(now), v.signedMoney(gain))
		if be := x.BreakEven(); be != nil && p.TotalCost.IsPositive() {
			cost := v.own(metals.Money(x.Cost))
			pl := then.Sub(cost)
			facts = append(facts, Fact{Label: metalName(m) + " cost basis", Value: v.money(cost), Source: costSource(v)},
				Fact{Label: "P/L at target", Value: v.signedMoney(pl), Source: "your holdings × target"})
			text += fmt.Sprintf(", %s on the %s you paid", v.signedMoney(pl), v.money(cost))
		}
	}
	return text, facts
}

func (s *Service) premiums(ctx context.Context, u db.User, a args) (result, error) {
	if a.Metal == "" {
		return result{Text: "Premiums for which metal: gold, silver, platinum or palladium?"}, nil
	}
	if s.dealers == nil {
		return result{Text: "Dealer prices are not set up on this server."}, nil
	}
	w := decimal.Zero
	if a.Weight != "" {
		v, err := decimal.NewFromString(a.Weight)
		if err != nil || v.IsNegative() {
			return result{}, apperr.InvalidField("weight", "must be troy ounces, e.g. 1 or 0.1")
		}
		w = v
	}
	if a.Product != "" && !slices.Contains(productKinds(), a.Product) {
		return result{}, apperr.InvalidField("product", "must be one of "+strings.Join(productKinds(), ", "))
	}
	list, err := s.dealers.Premiums(ctx, a.metal(), w)
	if err != nil {
		if k := apperr.KindOf(err); k == apperr.Invalid || k == apperr.NotFound {
			return result{Text: "I found no dealer products of that kind."}, nil
		}
		return result{}, err
	}
	what := a.Metal
	if a.Product != "" {
		what = a.Metal + " " + a.Product
	}
	// A product the question names is the product answered: never other products instead.
	var quoted []premiumLine
	named, outOfStock := 0, 0
	for _, pp := range list {
		if a.Product != "" && !strings.Contains(strings.ToLower(pp.Product.Name), a.Product) {
			continue
		}
		named++
		if pp.Best == nil {
			outOfStock++
			continue
		}
		// The price and the premium stated are one quote's: the cheapest in stock.
		quoted = append(quoted, premiumLine{pp, *pp.Best})
	}
	if len(quoted) == 0 {
		switch {
		case named == 0 && a.Product != "":
			return result{Text: fmt.Sprintf("I have no dealer quotes for %s products.", what)}, nil
		case outOfStock > 0:
			return result{Text: fmt.Sprintf("No dealer I follow has %s products in stock right now.", what)}, nil
		}
		return result{Text: fmt.Sprintf("No dealer prices are stored for %s yet.", what)}, nil
	}
	return premiumsAnswer(quoted, what, a.Product, s.memberView(ctx, u)), nil
}

// premiumLine is one product answered with the one quote whose price and premium are stated.
type premiumLine struct {
	pp dealers.ProductPremium
	q  dealers.Quote
}

// premiumsAnswer states the lowest premiums of quoted (up to three, five for a named
// product), each quote's price and premium together, labelling demo quotes.
func premiumsAnswer(quoted []premiumLine, what, product string, v view) result {
	sort.SliceStable(quoted, func(i, j int) bool {
		pi, pj := quoted[i].q.PremiumPct, quoted[j].q.PremiumPct
		if pi == nil || pj == nil {
			return pj == nil && pi != nil
		}
		return pi.LessThan(*pj)
	})
	limit := 3
	if product != "" {
		limit = 5
	}
	if len(quoted) > limit {
		quoted = quoted[:limit]
	}
	var facts []Fact
	var lines []string
	demo := false
	for _, l := range quoted {
		src := l.q.Dealer.Name
		if l.pp.Demo || l.q.Demo() {
			src += " (demo quote)"
			demo = true
		}
		name := l.pp.Product.Name
		shown := money(l.q.Price)
		if v.cur != "USD" {
			shown = v.money(v.amount(l.q.Price))
		}
		text := fmt.Sprintf("%s: best in-stock price %s at %s", name, shown, l.q.Dealer.Name)
		facts = append(facts, Fact{Label: name + " best in-stock price", Value: shown, AsOf: l.q.UpdatedAt, Source: src})
		if l.q.PremiumPct != nil {
			text += fmt.Sprintf(", %s over spot", pct(metals.Percent(*l.q.PremiumPct)))
			facts = append(facts, Fact{Label: name + " premium of that quote", Value: pct(metals.Percent(*l.q.PremiumPct)), AsOf: l.q.UpdatedAt, Source: src})
		}
		lines = append(lines, text)
	}
	head := "Lowest " + what + " premiums: "
	if product != "" {
		head = upperFirst(what) + " premiums: "
	}
	text := head + strings.Join(lines, "; ") + "."
	if v.cur != "USD" {
		facts = append(facts, rateFacts(v)...)
		text += fmt.Sprintf(" Dealers quote in US dollars; these prices are in %s at the exchange rate of %s.", currencyWords(v.cur), day(v.rateDay))
	}
	if demo {
		text = "Demo quotes, not real dealer prices. " + text
	}
	return result{Text: text, Facts: facts}
}

func (s *Service) stackSignal(ctx context.Context, _ db.User, a args) (result, error) {
	if s.intel == nil {
		return result{Text: "Stack Signal is not available on this server."}, nil
	}
	page, err := s.intel.StackSignal(ctx, intel.SignalQuery{Limit: 10})
	if err != nil {
		return result{}, err
	}
	if len(page.Articles) == 0 {
		return result{Text: "No Stack Signal article has been published yet."}, nil
	}
	art := page.Articles[0]
	if a.Metal != "" {
		for _, x := range page.Articles {
			if hasMetal(x.Metals, a.metal()) {
				art = x
				break
			}
		}
	}
	src := "Stack Signal /signal/" + art.Slug
	if art.Demo {
		src += " (demo)"
	}
	// The summary is quoted as published: its figures are the article's, dated and sourced.
	facts := []Fact{{Label: "Latest Stack Signal", Value: art.Title, AsOf: art.PublishedAt, Source: src},
		{Label: "Stack Signal summary (quoted)", Value: art.Summary, AsOf: art.PublishedAt, Source: src}}
	text := fmt.Sprintf("The latest Stack Signal, from %s: \"%s\". %s", day(art.PublishedAt), art.Title, art.Summary)
	if art.Demo {
		text = "Demo article: " + text
	}
	return result{Text: strings.TrimSpace(text), Facts: facts}, nil
}

func hasMetal(list db.MetalList, m metals.Metal) bool {
	for _, x := range list {
		if metals.Metal(x) == m {
			return true
		}
	}
	return false
}

// comexTrendReports is how many reports the trend looks back over.
const comexTrendReports = 5

func (s *Service) comexRegistered(ctx context.Context, _ db.User, a args) (result, error) {
	m := a.metal()
	if m == "" {
		m = metals.Silver
	}
	if s.vault == nil {
		return result{Text: "COMEX figures are not available on this server."}, nil
	}
	w, found, err := s.vault.Current(ctx, m)
	if err != nil {
		return result{}, err
	}
	if !found || len(w.History) == 0 {
		return result{Text: fmt.Sprintf("I have no COMEX reports for %s.", m)}, nil
	}
	h := w.History
	first := h[0]
	if len(h) > comexTrendReports {
		first = h[len(h)-1-comexTrendReports]
	}
	last := h[len(h)-1]
	change := last.Registered.Sub(first.Registered)
	src := "CME depository report"
	if w.Source != "" {
		src = w.Source
	}
	facts := []Fact{
		{Label: metalName(m) + " registered", Value: ounces(last.Registered), AsOf: last.Date, Source: src},
		{Label: metalName(m) + " registered on " + day(first.Date), Value: ounces(first.Registered), AsOf: first.Date, Source: src},
		{Label: metalName(m) + " registered change", Value: signedOz(change), AsOf: last.Date, Source: src},
	}
	trend := "flat"
	if change.IsPositive() {
		trend = "rising"
	} else if change.IsNegative() {
		trend = "falling"
	}
	text := fmt.Sprintf("COMEX registered %s stood at %s on %s, %s since %s (%s): %s.", m, ounces(last.Registered), day(last.Date),
		signedOz(change), day(first.Date), ounces(first.Registered), trend)
	if w.Stale {
		text += fmt.Sprintf(" The newest report is from %s; later ones have not arrived.", day(last.Date))
	}
	return result{Text: text, Facts: facts, Stale: w.Stale}, nil
}
