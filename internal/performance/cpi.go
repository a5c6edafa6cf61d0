package performance

import (
	"bufio"
	"bytes"
	"embed"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/shopspring/decimal"
)

//go:embed cpi/*.csv
var cpiFS embed.FS

// CPISeries is a monthly consumer price index: the economy's inflation that a currency's
// real return is measured against.
type CPISeries struct {
	// Name says what the series is, for answers ("US CPI-U (BLS CUUR0000SA0)").
	Name string
	file string
	once sync.Once
	// months maps "YYYY-MM" to the index; first and last are the months it covers.
	months      map[string]decimal.Decimal
	first, last string
}

// cpiByCurrency names the series of each currency's economy (see cpi/SOURCES.md). A
// currency not listed has none, and its real return says so.
var cpiByCurrency = map[string]*CPISeries{
	"USD": {Name: "US CPI-U, all items, not seasonally adjusted (BLS CUUR0000SA0)", file: "cpi/us_cpi_u.csv"},
	"GBP": {Name: "UK CPI, all items (ONS D7BT)", file: "cpi/uk_cpi.csv"},
	"EUR": {Name: "Euro area HICP, all items (Eurostat, euro area 19)", file: "cpi/ea_hicp.csv"},
}

// CPIFor is the consumer price index of a currency's economy, nil when there is none.
func CPIFor(currency string) *CPISeries { return cpiByCurrency[strings.ToUpper(currency)] }

func (c *CPISeries) load() {
	c.once.Do(func() {
		b, err := cpiFS.ReadFile(c.file)
		if err != nil {
			panic(fmt.Sprintf("embedded %s: %v", c.file, err)) // a build without the files is broken
		}
		c.months = map[string]decimal.Decimal{}
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			month, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), ",")
			if !ok || month == "month" {
				continue
			}
			d, err := decimal.NewFromString(v)
			if err != nil {
				panic(fmt.Sprintf("embedded %s: %s: %v", c.file, month, err))
			}
			c.months[month] = d
			if c.first == "" || month < c.first {
				c.first = month
			}
			if month > c.last {
				c.last = month
			}
		}
	})
}

// Index is the series' index for the month of day.
func (c *CPISeries) Index(day time.Time) (decimal.Decimal, bool) {
	c.load()
	v, ok := c.months[day.Format("2006-01")]
	return v, ok
}

// Last is the newest month the series covers.
func (c *CPISeries) Last() time.Time {
	c.load()
	t, _ := time.Parse("2006-01", c.last)
	return t
}

// realReturn deflates a nominal return (a ratio, 0.1 for 10 %) by the index's change
// between the months of start and end: (1 + nominal) / (CPI_end / CPI_start) − 1. When the
// series ends before end's month, its newest month stands in and note says inflation after
// it is not counted; a start month the series does not hold gives no figure.
func (c *CPISeries) realReturn(nominal decimal.Decimal, start, end time.Time) (real decimal.Decimal, note string, ok bool) {
	c.load()
	a, okA := c.Index(start)
	if !okA {
		return decimal.Zero, fmt.Sprintf("%s has no index for %s", c.Name, start.Format("January 2006")), false
	}
	b, okB := c.Index(end)
	if !okB {
		last := c.Last()
		if end.Before(last) {
			return decimal.Zero, fmt.Sprintf("%s has no index for %s", c.Name, end.Format("January 2006")), false
		}
		b = c.months[c.last]
		note = fmt.Sprintf("the newest %s index is of %s: inflation after it is not counted", c.Name, last.Format("January 2006"))
	}
	real = nominal.Add(decimal.NewFromInt(1)).Mul(a).DivRound(b, 12).Sub(decimal.NewFromInt(1))
	return real, note, true
}
