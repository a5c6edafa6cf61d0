package prices

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/metals"
)

// The openly licensed history (OUNCE_HISTORY=open): the World Bank's monthly "Pink Sheet"
// prices of gold, silver and platinum since 1960, under CC BY 4.0. history/open/SOURCES.md
// says where the file comes from and what its licence covers.
//
//go:embed history/open/worldbank_monthly.csv
var openHistoryCSV []byte

// OpenHistorySource is the source stored with every open close; pages that chart them credit
// the World Bank with OpenHistoryAttribution.
const OpenHistorySource = "World Bank Pink Sheet monthly average, CC BY 4.0 (open history)"

// OpenHistoryAttribution is the credit the World Bank's terms ask for.
const OpenHistoryAttribution = "Monthly prices since 1960: The World Bank, Commodity Price Data (The Pink Sheet), CC BY 4.0"

const openMark = "(open history)"

// OpenHistory parses the embedded World Bank file into monthly averages per metal.
func OpenHistory() (map[metals.Metal][]Close, error) {
	out := map[metals.Metal][]Close{}
	sc := bufio.NewScanner(bytes.NewReader(openHistoryCSV))
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if line == 1 {
			if text != "month,metal,usd_per_oz" {
				return nil, fmt.Errorf("open history line 1: header %q", text)
			}
			continue
		}
		f := strings.Split(text, ",")
		if len(f) != 3 {
			return nil, fmt.Errorf("open history line %d: want month,metal,usd_per_oz", line)
		}
		d, err := time.Parse("2006-01", f[0])
		if err != nil {
			return nil, fmt.Errorf("open history line %d: month %q", line, f[0])
		}
		m, err := metals.Parse(f[1])
		if err != nil {
			return nil, fmt.Errorf("open history line %d: %w", line, err)
		}
		p, err := decimal.NewFromString(f[2])
		if err != nil || !p.IsPositive() {
			return nil, fmt.Errorf("open history line %d: price %q", line, f[2])
		}
		out[m] = append(out[m], Close{Date: d, Price: p})
	}
	return out, sc.Err()
}

// ensureOpenHistory makes the stored history the open one: the licensed embedded series go
// (closes the server recorded itself, imports and corrections stay), and the World Bank
// monthly series is written once.
func (s *Service) ensureOpenHistory(ctx context.Context) error {
	if n, err := s.store.DeleteClosesFrom(ctx, embeddedMark); err != nil {
		return err
	} else if n > 0 {
		s.log.Info("OUNCE_HISTORY=open: removed the licensed embedded history", "closes", n)
	}
	n, err := s.store.CountClosesFrom(ctx, openMark)
	if err != nil || n > 0 {
		return err
	}
	series, err := OpenHistory()
	if err != nil {
		return err
	}
	var rows []db.PriceClose
	for _, m := range metals.All {
		for _, c := range series[m] {
			rows = append(rows, db.PriceClose{Metal: string(m), Granularity: db.Monthly, Day: db.NewDate(c.Date), Price: c.Price, Source: OpenHistorySource})
		}
	}
	return s.store.InsertMissingCloses(ctx, rows)
}
