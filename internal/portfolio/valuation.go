package portfolio

import (
	"context"
	"sort"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/prices"
)

// Position is one metal of a member's stack valued at the live board. Pointers are nil when
// the value is unknown (held without a price): prices are never invented.
type Position struct {
	Metal metals.Metal
	// Lots counts holdings with units still held; Purchases every holding; Sales every sale.
	Lots, Purchases, Sales int64
	// HeldOz are the fine ounces still held; Cost their remaining cost basis.
	HeldOz, Cost decimal.Decimal
	// HeldOzBefore is the part of HeldOz held before today's trading session.
	HeldOzBefore decimal.Decimal
	// Realized is the profit or loss of the metal's sales.
	Realized decimal.Decimal
	// Spot is the price per ounce used; nil without one. SpotStale says it is not live, and
	// SpotAsOf when it is of (a close's date at midnight UTC).
	Spot      *decimal.Decimal
	SpotStale bool
	SpotAsOf  time.Time
	// Value is HeldOz × spot, exact: it is rounded to the cent only when shown, so every
	// page and route gives the same total for the same prices.
	Value *decimal.Decimal
	// UnrealizedPL is Value − Cost; UnrealizedPLPct its share of Cost (nil when Cost is zero).
	UnrealizedPL, UnrealizedPLPct *decimal.Decimal
	// DayChange is HeldOzBefore × today's change in spot (exact); PrevValue what that holding
	// was worth at the previous close. DayChange is nil when the metal's change is not
	// today's (the price is not live, or its previous close is not the preceding trading
	// session): DayChangeNote then says why, and ChangeFrom/ChangeAsOf date the move the
	// board does have.
	DayChange              *decimal.Decimal
	PrevValue              decimal.Decimal
	DayChangeNote          string
	ChangeFrom, ChangeAsOf time.Time
	// AllocationPct is the share of the stack's value (nil unless every value is known);
	// WeightPct the share of fine ounces held. Each set adds up to exactly 100 (or is all zero).
	AllocationPct *decimal.Decimal
	WeightPct     decimal.Decimal
}

// Stale reports whether the position's price is missing or not live.
func (p Position) Stale() bool { return p.Spot == nil || p.SpotStale }

// BreakEven is the spot price at which the position's value equals its remaining cost.
func (p Position) BreakEven() *decimal.Decimal { return BreakEven(p.Cost, p.HeldOz) }

// DistanceToBreakEvenPct is how far spot would have to move to reach break-even, in percent
// of spot: negative when spot is already above it.
func (p Position) DistanceToBreakEvenPct() *decimal.Decimal {
	if p.Spot == nil {
		return nil
	}
	return DistanceToBreakEven(*p.Spot, p.BreakEven())
}

// Portfolio is a member's whole stack valued at the live board.
type Portfolio struct {
	// AsOf is the time of the newest price used (zero without prices).
	AsOf time.Time
	// Stale is true when any price behind the figures is missing or not live.
	Stale bool
	// Positions are the four metals in metals.All order.
	Positions []Position
	// TotalValue is nil when a held metal has no price.
	TotalValue                    *decimal.Decimal
	TotalCost                     decimal.Decimal
	UnrealizedPL, UnrealizedPLPct *decimal.Decimal
	// DayChange sums the day changes of the metals whose change is today's only; the held
	// metals left out are listed in DayChangeLeftOut. It is nil when every metal held before
	// today is left out. DayChangePct is its share of PrevValue, the value at the previous
	// close of what it covers.
	DayChange, DayChangePct *decimal.Decimal
	PrevValue               decimal.Decimal
	DayChangeLeftOut        []metals.Metal
	Realized                decimal.Decimal
	// Lots counts holdings with units still held.
	Lots int64
	// FX names the currency of every amount and the rate that converted today's dollars.
	FX FXUsed
}

// Empty reports whether the member has never recorded a purchase.
func (p Portfolio) Empty() bool {
	for _, x := range p.Positions {
		if x.Purchases > 0 {
			return false
		}
	}
	return true
}

// Portfolio values the member's stack at the live board. It reads the running totals per
// metal the store keeps with every write, never the holdings.
func (s *Service) Portfolio(ctx context.Context, u db.User) (Portfolio, error) {
	return s.PortfolioIn(ctx, u, "USD")
}

// PortfolioIn values the member's stack in currency (an ISO 4217 code resolved by Currency).
func (s *Service) PortfolioIn(ctx context.Context, u db.User, currency string) (Portfolio, error) {
	p, _, err := s.value(ctx, u, db.HeldOnly, currency)
	return p, err
}

// value reads the member's totals and values them in currency; the totals come back for
// analytics.
func (s *Service) value(ctx context.Context, u db.User, detail db.TotalsDetail, currency string) (Portfolio, []db.MetalTotals, error) {
	if err := requireGold(u); err != nil {
		return Portfolio{}, nil, err
	}
	// "Today" is the trading session the live change belongs to: a purchase dated that day
	// (or later) was not held through the move.
	today := db.NewDate(prices.SessionDate(s.now()))
	totals, err := s.store.PositionTotals(ctx, u.ID, today, detail)
	if err != nil {
		return Portfolio{}, nil, err
	}
	used, perUSD, err := s.inCurrency(ctx, u, currency, totals)
	if err != nil {
		return Portfolio{}, nil, err
	}
	board := s.snapshot()
	if currency != "USD" {
		board = ConvertBoard(board, perUSD)
	}
	p := Value(totals, board, s.market != nil)
	p.FX = used
	return p, totals, nil
}

// HeldOzBefore is the part of a metal's held ounces bought before the day its totals were
// read for: what was held through that day's move in spot.
func HeldOzBefore(t db.MetalTotals) decimal.Decimal { return t.HeldOz.Sub(t.HeldOzSince) }

// Value is the valuation math: the totals of each metal (metals.All order) at the board's
// prices. Without a price service (live false) every figure that needs a price is unknown
// and the whole is stale.
func Value(totals []db.MetalTotals, board prices.Snapshot, live bool) Portfolio {
	v := Portfolio{AsOf: board.AsOf, Stale: !live, TotalCost: decimal.Zero, Realized: decimal.Zero, PrevValue: decimal.Zero}
	total, day := decimal.Zero, decimal.Zero
	valueKnown, dayCovered := true, false
	for _, t := range totals {
		before := HeldOzBefore(t)
		p := Position{Metal: t.Metal, Lots: t.Lots, Purchases: t.Purchases, Sales: t.Sales, HeldOz: t.HeldOz, Cost: t.HeldCost,
			HeldOzBefore: before, Realized: t.Realized, PrevValue: decimal.Zero}
		if sp, ok := board.Prices[t.Metal]; ok {
			price := sp.Price
			p.Spot, p.SpotStale, p.SpotAsOf = &price, sp.Stale, sp.AsOf
			p.Value = ptr(t.HeldOz.Mul(sp.Price))
			if sp.Stale {
				v.Stale = true
			}
			if !sp.PrevClose.IsZero() {
				p.ChangeFrom, p.ChangeAsOf = sp.PrevDate, sp.Session
			}
			switch {
			case before.IsZero():
				p.DayChange = ptr(decimal.Zero) // nothing was held through any move
			case live && sp.ChangeIsToday():
				p.DayChange = ptr(before.Mul(sp.Change))
				p.PrevValue = before.Mul(sp.PrevClose)
			default:
				p.DayChangeNote = notTodayReason(sp)
			}
		} else {
			v.Stale = true
			if t.HeldOz.IsZero() {
				p.Value = ptr(decimal.Zero)
			}
			if before.IsZero() {
				p.DayChange = ptr(decimal.Zero)
			} else {
				p.DayChangeNote = "no " + string(t.Metal) + " price"
			}
		}
		p.UnrealizedPL = sub(p.Value, p.Cost)
		p.UnrealizedPLPct = PctOf(p.UnrealizedPL, p.Cost)
		if p.Value == nil {
			valueKnown = false
		} else {
			total = total.Add(*p.Value)
		}
		if p.DayChange == nil {
			v.DayChangeLeftOut = append(v.DayChangeLeftOut, t.Metal)
		} else {
			day = day.Add(*p.DayChange)
			dayCovered = dayCovered || before.IsPositive()
		}
		v.PrevValue = v.PrevValue.Add(p.PrevValue)
		v.TotalCost = v.TotalCost.Add(t.HeldCost)
		v.Realized = v.Realized.Add(t.Realized)
		v.Lots += t.Lots
		v.Positions = append(v.Positions, p)
	}
	dayKnown := dayCovered || len(v.DayChangeLeftOut) == 0
	if valueKnown {
		v.TotalValue = &total
		values := make([]decimal.Decimal, len(v.Positions))
		for i, p := range v.Positions {
			values[i] = *p.Value
		}
		for i, a := range Shares(values) {
			v.Positions[i].AllocationPct = ptr(a)
		}
	}
	if dayKnown {
		v.DayChange = &day
		v.DayChangePct = PctOf(v.DayChange, v.PrevValue)
	}
	v.UnrealizedPL = sub(v.TotalValue, v.TotalCost)
	v.UnrealizedPLPct = PctOf(v.UnrealizedPL, v.TotalCost)
	oz := make([]decimal.Decimal, len(v.Positions))
	for i, p := range v.Positions {
		oz[i] = p.HeldOz
	}
	for i, w := range Shares(oz) {
		v.Positions[i].WeightPct = w
	}
	return v
}

// notTodayReason says why a metal's change is not today's, naming the dates it spans.
func notTodayReason(sp prices.Spot) string {
	switch {
	case sp.PrevClose.IsZero():
		return "no previous close is known for " + string(sp.Metal)
	case sp.Stale:
		return string(sp.Metal) + " is not live: its last price is of " + dateOf(sp.Session) + " (change since " + dateOf(sp.PrevDate) + ")"
	default:
		return string(sp.Metal) + "'s previous close (" + dateOf(sp.PrevDate) + ") is not the session before " + dateOf(sp.Session)
	}
}

func dateOf(t time.Time) string {
	if t.IsZero() {
		return "an unknown date"
	}
	return t.Format(time.DateOnly)
}

// Shares turns non-negative parts into percentages with two decimals that add up to exactly
// 100 (largest remainder), or all zeros when the parts sum to zero.
func Shares(parts []decimal.Decimal) []decimal.Decimal {
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

// BreakEven is cost ÷ ounces: the spot price per ounce at which ounces are worth their cost;
// nil when nothing is held.
func BreakEven(cost, oz decimal.Decimal) *decimal.Decimal {
	if oz.IsZero() {
		return nil
	}
	return ptr(cost.Div(oz))
}

// DistanceToBreakEven is (breakEven − spot) ÷ spot × 100, nil without a break-even or a
// positive spot.
func DistanceToBreakEven(spot decimal.Decimal, breakEven *decimal.Decimal) *decimal.Decimal {
	if breakEven == nil || !spot.IsPositive() {
		return nil
	}
	return ptr(metals.PctChange(spot, *breakEven))
}

// PctOf is part ÷ whole × 100, or nil when the part is unknown or the whole is zero.
func PctOf(part *decimal.Decimal, whole decimal.Decimal) *decimal.Decimal {
	if part == nil || whole.IsZero() {
		return nil
	}
	return ptr(part.Mul(decimal.NewFromInt(100)).Div(whole))
}

// sub is a − b, unknown when a is.
func sub(a *decimal.Decimal, b decimal.Decimal) *decimal.Decimal {
	if a == nil {
		return nil
	}
	return ptr(a.Sub(b))
}

func ptr(d decimal.Decimal) *decimal.Decimal { return &d }
