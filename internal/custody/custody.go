// Package custody is where a stack is kept (issue 28): a member's named storage locations,
// moving lots between them, documents attached to lots and the inventory statement.
package custody

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/portfolio"
	"github.com/ouncehq/ounce/internal/wallclock"
)

// Location is a member's storage place; the store defines it as it keeps it.
type Location = db.Location

// Transfer is one move of a lot between places.
type Transfer = db.Transfer

// Kinds are the kinds of location: a home safe, a bank safe-deposit box, a private vault, a
// dealer's storage programme, and an IRA custodian (whose lots are tax-advantaged).
var Kinds = []string{"home", "bank_box", "vault", "dealer", "ira"}

// KindNames are the kinds as pages name them.
var KindNames = map[string]string{"home": "Home", "bank_box": "Bank box", "vault": "Private vault", "dealer": "Dealer storage", "ira": "IRA custodian"}

// Limits of a location's and a move's fields.
const (
	MaxName     = 100
	MaxNotes    = 2000
	MaxMoveNote = 500
	MaxBody     = 16 << 10
	MaxLocs     = 200
)

var maxInsured = decimal.NewFromInt(1_000_000_000_000)

// TaxAdvantaged is whether lots kept at a location of this kind are in a tax-advantaged
// account (an IRA): the tax report leaves their gains out when it exists.
func TaxAdvantaged(kind string) bool { return kind == "ira" }

// Store is what the custody service uses of the storage, declared where it is used.
type Store interface {
	DocumentStore
	DeleteLocation(ctx context.Context, userID int64, id string) error
	ImportArchive(ctx context.Context, userID int64, rows []db.Holding, sales []db.ImportedSale, decide db.SaleRule, replay db.DisposalReplay,
		locs []db.ArchiveLocation, places []db.ArchivePlace, transfers []db.ArchiveTransfer, docs []db.ArchiveDocument, quota int64) (db.ImportResult, error)
	TransfersByUser(ctx context.Context, userID int64) ([]db.Transfer, error)
	InsertLocation(ctx context.Context, l db.Location) (db.Location, error)
	LocationByID(ctx context.Context, userID int64, id string) (db.Location, error)
	LocationsByUser(ctx context.Context, userID int64) ([]db.Location, error)
	MoveHolding(ctx context.Context, userID int64, holdingID string, to sql.NullString, on db.Date, note string) (db.Transfer, error)
	UpdateLocation(ctx context.Context, l db.Location) (db.Location, error)
	BulkMoveHoldings(ctx context.Context, userID int64, ids []string, to sql.NullString, on db.Date, note string) ([]db.Transfer, error)
	BulkSetHoldingTags(ctx context.Context, userID int64, ids []string, tags map[string]string) error
}

var _ Store = (*db.Store)(nil)

// Portfolio is what custody reads of the member's stack.
type Portfolio interface {
	GetHolding(ctx context.Context, u db.User, id string) (portfolio.Holding, error)
	ExportHoldings(ctx context.Context, u db.User) ([]portfolio.Holding, error)
	ExportSales(ctx context.Context, u db.User) ([]portfolio.Sale, error)
	ImportRows(ctx context.Context, u db.User, data []byte) ([]db.Holding, []db.ImportedSale, error)
	ReplayFor(ctx context.Context, rows []db.Holding, sales []db.ImportedSale) (db.DisposalReplay, error)
}

// Deps are what the service is built from.
type Deps struct {
	Store     Store
	Portfolio Portfolio
	// Dealers prices the inventory statement (spot and dealer asks); nil values lots at cost only.
	Dealers Dealers
	Now     func() time.Time
	Logger  *slog.Logger
}

// Service is the custody area's use cases.
type Service struct {
	store     Store
	docs      DocumentStore
	portfolio Portfolio
	holdings  Portfolio
	dealers   Dealers
	now       func() time.Time
	log       *slog.Logger
}

// New builds the service.
func New(d Deps) *Service {
	d.Now = wallclock.Or(d.Now)
	d.Logger = cmp.Or(d.Logger, slog.Default())
	return &Service{store: d.Store, docs: d.Store, portfolio: d.Portfolio, holdings: d.Portfolio, dealers: d.Dealers, now: d.Now, log: d.Logger}
}

func requireGold(u db.User) error {
	if u.ID == 0 {
		return apperr.New(apperr.Unauthorized, "sign in to keep storage locations")
	}
	if !account.IsGold(u) {
		return apperr.Membership("Storage locations")
	}
	return nil
}

// LocationInput is a parsed location body or form: the fields present.
type LocationInput struct {
	Name, Kind, InsuredValue, Notes *string
}

// ParseLocationJSON reads a location body strictly (unknown fields are errors).
func ParseLocationJSON(body []byte) (LocationInput, error) {
	var in LocationInput
	if len(body) > MaxBody {
		return in, apperr.New(apperr.TooLarge, "body larger than %d bytes", MaxBody)
	}
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil || raw == nil || dec.More() {
		return in, apperr.InvalidField("body", "must be one JSON object")
	}
	var errs []apperr.FieldError
	str := func(k string, allowNum bool) *string {
		v, ok := raw[k]
		if !ok {
			return nil
		}
		delete(raw, k)
		v = bytes.TrimSpace(v)
		if string(v) == "null" {
			s := ""
			return &s
		}
		var s string
		if allowNum && len(v) > 0 && v[0] != '"' {
			var n json.Number
			if json.Unmarshal(v, &n) == nil {
				s = n.String()
				return &s
			}
		}
		if err := json.Unmarshal(v, &s); err != nil {
			errs = append(errs, apperr.FieldError{Field: k, Message: "must be a string"})
			return nil
		}
		return &s
	}
	in.Name, in.Kind, in.InsuredValue, in.Notes = str("name", false), str("kind", false), str("insured_value", true), str("notes", false)
	for k := range raw {
		errs = append(errs, apperr.FieldError{Field: k, Message: "unknown field"})
	}
	return in, apperr.InvalidFields(errs)
}

// apply validates in onto l; with create, name and kind are required.
func (in LocationInput) apply(l *db.Location, create bool) error {
	var errs []apperr.FieldError
	bad := func(f, m string) { errs = append(errs, apperr.FieldError{Field: f, Message: m}) }
	if in.Name != nil || create {
		v, msg := portfolio.CleanText(deref(in.Name), MaxName, false)
		switch {
		case msg != "":
			bad("name", msg)
		case v == "":
			bad("name", "is required")
		default:
			l.Name = v
		}
	}
	if in.Kind != nil || create {
		k := strings.TrimSpace(deref(in.Kind))
		if _, ok := KindNames[k]; !ok {
			bad("kind", "must be one of "+strings.Join(Kinds, ", "))
		} else {
			l.Kind = k
		}
	}
	if in.InsuredValue != nil {
		v := strings.TrimSpace(strings.ReplaceAll(*in.InsuredValue, ",", ""))
		if v == "" {
			l.InsuredValue = sql.NullString{}
		} else if d, err := decimal.NewFromString(v); err != nil || d.IsNegative() || d.GreaterThan(maxInsured) || d.Exponent() < -2 {
			bad("insured_value", "must be an amount in USD from 0 to 1,000,000,000,000 with at most 2 decimals")
		} else {
			l.InsuredValue = sql.NullString{String: d.StringFixed(2), Valid: true}
		}
	}
	if in.Notes != nil {
		v, msg := portfolio.CleanText(*in.Notes, MaxNotes, true)
		if msg != "" {
			bad("notes", msg)
		} else {
			l.Notes = v
		}
	}
	return apperr.InvalidFields(errs)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func locErr(err error) error {
	switch {
	case errors.Is(err, db.ErrNotFound):
		return apperr.NotFoundf("location")
	case errors.Is(err, db.ErrConflict):
		return apperr.Wrap(apperr.Conflict, err, strings.TrimSuffix(err.Error(), ": "+db.ErrConflict.Error()))
	}
	return err
}

// Locations lists the member's locations by name.
func (s *Service) Locations(ctx context.Context, u db.User) ([]Location, error) {
	if err := requireGold(u); err != nil {
		return nil, err
	}
	return s.store.LocationsByUser(ctx, u.ID)
}

// Location is one of the member's locations.
func (s *Service) Location(ctx context.Context, u db.User, id string) (Location, error) {
	if err := requireGold(u); err != nil {
		return Location{}, err
	}
	l, err := s.store.LocationByID(ctx, u.ID, id)
	return l, locErr(err)
}

// CreateLocation validates and stores a new location.
func (s *Service) CreateLocation(ctx context.Context, u db.User, in LocationInput) (Location, error) {
	if err := requireGold(u); err != nil {
		return Location{}, err
	}
	l := db.Location{UserID: u.ID}
	if err := in.apply(&l, true); err != nil {
		return Location{}, err
	}
	have, err := s.store.LocationsByUser(ctx, u.ID)
	if err != nil {
		return Location{}, err
	}
	if len(have) >= MaxLocs {
		return Location{}, apperr.New(apperr.Unprocessable, "you can keep at most %d locations", MaxLocs)
	}
	return s.store.InsertLocation(ctx, l)
}

// UpdateLocation applies the fields present.
func (s *Service) UpdateLocation(ctx context.Context, u db.User, id string, in LocationInput) (Location, error) {
	l, err := s.Location(ctx, u, id)
	if err != nil {
		return Location{}, err
	}
	if in == (LocationInput{}) {
		return Location{}, &apperr.Error{Kind: apperr.Unprocessable, Msg: "body: names no field to change",
			Fields: []apperr.FieldError{{Field: "body", Message: "must name at least one field to change (name, kind, insured_value, notes)"}}}
	}
	if err := in.apply(&l, false); err != nil {
		return Location{}, err
	}
	l, err = s.store.UpdateLocation(ctx, l)
	return l, locErr(err)
}

// DeleteLocation removes a location that holds no lots (one that does is a conflict).
func (s *Service) DeleteLocation(ctx context.Context, u db.User, id string) error {
	if err := requireGold(u); err != nil {
		return err
	}
	return locErr(s.store.DeleteLocation(ctx, u.ID, id))
}

// MoveInput is a move request: where to (nil or "" is unassigned), when, and why.
type MoveInput struct {
	ToLocationID *string `json:"to_location_id"`
	Date         string  `json:"date"`
	Note         string  `json:"note"`
}

// ParseMoveJSON reads a move body strictly.
func ParseMoveJSON(body []byte) (MoveInput, bool, error) {
	var in MoveInput
	if len(body) > MaxBody {
		return in, false, apperr.New(apperr.TooLarge, "body larger than %d bytes", MaxBody)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil || raw == nil {
		return in, false, apperr.InvalidField("body", "must be one JSON object")
	}
	_, hasTo := raw["to_location_id"]
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) && ute.Field != "" {
			return in, false, apperr.InvalidField(ute.Field, "must be a string")
		}
		if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			return in, false, apperr.InvalidField(strings.Trim(f, `"`), "unknown field")
		}
		return in, false, apperr.InvalidField("body", "must be one JSON object")
	}
	return in, hasTo, nil
}

// moveDate is the day a move is recorded on: date (YYYY-MM-DD) when given, else today; a
// malformed or future date is Invalid naming "date".
func (s *Service) moveDate(date string) (db.Date, error) {
	today := db.NewDate(s.now())
	date = strings.TrimSpace(date)
	if date == "" {
		return today, nil
	}
	d, err := db.ParseDate(date)
	switch {
	case err != nil:
		return db.Date{}, apperr.InvalidField("date", "must be a date like 2026-05-09")
	case d.After(today.Time):
		return db.Date{}, apperr.InvalidField("date", "cannot be in the future")
	}
	return d, nil
}

// Move puts the member's lot at a location (or none), recording the transfer.
func (s *Service) Move(ctx context.Context, u db.User, holdingID string, in MoveInput, hasTo bool) (Transfer, error) {
	h, err := s.portfolio.GetHolding(ctx, u, holdingID)
	if err != nil {
		return Transfer{}, err
	}
	if !hasTo {
		return Transfer{}, apperr.InvalidField("to_location_id", "is required: a location id, or null to unassign")
	}
	to := deref(in.ToLocationID)
	on, err := s.moveDate(in.Date)
	if err != nil {
		return Transfer{}, err
	}
	if strings.TrimSpace(in.Date) != "" && !h.PurchaseDate.IsZero() && on.Before(h.PurchaseDate.Time) {
		return Transfer{}, apperr.InvalidField("date", "cannot be before the purchase date ("+h.PurchaseDate.String()+")")
	}
	note, msg := portfolio.CleanText(in.Note, MaxMoveNote, false)
	if msg != "" {
		return Transfer{}, apperr.InvalidField("note", msg)
	}
	if to == h.LocationID {
		return Transfer{}, apperr.InvalidField("to_location_id", "is where the lot already is")
	}
	t, err := s.store.MoveHolding(ctx, u.ID, h.ID, sql.NullString{String: to, Valid: to != ""}, on, note)
	switch {
	case errors.Is(err, db.ErrNoSuchLocation):
		return Transfer{}, apperr.InvalidField("to_location_id", "is not one of your locations")
	case errors.Is(err, db.ErrNotFound):
		return Transfer{}, apperr.NotFoundf("holding")
	}
	return t, err
}

// InsuredValue is the location's insured value, when given.
func InsuredValue(l Location) (decimal.Decimal, bool) {
	if !l.InsuredValue.Valid {
		return decimal.Zero, false
	}
	d, err := decimal.NewFromString(l.InsuredValue.String)
	return d, err == nil
}
