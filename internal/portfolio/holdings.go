package portfolio

import (
	"context"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/metals"
)

// Holding is one purchase: Quantity units of WeightOz fine troy ounces each, bought at
// PurchasePrice per unit plus Fees for the whole line.
type Holding struct {
	ID            string
	Metal         metals.Metal
	ProductName   string
	Quantity      int64
	WeightOz      decimal.Decimal
	PurchasePrice decimal.Decimal
	Fees          decimal.Decimal
	Dealer        string
	// PurchaseDate is the zero Date for an undated purchase.
	PurchaseDate db.Date
	Notes        string
	// SoldQuantity is how many of the units have been sold.
	SoldQuantity int64
	CreatedAt    time.Time
	UpdatedAt    time.Time
	// SpotAtPurchase is the metal's close on the purchase date (or the last before it);
	// invalid when undated or no close is known.
	SpotAtPurchase decimal.NullDecimal
	// PurchaseCurrency is the ISO 4217 code PurchasePrice and Fees are in.
	PurchaseCurrency string
	// WeightAmount and WeightUnit are the weight per unit as entered when it was not entered
	// in troy ounces (WeightAmount invalid then): 100 g stays 100 g.
	WeightAmount decimal.NullDecimal
	WeightUnit   metals.Unit
	// LocationID is where the lot is kept ("" unassigned), Tags its tags (custody.go).
	LocationID string
	Tags       []string
	// spotLocal is SpotAtPurchase in the lot's currency at the purchase day's rate (lotlocal.go);
	// invalid for a dollar lot or when no rate is known.
	spotLocal decimal.NullDecimal
}

// Currency is the lot's purchase currency (USD for lots recorded before currencies).
func (h Holding) Currency() string {
	if h.PurchaseCurrency == "" {
		return "USD"
	}
	return h.PurchaseCurrency
}

// EnteredWeight is the weight per unit as the member entered it.
func (h Holding) EnteredWeight() metals.Weight {
	if h.WeightAmount.Valid && h.WeightUnit.Valid() {
		return metals.Weight{Amount: h.WeightAmount.Decimal, Unit: h.WeightUnit}
	}
	return metals.Weight{Amount: h.WeightOz, Unit: metals.Ounce}
}

// PremiumPct is what was paid per unit over the unit's fine ounces at spot on the purchase
// day, in percent: (price ÷ (spot × fine oz) − 1) × 100. Nil without a spot or for a gift.
func (h Holding) PremiumPct() *decimal.Decimal {
	spot := h.SpotAtPurchase
	if h.Currency() != "USD" {
		// The price is in the lot's currency: compared with the spot converted at the purchase
		// day's rate, or unknown without one.
		spot = h.spotLocal
	}
	if !spot.Valid || !h.PurchasePrice.IsPositive() || !h.WeightOz.IsPositive() {
		return nil
	}
	return Premium(h.PurchasePrice, h.WeightOz.Mul(spot.Decimal))
}

// RemainingOz is the fine ounces still held.
func (h Holding) RemainingOz() decimal.Decimal {
	return h.WeightOz.Mul(decimal.NewFromInt(h.Remaining()))
}

// Remaining is how many units are still held after sales.
func (h Holding) Remaining() int64 { return h.Quantity - h.SoldQuantity }

// TotalOz is quantity × fine weight per unit.
func (h Holding) TotalOz() decimal.Decimal { return LotOz(h.Quantity, h.WeightOz) }

// TotalCost is quantity × price per unit plus fees: the lot's cost basis.
func (h Holding) TotalCost() decimal.Decimal { return LotCost(h.Quantity, h.PurchasePrice, h.Fees) }

// LotOz is a lot's fine ounces: quantity × fine weight per unit.
func LotOz(quantity int64, weightOz decimal.Decimal) decimal.Decimal {
	return weightOz.Mul(decimal.NewFromInt(quantity))
}

// LotCost is a lot's cost basis: quantity × price per unit plus fees for the whole line.
func LotCost(quantity int64, price, fees decimal.Decimal) decimal.Decimal {
	return price.Mul(decimal.NewFromInt(quantity)).Add(fees)
}

// WithTotals is r with the figures the store keeps beside a lot computed from its fields: its
// fine ounces and cost basis (LotOz, LotCost) and the reference its premium is measured
// against (PremiumRef). Every holding written to the store goes through it.
func WithTotals(r db.Holding) db.Holding {
	r.Oz = decimal.NewNullDecimal(LotOz(r.Quantity, r.WeightOz))
	r.Cost = decimal.NewNullDecimal(LotCost(r.Quantity, r.PurchasePrice, r.Fees))
	r.Ref = PremiumRef(r.Quantity, r.WeightOz, r.PurchasePrice, r.SpotAtPurchase)
	return r
}

// Name is the product name, or what stands in for it when none was given.
func (h Holding) Name() string {
	if h.ProductName == "" {
		return h.Metal.Title() + " (unnamed)"
	}
	return h.ProductName
}

func holdingFromRow(r db.Holding) Holding {
	return Holding{ID: r.ID, Metal: metals.Metal(r.Metal), ProductName: r.ProductName, Quantity: r.Quantity, WeightOz: r.WeightOz,
		PurchasePrice: r.PurchasePrice, Fees: r.Fees, Dealer: r.Dealer, PurchaseDate: r.PurchaseDate, Notes: r.Notes,
		SoldQuantity: r.SoldQuantity, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, SpotAtPurchase: r.SpotAtPurchase,
		PurchaseCurrency: r.PurchaseCurrency, WeightAmount: r.WeightAmount, WeightUnit: metals.Unit(r.WeightUnit),
		LocationID: r.LocationID.String, Tags: SplitTags(r.Tags)}
}

func (h Holding) row(userID int64) db.Holding {
	return WithTotals(db.Holding{ID: h.ID, UserID: userID, Metal: string(h.Metal), ProductName: h.ProductName, Quantity: h.Quantity, WeightOz: h.WeightOz,
		PurchasePrice: h.PurchasePrice, Fees: h.Fees, Dealer: h.Dealer, PurchaseDate: h.PurchaseDate, Notes: h.Notes,
		SoldQuantity: h.SoldQuantity, CreatedAt: h.CreatedAt, UpdatedAt: h.UpdatedAt, SpotAtPurchase: h.SpotAtPurchase,
		PurchaseCurrency: h.Currency(), WeightAmount: h.WeightAmount, WeightUnit: string(h.WeightUnit)})
}

func holdingsFromRows(rows []db.Holding) []Holding {
	out := make([]Holding, len(rows))
	for i, r := range rows {
		out[i] = holdingFromRow(r)
	}
	return out
}

// HoldingsQuery narrows and pages a holdings list.
type HoldingsQuery struct {
	// Metal is "" for every metal, else exactly one of the four identifiers.
	Metal  string
	Limit  int
	Offset int
	// Q searches names, dealers, notes and tags; Tag and LocationID ("none": unassigned) filter.
	Q, Tag, LocationID string
	// Form is one of LotForms ("" for every form); From and To (YYYY-MM-DD, "" for no bound)
	// keep the lots bought from and until those days, leaving undated lots out.
	Form, From, To string
	// Sort is a key of LotSorts ("" for the default, newest purchase first) and Order asc or
	// desc ("" for the key's own).
	Sort, Order string
}

// HoldingsPage is one page of a member's holdings, newest purchase first.
type HoldingsPage struct {
	Holdings []Holding
	Limit    int
	Offset   int
	Total    int
}

// ListHoldings lists the member's holdings.
func (s *Service) ListHoldings(ctx context.Context, u db.User, q HoldingsQuery) (HoldingsPage, error) {
	if err := requireGold(u); err != nil {
		return HoldingsPage{}, err
	}
	if q.Limit <= 0 {
		q.Limit = 50
	}
	q.Offset = max(q.Offset, 0)
	f, err := s.lotFilter(ctx, u, q)
	if err != nil {
		return HoldingsPage{}, err
	}
	rows, total, err := s.store.HoldingsByUser(ctx, u.ID, f)
	if err != nil {
		return HoldingsPage{}, err
	}
	hs := holdingsFromRows(rows)
	s.localizeAll(ctx, hs)
	return HoldingsPage{Holdings: hs, Limit: q.Limit, Offset: q.Offset, Total: total}, nil
}

// GetHolding returns one of the member's holdings; anyone else's is not found.
func (s *Service) GetHolding(ctx context.Context, u db.User, id string) (Holding, error) {
	if err := requireGold(u); err != nil {
		return Holding{}, err
	}
	r, err := s.store.HoldingByID(ctx, u.ID, id)
	if err != nil {
		return Holding{}, holdingErr(err)
	}
	h := holdingFromRow(r)
	s.localize(ctx, &h)
	return h, nil
}

// CreateHolding validates and stores a new holding of the member.
func (s *Service) CreateHolding(ctx context.Context, u db.User, in HoldingInput) (Holding, error) {
	if err := requireGold(u); err != nil {
		return Holding{}, err
	}
	var h Holding
	if err := apperr.InvalidFields(in.apply(&h, true, s.now())); err != nil {
		return Holding{}, err
	}
	if h.PurchaseCurrency == "" {
		h.PurchaseCurrency = memberCurrency(u)
	}
	if err := s.checkHoldingsCap(ctx, u, 1); err != nil {
		return Holding{}, err
	}
	if err := s.checkLocation(ctx, u, in.Custody); err != nil {
		return Holding{}, err
	}
	s.spotFinder().withSpot(&h)
	r, err := s.store.InsertHolding(ctx, h.row(u.ID))
	if err != nil {
		return Holding{}, err
	}
	h = holdingFromRow(r)
	s.localize(ctx, &h)
	return h, s.placeNew(ctx, u, &h, in.Custody)
}

// MaxHoldings caps how many holdings one member keeps: far above any real stack, low enough
// that one account cannot grow the database without bound.
const MaxHoldings = 50_000

// maxHoldings is the cap in force: MaxHoldings, lowered by tests that check the rule on both
// engines without storing fifty thousand rows each.
var maxHoldings = MaxHoldings

// holdingsCapError is the Unprocessable answer of an addition past MaxHoldings.
func holdingsCapError(have int) *apperr.Error {
	return apperr.New(apperr.Unprocessable, "you can keep at most %d holdings and have %d; delete some before adding more", maxHoldings, have)
}

// checkHoldingsCap refuses adding n holdings that would take u past MaxHoldings.
func (s *Service) checkHoldingsCap(ctx context.Context, u db.User, n int) error {
	have, err := s.store.CountHoldings(ctx, u.ID)
	if err != nil {
		return err
	}
	if have+n > maxHoldings {
		return holdingsCapError(have)
	}
	return nil
}

// UpdateHolding applies the fields present in the input to the member's holding. Once units
// of it were sold its economics are fixed (a conflict), because the sales took their cost
// basis from them.
func (s *Service) UpdateHolding(ctx context.Context, u db.User, id string, in HoldingInput) (Holding, error) {
	cur, err := s.GetHolding(ctx, u, id)
	if err != nil {
		return Holding{}, err
	}
	if in.json && len(in.fields) == 0 {
		// {} is valid JSON that changes nothing: the document requires at least one field.
		return Holding{}, &apperr.Error{Kind: apperr.Unprocessable, Msg: "body: names no field to change",
			Fields: []apperr.FieldError{{Field: "body", Message: "must name at least one field to change (" + strings.Join(HoldingFields, ", ") + ")"}}}
	}
	if err := apperr.InvalidFields(in.apply(&cur, false, s.now())); err != nil {
		return Holding{}, err
	}
	if err := s.checkLocation(ctx, u, in.Custody); err != nil {
		return Holding{}, err
	}
	// The date or metal may have changed: the spot at purchase follows.
	s.spotFinder().withSpot(&cur)
	r, err := s.store.UpdateHolding(ctx, cur.row(u.ID))
	if err != nil {
		return Holding{}, holdingErr(err)
	}
	if in.Custody.LocationSet || in.Custody.TagsSet {
		if err := s.applyCustody(ctx, u, id, cur.LocationID, in.Custody); err != nil {
			return Holding{}, err
		}
		return s.GetHolding(ctx, u, id)
	}
	h := holdingFromRow(r)
	s.localize(ctx, &h)
	return h, nil
}

// DeleteHolding removes the member's holding. One with recorded sales is kept (a conflict),
// so the realized profit stays explained.
func (s *Service) DeleteHolding(ctx context.Context, u db.User, id string) error {
	if err := requireGold(u); err != nil {
		return err
	}
	return holdingErr(s.store.DeleteHolding(ctx, u.ID, id))
}

// memberCurrency is the member's display currency: what a new lot is bought in unless it says.
func memberCurrency(u db.User) string {
	if u.DisplayCurrency == "" {
		return "USD"
	}
	return u.DisplayCurrency
}
