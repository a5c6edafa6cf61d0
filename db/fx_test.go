package db_test

import (
	"context"
	"errors"
	"testing"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
)

func fxDay(t *testing.T, s string) db.Date {
	t.Helper()
	d, err := db.ParseDate(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestFXRatesStoreLookupAndOverlay(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		if d, err := s.LatestFXDay(ctx); err != nil || !d.IsZero() {
			t.Fatalf("empty latest: %v %v", d, err)
		}
		if _, err := s.FXRateOnOrBefore(ctx, "USD", fxDay(t, "2025-05-09")); !errors.Is(err, db.ErrNotFound) {
			t.Fatalf("empty lookup: %v", err)
		}
		refreshed := []db.FXRate{
			{Currency: "USD", Day: fxDay(t, "2025-05-08"), PerEUR: "1.1222", Source: "ECB daily"},
			{Currency: "GBP", Day: fxDay(t, "2025-05-09"), PerEUR: "0.84770", Source: "ECB daily"},
			{Currency: "USD", Day: fxDay(t, "2025-05-09"), PerEUR: "1.1252", Source: "ECB daily"},
		}
		if err := s.InsertMissingFXRates(ctx, refreshed); err != nil {
			t.Fatal(err)
		}
		// On a Sunday the last rate before it is Friday's, digits as published.
		r, err := s.FXRateOnOrBefore(ctx, "GBP", fxDay(t, "2025-05-11"))
		if err != nil || r.Day.String() != "2025-05-09" || r.PerEUR != "0.84770" || r.Source != "ECB daily" {
			t.Fatalf("GBP on Sunday: %+v %v", r, err)
		}
		// An import corrects a stored day; a later refresh leaves the correction alone.
		if err := s.UpsertFXRates(ctx, []db.FXRate{{Currency: "USD", Day: fxDay(t, "2025-05-09"), PerEUR: "1.1250", Source: "import:fix.csv"}}); err != nil {
			t.Fatal(err)
		}
		if err := s.InsertMissingFXRates(ctx, refreshed[2:]); err != nil {
			t.Fatal(err)
		}
		r, err = s.FXRateOnOrBefore(ctx, "USD", fxDay(t, "2025-05-09"))
		if err != nil || r.PerEUR != "1.1250" || r.Source != "import:fix.csv" {
			t.Fatalf("corrected USD: %+v %v", r, err)
		}
		r, err = s.FXRateOnOrBefore(ctx, "USD", fxDay(t, "2025-05-08"))
		if err != nil || r.PerEUR != "1.1222" {
			t.Fatalf("USD the day before: %+v %v", r, err)
		}
		if d, err := s.LatestFXDay(ctx); err != nil || d.String() != "2025-05-09" {
			t.Fatalf("latest: %v %v", d, err)
		}
		if cs, err := s.FXCurrencies(ctx); err != nil || len(cs) != 2 || cs[0] != "GBP" || cs[1] != "USD" {
			t.Fatalf("currencies: %v %v", cs, err)
		}
	})
}

func TestUserUnitsStored(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		u, err := s.InsertUser(ctx, "units@example.com", "x", db.TierFree, false)
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.UserByID(ctx, u.ID)
		if err != nil || got.DisplayCurrency != "USD" || got.WeightUnit != "oz" {
			t.Fatalf("defaults: %+v %v", got, err)
		}
		if err := s.SetUserUnits(ctx, u.ID, "EUR", "g", "Europe/Berlin"); err != nil {
			t.Fatal(err)
		}
		got, err = s.UserByEmail(ctx, "units@example.com")
		if err != nil || got.DisplayCurrency != "EUR" || got.WeightUnit != "g" || got.TimeZone != "Europe/Berlin" {
			t.Fatalf("stored: %+v %v", got, err)
		}
		if err := s.SetUserUnits(ctx, u.ID, "EUR", "lb", "Europe/Berlin"); err == nil {
			t.Fatal("the schema accepted weight unit lb")
		}
		if err := s.SetUserUnits(ctx, u.ID+99, "EUR", "g", "UTC"); !errors.Is(err, db.ErrNotFound) {
			t.Fatalf("unknown user: %v", err)
		}
	})
}
