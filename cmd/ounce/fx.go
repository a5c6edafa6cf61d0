package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/fx"
)

// cmdFX handles `ounce fx import FILE`: all rows or none, one line per bad row, exit 2.
func cmdFX(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, err := subcommandFlags(args, "fx", "import", "fx needs the subcommand import: ounce fx import FILE.csv")
	if err != nil {
		return err
	}
	if err := parseInterspersed(fs, args[1:]); err != nil {
		return usageError{err.Error()}
	}
	if fs.NArg() != 1 {
		return usageError{"give exactly one CSV file (header " + fx.ImportHeader + ", units of the currency per 1 EUR)"}
	}
	name := fs.Arg(0)
	f, err := os.Open(name)
	if err != nil {
		return usageError{err.Error()}
	}
	defer f.Close()
	return withConfigStore(ctx, func(cfg config, s *db.Store) error {
		svc := fx.New(fx.Deps{Store: s, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		rows, err := svc.ParseImport(ctx, f, "import:"+name)
		var bad fx.RowErrors
		if errors.As(err, &bad) {
			for _, line := range bad {
				fmt.Fprintf(stderr, "ounce: %s: %s\n", name, line)
			}
			return usageError{fmt.Sprintf("%s: %d bad row(s); nothing was imported", name, len(bad))}
		}
		if err != nil {
			return err
		}
		if err := svc.Import(ctx, rows); err != nil {
			return err
		}
		first, last := rows[0].Day, rows[0].Day
		for _, r := range rows {
			first, last = minDate(first, r.Day), maxDate(last, r.Day)
		}
		fmt.Fprintf(stdout, "imported %d exchange rates (%s to %s)\n", len(rows), first, last)
		return nil
	})
}

func minDate(a, b db.Date) db.Date {
	if b.Before(a.Time) {
		return b
	}
	return a
}

func maxDate(a, b db.Date) db.Date {
	if b.After(a.Time) {
		return b
	}
	return a
}
