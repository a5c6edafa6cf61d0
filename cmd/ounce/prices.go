package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/prices"
)

// cmdPrices handles `ounce prices import --metal M FILE.csv`.
func cmdPrices(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, err := subcommandFlags(args, "prices", "import", "prices needs the subcommand import: ounce prices import --metal M FILE.csv")
	if err != nil {
		return err
	}
	metal := fs.String("metal", "", "gold, silver, platinum or palladium")
	gran := fs.String("granularity", db.Daily, "daily or monthly")
	if err := parseInterspersed(fs, args[1:]); err != nil {
		return usageError{err.Error()}
	}
	if *metal == "" {
		return usageError{"--metal is required (gold, silver, platinum or palladium)"}
	}
	m, err := metals.Parse(*metal)
	if err != nil {
		return usageError{"--metal: " + err.Error()}
	}
	if *gran != db.Daily && *gran != db.Monthly {
		return usageError{"--granularity must be daily or monthly"}
	}
	if fs.NArg() != 1 {
		return usageError{"give exactly one CSV file (header date,usd_per_oz)"}
	}
	f, err := os.Open(fs.Arg(0))
	if err != nil {
		return usageError{err.Error()}
	}
	defer f.Close()
	closes, err := prices.ParseImport(f, m)
	if err != nil {
		return usageError{fmt.Sprintf("%s: %v", fs.Arg(0), err)}
	}
	return withConfigStore(ctx, func(cfg config, s *db.Store) error {
		bar := newProgress(stderr, len(closes))
		if err := prices.ImportCloses(ctx, s, m, *gran, closes, "import:"+fs.Arg(0), bar.set); err != nil {
			return err
		}
		bar.done()
		fmt.Fprintf(stdout, "imported %d %s %s closes (%s to %s)\n", len(closes), m, *gran, closes[0].Date.Format(time.DateOnly), closes[len(closes)-1].Date.Format(time.DateOnly))
		return nil
	})
}

// progress draws a bar on a terminal and stays silent when output is redirected.
type progress struct {
	w     io.Writer
	total int
	tty   bool
}

func newProgress(w io.Writer, total int) *progress {
	tty := false
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			tty = true
		}
	}
	return &progress{w: w, total: total, tty: tty}
}

func (p *progress) set(n int) {
	if !p.tty || p.total == 0 {
		return
	}
	const width = 30
	filled := n * width / p.total
	bar := make([]byte, width)
	for i := range bar {
		if i < filled {
			bar[i] = '#'
		} else {
			bar[i] = '.'
		}
	}
	fmt.Fprintf(p.w, "\r[%s] %d/%d", bar, n, p.total)
}

func (p *progress) done() {
	if p.tty {
		fmt.Fprintln(p.w)
	}
}
