package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/app"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/dealers"
)

// cmdDealers handles `ounce dealers …`.
func cmdDealers(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return runSubcommand("dealers", "import, fetch or clicks", args, map[string]func([]string) error{
		"import": func(rest []string) error { return cmdDealersImport(ctx, rest, stdout) },
		"fetch":  func(rest []string) error { return cmdDealersFetch(ctx, rest, stdout, stderr) },
		"clicks": func(rest []string) error { return cmdDealersClicks(ctx, rest, stdout) },
	})
}

// withDealers opens the configured database and runs fn with the dealer service over it.
func withDealers(ctx context.Context, fn func(config, *db.Store, *dealers.Service) error) error {
	return withConfigStore(ctx, func(cfg config, s *db.Store) error {
		return fn(cfg, s, dealers.New(dealers.Deps{Store: s, Config: app.DealerConfig(cfg.App)}))
	})
}

// cmdDealersImport validates every row and stores all or nothing; any problem is exit 2 with
// one line per problem.
func cmdDealersImport(ctx context.Context, args []string, stdout io.Writer) error {
	if len(args) != 1 {
		return usageError{"dealers import needs exactly one JSON file"}
	}
	f, err := os.Open(args[0])
	if err != nil {
		return usageError{err.Error()}
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, dealers.MaxImportBytes+1))
	if err != nil {
		return usageError{err.Error()}
	}
	return withDealers(ctx, func(_ config, _ *db.Store, svc *dealers.Service) error {
		res, err := svc.Import(ctx, data)
		if rows := dealers.ImportErrors(err); len(rows) > 0 {
			lines := make([]string, len(rows))
			for i, r := range rows {
				lines[i] = "  " + r.String()
			}
			return usageError{fmt.Sprintf("%s: %d problem(s), nothing was imported:\n%s", args[0], len(rows), strings.Join(lines, "\n"))}
		}
		if err != nil {
			return cliError(err)
		}
		fmt.Fprintf(stdout, "imported %s: %d dealers, %d products, %d listings, %d feeds\n", args[0], res.Dealers, res.Products, res.Listings, res.Feeds)
		return nil
	})
}

// cmdDealersFetch runs one pass: the live price first (premiums need it), then every source.
func cmdDealersFetch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q", args[0])}
	}
	cfg, err := loadConfig(nil, nil)
	if err != nil {
		return usageError{err.Error()}
	}
	// Said before anything is fetched: dealer sites are only asked with a contact address.
	if cfg.App.Dealers.ContactEmail == "" {
		return usageError{"OUNCE_CONTACT_EMAIL is not set: dealer sites are fetched only with a contact address in the User-Agent"}
	}
	log := newLogger(stderr, cfg.LogLevel)
	return openStore(ctx, cfg, func(s *db.Store) error {
		market, err := app.NewMarket(ctx, cfg.App, s, log)
		if err != nil {
			return err
		}
		if !cfg.App.Prices.Offline {
			if err := market.Feed().PollOnce(ctx); err != nil {
				log.Warn("no live price: premiums of this pass are not added to the history", "err", err)
			}
		}
		svc := dealers.New(dealers.Deps{Store: s, Prices: market, Logger: log, Config: app.DealerConfig(cfg.App)})
		sum, err := svc.FetchOnce(ctx)
		if err != nil {
			return cliError(err)
		}
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "DEALER\tKIND\tQUOTES\tRESULT\tURL")
		failed := 0
		for _, r := range sum.Sources {
			result := "ok"
			switch {
			case r.Err != nil:
				failed++
				result = "error: " + r.Err.Error()
			case r.NotModified:
				result = "not modified"
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", r.Dealer, r.Kind, r.Quotes, result, r.URL)
		}
		_ = tw.Flush()
		for _, o := range sum.Outliers {
			fmt.Fprintf(stdout, "outlier dropped: %s %s at %s (median %s)\n", o.Dealer, o.Product, o.Price.StringFixed(2), o.Median.StringFixed(2))
		}
		fmt.Fprintf(stdout, "%d sources, %d failed, %d quotes stored, %d outliers dropped in %s\n",
			len(sum.Sources), failed, sum.Stored, len(sum.Outliers), sum.Duration.Round(time.Millisecond))
		if len(sum.Sources) == 0 {
			fmt.Fprintln(stdout, "nothing to fetch: import listings or feeds with `ounce dealers import FILE.json`")
		}
		return nil
	})
}

// parseSince reads "30d", "12h" or a date.
func parseSince(s string, now time.Time) (time.Time, error) {
	if n, ok := strings.CutSuffix(s, "d"); ok {
		if d, err := strconv.Atoi(n); err == nil && d >= 0 {
			return now.AddDate(0, 0, -d), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	return time.Time{}, errors.New("--since must be like 30d, 12h or 2026-08-01")
}

func cmdDealersClicks(ctx context.Context, args []string, stdout io.Writer) error {
	fs := quietFlags("dealers clicks")
	since := fs.String("since", "30d", "30d, 12h or YYYY-MM-DD")
	if err := fs.Parse(args); err != nil {
		return usageError{flagError(err).Error()}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	}
	from, err := parseSince(*since, time.Now().UTC())
	if err != nil {
		return usageError{err.Error()}
	}
	return withDealers(ctx, func(_ config, _ *db.Store, svc *dealers.Service) error {
		counts, err := svc.ClickCounts(ctx, from)
		if err != nil {
			if e, ok := apperr.As(err); ok && e.Kind != apperr.Internal {
				return errors.New(e.Msg)
			}
			return err
		}
		fmt.Fprintf(stdout, "clicks since %s\n", from.Format("2006-01-02 15:04 MST"))
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		var total int64
		for _, c := range counts {
			fmt.Fprintf(tw, "%s\t%s\t%d\n", c.Dealer.Name, c.Dealer.Slug, c.Clicks)
			total += c.Clicks
		}
		fmt.Fprintf(tw, "total\t\t%d\n", total)
		return tw.Flush()
	})
}
