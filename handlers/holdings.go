package handlers

import (
	"context"
	"net/http"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/metals"
)

// HoldingJSON is the wire form of a holding.
type HoldingJSON struct {
	ID            string    `json:"id"`
	Metal         string    `json:"metal"`
	ProductName   string    `json:"product_name"`
	Quantity      int64     `json:"quantity"`
	WeightOz      Num       `json:"weight_oz"`
	TotalOz       Num       `json:"total_oz"`
	PurchasePrice Num       `json:"purchase_price"`
	Fees          Num       `json:"fees"`
	TotalCost     Num       `json:"total_cost"`
	Dealer        string    `json:"dealer"`
	PurchaseDate  *string   `json:"purchase_date"`
	Notes         string    `json:"notes"`
	CreatedAt     time.Time `json:"created_at"`
	UpdatedAt     time.Time `json:"updated_at"`
}

// HoldingToJSON renders a stored holding.
func HoldingToJSON(h db.Holding) HoldingJSON {
	out := HoldingJSON{
		ID: h.ID, Metal: h.Metal, ProductName: h.ProductName, Quantity: h.Quantity,
		WeightOz: Num{h.WeightOz.Round(maxWeightDecimals), 5}, TotalOz: ounces(h.TotalOz()),
		PurchasePrice: money(h.PurchasePrice), Fees: money(h.Fees), TotalCost: money(h.TotalCost()),
		Dealer: h.Dealer, Notes: h.Notes, CreatedAt: h.CreatedAt.UTC(), UpdatedAt: h.UpdatedAt.UTC(),
	}
	if h.WeightOz.Exponent() < -5 {
		// More precision was entered than the usual 5 places: show it all rather than round it away.
		out.WeightOz.Places = -h.WeightOz.Exponent()
	}
	if !h.PurchaseDate.IsZero() {
		s := h.PurchaseDate.String()
		out.PurchaseDate = &s
	}
	return out
}

// HoldingsPage is one page of a user's holdings.
type HoldingsPage struct {
	Holdings []db.Holding
	Limit    int
	Offset   int
	Total    int
}

// ListHoldings is the use case behind the holdings list, for both transports.
func (h *Handlers) ListHoldings(ctx context.Context, u db.User, metal string, limit, offset int) (HoldingsPage, error) {
	if metal != "" {
		if !metals.Metal(metal).Valid() {
			return HoldingsPage{}, Invalid("metal", "must be one of gold, silver, platinum, palladium")
		}
	}
	list, total, err := h.store.HoldingsByUser(ctx, u.ID, db.HoldingFilter{Metal: metal, Limit: limit, Offset: offset})
	if err != nil {
		return HoldingsPage{}, err
	}
	return HoldingsPage{Holdings: list, Limit: limit, Offset: offset, Total: total}, nil
}

// CreateHolding validates and stores a new holding for u.
func (h *Handlers) CreateHolding(ctx context.Context, u db.User, in HoldingInput) (db.Holding, error) {
	hold := db.Holding{UserID: u.ID}
	if errs := in.Apply(&hold, true, h.now()); len(errs) > 0 {
		return db.Holding{}, InvalidFields(errs)
	}
	return h.store.InsertHolding(ctx, hold)
}

// UpdateHolding applies a partial update to u's holding.
func (h *Handlers) UpdateHolding(ctx context.Context, u db.User, id string, in HoldingInput) (db.Holding, error) {
	hold, err := h.store.HoldingByID(ctx, u.ID, id)
	if err != nil {
		return db.Holding{}, holdingErr(err)
	}
	if errs := in.Apply(&hold, false, h.now()); len(errs) > 0 {
		return db.Holding{}, InvalidFields(errs)
	}
	out, err := h.store.UpdateHolding(ctx, hold)
	return out, holdingErr(err)
}

// GetHolding returns u's holding.
func (h *Handlers) GetHolding(ctx context.Context, u db.User, id string) (db.Holding, error) {
	hold, err := h.store.HoldingByID(ctx, u.ID, id)
	return hold, holdingErr(err)
}

// DeleteHolding removes u's holding.
func (h *Handlers) DeleteHolding(ctx context.Context, u db.User, id string) error {
	return holdingErr(h.store.DeleteHolding(ctx, u.ID, id))
}

// holdingErr turns "not yours or not there" into one 404, never a 403.
func holdingErr(err error) error {
	if err == nil {
		return nil
	}
	if p := AsProblem(err); p.Status == http.StatusNotFound {
		return NotFound("holding")
	}
	return err
}
