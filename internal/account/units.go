package account

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/fx"
	"github.com/ouncehq/ounce/internal/metals"
)

// Settings are what a member reads money, weights and times in (GET|PATCH
// /v1/account/settings; later issues add their settings here).
type Settings struct {
	// DisplayCurrency is an ISO 4217 code among fx.DisplayCurrencies (USD by default).
	DisplayCurrency string
	// WeightUnit is oz, g, kg or tola (oz by default).
	WeightUnit metals.Unit
	// TimeZone is an IANA zone name (America/New_York by default).
	TimeZone string
	// LotMethod is how a disposal picks lots unless it names a method (fifo by default).
	LotMethod string
	// TaxJurisdiction is whose rules the gains report labels: us, uk, de or none (the default).
	TaxJurisdiction string
}

// LotMethods are the lot methods a member may choose; TaxJurisdictions the jurisdictions.
var (
	LotMethods       = []string{"fifo", "lifo", "hifo", "specific", "average"}
	TaxJurisdictions = []string{"us", "uk", "de", "none"}
)

// SettingsOf is the member's settings, defaults standing in for anything unset.
func SettingsOf(u db.User) Settings {
	s := Settings{DisplayCurrency: u.DisplayCurrency, WeightUnit: metals.Unit(u.WeightUnit), TimeZone: u.TimeZone, LotMethod: u.LotMethod, TaxJurisdiction: u.TaxJurisdiction}
	if !slices.Contains(LotMethods, s.LotMethod) {
		s.LotMethod = db.DefaultLotMethod
	}
	if !slices.Contains(TaxJurisdictions, s.TaxJurisdiction) {
		s.TaxJurisdiction = db.DefaultTaxJurisdiction
	}
	if s.DisplayCurrency == "" {
		s.DisplayCurrency = db.DefaultDisplayCurrency
	}
	if !s.WeightUnit.Valid() {
		s.WeightUnit = db.DefaultWeightUnit
	}
	if s.TimeZone == "" {
		s.TimeZone = db.DefaultTimeZone
	}
	return s
}

// SettingsChange names the settings to change; nil leaves one as it is.
type SettingsChange struct {
	DisplayCurrency, WeightUnit, TimeZone *string
	LotMethod, TaxJurisdiction            *string
}

// UpdateSettings changes the named settings. An unknown currency, unit or zone is
// Unprocessable naming each bad field (and listing what is accepted); nothing is stored then.
func (s *Service) UpdateSettings(ctx context.Context, u db.User, ch SettingsChange) (db.User, error) {
	cur := SettingsOf(u)
	var errs []apperr.FieldError
	if ch.DisplayCurrency != nil {
		code := strings.ToUpper(strings.TrimSpace(*ch.DisplayCurrency))
		if supported := fx.DisplayCurrencies(); !slices.Contains(supported, code) {
			errs = append(errs, apperr.FieldError{Field: "display_currency", Message: "must be one of " + strings.Join(supported, ", ")})
		}
		cur.DisplayCurrency = code
	}
	if ch.WeightUnit != nil {
		unit := metals.Unit(strings.TrimSpace(*ch.WeightUnit))
		if !unit.Valid() {
			errs = append(errs, apperr.FieldError{Field: "weight_unit", Message: "must be one of " + strings.Join(metals.UnitNames(), ", ")})
		}
		cur.WeightUnit = unit
	}
	if ch.TimeZone != nil {
		zone := strings.TrimSpace(*ch.TimeZone)
		if _, err := time.LoadLocation(zone); err != nil || zone == "" || zone == "Local" {
			errs = append(errs, apperr.FieldError{Field: "time_zone", Message: "must be a time zone name such as America/New_York or Europe/London"})
		}
		cur.TimeZone = zone
	}
	if ch.LotMethod != nil {
		m := strings.ToLower(strings.TrimSpace(*ch.LotMethod))
		if !slices.Contains(LotMethods, m) {
			errs = append(errs, apperr.FieldError{Field: "lot_method", Message: "must be one of " + strings.Join(LotMethods, ", ")})
		}
		cur.LotMethod = m
	}
	if ch.TaxJurisdiction != nil {
		j := strings.ToLower(strings.TrimSpace(*ch.TaxJurisdiction))
		if !slices.Contains(TaxJurisdictions, j) {
			errs = append(errs, apperr.FieldError{Field: "tax_jurisdiction", Message: "must be one of " + strings.Join(TaxJurisdictions, ", ")})
		}
		cur.TaxJurisdiction = j
	}
	if len(errs) > 0 {
		msg := make([]string, len(errs))
		for i, f := range errs {
			msg[i] = f.Field + ": " + f.Message
		}
		return u, &apperr.Error{Kind: apperr.Unprocessable, Msg: strings.Join(msg, "; "), Fields: errs}
	}
	if err := s.store.SetUserUnits(ctx, u.ID, cur.DisplayCurrency, string(cur.WeightUnit), cur.TimeZone); err != nil {
		return u, err
	}
	u.DisplayCurrency, u.WeightUnit, u.TimeZone = cur.DisplayCurrency, string(cur.WeightUnit), cur.TimeZone
	if ch.LotMethod != nil || ch.TaxJurisdiction != nil {
		if err := s.store.SetUserTaxSettings(ctx, u.ID, cur.LotMethod, cur.TaxJurisdiction); err != nil {
			return u, err
		}
		u.LotMethod, u.TaxJurisdiction = cur.LotMethod, cur.TaxJurisdiction
	}
	return u, nil
}
