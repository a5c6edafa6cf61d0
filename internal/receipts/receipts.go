// Package receipts is the receipt-scanning service: a photo, scan, PDF or e-mail of a dealer's
// order becomes proposed holdings — dealer, order number and date, and each bullion line with
// its metal, quantity, fine weight, prices and catalogue product — for the member to check and
// correct. No holding is stored until they confirm, and then the lines go into their holdings
// as one all-or-nothing import through the portfolio service's CSV import, in the currency
// the receipt prints (else the member's display currency, said to be assumed). Files are read
// in a temporary directory by pdftotext, pdftoppm, ImageMagick and tesseract under a timeout
// and memory cap. A Gold member's photo or PDF waits with its scan (a day at most) and is
// attached to the lots the confirmation creates, through the documents service; the time of
// each scan is kept for the scan limits.
package receipts

import (
	"bytes"
	"cmp"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/format"
	"github.com/ouncehq/ounce/internal/fx"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/portfolio"
	"github.com/ouncehq/ounce/internal/wallclock"
)

// Config are the service's settings (OUNCE_RECEIPT_* in cmd/ounce).
type Config struct {
	// FreeScans is how many scans a free member has per FreeWindow (default 5 per 30 days).
	FreeScans  int
	FreeWindow time.Duration
	// GoldScansPerHour caps Gold members, whose scans are otherwise unlimited (default 60).
	GoldScansPerHour int
	// ToolTimeout bounds each run of an external tool (default 20 s).
	ToolTimeout time.Duration
	// ToolMemoryMB caps each tool's address space through prlimit (default 1024).
	ToolMemoryMB int
	// ScanTimeout bounds a whole scan, every tool run of it together (default 60 s).
	ScanTimeout time.Duration
	// ScanSlots is how many files are read at once (default one per core), and QueueWait how
	// long a scan waits for a free slot before it is refused with 503 (default 3 s).
	ScanSlots int
	QueueWait time.Duration
	// TempDir is where uploads are unpacked for the tools (default the system's).
	TempDir string
}

// withDefaults fills unset settings.
func (c Config) withDefaults() Config {
	if c.FreeScans <= 0 {
		c.FreeScans = 5
	}
	if c.FreeWindow <= 0 {
		c.FreeWindow = 30 * 24 * time.Hour
	}
	if c.GoldScansPerHour <= 0 {
		c.GoldScansPerHour = 60
	}
	if c.ToolTimeout <= 0 {
		c.ToolTimeout = 20 * time.Second
	}
	if c.ToolMemoryMB <= 0 {
		c.ToolMemoryMB = 1024
	}
	if c.ScanTimeout <= 0 {
		c.ScanTimeout = 60 * time.Second
	}
	if c.ScanSlots <= 0 {
		c.ScanSlots = runtime.NumCPU()
	}
	if c.QueueWait <= 0 {
		c.QueueWait = 3 * time.Second
	}
	return c
}

// Deps are what the service is built from.
type Deps struct {
	Store *db.Store
	// Portfolio stores confirmed lines through its import.
	Portfolio *portfolio.Service
	Config    Config
	Now       func() time.Time
	Logger    *slog.Logger
	// LookPath finds the tools (exec.LookPath when nil); tests hide one to see the 503.
	LookPath func(string) (string, error)
	// Documents keeps a confirmed receipt on the lots it created; nil keeps no file.
	Documents Documents
}

// Service holds the receipt use cases.
type Service struct {
	store     Store
	portfolio *portfolio.Service
	docs      Documents
	cfg       Config
	now       func() time.Time
	log       *slog.Logger
	tools     *runner
	// slots holds one token per file being read: OCR takes a core for seconds to minutes.
	slots chan struct{}
}

// New builds the service. Without prlimit on the machine the tools run with their timeout and
// ImageMagick's own limits only, and a warning says so once.
func New(d Deps) *Service {
	s := &Service{store: d.Store, portfolio: d.Portfolio, docs: d.Documents, cfg: d.Config.withDefaults(), now: d.Now, log: d.Logger}
	s.now = wallclock.Or(s.now)
	s.log = cmp.Or(s.log, slog.Default())
	look := d.LookPath
	if look == nil {
		look = exec.LookPath
	}
	s.slots = make(chan struct{}, s.cfg.ScanSlots)
	s.tools = &runner{memBytes: int64(s.cfg.ToolMemoryMB) << 20, timeout: s.cfg.ToolTimeout, scanTimeout: s.cfg.ScanTimeout, look: look}
	if p, err := look(toolPrlimit); err == nil {
		s.tools.prlimit = p
	} else {
		s.log.Warn("receipts: prlimit not found (util-linux); scanning tools run without a memory cap")
	}
	if s.cfg.TempDir == "" {
		s.cfg.TempDir = os.TempDir()
	}
	return s
}

// Receipt is what a scan proposes. Amounts that are not on the receipt are not Valid.
type Receipt struct {
	Dealer      string
	OrderNumber string
	// OrderDate is the zero Date when none was found.
	OrderDate db.Date
	Items     []Item
	Subtotal  decimal.NullDecimal
	Shipping  decimal.NullDecimal
	Tax       decimal.NullDecimal
	Fees      decimal.NullDecimal
	Total     decimal.NullDecimal
	Warnings  []Warning
	// TextConfidence is how sure the text reading is, 0–1: 1 for a PDF's or e-mail's own text,
	// tesseract's mean word confidence for images.
	TextConfidence float64
	// Source is the kind of file read, and Pages how many pages it had.
	Source Kind
	Pages  int
	// ScansLeft is how many scans the member has left in the current window (after this one).
	ScansLeft int
	// Currency is the ISO 4217 code the amounts are in. Parse leaves it "" when the receipt
	// prints no currency; Scan then takes the member's display currency, and CurrencyRead
	// says which: true when it was read from the receipt, false when assumed.
	Currency     string
	CurrencyRead bool
	// ScanID is the scan the member's file is kept with until they confirm it (0: not kept,
	// as for a text receipt, which cannot be a lot's document), and KeepNote why not.
	ScanID   int64
	KeepNote string
	// dollarOnly is true when the only sign was a bare "$".
	dollarOnly bool
	// discount is any discount line, only for the arithmetic check.
	discount decimal.NullDecimal
}

// Item is one proposed bullion line.
type Item struct {
	ProductName string
	// Metal is "" when neither a word nor the price told it.
	Metal    metals.Metal
	Quantity int64
	// WeightOz is the fine weight per unit in troy ounces (zero when unread); for junk silver
	// it is the unit's face value × the catalogue's ounces per $1 face.
	WeightOz  decimal.Decimal
	UnitPrice decimal.NullDecimal
	LineTotal decimal.NullDecimal
	// ProductID is the catalogue product (internal/metals) the line matched, or "".
	ProductID string
	// Fees is the line's share of the order's shipping, tax and fees, by line value.
	Fees decimal.Decimal

	face   decimal.Decimal
	purity int
	notes  []string
}

// Warning is something the member should check: a field of an item (Item ≥ 0) or of the
// receipt (Item = -1), and why.
type Warning struct {
	Item    int
	Field   string
	Message string
}

// Path is the warning's field as a path: "total", "items[2].line_total".
func (w Warning) Path() string {
	if w.Item < 0 {
		return w.Field
	}
	return fmt.Sprintf("items[%d].%s", w.Item, w.Field)
}

// feature names what needs an account in messages.
const feature = "receipt scanning"

// errScanDeadline is the cause of a scan's context ending at ScanTimeout.
var errScanDeadline = errors.New("receipt scan deadline")

// acquire takes a reading slot, waiting at most QueueWait; the release func gives it back.
// A scan that finds every core busy is told to come back rather than queue behind minutes
// of OCR (503 with Retry-After), and its scan is not counted.
func (s *Service) acquire(ctx context.Context) (func(), error) {
	release := func() { <-s.slots }
	select {
	case s.slots <- struct{}{}:
		return release, nil
	default:
	}
	t := time.NewTimer(s.cfg.QueueWait)
	defer t.Stop()
	select {
	case s.slots <- struct{}{}:
		return release, nil
	case <-t.C:
		return nil, &apperr.Error{Kind: apperr.Unavailable, RetryAfter: retryBusy,
			Msg: "every receipt reader is busy; try again in a few seconds"}
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// retryBusy is the Retry-After of a scan refused because every slot was busy.
const retryBusy = 5 * time.Second

// Scan reads an upload and proposes what it holds. The type comes from the bytes; images
// are checked from their headers before any tool decodes them; the member's scan limit is
// counted only for files that pass those checks. Files that need the tools wait for one of
// ScanSlots, and the whole reading ends at ScanTimeout or when ctx ends (the client left):
// the tools still running are killed.
func (s *Service) Scan(ctx context.Context, u db.User, data []byte) (Receipt, error) {
	if u.ID == 0 {
		return Receipt{}, apperr.New(apperr.Unauthorized, "sign in to use %s", feature)
	}
	if len(data) > MaxFileBytes {
		return Receipt{}, apperr.New(apperr.TooLarge, "the file is larger than %d MB", MaxFileBytes>>20)
	}
	kind, err := Sniff(data)
	if err != nil {
		return Receipt{}, err
	}
	switch kind {
	case KindPNG, KindJPEG:
		if _, _, err := checkImage(kind, data); err != nil {
			return Receipt{}, err
		}
	case KindText:
		if len(data) > MaxTextBytes {
			return Receipt{}, apperr.New(apperr.TooLarge, "a text receipt is at most %d KiB", MaxTextBytes>>10)
		}
	}
	if kind != KindText {
		release, err := s.acquire(ctx)
		if err != nil {
			return Receipt{}, err
		}
		defer release()
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, s.cfg.ScanTimeout, errScanDeadline)
		defer cancel()
	}
	scanID, left, err := s.reserve(ctx, u)
	if err != nil {
		return Receipt{}, err
	}
	var ex extracted
	if kind == KindText {
		ex = extracted{text: textOf(data), confidence: 1, pages: 1}
	} else {
		ex, err = s.extract(ctx, kind, data)
	}
	if err != nil {
		if k := apperr.KindOf(err); k == apperr.Unavailable || k == apperr.Internal {
			// Our failure, not the member's file: the scan does not count.
			if rerr := s.store.ReleaseReceiptScan(context.WithoutCancel(ctx), u.ID, scanID); rerr != nil {
				s.log.Error("receipts: release scan", "err", rerr)
			}
		} else {
			s.log.Warn("receipts: file not read", "kind", kind, "err", err)
		}
		return Receipt{}, err
	}
	r := Parse(ex.text)
	r.TextConfidence, r.Source, r.Pages, r.ScansLeft = ex.confidence, kind, ex.pages, left
	code, read, note := resolveCurrency(currencyRead{Code: r.Currency, DollarOnly: r.dollarOnly}, u.DisplayCurrency)
	r.Currency, r.CurrencyRead = code, read
	if note != "" {
		r.Warnings = append(r.Warnings, Warning{Item: -1, Field: "currency", Message: note})
	}
	allocateFees(&r)
	if ex.ocr && ex.confidence < 0.6 {
		r.Warnings = append(r.Warnings, Warning{Item: -1, Field: "text_confidence", Message: "the image was hard to read; check every line, or try a sharper, straighter photo"})
	}
	s.keepFile(ctx, u, kind, scanID, data, &r)
	return r, nil
}

// keepFile keeps a Gold member's photo or PDF with its scan, for the confirmation to attach
// to the new lots. A text receipt cannot be a lot's document, and a file that cannot be
// kept never fails the scan: KeepNote says why.
func (s *Service) keepFile(ctx context.Context, u db.User, kind Kind, scanID int64, data []byte, r *Receipt) {
	switch {
	case s.docs == nil || !account.IsGold(u):
		return
	case kind == KindText:
		r.KeepNote = "a text receipt is not kept with the lots: only photos and PDFs can be attached"
		return
	}
	if err := s.store.SaveReceiptFile(context.WithoutCancel(ctx), u.ID, scanID, data, s.now()); err != nil {
		s.log.Error("receipts: keep the scanned file", "err", err)
		r.KeepNote = "the file could not be kept to attach to the lots"
		return
	}
	r.ScanID = scanID
}

// reserve counts a scan against the member's limit: free members have FreeScans per
// FreeWindow, Gold members GoldScansPerHour. It returns the scan's id and the scans left.
func (s *Service) reserve(ctx context.Context, u db.User) (int64, int, error) {
	limit, window := s.cfg.FreeScans, s.cfg.FreeWindow
	if account.IsGold(u) {
		limit, window = s.cfg.GoldScansPerHour, time.Hour
	}
	now := s.now()
	id, ok, reset, err := s.store.ReserveReceiptScan(ctx, u.ID, now, window, limit)
	if err != nil {
		return 0, 0, err
	}
	if !ok {
		wait := reset.Sub(now)
		if account.IsGold(u) {
			return 0, 0, apperr.Limited(wait, "%d receipt scans per hour; the next one is possible in %s", limit, roundWait(wait))
		}
		e := apperr.Limited(wait, "free accounts have %d receipt scans per %d days; the next one is possible on %s, or scan without limit with Gold", limit, int(window.Hours()/24), format.Date(reset))
		e.Details = map[string]any{"reset": reset.UTC()}
		return 0, 0, e
	}
	used, err := s.store.ReceiptScansSince(ctx, u.ID, now.Add(-window))
	if err != nil {
		return id, 0, err
	}
	return id, max(0, limit-used), nil
}

func roundWait(d time.Duration) string {
	if d < time.Minute {
		return "under a minute"
	}
	return d.Round(time.Minute).String()
}

// Allowance is a member's scan limit and what is left of it now.
type Allowance struct {
	Limit  int
	Window time.Duration
	Left   int
	Gold   bool
}

// AllowanceFor reports the member's scan limit and how many scans remain in its window.
func (s *Service) AllowanceFor(ctx context.Context, u db.User) (Allowance, error) {
	a := Allowance{Limit: s.cfg.FreeScans, Window: s.cfg.FreeWindow, Gold: account.IsGold(u)}
	if a.Gold {
		a.Limit, a.Window = s.cfg.GoldScansPerHour, time.Hour
	}
	used, err := s.store.ReceiptScansSince(ctx, u.ID, s.now().Add(-a.Window))
	if err != nil {
		return a, err
	}
	a.Left = max(0, a.Limit-used)
	return a, nil
}

// allocateFees spreads the order's shipping, tax and fees (less discounts) over the lines in
// proportion to their value, to the cent; the largest line takes the rounding remainder, so
// the shares add up exactly. They become the lots' fees, part of their cost basis.
func allocateFees(r *Receipt) {
	extra := decimal.Zero
	for _, x := range []decimal.NullDecimal{r.Shipping, r.Tax, r.Fees} {
		if x.Valid {
			extra = extra.Add(x.Decimal)
		}
	}
	if r.discount.Valid {
		extra = extra.Sub(r.discount.Decimal)
	}
	value := make([]decimal.Decimal, len(r.Items))
	sum, big := decimal.Zero, -1
	for i, it := range r.Items {
		switch {
		case it.LineTotal.Valid:
			value[i] = it.LineTotal.Decimal
		case it.UnitPrice.Valid:
			value[i] = it.UnitPrice.Decimal.Mul(decimal.NewFromInt(it.Quantity))
		}
		sum = sum.Add(value[i])
		if big < 0 || value[i].GreaterThan(value[big]) {
			big = i
		}
	}
	if !extra.IsPositive() || !sum.IsPositive() {
		return
	}
	given := decimal.Zero
	for i := range r.Items {
		share := extra.Mul(value[i]).Div(sum).RoundDown(2)
		r.Items[i].Fees = share
		given = given.Add(share)
	}
	r.Items[big].Fees = r.Items[big].Fees.Add(extra.Sub(given))
}

// ConfirmLine is one line the member confirmed, as typed (validated like an imported row).
type ConfirmLine struct {
	Metal, ProductName, Quantity, WeightOz, UnitPrice, Fees string
}

// ConfirmInput is a checked receipt: the lines to add, with the dealer, date and currency
// every lot gets.
type ConfirmInput struct {
	Dealer      string
	OrderNumber string
	// OrderDate is YYYY-MM-DD or empty.
	OrderDate string
	// Currency is the ISO code the prices and fees are in; "" is the member's display currency.
	Currency string
	// ScanID is the scan whose kept file is attached to the new lots (0: none).
	ScanID int64
	Lines  []ConfirmLine
}

// ConfirmResult is what a confirmation added: the import's counts, the new lots' ids and
// currency, and whether the receipt's file was kept on them.
type ConfirmResult struct {
	portfolio.ImportResult
	HoldingIDs []string
	Currency   string
	// Kept is how many of the new lots the receipt's file was attached to; KeepNote says why
	// it was not (or not to all) when a file was sent with the scan.
	Kept     int
	KeepNote string
}

// Confirm adds the confirmed lines to the member's holdings as one all-or-nothing import
// through the portfolio service (the same validation and duplicate rule as a CSV import: a
// line that exactly repeats a holding is skipped, so confirming twice adds nothing twice).
// Problems come back as the import's Unprocessable error, rows counted from 1.
func (s *Service) Confirm(ctx context.Context, u db.User, in ConfirmInput) (ConfirmResult, error) {
	if u.ID == 0 {
		return ConfirmResult{}, apperr.New(apperr.Unauthorized, "sign in to add holdings")
	}
	if !account.IsGold(u) {
		return ConfirmResult{}, apperr.Membership("adding scanned lines to holdings")
	}
	switch {
	case len(in.Lines) == 0:
		return ConfirmResult{}, apperr.InvalidField("items", "choose at least one line to add")
	case len(in.Lines) > MaxItems:
		return ConfirmResult{}, apperr.InvalidField("items", fmt.Sprintf("at most %d lines at once", MaxItems))
	case in.ScanID < 0:
		return ConfirmResult{}, apperr.InvalidField("scan_id", "must be the scan_id a scan answered")
	}
	cur := strings.ToUpper(strings.TrimSpace(in.Currency))
	if supported := fx.DisplayCurrencies(); cur != "" && !slices.Contains(supported, cur) {
		return ConfirmResult{}, apperr.InvalidField("currency", fmt.Sprintf("unknown currency %q; supported: %s", strings.TrimSpace(in.Currency), strings.Join(supported, ", ")))
	}
	notes := "From a scanned receipt"
	if on := strings.TrimSpace(in.OrderNumber); on != "" {
		if len(on) > MaxOrderNumber {
			return ConfirmResult{}, apperr.InvalidField("order_number", fmt.Sprintf("must be at most %d characters", MaxOrderNumber))
		}
		notes += ", order " + on
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	_ = w.Write([]string{"metal", "product_name", "quantity", "weight_oz", "purchase_price", "fees", "dealer", "purchase_date", "notes", portfolio.CSVCurrencyColumn})
	for _, l := range in.Lines {
		_ = w.Write([]string{strings.TrimSpace(l.Metal), portfolio.CSVCell(strings.TrimSpace(l.ProductName)), plainNumber(l.Quantity),
			plainNumber(l.WeightOz), plainNumber(l.UnitPrice), plainNumber(l.Fees), portfolio.CSVCell(strings.TrimSpace(in.Dealer)),
			strings.TrimSpace(in.OrderDate), portfolio.CSVCell(notes), cur})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return ConfirmResult{}, err
	}
	rows, sales, err := s.portfolio.ImportRows(ctx, u, buf.Bytes())
	if err != nil {
		return ConfirmResult{}, err
	}
	res, ids, err := s.store.ImportReceiptHoldings(ctx, u.ID, rows, sales, portfolio.DecideSale, portfolio.ReplayDisposal)
	if err != nil {
		return ConfirmResult{}, err
	}
	out := ConfirmResult{ImportResult: portfolio.ImportResult{Imported: res.Imported, SkippedDuplicates: len(res.Duplicates), Sales: res.Sales},
		HoldingIDs: []string{}}
	if len(rows) > 0 {
		out.Currency = rows[0].PurchaseCurrency
	}
	for _, id := range ids {
		if id != "" {
			out.HoldingIDs = append(out.HoldingIDs, id)
		}
	}
	if in.ScanID > 0 {
		s.attach(ctx, u, in, &out)
	}
	return out, nil
}

// attach keeps the confirmed scan's file on each lot the confirmation created, through the
// documents service and its limits, then forgets the scan's copy. A file that cannot be
// kept (gone, refused, the member's documents full) never undoes the lots: KeepNote says why.
func (s *Service) attach(ctx context.Context, u db.User, in ConfirmInput, out *ConfirmResult) {
	if s.docs == nil || len(out.HoldingIDs) == 0 {
		return
	}
	ctx = context.WithoutCancel(ctx)
	body, err := s.store.ReceiptFile(ctx, u.ID, in.ScanID, s.now())
	switch {
	case errors.Is(err, db.ErrNotFound):
		out.KeepNote = fmt.Sprintf("the receipt was not kept with the lots: the scan's file is no longer held (it is held at most %d hours, until the first confirmation of the scan); scan it again to keep it", int(db.ReceiptFileRetention.Hours()))
		return
	case err != nil:
		s.log.Error("receipts: read the kept file", "err", err)
		out.KeepNote = "the receipt was not kept with the lots: its file could not be read"
		return
	}
	name := receiptName(in)
	for _, id := range out.HoldingIDs {
		if _, err := s.docs.Upload(ctx, u, id, name, body); err != nil {
			why := "it could not be stored"
			if k := apperr.KindOf(err); k != apperr.Internal && k != apperr.Unavailable {
				if e, ok := apperr.As(err); ok {
					why = e.Msg
				}
			} else {
				s.log.Error("receipts: attach the receipt", "err", err)
			}
			if out.Kept == 0 {
				out.KeepNote = "the receipt was not kept with the lots: " + why
			} else {
				out.KeepNote = fmt.Sprintf("the receipt was kept on %d of the %d new lots: %s", out.Kept, len(out.HoldingIDs), why)
			}
			break
		}
		out.Kept++
	}
	if err := s.store.DeleteReceiptFile(ctx, u.ID, in.ScanID); err != nil {
		s.log.Error("receipts: forget the kept file", "err", err)
	}
}

// decimalCommaCell is a typed amount with a decimal comma: "34,10", "€ 1234,5".
var decimalCommaCell = regexp.MustCompile(`^[^\d,.]*\d+,\d{1,2}$`)

// receiptName is the kept receipt's file name: "Receipt APMEX 71230045 2026-03-14" (the
// documents service adds the type's extension).
func receiptName(in ConfirmInput) string {
	parts := []string{"Receipt"}
	for _, p := range []string{in.Dealer, in.OrderNumber, in.OrderDate} {
		if p = strings.Join(strings.Fields(p), " "); p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, " ")
}

// plainNumber accepts what people type in a price or quantity cell: "$1,234.50" is 1234.50,
// "€ 34.10" is 34.10, and a decimal comma "34,10" is 34.10.
func plainNumber(s string) string {
	if decimalCommaCell.MatchString(strings.TrimSpace(s)) {
		s = strings.Replace(s, ",", ".", 1)
	}
	return strings.NewReplacer("$", "", ",", "", " ", "", "€", "", "£", "", "¥", "", "\u00a0", "").Replace(strings.TrimSpace(s))
}
