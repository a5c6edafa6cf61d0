// Package fx is exchange rates as data: the ECB's euro reference rates (daily since
// 1999-01-04) and, before them, the Federal Reserve's H.10 dollar rates, embedded; refreshed
// daily from the ECB by the leader and correctable by `ounce fx import`, both stored in the
// database and laid over the embedded history. A rate for a day is the last one published on
// or before it; a cross rate is computed through the euro (through the dollar before 1999) in
// decimal; a rate older than a few days is flagged stale with its date, never invented.
package fx

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"github.com/ouncehq/ounce/internal/reach"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/wallclock"
)

// Sources named in answers.
const (
	SourceECB = "ECB euro foreign exchange reference rates"
	SourceFed = "Federal Reserve Board H.10 (via FRED)"
	// SourceRefresh is the source of rates the leader fetched from the ECB's daily file.
	SourceRefresh = "ECB daily file"
)

// ECBStart is the first day of the euro reference rates; before it rates are dollar rates.
var ECBStart = time.Date(1999, 1, 4, 0, 0, 0, 0, time.UTC)

// StaleAfter is how old a rate may be, counted from the day it is asked for, before it is
// flagged stale: the ECB's longest pause (Easter, Thursday to Tuesday afternoon) is 5 days.
const StaleAfter = 5 * 24 * time.Hour

// minDigits is the fewest significant digits a cross rate is given to: the ECB publishes its
// rates to five significant figures (more for IDR, KRW and a few others).
const minDigits = 5

// exactPlaces bounds the unrounded cross rate kept for arithmetic.
const exactPlaces = 20

// Config is the exchange-rate part of the configuration (OUNCE_FX_URL, OUNCE_OFFLINE).
type Config struct {
	// URL is the ECB daily file the leader fetches once a day; cmd sets DefaultURL unless
	// OUNCE_FX_URL names another. Empty fetches nothing (tests, tools).
	URL string
	// Offline fetches nothing; the stored and embedded rates are served, flagged stale.
	Offline bool
}

// DefaultURL is the ECB's daily reference rates file.
const DefaultURL = "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml"

// Deps are what the service is built from.
type Deps struct {
	// Store holds refreshed and imported rates; nil serves the embedded history only.
	Store  *db.Store
	Config Config
	Now    func() time.Time
	Logger *slog.Logger
	// Client fetches the ECB file (a 30-second client when nil).
	Client *http.Client
	// until limits the embedded history to days before it (tests: history as it stood then).
	until time.Time
}

// Service answers rates.
type Service struct {
	store  *db.Store
	cfg    Config
	now    func() time.Time
	log    *slog.Logger
	client *http.Client
	tab    *table
	until  int32
	// reach words an unreachable ECB as one INFO line, as every other outside source does.
	reach *reach.Reporter
}

// New builds the service; it reads the embedded history the first time one is built. That
// history is compiled in and checked by the tests; were it unreadable, the service would log
// it and answer from stored rates only.
func New(d Deps) *Service {
	s := &Service{store: d.Store, cfg: d.Config, now: d.Now, log: d.Logger, client: d.Client, until: 1 << 30}
	s.now = wallclock.Or(s.now)
	s.log = cmp.Or(s.log, slog.Default())
	if s.client == nil {
		s.client = &http.Client{Timeout: 30 * time.Second}
	}
	s.reach = reach.New(s.log, "exchange rates", "the stored rates, stale-flagged with their date")
	if !d.until.IsZero() {
		s.until = dayNumber(d.until)
	}
	tab, err := embedded()
	if err != nil {
		s.log.Error("exchange rates: the embedded history is unreadable; serving stored rates only", "err", err)
		tab = &table{ecb: map[string]series{}, fed: map[string]series{}, usdPer: map[string]bool{}}
	}
	s.tab = tab
	return s
}

// Rate is the exchange rate of one currency used for one day.
type Rate struct {
	// Date is the day asked for; RateDate the day of the rate used, the last on or before it.
	Date     time.Time
	RateDate time.Time
	Currency string
	// PerUSD is units of the currency per 1 US dollar, to the significant digits of the
	// currency's own published rate (at least five); PerUSDExact is the same quotient to 20
	// decimal places, for arithmetic on money.
	PerUSD      decimal.Decimal
	PerUSDExact decimal.Decimal
	// PerEUR is units of the currency per 1 euro as published; nil before the euro (1999).
	PerEUR *decimal.Decimal
	Source string
	// Stale is true when RateDate is more than StaleAfter before Date: the newest rate known
	// is old (offline, the ECB file unreachable, or a currency no longer quoted).
	Stale bool
}

// quote is a currency's rate against a pivot (EUR or USD) on a day, from a source.
type quote struct {
	day    int32
	v      value
	source string
}

// Supported lists every currency a rate can be asked for: the euro, the dollar, every
// currency of the embedded history and any stored by a refresh or import, sorted.
func (s *Service) Supported(ctx context.Context) []string {
	set := map[string]bool{"EUR": true, "USD": true}
	for c := range s.tab.ecb {
		set[c] = true
	}
	for c := range s.tab.fed {
		set[c] = true
	}
	if s.store != nil {
		if stored, err := s.store.FXCurrencies(ctx); err == nil {
			for _, c := range stored {
				set[c] = true
			}
		}
	}
	out := make([]string, 0, len(set))
	for c := range set {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}

// DisplayCurrencies are the currencies a member may read money in: those the ECB quotes
// today (the newest day of the embedded history), the euro and the dollar.
func (s *Service) DisplayCurrencies() []string {
	out := append([]string{"EUR"}, s.tab.current...)
	if !slices.Contains(out, "USD") {
		out = append(out, "USD")
	}
	slices.Sort(out)
	return out
}

// DisplayCurrencies are the currencies a member may read money in (Service.DisplayCurrencies
// of the embedded history), for packages that hold no service.
func DisplayCurrencies() []string {
	tab, err := embedded()
	if err != nil {
		return []string{"EUR", "USD"}
	}
	return (&Service{tab: tab}).DisplayCurrencies()
}

// IsDisplayCurrency reports whether code may be a member's display currency.
func (s *Service) IsDisplayCurrency(code string) bool {
	return slices.Contains(s.DisplayCurrencies(), code)
}

// ErrUnknownCurrency is the field error of a currency code without rates.
func (s *Service) unknownCurrency(ctx context.Context, field, code string) error {
	return apperr.InvalidField(field, fmt.Sprintf("unknown currency %q; supported: %s", code, strings.Join(s.Supported(ctx), ", ")))
}

// Lookup is the rate of currency (an ISO 4217 code) for date: the last one published on or
// before it. An unknown code is Invalid naming field "currency"; a date in the future or before
// any rate of the currency is Invalid naming "date".
func (s *Service) Lookup(ctx context.Context, currency string, date time.Time) (Rate, error) {
	code := strings.ToUpper(strings.TrimSpace(currency))
	if !slices.Contains(s.Supported(ctx), code) {
		return Rate{}, s.unknownCurrency(ctx, "currency", currency)
	}
	d := dayNumber(date)
	if today := dayNumber(s.now().UTC()); d > today+1 {
		return Rate{}, apperr.InvalidField("date", fmt.Sprintf("%s is in the future; rates are published for days that have begun", dayTime(d).Format(time.DateOnly)))
	}
	r := Rate{Date: dayTime(d), Currency: code}
	usd, haveUSD, err := s.ecbOnOrBefore(ctx, "USD", d)
	if err != nil {
		return Rate{}, err
	}
	switch {
	case code == "EUR":
		if !haveUSD {
			return Rate{}, apperr.InvalidField("date", "the euro has rates from "+ECBStart.Format(time.DateOnly))
		}
		one := decimal.NewFromInt(1)
		r.PerEUR = &one
		s.cross(&r, quote{day: usd.day, v: value{mant: 1}, source: usd.source}, usd)
		r.PerUSD = roundSig(r.PerUSDExact, max(minDigits, usd.v.digits()))
	case code == "USD" && haveUSD:
		pe := usd.v.decimal()
		r.PerEUR = &pe
		r.RateDate, r.Source = dayTime(usd.day), usd.source
		r.PerUSD, r.PerUSDExact = decimal.NewFromInt(1), decimal.NewFromInt(1)
	case code == "USD":
		// A dollar is a dollar on any day; there is no euro to quote it against yet.
		r.RateDate, r.Source = r.Date, SourceFed
		r.PerUSD, r.PerUSDExact = decimal.NewFromInt(1), decimal.NewFromInt(1)
	default:
		found, err := s.ecbCross(ctx, &r, code, d)
		if err != nil {
			return Rate{}, err
		}
		if !found && !s.fedRate(&r, code, d) {
			return Rate{}, apperr.InvalidField("date", fmt.Sprintf("no %s rate on or before %s", code, r.Date.Format(time.DateOnly))+s.coverage(code))
		}
	}
	r.Stale = r.Date.Sub(r.RateDate) > StaleAfter
	return r, nil
}

// ecbCross finds the last day on or before d with both the currency's and the dollar's euro
// rate and computes the cross rate from them; false when the currency has no euro rate then.
func (s *Service) ecbCross(ctx context.Context, r *Rate, code string, d int32) (bool, error) {
	for range 64 {
		x, ok, err := s.ecbOnOrBefore(ctx, code, d)
		if err != nil || !ok {
			return false, err
		}
		usd, ok, err := s.ecbOnOrBefore(ctx, "USD", x.day)
		if err != nil || !ok {
			return false, err
		}
		if usd.day == x.day {
			pe := x.v.decimal()
			r.PerEUR = &pe
			s.cross(r, x, usd)
			r.PerUSD = roundSig(r.PerUSDExact, max(minDigits, x.v.digits()))
			return true, nil
		}
		d = usd.day // the dollar was not quoted that day (an import of one currency): go back
	}
	return false, nil
}

// cross sets the per-dollar rate of x (per euro) through the dollar's euro rate of that day.
func (s *Service) cross(r *Rate, x, usd quote) {
	r.PerUSDExact = x.v.decimal().DivRound(usd.v.decimal(), exactPlaces)
	r.RateDate, r.Source = dayTime(x.day), x.source
}

// fedRate fills r from the H.10 dollar rates (before the euro); false when there is none.
func (s *Service) fedRate(r *Rate, code string, d int32) bool {
	p, ok := s.tab.fed[code].onOrBefore(d)
	if !ok {
		return false
	}
	r.PerUSD, r.PerUSDExact = p.v.decimal(), p.v.decimal()
	if s.tab.usdPer[code] { // quoted as dollars per pound: invert
		r.PerUSDExact = decimal.NewFromInt(1).DivRound(p.v.decimal(), exactPlaces)
		r.PerUSD = roundSig(r.PerUSDExact, max(minDigits, p.v.digits()))
	}
	r.RateDate, r.Source, r.PerEUR = dayTime(p.day), SourceFed, nil
	return true
}

// coverage says where a currency's rates begin, for an error about a date before them.
func (s *Service) coverage(code string) string {
	var first []string
	if f := s.tab.fed[code]; len(f) > 0 {
		first = append(first, "H.10 from "+dayTime(f[0].day).Format(time.DateOnly)+" to 1998-12-31")
	}
	if e := s.tab.ecb[code]; len(e) > 0 {
		first = append(first, "ECB from "+dayTime(e[0].day).Format(time.DateOnly))
	}
	if len(first) == 0 {
		return ""
	}
	return " (rates: " + strings.Join(first, "; ") + ")"
}

// ecbOnOrBefore is the last euro rate of code on or before day: the stored one (a refresh or
// an import) when it is as new as the embedded one or newer, else the embedded.
func (s *Service) ecbOnOrBefore(ctx context.Context, code string, day int32) (quote, bool, error) {
	var q quote
	ok := false
	if p, found := s.tab.ecb[code].onOrBefore(min(day, s.until-1)); found {
		q, ok = quote{day: p.day, v: p.v, source: SourceECB}, true
	}
	if s.store == nil {
		return q, ok, nil
	}
	st, err := s.store.FXRateOnOrBefore(ctx, code, db.NewDate(dayTime(day)))
	if errors.Is(err, db.ErrNotFound) {
		return q, ok, nil
	}
	if err != nil {
		return quote{}, false, fmt.Errorf("stored rate of %s: %w", code, err)
	}
	sd := dayNumber(st.Day.Time)
	if ok && sd < q.day {
		return q, true, nil
	}
	v, err := parseValue(st.PerEUR)
	if err != nil {
		return quote{}, false, fmt.Errorf("stored rate of %s on %s: %w", code, st.Day, err)
	}
	return quote{day: sd, v: v, source: st.Source}, true, nil
}

// Newest is the newest day with a euro rate, embedded or stored.
func (s *Service) Newest(ctx context.Context) (time.Time, error) {
	var n int32
	if p, ok := s.tab.ecb["USD"].onOrBefore(min(s.tab.ecbLast, s.until-1)); ok {
		n = p.day
	}
	if s.store != nil {
		d, err := s.store.LatestFXDay(ctx)
		if err != nil {
			return time.Time{}, err
		}
		if !d.IsZero() {
			n = max(n, dayNumber(d.Time))
		}
	}
	return dayTime(n), nil
}

// roundSig rounds q to n significant digits.
func roundSig(q decimal.Decimal, n int) decimal.Decimal {
	if q.IsZero() {
		return q
	}
	// The position of the leading digit: 10^e ≤ |q| < 10^(e+1).
	c := q.Abs().Coefficient().String()
	e := len(c) - 1 + int(q.Exponent())
	return q.Round(int32(n - 1 - e))
}
