package portfolio

import (
	"context"
	"regexp"
	"sort"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/metals"
)

// Slice is one part of an allocation: the value of what is held under Key (a location id,
// "unassigned", or a product form) and its share of the whole.
type Slice struct {
	Key, Name string
	Value     decimal.Decimal
	Pct       decimal.Decimal
}

// Unassigned is the key of lots kept at no named location.
const Unassigned = "unassigned"

// FormOther is the form of a product that names none of coin, bar, round or junk.
const FormOther = "other"

var (
	reBar   = regexp.MustCompile(`\b(bar|bars|ingot|kilo|kilobar|wafer)\b`)
	reRound = regexp.MustCompile(`\b(round|rounds)\b`)
	reJunk  = regexp.MustCompile(`\b(junk|face|90\s*%|40\s*%|35\s*%|constitutional)`)
	reCoin  = regexp.MustCompile(`\b(coin|coins|eagle|eagles|maple|maples|krugerrand|britannia|philharmonic|kangaroo|panda|buffalo|libertad|kookaburra|koala|lunar|sovereign|napoleon|franc|peso|dime|dimes|quarter|quarters|half|halves|dollar|dollars)\b`)
)

// FormOf is a lot's product form: the catalogue's when its name is a catalogue product,
// else read from the words of the name (bar, round, junk, coin), else other.
func FormOf(name string) string {
	if p, ok := metals.ProductByAlias(name); ok {
		return string(p.Form)
	}
	n := strings.ToLower(name)
	switch {
	case reJunk.MatchString(n):
		return string(metals.FormJunk)
	case reBar.MatchString(n):
		return string(metals.FormBar)
	case reRound.MatchString(n):
		return string(metals.FormRound)
	case reCoin.MatchString(n):
		return string(metals.FormCoin)
	}
	for _, p := range metals.SearchProducts(name, "") {
		if strings.EqualFold(p.Name, name) {
			return string(p.Form)
		}
	}
	return FormOther
}

// formNames are the forms as the page names them.
var formNames = map[string]string{"coin": "Coins", "bar": "Bars", "round": "Rounds", "junk": "Junk silver", FormOther: "Other"}

// Allocations values the ounces still held at each metal's spot and sums the values by
// location and by product form. Without a price for a held metal there is no allocation
// (nil slices): a share of an unknown whole would mislead.
func (s *Service) Allocations(ctx context.Context, u db.User, p Portfolio) (byLocation, byForm []Slice, err error) {
	spot := map[metals.Metal]decimal.Decimal{}
	for _, pos := range p.Positions {
		if pos.Spot != nil {
			spot[pos.Metal] = *pos.Spot
		}
	}
	held, err := s.store.HeldByPlace(ctx, u.ID)
	if err != nil {
		return nil, nil, err
	}
	locs, err := s.store.LocationsByUser(ctx, u.ID)
	if err != nil {
		return nil, nil, err
	}
	names := map[string]string{Unassigned: "Unassigned"}
	for _, l := range locs {
		names[l.ID] = l.Name
	}
	byLoc, byF := map[string]decimal.Decimal{}, map[string]decimal.Decimal{}
	for _, r := range held {
		price, ok := spot[metals.Metal(r.Metal)]
		if !ok {
			return nil, nil, nil
		}
		oz := decimal.NewFromInt(r.HeldOzInt).Add(decimal.New(r.HeldOzE8, -8))
		v := oz.Mul(price)
		key := r.LocationID.String
		if key == "" {
			key = Unassigned
		}
		byLoc[key] = byLoc[key].Add(v)
		f := FormOf(r.ProductName)
		byF[f] = byF[f].Add(v)
	}
	return toSlices(byLoc, names), toSlices(byF, formNames), nil
}

// toSlices orders the parts by value (largest first, then key) and gives each its share.
func toSlices(parts map[string]decimal.Decimal, names map[string]string) []Slice {
	out := make([]Slice, 0, len(parts))
	for k, v := range parts {
		out = append(out, Slice{Key: k, Name: names[k], Value: v})
	}
	sort.Slice(out, func(i, j int) bool {
		if c := out[i].Value.Cmp(out[j].Value); c != 0 {
			return c > 0
		}
		return out[i].Key < out[j].Key
	})
	vals := make([]decimal.Decimal, len(out))
	for i, sl := range out {
		vals[i] = sl.Value
	}
	for i, pct := range Shares(vals) {
		out[i].Pct = pct
	}
	return out
}
