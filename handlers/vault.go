package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/comex"
	"github.com/ouncehq/ounce/internal/metals"
)

// Vault data sources as stored with each report.
const (
	vaultSourceSeed = "COMEX warehouse history bundled with Ounce"
	vaultSourceCME  = "CME Group daily metal stocks report"
)

// vaultStaleAfter is how old the newest report may be before Vault Watch calls it stale: CME
// publishes every business day, so past a long weekend with a holiday something is wrong.
const vaultStaleAfter = 5 * 24 * time.Hour

// VaultDepositoryJSON is one warehouse line of the newest report that lists them.
type VaultDepositoryJSON struct {
	Name         string `json:"name"`
	RegisteredOz Num    `json:"registered_oz"`
	PledgedOz    Num    `json:"pledged_oz"`
	EligibleOz   Num    `json:"eligible_oz"`
	TotalOz      Num    `json:"total_oz"`
}

// VaultDayJSON is one report in the history, with its movement since the report before.
type VaultDayJSON struct {
	Date               string `json:"date"`
	RegisteredOz       Num    `json:"registered_oz"`
	EligibleOz         Num    `json:"eligible_oz"`
	CombinedOz         Num    `json:"combined_oz"`
	RegisteredChangeOz Num    `json:"registered_change_oz"`
	EligibleChangeOz   Num    `json:"eligible_change_oz"`
	CombinedChangeOz   Num    `json:"combined_change_oz"`
}

// VaultWatchJSON is the Vault Watch view of one metal. Optional figures are null when unknown,
// never zero: no open interest recorded, or registered stocks not draining.
type VaultWatchJSON struct {
	Metal               string                `json:"metal"`
	AsOf                string                `json:"as_of"`
	Stale               bool                  `json:"stale"`
	Source              string                `json:"source"`
	RegisteredOz        Num                   `json:"registered_oz"`
	EligibleOz          Num                   `json:"eligible_oz"`
	CombinedOz          Num                   `json:"combined_oz"`
	RegisteredChangeOz  Num                   `json:"registered_change_oz"`
	EligibleChangeOz    Num                   `json:"eligible_change_oz"`
	CombinedChangeOz    Num                   `json:"combined_change_oz"`
	RegisteredSharePct  Num                   `json:"registered_share_pct"`
	DaysToZero          *Num                  `json:"days_to_zero"`
	OpenInterestOz      *Num                  `json:"open_interest_oz"`
	OpenInterestAsOf    *string               `json:"open_interest_as_of"`
	OversubscribedRatio *Num                  `json:"oversubscribed_ratio"`
	Depositories        []VaultDepositoryJSON `json:"depositories"`
	DepositoriesAsOf    *string               `json:"depositories_as_of"`
	History             []VaultDayJSON        `json:"history"`
}

// vaultData is a metal's computed figures with the stored facts around them.
type vaultData struct {
	metrics      comex.Metrics
	source       string
	oiAsOf       *db.Date
	deps         []db.VaultDepository
	depsAsOf     db.Date
	hasDeposData bool
}

// loadVault reads a metal's stored history and computes its figures; found is false when no
// report of the metal is stored.
func (h *Handlers) loadVault(ctx context.Context, m metals.Metal) (vaultData, bool, error) {
	rows, err := h.store.VaultHistory(ctx, string(m))
	if err != nil || len(rows) == 0 {
		return vaultData{}, false, err
	}
	snaps := make([]comex.Snapshot, len(rows))
	for i, r := range rows {
		snaps[i] = comex.Snapshot{Date: r.ActivityDate.Time, Metal: m, Registered: r.Registered, Eligible: r.Eligible}
	}
	var d vaultData
	var contracts *int64
	oi, err := h.store.LatestOpenInterest(ctx, string(m))
	switch {
	case err == nil:
		contracts = &oi.Contracts
		d.oiAsOf = &oi.Day
	case !errors.Is(err, db.ErrNotFound):
		return vaultData{}, false, err
	}
	d.metrics = comex.Compute(snaps, contracts)
	d.source = rows[len(rows)-1].Source
	day, deps, err := h.store.LatestVaultDepositories(ctx, string(m))
	switch {
	case err == nil:
		d.deps, d.depsAsOf, d.hasDeposData = deps, day, true
	case !errors.Is(err, db.ErrNotFound):
		return vaultData{}, false, err
	}
	return d, true, nil
}

// VaultWatch is the use case behind Vault Watch: metal defaults to silver; days (1…365,
// default 30) counts back from the newest stored report, so old data still shows its history.
// A metal with no stored report is a 404.
func (h *Handlers) VaultWatch(ctx context.Context, metal, days string) (VaultWatchJSON, error) {
	ms, err := parseMetalParam(metal, string(metals.Silver))
	if err != nil {
		return VaultWatchJSON{}, err
	}
	n, err := parseIntParam("days", days, 30, 1, 365)
	if err != nil {
		return VaultWatchJSON{}, err
	}
	m := metals.Metal(ms)
	d, found, err := h.loadVault(ctx, m)
	if err != nil {
		return VaultWatchJSON{}, err
	}
	if !found {
		return VaultWatchJSON{}, NewProblem(http.StatusNotFound, ProbNotFound, "no COMEX warehouse report is stored for "+ms)
	}
	mt := d.metrics
	out := VaultWatchJSON{
		Metal: ms, AsOf: mt.AsOf.Format(db.DateLayout), Stale: h.now().Sub(mt.AsOf) > vaultStaleAfter, Source: d.source,
		RegisteredOz: ounces(mt.Registered), EligibleOz: ounces(mt.Eligible), CombinedOz: ounces(mt.Combined),
		RegisteredChangeOz: ounces(mt.RegisteredChange), EligibleChangeOz: ounces(mt.EligibleChange), CombinedChangeOz: ounces(mt.CombinedChange),
		RegisteredSharePct: pct(mt.RegisteredSharePct),
		Depositories:       []VaultDepositoryJSON{}, History: []VaultDayJSON{},
	}
	if mt.DaysToZero != nil {
		v := Num{mt.DaysToZero.Round(1), 1}
		out.DaysToZero = &v
	}
	if mt.OpenInterestOz != nil {
		v := ounces(*mt.OpenInterestOz)
		out.OpenInterestOz = &v
		s := d.oiAsOf.String()
		out.OpenInterestAsOf = &s
	}
	if mt.OversubscribedRatio != nil {
		v := Num{mt.OversubscribedRatio.Round(2), 2}
		out.OversubscribedRatio = &v
	}
	if d.hasDeposData {
		s := d.depsAsOf.String()
		out.DepositoriesAsOf = &s
		for _, x := range d.deps {
			out.Depositories = append(out.Depositories, VaultDepositoryJSON{Name: x.Name, RegisteredOz: ounces(x.Registered),
				PledgedOz: ounces(x.Pledged), EligibleOz: ounces(x.Eligible), TotalOz: ounces(x.Total)})
		}
	}
	cutoff := mt.AsOf.AddDate(0, 0, -(n - 1))
	for _, day := range mt.History {
		if day.Date.Before(cutoff) {
			continue
		}
		out.History = append(out.History, VaultDayJSON{Date: day.Date.Format(db.DateLayout),
			RegisteredOz: ounces(day.Registered), EligibleOz: ounces(day.Eligible), CombinedOz: ounces(day.Combined),
			RegisteredChangeOz: ounces(day.RegisteredChange), EligibleChangeOz: ounces(day.EligibleChange), CombinedChangeOz: ounces(day.CombinedChange)})
	}
	return out, nil
}

// VaultImport describes one report stored from a workbook.
type VaultImport struct {
	Metal        string
	ActivityDate string
	ReportDate   string
	Registered   decimal.Decimal
	Eligible     decimal.Decimal
	Combined     decimal.Decimal
	Depositories int
}

// vaultRows turns parsed CME reports into stored rows.
func vaultRows(reports []comex.Report, source string) []db.VaultReport {
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

// ImportVaultXLS stores every report of a CME "Daily Metal Stocks Report" workbook (gold,
// silver, or platinum and palladium), replacing what was stored for the same metal and day.
// name identifies the file in the stored source. A file that is not such a workbook, or whose
// figures do not add up, is a 422 and stores nothing.
func (h *Handlers) ImportVaultXLS(ctx context.Context, data []byte, name string) ([]VaultImport, error) {
	reports, err := comex.ParseXLS(data)
	if err != nil {
		return nil, NewProblem(http.StatusUnprocessableEntity, ProbUnprocessable, "not a usable CME depository report: "+err.Error())
	}
	if len(reports) == 0 {
		return nil, NewProblem(http.StatusUnprocessableEntity, ProbUnprocessable, "the workbook holds no metal report")
	}
	source := vaultSourceCME + " (imported"
	if name != "" {
		source += " from " + name
	}
	source += ")"
	if err := h.store.SaveVaultReports(ctx, vaultRows(reports, source)); err != nil {
		return nil, err
	}
	out := make([]VaultImport, len(reports))
	for i, r := range reports {
		out[i] = VaultImport{Metal: string(r.Metal), ActivityDate: db.NewDate(r.ActivityDate).String(), ReportDate: db.NewDate(r.ReportDate).String(),
			Registered: r.Registered, Eligible: r.Eligible, Combined: r.Combined, Depositories: len(r.Depositories)}
	}
	return out, nil
}

// SetOpenInterest records a metal's futures open interest in contracts on a day (today, UTC,
// when date is empty). Parameters arrive as typed by the operator and are validated here.
func (h *Handlers) SetOpenInterest(ctx context.Context, metal, contracts, date string) (db.OpenInterest, error) {
	m, err := metals.Parse(metal)
	if err != nil {
		return db.OpenInterest{}, Invalid("metal", "must be one of gold, silver, platinum, palladium")
	}
	n, err := strconv.ParseInt(strings.TrimSpace(contracts), 10, 64)
	if err != nil || n <= 0 {
		return db.OpenInterest{}, Invalid("contracts", "must be a positive whole number of contracts")
	}
	day := db.NewDate(h.now().UTC())
	if strings.TrimSpace(date) != "" {
		d, err := db.ParseDate(strings.TrimSpace(date))
		if err != nil {
			return db.OpenInterest{}, Invalid("date", "must be a date as YYYY-MM-DD")
		}
		if d.After(day.Time) {
			return db.OpenInterest{}, Invalid("date", "must not be in the future")
		}
		day = d
	}
	oi := db.OpenInterest{Metal: string(m), Day: day, Contracts: n}
	if err := h.store.SetOpenInterest(ctx, oi); err != nil {
		return db.OpenInterest{}, err
	}
	return oi, nil
}

// seedVault stores the bundled history when no vault data exists at all.
func (h *Handlers) seedVault(ctx context.Context) (bool, error) {
	n, err := h.store.CountVaultReports(ctx)
	if err != nil || n > 0 {
		return false, err
	}
	snaps, err := comex.Seed()
	if err != nil {
		return false, err
	}
	rows := make([]db.VaultReport, len(snaps))
	for i, s := range snaps {
		rows[i] = db.VaultReport{Metal: string(s.Metal), ActivityDate: db.NewDate(s.Date), Registered: s.Registered, Eligible: s.Eligible, Source: vaultSourceSeed}
	}
	return true, h.store.SeedVaultReports(ctx, rows)
}

// VaultFetchJSON is the outcome of fetching one metal's CME report.
type VaultFetchJSON struct {
	Metal string  `json:"metal"`
	AsOf  *string `json:"as_of"`
	Error *string `json:"error"`
}

// vaultRefetchAfter keeps the scheduler from downloading the same daily report every run.
const vaultRefetchAfter = 6 * time.Hour

// fetchVault downloads the current CME reports of every metal (never offline) and stores them.
// A metal fetched successfully in the last few hours is skipped.
func (h *Handlers) fetchVault(ctx context.Context) []VaultFetchJSON {
	client := &http.Client{Timeout: comex.DefaultTimeout}
	f := comex.NewFetcher(h.cfg.CMEBaseURL, client)
	out := make([]VaultFetchJSON, len(metals.All))
	var wg sync.WaitGroup
	for i, m := range metals.All {
		out[i] = VaultFetchJSON{Metal: string(m)}
		rows, err := h.store.VaultHistory(ctx, string(m))
		if err == nil && len(rows) > 0 {
			last := rows[len(rows)-1]
			if strings.HasPrefix(last.Source, vaultSourceCME) && !strings.Contains(last.Source, "imported") && h.now().Sub(last.UpdatedAt) < vaultRefetchAfter {
				s := last.ActivityDate.String()
				out[i].AsOf = &s
				continue
			}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			fctx, cancel := context.WithTimeout(ctx, comex.DefaultTimeout)
			defer cancel()
			reports, err := f.Fetch(fctx, m)
			if err == nil {
				err = h.store.SaveVaultReports(ctx, vaultRows(reports, vaultSourceCME))
			}
			if err != nil {
				h.log.Warn("vault report fetch failed", "metal", m, "err", err)
				msg := fmt.Sprintf("fetching the %s report failed: %v", m, err)
				out[i].Error = &msg
				return
			}
			if len(reports) > 0 {
				s := db.NewDate(reports[len(reports)-1].ActivityDate).String()
				out[i].AsOf = &s
			}
		}()
	}
	wg.Wait()
	return out
}
