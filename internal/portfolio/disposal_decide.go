package portfolio

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
)

// DecideDisposal is DecideDisposalIn the lots' own currency, which must then be one (a
// disposal replayed by an import, whose slices carry their lots' currency).
func DecideDisposal(method string, picks []db.LotPick) db.DisposalRule {
	return DecideDisposalIn(method, picks, DisposalFX{})
}

// DecideDisposalIn is the disposal rule (a db.DisposalRule) for a method: it picks from the
// lots held on the disposal's day (purchased on or before it) — fifo the earliest acquired
// first, lifo the latest, hifo the highest cost per unit (in the disposal's currency at the
// rates of the lots' purchase days), specific the lots in picks, average any (fifo) at the
// pool's average cost — and splits the fees by units, the last slice taking the cents left.
// For average, every lot of the pool is left holding the pool's average cost for its units.
// More units than are held is a *db.OversoldError.
//
// Every slice is in the disposal's currency (fx.Currency): a lot bought in another keeps its
// cost in its own currency exactly (the slice's LotCost, what the lot gives up) and its cost
// basis is that cost at fx's rate of the lot's purchase day, to the cent. The rule does no
// I/O: a rate fx lacks is a *MissingRateError.
func DecideDisposalIn(method string, picks []db.LotPick, fx DisposalFX) db.DisposalRule {
	return func(lots []db.SaleLot, in db.Disposal) (db.DisposalDecision, error) {
		elig, held := eligibleLots(lots, in.SoldOn)
		cs := lotCurrencies(lots, elig)
		cur := fx.Currency
		if cur == "" {
			if len(cs) > 1 {
				// One price in one currency; without a currency named there is no rate to use.
				return db.DisposalDecision{}, &MixedCurrencyError{Currencies: cs}
			}
			cur = "USD"
			if len(cs) == 1 {
				cur = cs[0]
			}
		}
		if in.Quantity <= 0 {
			return db.DisposalDecision{}, fmt.Errorf("disposal quantity must be positive")
		}
		if in.Quantity > held {
			return db.DisposalDecision{}, &db.OversoldError{Asked: in.Quantity, Held: held}
		}
		if method == MethodAverage && (len(cs) > 1 || len(cs) == 1 && cs[0] != cur) {
			return db.DisposalDecision{}, &AverageCurrencyError{Currency: cur, Lots: cs}
		}
		fac := func(i int) (decimal.Decimal, error) { return fx.factor(lots[i], cur) }
		pickMethod := method
		if len(picks) > 0 {
			// Lots named (specific, or a disposal replayed by an import): those units, costed
			// by the method (the pool's average for average).
			pickMethod = MethodSpecific
		}
		takes, err := pickLots(pickMethod, picks, lots, elig, in.Quantity, fac)
		if err != nil {
			return db.DisposalDecision{}, err
		}
		if method == MethodAverage {
			out := averageDecision(lots, elig, takes, in)
			for i := range out.Slices {
				out.Slices[i].Sale.Currency = cur
			}
			return out, nil
		}
		return lotDecision(lots, takes, in, cur, fac)
	}
}

// DisposalFX is what a disposal's slices convert at, looked up before the disposal is
// decided: the disposal's currency and, per lot currency and purchase day, what one unit of
// the lot's currency was worth in it then.
type DisposalFX struct {
	// Currency is the disposal's: its price, fees and every slice's figures. Empty: the lots'
	// own currency, which must then be one.
	Currency string
	// Factors are the rates found, Missing why a rate was not (both keyed by FXDay).
	Factors map[FXDay]decimal.Decimal
	Missing map[FXDay]string
}

// FXDay is a lot currency and a purchase day (YYYY-MM-DD).
type FXDay struct{ Currency, Day string }

// LotFXDay is the rate a lot's cost converts at: its currency on the day it was acquired.
func LotFXDay(l db.SaleLot) FXDay {
	return FXDay{lotCurrency(l.Holding), AcquiredOn(l.Holding).String()}
}

// errRateNotLooked is a lot whose rate was not looked up (it arrived after the look-up): the
// caller looks the rates up again.
var errRateNotLooked = errors.New("a lot's exchange rate was not looked up")

// factor is what one unit of the lot's currency was worth in cur on its purchase day.
func (fx DisposalFX) factor(l db.SaleLot, cur string) (decimal.Decimal, error) {
	k := LotFXDay(l)
	if k.Currency == cur {
		return decimal.NewFromInt(1), nil
	}
	if f, ok := fx.Factors[k]; ok {
		return f, nil
	}
	if why, ok := fx.Missing[k]; ok {
		return decimal.Zero, &MissingRateError{From: k.Currency, To: cur, Day: k.Day, Why: why}
	}
	return decimal.Zero, errRateNotLooked
}

// MissingRateError refuses a disposal whose lot cost cannot be converted: no rate of From (or
// To) on or near the lot's purchase day.
type MissingRateError struct{ From, To, Day, Why string }

func (e *MissingRateError) Error() string {
	return fmt.Sprintf("no exchange rate converts the cost of a lot bought in %s on %s into %s (%s); sell in %s or record the sale against each lot", e.From, e.Day, e.To, e.Why, e.From)
}

// AverageCurrencyError refuses method average over lots bought in another currency than the
// disposal's: the pool's average cost is one currency's.
type AverageCurrencyError struct {
	Currency string
	Lots     []string
}

func (e *AverageCurrencyError) Error() string {
	return fmt.Sprintf("average pools the cost of lots bought in one currency, the disposal's (%s); these lots were bought in %s: choose fifo, lifo, hifo or specific, or sell in the lots' currency",
		e.Currency, strings.Join(e.Lots, " and "))
}

// take is units of one lot (an index into the lots) a disposal takes.
type take struct {
	lot int
	n   int64
}

// eligibleLots are the indexes of the lots holding units on the disposal's day (purchased on
// or before it, or undated), and how many units they hold.
func eligibleLots(lots []db.SaleLot, soldOn db.Date) ([]int, int64) {
	var elig []int
	var held int64
	for i, l := range lots {
		if l.Remaining() > 0 && (l.PurchaseDate.IsZero() || !l.PurchaseDate.After(soldOn.Time)) {
			elig = append(elig, i)
			held += l.Remaining()
		}
	}
	return elig, held
}

// fifoOrder compares lots a and b by acquisition: day acquired, then recorded, then id.
func fifoOrder(lots []db.SaleLot) func(a, b int) int {
	return func(a, b int) int {
		return cmp.Or(AcquiredOn(lots[a].Holding).Compare(AcquiredOn(lots[b].Holding).Time), lots[a].CreatedAt.Compare(lots[b].CreatedAt), strings.Compare(lots[a].ID, lots[b].ID))
	}
}

// greedyTakes takes qty units from the lots in order, each lot as far as it holds.
func greedyTakes(lots []db.SaleLot, order []int, qty int64) []take {
	var takes []take
	left := qty
	for _, i := range order {
		if left == 0 {
			break
		}
		n := min(left, lots[i].Remaining())
		takes = append(takes, take{i, n})
		left -= n
	}
	return takes
}

// pickLots chooses the units by method among the eligible lots.
func pickLots(method string, picks []db.LotPick, lots []db.SaleLot, elig []int, qty int64, fac func(int) (decimal.Decimal, error)) ([]take, error) {
	order := slices.Clone(elig)
	fifo := fifoOrder(lots)
	switch method {
	case MethodFIFO, MethodAverage:
		slices.SortFunc(order, fifo)
	case MethodLIFO:
		slices.SortFunc(order, func(a, b int) int { return fifo(b, a) })
	case MethodHIFO:
		// Cost in the disposal's currency at each lot's purchase-day rate.
		cost := map[int]decimal.Decimal{}
		for _, i := range elig {
			f, err := fac(i)
			if err != nil {
				return nil, err
			}
			cost[i] = lots[i].HeldCost.Mul(f)
		}
		slices.SortFunc(order, func(a, b int) int {
			// cost per unit a vs b, cross-multiplied so no division rounds.
			ca := cost[a].Mul(decimal.NewFromInt(lots[b].Remaining()))
			cb := cost[b].Mul(decimal.NewFromInt(lots[a].Remaining()))
			return cmp.Or(cb.Cmp(ca), fifo(a, b))
		})
	case MethodSpecific:
		return specificTakes(picks, lots, elig, qty)
	default:
		return nil, fmt.Errorf("unknown lot method %q", method)
	}
	return greedyTakes(lots, order, qty), nil
}

// specificTakes are the units the picks name: each an eligible lot named once, holding them,
// and qty in all.
func specificTakes(picks []db.LotPick, lots []db.SaleLot, elig []int, qty int64) ([]take, error) {
	var takes []take
	var sum int64
	for _, p := range picks {
		i := slices.IndexFunc(elig, func(i int) bool { return lots[i].ID == p.HoldingID })
		if i < 0 {
			return nil, &PickError{HoldingID: p.HoldingID}
		}
		if p.Quantity > lots[elig[i]].Remaining() || slices.ContainsFunc(takes, func(t take) bool { return t.lot == elig[i] }) {
			return nil, &db.OversoldError{Asked: p.Quantity, Held: lots[elig[i]].Remaining()}
		}
		takes = append(takes, take{elig[i], p.Quantity})
		sum += p.Quantity
	}
	if sum != qty {
		return nil, fmt.Errorf("the lots named hold %d units, not %d", sum, qty)
	}
	return takes, nil
}

// feeShares splits the disposal's fees over the takes by units, to the cent; the last take
// gets the cents left.
func feeShares(fees decimal.Decimal, takes []take, qty int64) []decimal.Decimal {
	q := decimal.NewFromInt(qty)
	out := make([]decimal.Decimal, len(takes))
	left := fees
	for k, t := range takes {
		fee := fees.Mul(decimal.NewFromInt(t.n)).Div(q).Round(moneyPlaces)
		if k == len(takes)-1 {
			fee = left
		}
		left = left.Sub(fee)
		out[k] = fee
	}
	return out
}

// lotDecision costs each take at its lot's own cost (DecideSale), in cur: a lot bought in
// another currency gives up its cost in its own (LotCost) and the slice's cost basis is that
// at the lot's purchase-day rate, to the cent.
func lotDecision(lots []db.SaleLot, takes []take, in db.Disposal, cur string, fac func(int) (decimal.Decimal, error)) (db.DisposalDecision, error) {
	out := db.DisposalDecision{Held: map[int]db.LotHeld{}}
	fees := feeShares(in.Fees, takes, in.Quantity)
	for k, t := range takes {
		sale, h, err := DecideSale(lots[t.lot], db.Sale{Quantity: t.n, PricePerUnit: in.PricePerUnit, Fees: fees[k], SoldOn: in.SoldOn})
		if err != nil {
			return db.DisposalDecision{}, err
		}
		sale.Currency = cur
		if lotCurrency(lots[t.lot].Holding) != cur {
			f, err := fac(t.lot)
			if err != nil {
				return db.DisposalDecision{}, err
			}
			sale.LotCost = decimal.NewNullDecimal(sale.CostBasis)
			sale.CostBasis = sale.CostBasis.Mul(f).Round(moneyPlaces)
			sale.RealizedPL = sale.Proceeds.Sub(sale.Fees).Sub(sale.CostBasis)
		}
		out.Slices = append(out.Slices, db.DisposalSlice{Lot: t.lot, Sale: sale})
		out.Held[t.lot] = h
	}
	return out, nil
}

// averageDecision costs the takes at the pool's average cost (split by units, the last take
// the cents left) and leaves every lot of the pool holding the average cost of its units.
func averageDecision(lots []db.SaleLot, elig []int, takes []take, in db.Disposal) db.DisposalDecision {
	var poolCost decimal.Decimal
	var poolUnits int64
	for _, i := range elig {
		poolCost = poolCost.Add(lots[i].HeldCost)
		poolUnits += lots[i].Remaining()
	}
	avgCost := SaleShare(poolCost, poolUnits, in.Quantity)
	q := decimal.NewFromInt(in.Quantity)
	out := db.DisposalDecision{Held: map[int]db.LotHeld{}}
	fees := feeShares(in.Fees, takes, in.Quantity)
	costLeft := avgCost
	for k, t := range takes {
		n := decimal.NewFromInt(t.n)
		cost := avgCost.Mul(n).Div(q).Round(moneyPlaces)
		if k == len(takes)-1 {
			cost = costLeft
		}
		costLeft = costLeft.Sub(cost)
		lot := lots[t.lot]
		sale := db.Sale{Quantity: t.n, PricePerUnit: in.PricePerUnit, Fees: fees[k], SoldOn: in.SoldOn,
			Oz: lot.WeightOz.Mul(n), Proceeds: in.PricePerUnit.Mul(n), CostBasis: cost}
		sale.RealizedPL = sale.Proceeds.Sub(sale.Fees).Sub(sale.CostBasis)
		out.Slices = append(out.Slices, db.DisposalSlice{Lot: t.lot, Sale: sale})
	}
	out.Held = averageHeld(lots, elig, takes, poolCost.Sub(avgCost), poolUnits-in.Quantity)
	return out
}

// averageHeld is what every lot of an average pool holds after the takes: the pool keeps its
// cost less what was disposed of (restCost), spread over the units left (restUnits), the
// last lot with units taking the cents left.
func averageHeld(lots []db.SaleLot, elig []int, takes []take, restCost decimal.Decimal, restUnits int64) map[int]db.LotHeld {
	taken := map[int]int64{}
	for _, t := range takes {
		taken[t.lot] += t.n
	}
	lastWithUnits := -1
	for _, i := range elig {
		if lots[i].Remaining()-taken[i] > 0 {
			lastWithUnits = i
		}
	}
	out := map[int]db.LotHeld{}
	left := restCost
	for _, i := range elig {
		r := lots[i].Remaining() - taken[i]
		h := db.LotHeld{Sold: lots[i].SoldQuantity + taken[i], HeldOz: lots[i].WeightOz.Mul(decimal.NewFromInt(r)), HeldCost: decimal.Zero}
		if r > 0 {
			if i == lastWithUnits {
				h.HeldCost = left
			} else {
				h.HeldCost = restCost.Mul(decimal.NewFromInt(r)).Div(decimal.NewFromInt(restUnits)).Round(moneyPlaces)
			}
			left = left.Sub(h.HeldCost)
		}
		out[i] = h
	}
	return out
}
