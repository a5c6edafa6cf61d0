package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/comex"
	"github.com/ouncehq/ounce/internal/metals"
)

// maxVaultFile bounds an imported workbook; real reports are about 20 KiB.
const maxVaultFile = 10 << 20

// cmdVault handles `ounce vault …` (import CME reports, set open interest).
func cmdVault(ctx context.Context, args []string, stdout io.Writer) error {
	return runSubcommand("vault", "import or open-interest", args, map[string]func([]string) error{
		"import":        func(rest []string) error { return cmdVaultImport(ctx, rest, stdout) },
		"open-interest": func(rest []string) error { return cmdVaultOpenInterest(ctx, rest, stdout) },
	})
}

func cmdVaultImport(ctx context.Context, files []string, stdout io.Writer) error {
	if len(files) == 0 {
		return usageError{"vault import needs at least one .xls file"}
	}
	// Read everything first, so a missing or oversized file stops the command before anything is stored.
	data := make([][]byte, len(files))
	for i, name := range files {
		b, err := readLimited(name)
		if err != nil {
			return usageError{err.Error()}
		}
		data[i] = b
	}
	return withConfigStore(ctx, func(cfg config, s *db.Store) error {
		vault := comex.New(comex.Deps{Store: s})
		for i, name := range files {
			got, err := vault.ImportXLS(ctx, data[i], filepath.Base(name))
			if err != nil {
				if e, ok := apperr.As(err); ok && e.Kind != apperr.Internal {
					return usageError{fmt.Sprintf("%s: %s", name, e.Msg)}
				}
				return fmt.Errorf("%s: %w", name, err)
			}
			for _, r := range got {
				fmt.Fprintf(stdout, "%s: %s %s registered %s oz, eligible %s oz, combined %s oz (%d depositories)\n",
					filepath.Base(name), r.Metal, r.ActivityDate.Format(time.DateOnly), r.Registered.StringFixed(3), r.Eligible.StringFixed(3), r.Combined.StringFixed(3), len(r.Depositories))
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
	fs := quietFlags("vault open-interest")
	metal := fs.String("metal", "", "gold, silver, platinum or palladium")
	contracts := fs.String("contracts", "", "open contracts of the metal's main COMEX future")
	date := fs.String("date", "", "day of the figure, YYYY-MM-DD (default today, UTC)")
	if err := fs.Parse(args); err != nil {
		return usageError{flagError(err).Error()}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	}
	if *metal == "" || *contracts == "" {
		return usageError{"--metal and --contracts are required"}
	}
	in, err := openInterestInput(*metal, *contracts, *date)
	if err != nil {
		return err
	}
	return withConfigStore(ctx, func(cfg config, s *db.Store) error {
		oi, err := comex.New(comex.Deps{Store: s}).SetOpenInterest(ctx, in)
		if fields := apperr.FieldsOf(err); len(fields) > 0 {
			return usageError{"--" + fieldLine(fields[0])}
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s open interest on %s: %d contracts\n", oi.Metal, oi.Day.Format(time.DateOnly), oi.Contracts)
		return nil
	})
}

// openInterestInput reads the flags as the operator typed them (metal in any letter case);
// whether the values make sense is the service's call.
func openInterestInput(metal, contracts, date string) (comex.OpenInterest, error) {
	m, err := metals.Parse(metal)
	if err != nil {
		return comex.OpenInterest{}, usageError{"--metal must be one of gold, silver, platinum, palladium"}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(contracts), 10, 64)
	if err != nil {
		return comex.OpenInterest{}, usageError{"--contracts must be a positive whole number of contracts"}
	}
	in := comex.OpenInterest{Metal: m, Contracts: n}
	if d := strings.TrimSpace(date); d != "" {
		if in.Day, err = time.Parse(time.DateOnly, d); err != nil {
			return comex.OpenInterest{}, usageError{"--date must be a date as YYYY-MM-DD"}
		}
	}
	return in, nil
}
