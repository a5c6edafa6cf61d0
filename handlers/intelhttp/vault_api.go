package intelhttp

import (
	"context"
	"time"

	"github.com/ouncehq/ounce/handlers/kit"

	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/internal/comex"
	"github.com/ouncehq/ounce/internal/metals"
)

// VaultDepositoryJSON is one warehouse line of the newest report that lists them.
type VaultDepositoryJSON struct {
	Name         string  `json:"name"`
	RegisteredOz kit.Num `json:"registered_oz"`
	PledgedOz    kit.Num `json:"pledged_oz"`
	EligibleOz   kit.Num `json:"eligible_oz"`
	TotalOz      kit.Num `json:"total_oz"`
}

// VaultDayJSON is one report in the history, with its movement since the report before.
type VaultDayJSON struct {
	Date               string  `json:"date" schema:"format=date"`
	RegisteredOz       kit.Num `json:"registered_oz"`
	EligibleOz         kit.Num `json:"eligible_oz"`
	CombinedOz         kit.Num `json:"combined_oz"`
	RegisteredChangeOz kit.Num `json:"registered_change_oz"`
	EligibleChangeOz   kit.Num `json:"eligible_change_oz"`
	CombinedChangeOz   kit.Num `json:"combined_change_oz"`
}

// VaultWatchJSON is the Vault Watch view of one metal. Optional figures are null when unknown,
// never zero: no open interest recorded, or registered stocks not draining.
type VaultWatchJSON struct {
	Metal              string   `json:"metal" schema:"enum=metals"`
	AsOf               string   `json:"as_of" schema:"format=date" doc:"CME activity date of the newest stored report."`
	Stale              bool     `json:"stale" doc:"True when the newest report is older than a normal publishing gap."`
	Source             string   `json:"source"`
	RegisteredOz       kit.Num  `json:"registered_oz"`
	EligibleOz         kit.Num  `json:"eligible_oz"`
	CombinedOz         kit.Num  `json:"combined_oz"`
	RegisteredChangeOz kit.Num  `json:"registered_change_oz" doc:"Change since the previous stored report; negative is a drain."`
	EligibleChangeOz   kit.Num  `json:"eligible_change_oz"`
	CombinedChangeOz   kit.Num  `json:"combined_change_oz"`
	RegisteredSharePct kit.Num  `json:"registered_share_pct"`
	DaysToZero         *kit.Num `json:"days_to_zero" doc:"Business days until registered stocks run out at registered_per_business_day; null, with days_to_zero_reason, when fewer than two reports fall in the drain window or registered stocks are not falling."`
	// The drain behind days_to_zero: per business day between two reports' activity dates
	// inside a stated window, or a reason why there is none.
	DaysToZeroReason         *string               `json:"days_to_zero_reason" doc:"Why days_to_zero is null, in reader terms; null when it is given."`
	RegisteredPerBusinessDay *kit.Num              `json:"registered_per_business_day" doc:"Change in registered ounces per CME business day between the activity dates drain_from and drain_to (negative is a drain); null when fewer than two reports fall in the window."`
	DrainFrom                *string               `json:"drain_from" schema:"format=date" doc:"Activity date of the oldest report inside the drain window."`
	DrainTo                  *string               `json:"drain_to" schema:"format=date" doc:"Activity date of the newest report inside the drain window (as_of)."`
	DrainBusinessDays        int                   `json:"drain_business_days" doc:"CME business days between drain_from and drain_to; 0 without a rate."`
	DrainWindowBusinessDays  int                   `json:"drain_window_business_days" doc:"The stated window the drain is measured over: this many CME business days ending at as_of."`
	OpenInterestOz           *kit.Num              `json:"open_interest_oz"`
	OpenInterestAsOf         *string               `json:"open_interest_as_of" schema:"format=date"`
	OversubscribedRatio      *kit.Num              `json:"oversubscribed_ratio" doc:"Open interest in ounces per registered ounce; null when open interest is unknown."`
	Depositories             []VaultDepositoryJSON `json:"depositories"`
	DepositoriesAsOf         *string               `json:"depositories_as_of" schema:"format=date"`
	History                  []VaultDayJSON        `json:"history"`
}

// vaultWatchJSON renders a metal's Vault Watch figures.
func vaultWatchJSON(w comex.Watch) VaultWatchJSON {
	out := VaultWatchJSON{
		Metal: string(w.Metal), AsOf: w.AsOf.Format(time.DateOnly), Stale: w.Stale, Source: w.Source,
		RegisteredOz: kit.Ounces(w.Registered), EligibleOz: kit.Ounces(w.Eligible), CombinedOz: kit.Ounces(w.Combined),
		RegisteredChangeOz: kit.Ounces(w.RegisteredChange), EligibleChangeOz: kit.Ounces(w.EligibleChange), CombinedChangeOz: kit.Ounces(w.CombinedChange),
		RegisteredSharePct: kit.Pct(w.RegisteredSharePct),
		Depositories:       []VaultDepositoryJSON{}, History: []VaultDayJSON{},
		OpenInterestAsOf: kit.DayOrNull(w.OpenInterestAsOf), DepositoriesAsOf: kit.DayOrNull(w.DepositoriesAsOf),
	}
	if w.DaysToZero != nil {
		out.DaysToZero = &kit.Num{D: w.DaysToZero.Round(1), Places: 1}
	}
	if w.DaysToZeroReason != "" {
		out.DaysToZeroReason = &w.DaysToZeroReason
	}
	out.RegisteredPerBusinessDay = kit.NumOrNull(w.RegisteredPerDay, kit.Ounces)
	out.DrainFrom, out.DrainTo = kit.DayOrNull(w.DrainFrom), kit.DayOrNull(w.DrainTo)
	out.DrainBusinessDays, out.DrainWindowBusinessDays = w.DrainBusinessDays, comex.DrainWindowDays
	out.OpenInterestOz = kit.NumOrNull(w.OpenInterestOz, kit.Ounces)
	if w.OversubscribedRatio != nil {
		out.OversubscribedRatio = &kit.Num{D: w.OversubscribedRatio.Round(2), Places: 2}
	}
	for _, x := range w.Depositories {
		out.Depositories = append(out.Depositories, VaultDepositoryJSON{Name: x.Name, RegisteredOz: kit.Ounces(x.Registered),
			PledgedOz: kit.Ounces(x.Pledged), EligibleOz: kit.Ounces(x.Eligible), TotalOz: kit.Ounces(x.Total)})
	}
	for _, d := range w.History {
		out.History = append(out.History, VaultDayJSON{Date: d.Date.Format(time.DateOnly),
			RegisteredOz: kit.Ounces(d.Registered), EligibleOz: kit.Ounces(d.Eligible), CombinedOz: kit.Ounces(d.Combined),
			RegisteredChangeOz: kit.Ounces(d.RegisteredChange), EligibleChangeOz: kit.Ounces(d.EligibleChange), CombinedChangeOz: kit.Ounces(d.CombinedChange)})
	}
	return out
}

// vaultQuery reads the Vault Watch parameters: metal (default silver) exactly as documented,
// days through the one integer parser.
func vaultQuery(metal, days string, defDays int) (comex.WatchQuery, error) {
	m, err := kit.ParseMetalParam(metal, string(metals.Silver))
	if err != nil {
		return comex.WatchQuery{}, err
	}
	n, err := kit.ParseIntParam("days", days, defDays, 1, comex.MaxDays)
	if err != nil {
		return comex.WatchQuery{}, err
	}
	return comex.WatchQuery{Metal: metals.Metal(m), Days: n}, nil
}

// vaultWatch parses, asks the service and renders: GET /v1/vault-watch and get_vault_watch.
func (h *Handlers) vaultWatch(ctx context.Context, metal, days string) (VaultWatchJSON, error) {
	q, err := vaultQuery(metal, days, comex.DefaultDays)
	if err != nil {
		return VaultWatchJSON{}, err
	}
	w, err := h.vault.VaultWatch(ctx, q)
	if err != nil {
		return VaultWatchJSON{}, err
	}
	return vaultWatchJSON(w), nil
}

// APIVaultWatch answers GET /v1/vault-watch.
func (h *Handlers) APIVaultWatch(c *fiber.Ctx) error {
	v, err := h.vaultWatch(h.Ctx(c), c.Query("metal"), c.Query("days"))
	return kit.JSONResult(c, v, err)
}

// VaultFetchJSON is the outcome of fetching one metal's CME report.
type VaultFetchJSON struct {
	Metal string  `json:"metal" schema:"enum=metals"`
	AsOf  *string `json:"as_of" schema:"format=date"`
	Error *string `json:"error"`
}

// vaultFetchJSON renders a fetch outcome.
func vaultFetchJSON(r comex.FetchResult) VaultFetchJSON {
	out := VaultFetchJSON{Metal: string(r.Metal), AsOf: kit.DayOrNull(r.AsOf)}
	if r.Err != nil {
		msg := r.Err.Error()
		out.Error = &msg
	}
	return out
}
