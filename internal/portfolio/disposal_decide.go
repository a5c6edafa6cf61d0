package portfolio

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
)

// DecideDisposal is the disposal rule (a db.DisposalRule) for a method: it picks from the
// lots held on the disposal's day (purchased on or before it) — fifo the earliest acquired
// first, lifo the latest, hifo the highest cost per unit, specific the lots in picks, average
// any (fifo) at the pool's average cost — and splits the fees by units, the last slice taking
// the cents left. For average, every lot of the pool is left holding the pool's average cost
// for its units. More units than are held is a *db.OversoldError.
func DecideDisposal(method string, picks []db.LotPick) db.DisposalRule {
	return func(lots []db.SaleLot, in db.Disposal) (db.DisposalDecision, error) {
		elig, held := eligibleLots(lots, in.SoldOn)
		if cs := lotCurrencies(lots, elig); len(cs) > 1 {
			// One disposal has one price in one currency; lots paid for in several cannot share
			// it without a rate the member did not give.
			return db.DisposalDecision{}, &MixedCurrencyError{Currencies: cs}
		}
		if in.Quantity <= 0 {
			return db.DisposalDecision{}, fmt.Errorf("disposal quantity must be positive")
		}
		if in.Quantity > held {
			return db.DisposalDecision{}, &db.OversoldError{Asked: in.Quantity, Held: held}
		}
		pickMethod := method
		if len(picks) > 0 {
			// Lots named (specific, or a disposal replayed by an import): those units, costed
			// by the method (the pool's average for average).
			pickMethod = MethodSpecific
		}
		takes, err := pickLots(pickMethod, picks, lots, elig, in.Quantity)
		if err != nil {
			return db.DisposalDecision{}, err
		}
		if method == MethodAverage {
			return averageDecision(lots, elig, takes, in), nil
		}
		return lotDecision(lots, takes, in)
	}
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
func pickLots(method string, picks []db.LotPick, lots []db.SaleLot, elig []int, qty int64) ([]take, error) {
	order := slices.Clone(elig)
	fifo := fifoOrder(lots)
	switch method {
	case MethodFIFO, MethodAverage:
		slices.SortFunc(order, fifo)
	case MethodLIFO:
		slices.SortFunc(order, func(a, b int) int { return fifo(b, a) })
	case MethodHIFO:
		slices.SortFunc(order, func(a, b int) int {
			// cost per unit a vs b, cross-multiplied so no division rounds.
			ca := lots[a].HeldCost.Mul(decimal.NewFromInt(lots[b].Remaining()))
			cb := lots[b].HeldCost.Mul(decimal.NewFromInt(lots[a].Remaining()))
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

// lotDecision costs each take at its lot's own cost (DecideSale).
func lotDecision(lots []db.SaleLot, takes []take, in db.Disposal) (db.DisposalDecision, error) {
	out := db.DisposalDecision{Held: map[int]db.LotHeld{}}
	fees := feeShares(in.Fees, takes, in.Quantity)
	for k, t := range takes {
		sale, h, err := DecideSale(lots[t.lot], db.Sale{Quantity: t.n, PricePerUnit: in.PricePerUnit, Fees: fees[k], SoldOn: in.SoldOn})
		if err != nil {
			return db.DisposalDecision{}, err
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
