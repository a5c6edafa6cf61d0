package comex

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/outbound"
	"github.com/ouncehq/ounce/internal/reach"
	"github.com/ouncehq/ounce/internal/wallclock"
)

// Sources as stored with each report, so Vault Watch can say where its figures came from and
// the fetcher can tell a fetched report from an imported one.
const (
	SourceSeed = "COMEX warehouse history bundled with Ounce"
	SourceCME  = "CME Group daily metal stocks report"
)

// StaleAfter is how old the newest report may be before Vault Watch calls it stale: CME
// publishes every business day, so past a long weekend with a holiday something is wrong.
const StaleAfter = 5 * 24 * time.Hour

// Vault Watch history window, in calendar days counted back from the newest report.
const (
	DefaultDays = 30
	MaxDays     = 365
)

// refetchAfter keeps the scheduler from downloading the same daily report every run.
const refetchAfter = 6 * time.Hour

// Config is Vault Watch's view of the outside world.
type Config struct {
	// BaseURL is the CME site the reports are fetched from; empty means DefaultBaseURL.
	BaseURL string
	// Offline never fetches; imported and seeded data are still served.
	Offline bool
}

// Deps are what the Vault Watch service is built from.
type Deps struct {
	Store  *db.Store
	Config Config
	Logger *slog.Logger
	Now    func() time.Time
	// Source replaces the CME fetcher (tests); nil builds one from Config.
	Source Source
}

// Service holds the Vault Watch use cases: the figures of a metal, imports of CME workbooks,
// open interest, the bundled seed and fetching the day's reports.
type Service struct {
	store   Store
	cfg     Config
	log     *slog.Logger
	reach   *reach.Reporter
	now     func() time.Time
	fetcher Source
}

// New builds the service; the CME client is made here from Config, with a timeout so a
// stalled exchange site cannot hold a background run.
func New(d Deps) *Service {
	d.Logger = cmp.Or(d.Logger, slog.Default())
	d.Now = wallclock.Or(d.Now)
	if d.Source == nil {
		d.Source = NewFetcher(d.Config.BaseURL, outbound.OperatorClient(outbound.Options{Timeout: DefaultTimeout}))
	}
	return &Service{store: d.Store, cfg: d.Config, log: d.Logger, now: d.Now, fetcher: d.Source,
		reach: reach.New(d.Logger, "CME depository reports", "the stored vault figures with their report dates")}
}

// Watch is Vault Watch for one metal: the computed figures (History cut to the requested
// window) with the stored facts around them. Zero times mean unknown.
type Watch struct {
	Metrics
	// Stale is true when the newest report is older than StaleAfter.
	Stale bool
	// Source names where the newest report came from.
	Source string
	// OpenInterestAsOf is the day of the open interest behind OpenInterestOz.
	OpenInterestAsOf time.Time
	// Depositories are the warehouse lines of the newest report that lists them, as of
	// DepositoriesAsOf (the seed history has totals only).
	Depositories     []Depository
	DepositoriesAsOf time.Time
}

// WatchQuery asks for one metal's figures. Zero values take the defaults: silver, and
// DefaultDays of history.
type WatchQuery struct {
	Metal metals.Metal
	Days  int
}

// metalMessage is why an unknown metal is refused, worded as everywhere in /v1.
const metalMessage = "must be one of gold, silver, platinum, palladium"

// VaultWatch is the use case behind Vault Watch. Days count back from the newest stored
// report, so old data still shows its history. A metal with no stored report is NotFound.
func (s *Service) VaultWatch(ctx context.Context, q WatchQuery) (Watch, error) {
	if q.Metal == "" {
		q.Metal = metals.Silver
	}
	if !q.Metal.Valid() {
		return Watch{}, apperr.InvalidField("metal", metalMessage)
	}
	if q.Days == 0 {
		q.Days = DefaultDays
	}
	if q.Days < 1 || q.Days > MaxDays {
		return Watch{}, apperr.InvalidField("days", fmt.Sprintf("must be between 1 and %d", MaxDays))
	}
	w, found, err := s.Current(ctx, q.Metal)
	if err != nil {
		return Watch{}, err
	}
	if !found {
		return Watch{}, apperr.New(apperr.NotFound, "no COMEX warehouse report is stored for %s", q.Metal)
	}
	cutoff := w.AsOf.AddDate(0, 0, -(q.Days - 1))
	var hist []Day
	for _, d := range w.History {
		if !d.Date.Before(cutoff) {
			hist = append(hist, d)
		}
	}
	w.History = hist
	return w, nil
}

// Current reads a metal's whole stored history and computes its figures; found is false when
// no report of the metal is stored.
func (s *Service) Current(ctx context.Context, m metals.Metal) (Watch, bool, error) {
	rows, err := s.store.VaultHistory(ctx, string(m))
	if err != nil || len(rows) == 0 {
		return Watch{}, false, err
	}
	snaps := make([]Snapshot, len(rows))
	for i, r := range rows {
		snaps[i] = Snapshot{Date: r.ActivityDate.Time, Metal: m, Registered: r.Registered, Eligible: r.Eligible}
	}
	var w Watch
	var contracts *int64
	oi, err := s.store.LatestOpenInterest(ctx, string(m))
	switch {
	case err == nil:
		contracts = &oi.Contracts
		w.OpenInterestAsOf = oi.Day.Time
	case !errors.Is(err, db.ErrNotFound):
		return Watch{}, false, err
	}
	w.Metrics = Compute(snaps, contracts)
	if w.OpenInterestOz == nil {
		w.OpenInterestAsOf = time.Time{}
	}
	w.Source = rows[len(rows)-1].Source
	w.Stale = s.now().Sub(w.AsOf) > StaleAfter
	day, deps, err := s.store.LatestVaultDepositories(ctx, string(m))
	switch {
	case err == nil:
		w.DepositoriesAsOf = day.Time
		for _, d := range deps {
			w.Depositories = append(w.Depositories, Depository{Name: d.Name, Registered: d.Registered, Pledged: d.Pledged, Eligible: d.Eligible, Total: d.Total})
		}
	case !errors.Is(err, db.ErrNotFound):
		return Watch{}, false, err
	}
	return w, true, nil
}

// rows turns parsed CME reports into stored rows.
func rows(reports []Report, source string) []db.VaultReport {
	out := make([]db.VaultReport, 0, len(reports))
	for _, r := range reports {
		row := db.VaultReport{Metal: string(r.Metal), ActivityDate: db.NewDate(r.ActivityDate), Registered: r.Registered,
			Eligible: r.Eligible, Source: source}
		if !r.ReportDate.IsZero() {
			row.ReportDate = db.NewDate(r.ReportDate)
		}
		if r.Pledged.IsPositive() {
			row.Pledged = decimal.NewNullDecimal(r.Pledged)
		}
		for _, d := range r.Depositories {
			row.Depositories = append(row.Depositories, db.VaultDepository{Name: d.Name, Registered: d.Registered, Pledged: d.Pledged, Eligible: d.Eligible, Total: d.Total})
		}
		out = append(out, row)
	}
	return out
}

// ImportXLS stores every report of a CME "Daily Metal Stocks Report" workbook (gold, silver,
// or platinum and palladium), replacing what was stored for the same metal and day, and
// returns the reports it stored. name identifies the file in the stored source. A file that is
// not such a workbook, or whose figures do not add up, is Unprocessable and stores nothing.
func (s *Service) ImportXLS(ctx context.Context, data []byte, name string) ([]Report, error) {
	reports, err := ParseXLS(data)
	if err != nil {
		return nil, apperr.Wrap(apperr.Unprocessable, err, "not a usable CME depository report: "+err.Error())
	}
	if len(reports) == 0 {
		return nil, apperr.New(apperr.Unprocessable, "the workbook holds no metal report")
	}
	source := SourceCME + " (imported"
	if name != "" {
		source += " from " + name
	}
	source += ")"
	if err := s.store.SaveVaultReports(ctx, rows(reports, source)); err != nil {
		return nil, err
	}
	return reports, nil
}

// OpenInterest is a metal's futures open interest in contracts on a day.
type OpenInterest struct {
	Metal     metals.Metal
	Day       time.Time
	Contracts int64
}

// SetOpenInterest records (or corrects) a metal's open interest. A zero Day means today (UTC);
// a day in the future, a non-positive count or an unknown metal is Invalid.
func (s *Service) SetOpenInterest(ctx context.Context, in OpenInterest) (OpenInterest, error) {
	if !in.Metal.Valid() {
		return OpenInterest{}, apperr.InvalidField("metal", metalMessage)
	}
	if in.Contracts <= 0 {
		return OpenInterest{}, apperr.InvalidField("contracts", "must be a positive whole number of contracts")
	}
	today := db.NewDate(s.now().UTC())
	day := today
	if !in.Day.IsZero() {
		day = db.NewDate(in.Day)
		if day.After(today.Time) {
			return OpenInterest{}, apperr.InvalidField("date", "must not be in the future")
		}
	}
	if err := s.store.SetOpenInterest(ctx, db.OpenInterest{Metal: string(in.Metal), Day: day, Contracts: in.Contracts}); err != nil {
		return OpenInterest{}, err
	}
	return OpenInterest{Metal: in.Metal, Day: day.Time, Contracts: in.Contracts}, nil
}

// Seed stores the bundled history when no vault data exists at all, and reports whether it
// did. It is cheap when there is something stored, so it may run at every start. A bundled
// history stored by an older release under other dates (it was dated by capture date, so a
// report also imported from its CME file showed twice, a day apart) is replaced by this one,
// dated by activity date; imported and fetched reports are kept.
func (s *Service) Seed(ctx context.Context) (bool, error) {
	n, err := s.store.CountVaultReports(ctx)
	if err != nil {
		return false, err
	}
	snaps, err := Seed()
	if err != nil {
		return false, err
	}
	out := make([]db.VaultReport, len(snaps))
	want := map[string]bool{}
	for i, sn := range snaps {
		out[i] = db.VaultReport{Metal: string(sn.Metal), ActivityDate: db.NewDate(sn.Date), Registered: sn.Registered, Eligible: sn.Eligible, Source: SourceSeed}
		want[string(sn.Metal)+"/"+day(sn.Date)] = true
	}
	if n == 0 {
		return true, s.store.SeedVaultReports(ctx, out)
	}
	for _, m := range metals.All {
		rows, err := s.store.VaultHistory(ctx, string(m))
		if err != nil {
			return false, err
		}
		for _, r := range rows {
			if r.Source == SourceSeed && !want[r.Metal+"/"+day(r.ActivityDate.Time)] {
				s.log.Info("vault: replacing the bundled history with its activity-dated edition")
				return true, s.store.ReplaceVaultSource(ctx, SourceSeed, out)
			}
		}
	}
	return false, nil
}

// FetchResult is the outcome of fetching one metal's CME report: the activity date of the
// newest report stored (zero when none), or the error that stopped it.
type FetchResult struct {
	Metal metals.Metal
	AsOf  time.Time
	Err   error
}

// FetchLatest downloads the current CME reports of every metal and stores them. A metal
// fetched successfully in the last few hours is skipped, and offline nothing is fetched.
// Failures are reported per metal, never as a whole: one blocked file costs only its metal.
func (s *Service) FetchLatest(ctx context.Context) []FetchResult {
	if s.cfg.Offline {
		return nil
	}
	out := make([]FetchResult, len(metals.All))
	var wg sync.WaitGroup
	for i, m := range metals.All {
		out[i] = FetchResult{Metal: m}
		hist, err := s.store.VaultHistory(ctx, string(m))
		if err == nil && len(hist) > 0 {
			last := hist[len(hist)-1]
			if strings.HasPrefix(last.Source, SourceCME) && !strings.Contains(last.Source, "imported") && s.now().Sub(last.UpdatedAt) < refetchAfter {
				out[i].AsOf = last.ActivityDate.Time
				continue
			}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			fctx, cancel := context.WithTimeout(ctx, DefaultTimeout)
			defer cancel()
			reports, err := s.fetcher.Fetch(fctx, m)
			if err == nil {
				err = s.store.SaveVaultReports(ctx, rows(reports, SourceCME))
			}
			if err != nil {
				// Unreachable, all four metals are one INFO line, not four warnings.
				if !s.reach.Failed(ctx, string(m), err) {
					s.log.Warn("vault report fetch failed", "metal", m, "err", err)
				}
				out[i].Err = fmt.Errorf("fetching the %s report failed: %w", m, err)
				return
			}
			s.reach.OK(ctx, string(m))
			if len(reports) > 0 {
				out[i].AsOf = db.NewDate(reports[len(reports)-1].ActivityDate).Time
			}
		}()
	}
	wg.Wait()
	return out
}
