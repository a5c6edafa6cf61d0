package portfolio

import (
	"context"
	"slices"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/metals"
)

// LotSort is one order a list of lots takes (the ledger table, GET /v1/holdings): its key
// and the direction it sorts in when none is given.
type LotSort struct{ Key, Order string }

// LotSorts are the orders, in the table's column order. date is newest purchase first
// (undated lots after every dated one); metal follows metals.All; form the forms' names
// (Bars, Coins, Junk silver, Other, Rounds); location the locations' names in any case with
// unassigned lots as "Unassigned"; cost the cost basis left in the lot's currency; value the
// fine ounces left at the live spot in US dollars (lots of a metal without a price last).
// Equal keys keep the default order (newest purchase first), then the lot's id.
var LotSorts = []LotSort{{"date", "desc"}, {"metal", "asc"}, {"form", "asc"}, {"location", "asc"}, {"cost", "desc"}, {"value", "desc"}}

// LotForms are the product forms a list filters by (FormOf's answers).
var LotForms = []string{string(metals.FormCoin), string(metals.FormBar), string(metals.FormRound), string(metals.FormJunk), FormOther}

// MaxLotPage is the most lots one page of the ledger table lists.
const MaxLotPage = 200

// lotFilter checks q and turns it into the store's filter: the rules of each sort and
// filter (a form is a set of product names, a location's place in the order its name's)
// are decided here, so the store only applies them.
func (s *Service) lotFilter(ctx context.Context, u db.User, q HoldingsQuery) (db.HoldingFilter, error) {
	f := db.HoldingFilter{Metal: q.Metal, Q: q.Q, Tag: q.Tag, LocationID: q.LocationID, Limit: q.Limit, Offset: max(q.Offset, 0)}
	if q.Metal != "" && !metals.Metal(q.Metal).Valid() {
		// Exactly the documented identifiers: the API promises an enum.
		return f, apperr.InvalidField("metal", "must be one of gold, silver, platinum, palladium")
	}
	if err := lotDates(q, &f); err != nil {
		return f, err
	}
	if err := lotOrder(q, &f); err != nil {
		return f, err
	}
	if q.Form != "" && !slices.Contains(LotForms, q.Form) {
		return f, apperr.InvalidField("form", "must be one of coin, bar, round, junk, other")
	}
	if q.Form != "" || f.Sort == db.SortForm {
		if err := s.lotForms(ctx, u, q.Form, &f); err != nil {
			return f, err
		}
	}
	return f, s.lotRanks(ctx, u, &f)
}

// lotDates checks q's from and to (YYYY-MM-DD, to not before from) into f.
func lotDates(q HoldingsQuery, f *db.HoldingFilter) error {
	for _, d := range []struct {
		field, in string
		dst       *db.Date
	}{{"from", q.From, &f.From}, {"to", q.To, &f.To}} {
		if d.in == "" {
			continue
		}
		v, err := db.ParseDate(d.in)
		if err != nil {
			return apperr.InvalidField(d.field, "must be a date as YYYY-MM-DD")
		}
		*d.dst = v
	}
	if !f.From.IsZero() && !f.To.IsZero() && f.To.Before(f.From.Time) {
		return apperr.InvalidField("to", "must not be before from")
	}
	return nil
}

// lotOrder checks q's sort and order (an order alone sorts by date; a sort alone takes its
// own direction) into f.
func lotOrder(q HoldingsQuery, f *db.HoldingFilter) error {
	sortKey, order := q.Sort, q.Order
	if sortKey == "" && order != "" {
		sortKey = "date"
	}
	if sortKey == "" {
		return nil
	}
	i := slices.IndexFunc(LotSorts, func(x LotSort) bool { return x.Key == sortKey })
	if i < 0 {
		return apperr.InvalidField("sort", "must be one of date, metal, form, location, cost, value")
	}
	if order == "" {
		order = LotSorts[i].Order
	}
	if order != "asc" && order != "desc" {
		return apperr.InvalidField("order", "must be asc or desc")
	}
	f.Sort, f.Desc = db.LotSort(sortKey), order == "desc"
	return nil
}

// lotForms sets, from the member's product names, the products of form (when one is asked
// for) and each product's place in the form order (when the list sorts by form).
func (s *Service) lotForms(ctx context.Context, u db.User, form string, f *db.HoldingFilter) error {
	names, err := s.store.ProductNamesOf(ctx, u.ID)
	if err != nil {
		return err
	}
	rank := formRanks()
	if f.Sort == db.SortForm {
		f.Ranks = make(map[string]int, len(names))
	}
	if form != "" {
		f.Products = []string{}
	}
	for _, n := range names {
		of := FormOf(n)
		if form != "" && of == form {
			f.Products = append(f.Products, n)
		}
		if f.Ranks != nil {
			f.Ranks[n] = rank[of]
		}
	}
	return nil
}

// lotRanks sets what a metal, location or value sort orders by: the metals' order, the
// locations' names (unassigned as "Unassigned"), or the live spot in US dollars.
func (s *Service) lotRanks(ctx context.Context, u db.User, f *db.HoldingFilter) error {
	switch f.Sort {
	case db.SortMetal:
		f.Ranks = map[string]int{}
		for i, m := range metals.All {
			f.Ranks[string(m)] = i
		}
	case db.SortLocation:
		locs, err := s.store.LocationsByUser(ctx, u.ID)
		if err != nil {
			return err
		}
		type place struct{ name, id string }
		places := []place{{"unassigned", ""}}
		for _, l := range locs {
			places = append(places, place{strings.ToLower(l.Name), l.ID})
		}
		slices.SortStableFunc(places, func(a, b place) int {
			if c := strings.Compare(a.name, b.name); c != 0 {
				return c
			}
			return strings.Compare(a.id, b.id)
		})
		f.Ranks = make(map[string]int, len(places))
		for i, p := range places {
			f.Ranks[p.id] = i
		}
	case db.SortValue:
		f.Prices = map[string]decimal.Decimal{}
		for m, sp := range s.snapshot().Prices {
			f.Prices[string(m)] = sp.Price
		}
	}
	return nil
}

// formRanks places each form by its name as the pages show it.
func formRanks() map[string]int {
	forms := slices.Clone(LotForms)
	slices.SortFunc(forms, func(a, b string) int { return strings.Compare(formNames[a], formNames[b]) })
	out := make(map[string]int, len(forms))
	for i, f := range forms {
		out[f] = i
	}
	return out
}

// LedgerPage is one page of the member's lots as q narrows and orders them (the ledger
// table, issue 28), with the subtotals of the whole stack. Limit is at most MaxLotPage
// (50 when unset); an offset past the last lot shows the last page.
func (s *Service) LedgerPage(ctx context.Context, u db.User, q HoldingsQuery) (Ledger, error) {
	if err := requireGold(u); err != nil {
		return Ledger{}, err
	}
	if q.Limit <= 0 {
		q.Limit = 50
	}
	q.Limit = min(q.Limit, MaxLotPage)
	f, err := s.lotFilter(ctx, u, q)
	if err != nil {
		return Ledger{}, err
	}
	rows, total, err := s.store.HoldingsByUser(ctx, u.ID, f)
	if err != nil {
		return Ledger{}, err
	}
	if len(rows) == 0 && total > 0 && f.Offset > 0 {
		f.Offset = (total - 1) / f.Limit * f.Limit
		if rows, total, err = s.store.HoldingsByUser(ctx, u.ID, f); err != nil {
			return Ledger{}, err
		}
	}
	out, err := s.ledgerOf(ctx, u, rows, total, q.Metal)
	out.Limit, out.Offset = f.Limit, f.Offset
	return out, err
}

// LotTags are the distinct tags of the member's lots, sorted.
func (s *Service) LotTags(ctx context.Context, u db.User) ([]string, error) {
	sets, err := s.store.TagSetsOf(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	var out []string
	seen := map[string]bool{}
	for _, set := range sets {
		for _, t := range SplitTags(set) {
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	slices.Sort(out)
	return out, nil
}
