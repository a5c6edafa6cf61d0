package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/handlers"
)

const vaultUsage = `usage:
  ounce vault import FILE.xls [FILE.xls …]      store CME depository reports (Gold_Stocks.xls, Silver_stocks.xls, PA-PL_Stck_Rprt.xls)
  ounce vault open-interest --metal M --contracts N [--date YYYY-MM-DD]
                                               record futures open interest (date defaults to today, UTC)`

// maxVaultFile bounds an imported workbook; real reports are about 20 KiB.
const maxVaultFile = 10 << 20

// cmdVault handles `ounce vault …` (import CME reports, set open interest).
func cmdVault(ctx context.Context, args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return usageError{"vault needs a subcommand: import or open-interest\n" + vaultUsage}
	}
	switch args[0] {
	case "import":
		return cmdVaultImport(ctx, args[1:], stdout)
	case "open-interest":
		return cmdVaultOpenInterest(ctx, args[1:], stdout)
	}
	return usageError{fmt.Sprintf("unknown vault subcommand %q\n%s", args[0], vaultUsage)}
}

func cmdVaultImport(ctx context.Context, files []string, stdout io.Writer) error {
	if len(files) == 0 {
		return usageError{"vault import needs at least one .xls file\n" + vaultUsage}
	}
	// Read everything first, so a missing or oversized file stops the command before anything is stored.
	data := make([][]byte, len(files))
	for i, name := range files {
		b, err := readLimited(name)
		if err != nil {
			return err
		}
		data[i] = b
	}
	cfg, err := loadConfig(nil, nil)
	if err != nil {
		return usageError{err.Error()}
	}
	return openStore(ctx, cfg, func(s *db.Store) error {
		h := handlers.New(handlers.Deps{Store: s})
		for i, name := range files {
			got, err := h.ImportVaultXLS(ctx, data[i], filepath.Base(name))
			if err != nil {
				var p *handlers.Problem
				if errors.As(err, &p) && p.Status < http.StatusInternalServerError {
					return fmt.Errorf("%s: %s", name, p.Detail)
				}
				return fmt.Errorf("%s: %w", name, err)
			}
			for _, r := range got {
				fmt.Fprintf(stdout, "%s: %s %s registered %s oz, eligible %s oz, combined %s oz (%d depositories)\n",
					filepath.Base(name), r.Metal, r.ActivityDate, r.Registered.StringFixed(3), r.Eligible.StringFixed(3), r.Combined.StringFixed(3), r.Depositories)
			}
		}
		return nil
	})
}

func readLimited(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxVaultFile+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(b) > maxVaultFile {
		return nil, fmt.Errorf("%s: larger than %d MiB, not a CME report", name, maxVaultFile>>20)
	}
	return b, nil
}

func cmdVaultOpenInterest(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("vault open-interest", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	metal := fs.String("metal", "", "gold, silver, platinum or palladium")
	contracts := fs.String("contracts", "", "open contracts of the metal's main COMEX future")
	date := fs.String("date", "", "day of the figure, YYYY-MM-DD (default today, UTC)")
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error() + "\n" + vaultUsage}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	}
	if *metal == "" || *contracts == "" {
		return usageError{"--metal and --contracts are required\n" + vaultUsage}
	}
	cfg, err := loadConfig(nil, nil)
	if err != nil {
		return usageError{err.Error()}
	}
	return openStore(ctx, cfg, func(s *db.Store) error {
		h := handlers.New(handlers.Deps{Store: s})
		oi, err := h.SetOpenInterest(ctx, *metal, *contracts, *date)
		if err != nil {
			var p *handlers.Problem
			if errors.As(err, &p) && p.Status == http.StatusBadRequest {
				return usageError{"--" + p.Errors[0].Field + " " + p.Errors[0].Message}
			}
			return err
		}
		fmt.Fprintf(stdout, "%s open interest on %s: %d contracts\n", oi.Metal, oi.Day, oi.Contracts)
		return nil
	})
}
