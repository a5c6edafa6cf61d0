// Package portfolio is the portfolio service: a member's holdings and sales, their valuation
// at live spot, analytics (break-even, premiums over historical spot), value over time, CSV
// import and export, and the calculators that project a stack at other prices. Every use case
// checks the caller's tier and ownership itself, so the rules hold whichever transport (pages,
// /v1, MCP) calls it. It returns domain values and internal/apperr errors; the math lives in
// pure functions beside the use cases.
package portfolio

import (
	"cmp"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/prices"
	"github.com/ouncehq/ounce/internal/wallclock"
)

// Deps are what the service is built from.
type Deps struct {
	Store *db.Store
	// Prices is the price service; nil means no prices at all: values are unknown and stale.
	Prices *prices.Service
	// Rates are the exchange rates valuations in other currencies use; nil values in dollars only.
	Rates Rates
	// Now is the clock (time.Now when nil).
	Now    func() time.Time
	Logger *slog.Logger
}

// market is what the service reads of the price service; *prices.Service provides it, and
// tests can stand in a fixed board.
type market interface {
	Snapshot() prices.Snapshot
	Generation() uint64
	DailyCloses(m metals.Metal, from, to time.Time) []prices.Close
	// Closes is the series the price history's ALL charts (monthly averages before daily data).
	Closes(m metals.Metal, from, to time.Time) []prices.Close
	CloseOn(m metals.Metal, day time.Time) (decimal.Decimal, bool)
	// Through is the date of the metal's newest daily close.
	Through(m metals.Metal) time.Time
}

// Service holds the portfolio use cases.
type Service struct {
	store  Store
	market market // nil without a price service
	now    func() time.Time
	log    *slog.Logger
	charts chartCache
	rates  Rates
	costs  costCache
	today  todayCache
	mixed  sync.Map // user id → mixedAt
}

// New builds the service.
func New(d Deps) *Service {
	s := &Service{store: d.Store, now: d.Now, log: d.Logger}
	if d.Rates != nil {
		s.rates = d.Rates
	}
	if d.Prices != nil {
		// Only a real service: a nil *prices.Service in the interface would not compare nil.
		s.market = d.Prices
	}
	s.now = wallclock.Or(s.now)
	s.log = cmp.Or(s.log, slog.Default())
	return s
}

// feature names what the membership error says needs Gold.
const feature = "the portfolio"

// requireGold is the tier rule of every portfolio use case.
func requireGold(u db.User) error {
	if u.ID == 0 {
		return apperr.New(apperr.Unauthorized, "sign in to use the portfolio")
	}
	if !account.IsGold(u) {
		return apperr.Membership(feature)
	}
	return nil
}

// snapshot is the live board, or an empty one without a price service.
func (s *Service) snapshot() prices.Snapshot {
	if s.market == nil {
		return prices.Snapshot{}
	}
	return s.market.Snapshot()
}

// Live reports whether a price service feeds the valuations (pages follow its stream then).
func (s *Service) Live() bool { return s.market != nil }

// holdingErr turns the store's answers about one holding into domain errors: another
// member's holding and a missing one are the same "not found", never a "forbidden".
func holdingErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, db.ErrNotFound):
		return apperr.NotFoundf("holding")
	case errors.Is(err, db.ErrConflict):
		return apperr.Wrap(apperr.Conflict, err, conflictMsg(err))
	}
	return err
}

// conflictMsg is the store's explanation without its sentinel suffix (the store writes
// conflicts for people: "this holding has recorded sales…: conflict").
func conflictMsg(err error) string {
	return strings.TrimSuffix(err.Error(), ": "+db.ErrConflict.Error())
}
