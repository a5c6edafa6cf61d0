package comex

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/outbound"
)

// DefaultBaseURL is where CME publishes the depository reports.
const DefaultBaseURL = "https://www.cmegroup.com"

// MaxReportBytes caps a download. Real reports are about 20 KiB; the cap only
// exists so a misbehaving server cannot make Ounce buffer without end.
const MaxReportBytes = 10 << 20

// DefaultTimeout bounds a fetch whose context carries no deadline of its own, so a
// stalled connection cannot hold a background job forever.
const DefaultTimeout = 30 * time.Second

// UserAgent is sent with every request. CME's CDN turns away obvious scripts, so
// the fetcher presents itself the way a desktop browser does.
const UserAgent = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36"

// Source yields the latest CME reports for a metal. Fetcher is the live
// implementation; tests and offline mode can supply their own.
type Source interface {
	Fetch(ctx context.Context, m metals.Metal) ([]Report, error)
}

// Fetcher downloads and parses the live CME depository workbooks.
type Fetcher struct {
	base   string
	client *http.Client
}

var _ Source = (*Fetcher)(nil)

// NewFetcher returns a Fetcher for the CME site at baseURL (DefaultBaseURL when
// empty). A nil client means the outbound policy's operator client (the CME host is trusted,
// a redirect to another host must be public); timeouts come from the context.
func NewFetcher(baseURL string, client *http.Client) *Fetcher {
	if baseURL == "" {
		baseURL = DefaultBaseURL
	}
	if client == nil {
		client = outbound.OperatorClient(outbound.Options{})
	}
	return &Fetcher{base: strings.TrimRight(baseURL, "/"), client: client}
}

// ReportPath is the path of the workbook that carries a metal's report. Platinum
// and palladium share one file.
func ReportPath(m metals.Metal) (string, error) {
	switch m {
	case metals.Gold:
		return "/delivery_reports/Gold_Stocks.xls", nil
	case metals.Silver:
		return "/delivery_reports/Silver_stocks.xls", nil
	case metals.Platinum, metals.Palladium:
		return "/delivery_reports/PA-PL_Stck_Rprt.xls", nil
	}
	return "", fmt.Errorf("comex: no CME stocks report for metal %q", m)
}

// Fetch downloads the workbook for m and returns only m's report(s) from it. The
// whole file must parse and validate, so a damaged PA-PL file fails for both metals
// rather than serving one half of it.
func (f *Fetcher) Fetch(ctx context.Context, m metals.Metal) ([]Report, error) {
	path, err := ReportPath(m)
	if err != nil {
		return nil, err
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultTimeout)
		defer cancel()
	}
	url := f.base + path
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("comex: %w", err)
	}
	req.Header.Set("User-Agent", UserAgent)
	req.Header.Set("Accept", "application/vnd.ms-excel,application/octet-stream;q=0.9,*/*;q=0.8")
	resp, err := f.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("comex: fetch %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("comex: fetch %s: HTTP %d", url, resp.StatusCode)
	}
	if ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); ct == "text/html" {
		return nil, fmt.Errorf("comex: fetch %s: %w: server sent an HTML page (blocked or moved)", url, ErrNotXLS)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxReportBytes+1))
	if err != nil {
		return nil, fmt.Errorf("comex: fetch %s: %w", url, err)
	}
	if len(body) > MaxReportBytes {
		return nil, fmt.Errorf("comex: fetch %s: body larger than %d bytes", url, MaxReportBytes)
	}
	all, err := ParseXLS(body)
	if err != nil {
		return nil, fmt.Errorf("comex: fetch %s: %w", url, err)
	}
	var out []Report
	for _, r := range all {
		if r.Metal == m {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("comex: fetch %s: %w", url, errNoSection(m))
	}
	return out, nil
}

func errNoSection(m metals.Metal) error {
	return errors.New("workbook has no " + strings.ToUpper(string(m)) + " section")
}
