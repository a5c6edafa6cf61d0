package handlers

import (
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/prices"
	"github.com/ouncehq/ounce/views/components"
	"github.com/ouncehq/ounce/views/pages"
)

// pfDashboardRows caps the dashboard's holdings table; the holdings page lists everything.
const pfDashboardRows = 100

// tone classifies a signed amount for colouring: up, down or flat.
func pfTone(d *decimal.Decimal) string {
	switch {
	case d == nil || d.IsZero():
		return "flat"
	case d.IsPositive():
		return "up"
	}
	return "down"
}

// signedUSD renders +$1,234.56 / −$1,234.56, or — when unknown.
func pfSignedUSD(d *decimal.Decimal) string {
	if d == nil {
		return "—"
	}
	s := usd(d.Abs())
	switch {
	case d.IsNegative() && !metals.Money(*d).IsZero():
		return "−" + s
	case d.IsPositive() && !metals.Money(*d).IsZero():
		return "+" + s
	}
	return s
}

// signedPct renders +1.23% / −1.23%, or — when unknown.
func pfSignedPct(d *decimal.Decimal) string {
	if d == nil {
		return "—"
	}
	r := metals.Percent(*d)
	s := r.Abs().StringFixed(2) + "%"
	switch {
	case r.IsNegative():
		return "−" + s
	case r.IsPositive():
		return "+" + s
	}
	return s
}

func pfUSDOrDash(d *decimal.Decimal) string {
	if d == nil {
		return "—"
	}
	return usd(*d)
}

// live reports whether pages can follow the price feed's event stream.
func (h *Handlers) pfLive() bool { return h.market != nil }

func (h *Handlers) pfSummaryView(v pfValuation) pages.DashboardSummaryView {
	pl := pfSub(v.totalValue, v.totalCost)
	out := pages.DashboardSummaryView{
		Live: h.pfLive(), TotalValue: pfUSDOrDash(v.totalValue), TotalCost: usd(v.totalCost),
		UnrealizedPL: pfSignedUSD(pl), UnrealizedPLPct: pfSignedPct(pfPctOf(pl, v.totalCost)), PLTone: pfTone(pl),
		DayChange: pfSignedUSD(v.dayChange), DayTone: pfTone(v.dayChange), RealizedPL: pfSignedUSD(&v.realized), RealizedTone: pfTone(&v.realized),
		Stale: v.stale, Count: strconv.FormatInt(v.lots, 10),
	}
	if v.dayChange != nil {
		out.DayChangePct = pfSignedPct(pfPctOf(v.dayChange, v.prevValue))
	}
	if !v.asOf.IsZero() {
		out.AsOf = v.asOf.UTC().Format("2 Jan 2006 15:04 UTC")
	}
	donut := components.Donut{ID: "allocation", Title: "Allocation by value"}
	var parts []string
	for _, mv := range v.metals {
		t := mv.t
		row := pages.BreakEvenRow{Metal: string(t.Metal), Title: t.Metal.Title(), Held: t.HeldOz.IsPositive(),
			Oz: ounces(t.HeldOz).String(), Cost: usd(t.HeldCost), BreakEven: "—", Spot: "—", Distance: "—", DistanceTone: "flat"}
		if mv.spot != nil {
			row.Spot = usd(mv.spot.Price)
		}
		if t.HeldOz.IsPositive() {
			be := t.HeldCost.Div(t.HeldOz)
			row.BreakEven = usd(be)
			if mv.spot != nil && mv.spot.Price.IsPositive() {
				d := metals.PctChange(mv.spot.Price, be)
				row.Distance = pfSignedPct(&d)
				// Spot above break-even (negative distance) is good news.
				row.DistanceTone = pfTone(pfPtr(d.Neg()))
			}
		}
		out.BreakEven = append(out.BreakEven, row)
		if mv.alloc != nil && mv.alloc.IsPositive() {
			f, _ := mv.alloc.Float64() // drawing only; the label keeps the exact share
			s := components.DonutSlice{Metal: string(t.Metal), Label: t.Metal.Title(), Pct: pct(*mv.alloc).String() + "%", Value: pfUSDOrDash(mv.value), Frac: f}
			donut.Slices = append(donut.Slices, s)
			parts = append(parts, s.Label+" "+s.Pct)
		}
	}
	switch {
	case v.totalValue == nil:
		donut.Note = "Allocation needs a price for every metal you hold."
	case len(donut.Slices) == 0:
		donut.Note = "Nothing held yet."
	default:
		donut.Desc = "Share of the stack's value by metal: " + strings.Join(parts, ", ") + "."
	}
	out.Allocation = donut
	return out
}

var pfSortColumns = []struct {
	key, label string
	right      bool
	defDesc    bool
}{
	{db.LotsByProduct, "Product", false, false},
	{db.LotsByMetal, "Metal", false, false},
	{db.LotsByOz, "Fine oz", true, true},
	{db.LotsByCost, "Cost basis", true, true},
	{db.LotsByValue, "Value", true, true},
	{db.LotsByPL, "P/L", true, true},
	{db.LotsByDate, "Bought", false, true},
}

// holdingsTableView lists the lots still held with live value and P/L, sorted in SQL.
func (h *Handlers) pfHoldingsTable(c *fiber.Ctx, u db.User, sortKey, dir string) (pages.DashboardHoldingsView, error) {
	valid := false
	for _, col := range pfSortColumns {
		if col.key == sortKey {
			valid = true
		}
	}
	if !valid {
		sortKey = db.LotsByValue
	}
	if dir != "asc" && dir != "desc" {
		dir = "desc"
	}
	var snap prices.Snapshot
	if h.market != nil {
		snap = h.market.Snapshot()
	}
	spot := map[metals.Metal]float64{}
	for m, sp := range snap.Prices {
		spot[m], _ = sp.Price.Float64() // ordering only
	}
	lots, total, err := h.store.HeldLots(h.ctx(c), u.ID, sortKey, dir == "desc", spot, pfDashboardRows)
	if err != nil {
		return pages.DashboardHoldingsView{}, err
	}
	v := pages.DashboardHoldingsView{Live: h.pfLive(), Sort: sortKey, Dir: dir, Shown: len(lots), Total: total}
	for _, col := range pfSortColumns {
		sc := pages.SortColumn{Key: col.key, Label: col.label, Right: col.right, AriaSort: "none"}
		next := "asc"
		if col.defDesc {
			next = "desc"
		}
		if col.key == sortKey {
			sc.Active = true
			sc.AriaSort = map[string]string{"asc": "ascending", "desc": "descending"}[dir]
			next = map[string]string{"asc": "desc", "desc": "asc"}[dir]
		}
		q := "?sort=" + col.key + "&dir=" + next
		sc.Href, sc.HXGet = "/"+q, "/dashboard/holdings"+q
		v.Columns = append(v.Columns, sc)
	}
	for _, l := range lots {
		m := metals.Metal(l.Metal)
		name := l.ProductName
		if name == "" {
			name = m.Title() + " (unnamed)"
		}
		row := pages.DashboardHoldingRow{ID: l.ID, Metal: l.Metal, MetalTitle: m.Title(), Product: name,
			Units: strconv.FormatInt(l.Remaining(), 10), Oz: ounces(l.HeldOz).String(), Cost: usd(l.HeldCost),
			Value: "—", PL: "—", PLPct: "", PLTone: "flat", Date: l.PurchaseDate.String()}
		if l.SoldQuantity > 0 {
			row.Units += " of " + strconv.FormatInt(l.Quantity, 10)
		}
		if row.Date == "" {
			row.Date = "—"
		}
		if sp, ok := snap.Prices[m]; ok {
			val := metals.Money(l.HeldOz.Mul(sp.Price))
			pl := val.Sub(l.HeldCost)
			row.Value, row.PL, row.PLTone = usd(val), pfSignedUSD(&pl), pfTone(&pl)
			if p := pfPctOf(&pl, l.HeldCost); p != nil {
				row.PLPct = pfSignedPct(p)
			}
		}
		v.Rows = append(v.Rows, row)
	}
	return v, nil
}

func (h *Handlers) pfChartView(c *fiber.Ctx, u db.User, rng string) (pages.DashboardChartView, error) {
	v := pages.DashboardChartView{Ranges: pfRangeNames()}
	hist, err := h.PortfolioHistory(h.ctx(c), u, rng)
	if err != nil {
		return v, err
	}
	v.Range = hist.Range
	v.Chart = components.Chart{ID: "portfolio-chart", Title: "Stack value and cost basis, " + hist.Range, YPrefix: "$"}
	value := components.ChartSeries{Name: "Value", Class: "stroke-amber-600 dark:stroke-amber-400"}
	cost := components.ChartSeries{Name: "Cost basis", Class: "stroke-slate-400 dark:stroke-slate-500"}
	for _, p := range hist.Points {
		fv, _ := p.Value.D.Float64() // drawing only: labels keep the exact amounts
		fc, _ := p.Cost.D.Float64()
		value.Points = append(value.Points, components.ChartPoint{X: p.Date, Y: fv, Label: usd(p.Value.D)})
		cost.Points = append(cost.Points, components.ChartPoint{X: p.Date, Y: fc, Label: usd(p.Cost.D)})
	}
	v.Chart.Series = []components.ChartSeries{value, cost}
	if n := len(hist.Points); n > 0 {
		first, last := hist.Points[0], hist.Points[n-1]
		v.Chart.Description = "Value of the stack at each daily close from " + first.Date + " to " + last.Date + ": " +
			usd(first.Value.D) + " to " + usd(last.Value.D) + "; cost basis " + usd(first.Cost.D) + " to " + usd(last.Cost.D) + "."
	} else {
		v.Chart.Description = "No daily closes cover your holdings in this range."
	}
	return v, nil
}

// DashboardPage is "/" for a gold member: the live portfolio.
func (h *Handlers) DashboardPage(c *fiber.Ctx) error {
	u, _ := UserFrom(c)
	val, err := h.pfValue(h.ctx(c), u, db.HeldOnly)
	if err != nil {
		return err
	}
	v := pages.DashboardView{Live: h.pfLive(), Ticker: h.tickerView(), Summary: h.pfSummaryView(val)}
	v.Empty = true
	for _, mv := range val.metals {
		if mv.t.Purchases > 0 {
			v.Empty = false
		}
	}
	if c.Query("sale") == "1" {
		v.Flash = "Sale recorded."
	}
	if c.Query("imported") != "" {
		v.Flash = "Import finished."
	}
	if v.Holdings, err = h.pfHoldingsTable(c, u, c.Query("sort"), c.Query("dir")); err != nil {
		return err
	}
	if v.Chart, err = h.pfChartView(c, u, c.Query("range")); err != nil {
		if p := AsProblem(err); p.Status != http.StatusBadRequest {
			return err
		}
		// A bad range in the address falls back to the default rather than failing the page.
		if v.Chart, err = h.pfChartView(c, u, ""); err != nil {
			return err
		}
	}
	return render(c, http.StatusOK, pages.Dashboard(h.meta(c, "Dashboard", "home"), v))
}

// goldOnly answers fragments of the dashboard for gold members only.
func (h *Handlers) pfGoldOnly(c *fiber.Ctx) (db.User, error) {
	u, _ := UserFrom(c)
	if !u.IsGold() {
		return u, NewProblem(http.StatusForbidden, ProbMembership, "the portfolio needs Gold membership")
	}
	return u, nil
}

// DashboardSummary is the live summary fragment, refreshed on every price event.
func (h *Handlers) DashboardSummary(c *fiber.Ctx) error {
	u, err := h.pfGoldOnly(c)
	if err != nil {
		return err
	}
	val, err := h.pfValue(h.ctx(c), u, db.HeldOnly)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	return render(c, http.StatusOK, pages.DashboardSummary(h.pfSummaryView(val)))
}

// DashboardHoldings is the sortable holdings table fragment with live values.
func (h *Handlers) DashboardHoldings(c *fiber.Ctx) error {
	u, err := h.pfGoldOnly(c)
	if err != nil {
		return err
	}
	v, err := h.pfHoldingsTable(c, u, c.Query("sort"), c.Query("dir"))
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	return render(c, http.StatusOK, pages.DashboardHoldings(v))
}

// DashboardChart is the value-over-time chart fragment for the range buttons.
func (h *Handlers) DashboardChart(c *fiber.Ctx) error {
	u, err := h.pfGoldOnly(c)
	if err != nil {
		return err
	}
	v, err := h.pfChartView(c, u, c.Query("range"))
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, pages.DashboardChart(v))
}

// saleFormView describes the holding being sold and the form state.
func (h *Handlers) pfSaleFormView(hold db.Holding, vals map[string]string, errs []FieldError) pages.SaleFormView {
	name := hold.ProductName
	if name == "" {
		name = metals.Metal(hold.Metal).Title() + " (unnamed)"
	}
	v := pages.SaleFormView{ID: hold.ID, Product: name, Metal: hold.Metal, MetalTitle: metals.Metal(hold.Metal).Title(),
		Remaining: strconv.FormatInt(hold.Remaining(), 10), Quantity: strconv.FormatInt(hold.Quantity, 10),
		Bought: hold.PurchaseDate.String(), Values: vals, Errors: map[string]string{}, Today: h.now().UTC().Format(db.DateLayout)}
	for _, e := range errs {
		v.Errors[e.Field] = capitalize(e.Message) + "."
	}
	return v
}

// SaleForm shows the form to sell units of a holding.
func (h *Handlers) SaleForm(c *fiber.Ctx) error {
	u, ok, err := h.gate(c)
	if !ok {
		return err
	}
	hold, err := h.GetHolding(h.ctx(c), u, c.Params("id"))
	if err != nil {
		return err
	}
	vals := map[string]string{"quantity": strconv.FormatInt(hold.Remaining(), 10), "sold_on": h.now().UTC().Format(db.DateLayout)}
	return render(c, http.StatusOK, pages.SaleForm(h.meta(c, "Record a sale", "holdings"), h.pfSaleFormView(hold, vals, nil)))
}

// SaleSubmit records a sale from the form; bad input re-renders it with 422.
func (h *Handlers) SaleSubmit(c *fiber.Ctx) error {
	u, ok, err := h.gate(c)
	if !ok {
		return err
	}
	in := SaleInputFromForm(func(k string) string { return c.FormValue(k) })
	_, err = h.RecordSale(h.ctx(c), u, c.Params("id"), in)
	if err == nil {
		return redirect(c, "/?sale=1")
	}
	p := AsProblem(err)
	if p.Status != http.StatusBadRequest && p.Status != http.StatusConflict {
		return err
	}
	hold, gerr := h.GetHolding(h.ctx(c), u, c.Params("id"))
	if gerr != nil {
		return gerr
	}
	vals := map[string]string{}
	for _, f := range pfSaleFields {
		vals[f] = in.Value(f)
	}
	errs := p.Errors
	if len(errs) == 0 {
		errs = []FieldError{{Field: "quantity", Message: p.Detail}}
	}
	v := h.pfSaleFormView(hold, vals, errs)
	m := h.meta(c, "Record a sale", "holdings")
	return page(c, http.StatusUnprocessableEntity, pages.SaleForm(m, v), pages.SaleFormFields(m, v))
}

// ImportPage explains the CSV format and takes a file.
func (h *Handlers) ImportPage(c *fiber.Ctx) error {
	if _, ok, err := h.gate(c); !ok {
		return err
	}
	return render(c, http.StatusOK, pages.ImportPage(h.meta(c, "Import holdings", "holdings"), pages.ImportView{Columns: holdingFields, MaxRows: MaxImportRows}))
}

// importUpload reads the browser's upload: the file field, or pasted CSV text.
func pfImportUpload(c *fiber.Ctx) ([]byte, error) {
	if fh, err := c.FormFile("file"); err == nil && fh.Size > 0 {
		if fh.Size > MaxImportBytes {
			return nil, NewProblem(http.StatusRequestEntityTooLarge, ProbTooLarge, "the file is larger than 5 MiB")
		}
		return pfImportBody(c)
	}
	if s := c.FormValue("csv"); strings.TrimSpace(s) != "" {
		return []byte(s), nil
	}
	return nil, Invalid("file", "choose a CSV file or paste CSV text")
}

const pfPreviewRows = 50

// ImportPreviewSubmit validates an upload and shows what would be imported, without storing.
func (h *Handlers) ImportPreviewSubmit(c *fiber.Ctx) error {
	u, ok, err := h.gate(c)
	if !ok {
		return err
	}
	v := pages.ImportView{Columns: holdingFields, MaxRows: MaxImportRows}
	data, err := pfImportUpload(c)
	if err == nil {
		v.Preview, err = h.pfImportPreview(c, u, data)
	}
	if err != nil {
		p := AsProblem(err)
		if p.Status >= 500 {
			return err
		}
		v.Preview = &pages.ImportPreview{Problem: capitalize(p.Detail) + "."}
	}
	m := h.meta(c, "Import holdings", "holdings")
	return page(c, http.StatusOK, pages.ImportPage(m, v), pages.ImportResult(m, v))
}

func (h *Handlers) pfImportPreview(c *fiber.Ctx, u db.User, data []byte) (*pages.ImportPreview, error) {
	p, err := ParseHoldingsCSV(data, h.now())
	if err != nil {
		return nil, err
	}
	existing, err := h.store.AllHoldings(h.ctx(c), u.ID)
	if err != nil {
		return nil, err
	}
	seen := make(map[string]bool, len(existing)+len(p.Rows))
	for _, x := range existing {
		seen[db.DuplicateKey(x)] = true
	}
	out := &pages.ImportPreview{Total: len(p.Rows), ErrorCount: p.ErrorCount, BadRows: p.BadRows, Columns: p.Columns}
	for _, e := range p.Errors {
		out.Errors = append(out.Errors, pages.ImportErrorRow{Row: strconv.Itoa(e.Row), Field: e.Field, Message: capitalize(e.Message)})
	}
	for i, x := range p.Rows {
		status := "new"
		switch {
		case p.Bad[i]:
			status = "error"
		case seen[db.DuplicateKey(x)]:
			status = "duplicate"
			out.Duplicates++
		default:
			seen[db.DuplicateKey(x)] = true
			out.New++
		}
		if i < pfPreviewRows {
			r := pages.ImportPreviewRow{Row: strconv.Itoa(i + 1), Status: status}
			if status != "error" {
				r.Metal, r.Product, r.Quantity, r.WeightOz = metals.Metal(x.Metal).Title(), x.ProductName, strconv.FormatInt(x.Quantity, 10), x.WeightOz.String()
				r.Price, r.Fees, r.Dealer, r.Date = usd(x.PurchasePrice), usd(x.Fees), x.Dealer, x.PurchaseDate.String()
			}
			out.Rows = append(out.Rows, r)
		}
	}
	if p.ErrorCount == 0 && out.New > 0 {
		out.Payload = base64.RawURLEncoding.EncodeToString(data)
	}
	return out, nil
}

// ImportCommit stores a previewed upload.
func (h *Handlers) ImportCommit(c *fiber.Ctx) error {
	u, ok, err := h.gate(c)
	if !ok {
		return err
	}
	v := pages.ImportView{Columns: holdingFields, MaxRows: MaxImportRows}
	data, derr := base64.RawURLEncoding.DecodeString(c.FormValue("payload"))
	if derr != nil || len(data) == 0 {
		return Invalid("payload", "the upload to import is missing; preview the file again")
	}
	res, err := h.ImportHoldings(h.ctx(c), u, data)
	if err != nil {
		p := AsProblem(err)
		if p.Status >= 500 {
			return err
		}
		// Something changed since the preview: show the problems the same way.
		if v.Preview, err = h.pfImportPreview(c, u, data); err != nil {
			v.Preview = &pages.ImportPreview{Problem: capitalize(p.Detail) + "."}
		}
	} else {
		v.Done = &pages.ImportDone{Imported: strconv.Itoa(res.Imported), Skipped: strconv.Itoa(res.SkippedDuplicates)}
	}
	m := h.meta(c, "Import holdings", "holdings")
	return page(c, http.StatusOK, pages.ImportPage(m, v), pages.ImportResult(m, v))
}

// ExportDownload is the browser's export (CSV by default, ?format=json).
func (h *Handlers) ExportDownload(c *fiber.Ctx) error {
	u, ok, err := h.gate(c)
	if !ok {
		return err
	}
	return h.pfSendExport(c, u, c.Query("format"))
}
