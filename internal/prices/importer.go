package prices

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/metals"
)

// ProviderTimeout bounds one request to a price provider.
const ProviderTimeout = 15 * time.Second

// NewProviders builds the configured providers (OUNCE_PRICE_PROVIDERS) in failover order, with
// the HTTP client they share, and the first of them able to backfill history.
func NewProviders(names []string, keys Keys) ([]Provider, HistoryProvider, error) {
	return ProvidersFromNames(names, keys, &http.Client{Timeout: ProviderTimeout})
}

// ParseImport reads an operator's CSV of closes of one metal (header date,usd_per_oz, see
// ParseCSV) and checks every price is plausible for the metal, so a per-gram or per-kilo file
// is refused before anything is stored.
func ParseImport(r io.Reader, m metals.Metal) ([]Close, error) {
	closes, err := ParseCSV(r)
	if err != nil {
		return nil, err
	}
	if len(closes) == 0 {
		return nil, errors.New("the file has no rows")
	}
	for _, c := range closes {
		if err := CheckPrice(m, c.Price); err != nil {
			return nil, fmt.Errorf("%s on %s: %w", m, c.Date.Format(time.DateOnly), err)
		}
	}
	return closes, nil
}

// importChunk is how many closes one transaction stores, so a long history shows progress.
const importChunk = 2000

// ImportCloses stores a metal's closes at a granularity (db.Daily or db.Monthly), replacing
// days already stored, and tells progress how many are stored after each chunk. It then bumps
// the stored price revision (and on PostgreSQL notifies it), so running services re-read
// their history without a restart (Service.CheckImports).
func ImportCloses(ctx context.Context, store *db.Store, m metals.Metal, granularity string, closes []Close, source string, progress func(done int)) error {
	if granularity != db.Daily && granularity != db.Monthly {
		return fmt.Errorf("granularity %q: want %s or %s", granularity, db.Daily, db.Monthly)
	}
	rows := make([]db.PriceClose, len(closes))
	for i, c := range closes {
		rows[i] = db.PriceClose{Metal: string(m), Granularity: granularity, Day: db.NewDate(c.Date), Price: c.Price, Source: source}
	}
	for i := 0; i < len(rows); i += importChunk {
		end := min(i+importChunk, len(rows))
		if err := store.UpsertCloses(ctx, rows[i:end]); err != nil {
			return err
		}
		if progress != nil {
			progress(end)
		}
	}
	_, err := store.BumpPriceRevision(ctx)
	return err
}

// Config is the price service's part of the configuration (OUNCE_PRICE_*).
type Config struct {
	// Providers names the live providers in failover order (gold-api, metals-dev, …).
	Providers []string
	// Keys holds the providers' API keys and base-URL overrides.
	Keys Keys
	// Interval is how often the leader polls (at least 10 s).
	Interval time.Duration
	// Offline never polls; stored prices are served, flagged stale.
	Offline bool
	// OpenHistoryOnly loads only openly licensed history (OUNCE_HISTORY=open).
	OpenHistoryOnly bool
}

// Open builds the price service from its configuration: the named providers (none when
// offline) with their shared HTTP client, then NewService.
func Open(ctx context.Context, store *db.Store, cfg Config, log *slog.Logger) (*Service, error) {
	sc := ServiceConfig{Interval: cfg.Interval, Offline: cfg.Offline, OpenHistoryOnly: cfg.OpenHistoryOnly, Logger: log}
	if !cfg.Offline {
		ps, hist, err := NewProviders(cfg.Providers, cfg.Keys)
		if err != nil {
			return nil, err
		}
		sc.Providers, sc.History = ps, hist
	}
	return NewService(ctx, store, sc)
}
