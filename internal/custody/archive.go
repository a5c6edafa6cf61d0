package custody

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/portfolio"
)

// The ZIP export (issue 28): the ledger CSV exactly as format=csv writes it, the member's
// locations, every document under documents/<row>/, and a manifest naming each lot's place,
// tags and documents by its CSV data row (ids change on import). Importing it into an account
// restores them all, or nothing.

// Archive entry names.
const (
	ArchiveHoldings  = "holdings.csv"
	ArchiveLocations = "locations.csv"
	ArchiveManifest  = "manifest.json"
	ArchiveTransfers = "transfers.csv"
	archiveDocDir    = "documents/"
	archiveFormat    = "ounce-archive"
)

// Archive limits: what an import reads before refusing the file (a ZIP bomb stops here).
const (
	// MaxArchiveEntries is how many files a ZIP may hold.
	MaxArchiveEntries = 5000
	// MaxArchiveBytes bounds the ZIP itself and, with maxArchiveExpanded, what it unpacks to.
	// It is far below a member's 500 MB of documents on purpose: the server holds a request
	// body in memory before it knows who sent it, so a route that took 500 MB would let anyone
	// make it hold that much per connection. A larger stack's documents are uploaded per lot.
	MaxArchiveBytes    = 64 << 20
	maxArchiveExpanded = 2 * MaxArchiveBytes
	maxManifestBytes   = 16 << 20
)

// LocationColumns is the header of locations.csv.
var LocationColumns = []string{"id", "name", "kind", "insured_value", "notes"}

// TransferColumns is the header of transfers.csv: each lot's moves, oldest first, the lot named
// by its CSV data row and the places by name ("" unassigned, or a location since deleted). An
// archive from before transfers were exported has no transfers.csv and imports without them.
var TransferColumns = []string{"row", "from_location", "to_location", "date", "note"}

// ArchiveManifestJSON is manifest.json.
type ArchiveManifestJSON struct {
	Format    string                `json:"format"`
	Version   int                   `json:"version"`
	Lots      []ArchiveLotJSON      `json:"lots"`
	Documents []ArchiveDocumentJSON `json:"documents"`
}

// ArchiveLotJSON is where the lot of a CSV data row (from 1) is kept and its tags.
type ArchiveLotJSON struct {
	Row      int      `json:"row"`
	Location string   `json:"location,omitempty"`
	Tags     []string `json:"tags,omitempty"`
}

// ArchiveDocumentJSON is a document of the lot of a CSV data row, at path in the ZIP.
type ArchiveDocumentJSON struct {
	Row         int    `json:"row"`
	Path        string `json:"path"`
	Name        string `json:"name"`
	ContentType string `json:"content_type"`
}

// IsArchive is whether an import's bytes are a ZIP (its local-file signature).
func IsArchive(b []byte) bool { return bytes.HasPrefix(b, []byte("PK\x03\x04")) }

// Archive reads what u's ZIP export lists and answers what writes it: the ledger CSV (as
// format=csv answers it), the locations, the manifest, then the documents one at a time, so
// the ZIP streams. A problem before the first byte is the error; one while writing, write's.
func (s *Service) Archive(ctx context.Context, u db.User) (func(io.Writer) error, error) {
	if err := requireGold(u); err != nil {
		return nil, err
	}
	list, err := s.holdings.ExportHoldings(ctx, u)
	if err != nil {
		return nil, err
	}
	sales, err := s.holdings.ExportSales(ctx, u)
	if err != nil {
		return nil, err
	}
	locs, err := s.store.LocationsByUser(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	docs, err := s.docs.DocumentsByUser(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	moves, err := s.store.TransfersByUser(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	return func(w io.Writer) error { return s.writeArchive(ctx, u, w, list, sales, locs, moves, docs) }, nil
}

// WriteArchive writes u's ZIP export to w.
func (s *Service) WriteArchive(ctx context.Context, u db.User, w io.Writer) error {
	write, err := s.Archive(ctx, u)
	if err != nil {
		return err
	}
	return write(w)
}

func (s *Service) writeArchive(ctx context.Context, u db.User, w io.Writer, list []portfolio.Holding, sales []portfolio.Sale, locs []db.Location, moves []db.Transfer, docs []Document) error {
	zw := zip.NewWriter(w)
	f, err := zw.Create(ArchiveHoldings)
	if err != nil {
		return err
	}
	if err := portfolio.WriteLedgerCSV(f, list, sales); err != nil {
		return fmt.Errorf("archive csv: %w", err)
	}
	if f, err = zw.Create(ArchiveLocations); err != nil {
		return err
	}
	cw := csv.NewWriter(f)
	_ = cw.Write(LocationColumns)
	locName := map[string]string{}
	for _, l := range locs {
		locName[l.ID] = l.Name
		_ = cw.Write([]string{l.ID, portfolio.CSVCell(l.Name), l.Kind, l.InsuredValue.String, portfolio.CSVCell(l.Notes)})
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	m := ArchiveManifestJSON{Format: archiveFormat, Version: 1, Lots: []ArchiveLotJSON{}, Documents: []ArchiveDocumentJSON{}}
	row := make(map[string]int, len(list))
	for i, h := range list {
		row[h.ID] = i + 1
		if h.LocationID != "" || len(h.Tags) > 0 {
			m.Lots = append(m.Lots, ArchiveLotJSON{Row: i + 1, Location: locName[h.LocationID], Tags: h.Tags})
		}
	}
	if err := writeTransfers(zw, moves, row, locName); err != nil {
		return err
	}
	perRow := map[int]int{}
	type entry struct {
		doc  Document
		path string
	}
	var entries []entry
	for _, d := range docs {
		r, ok := row[d.HoldingID]
		if !ok {
			continue
		}
		perRow[r]++
		p := fmt.Sprintf("%s%d/%d-%s", archiveDocDir, r, perRow[r], d.Name)
		m.Documents = append(m.Documents, ArchiveDocumentJSON{Row: r, Path: p, Name: d.Name, ContentType: d.ContentType})
		entries = append(entries, entry{d, p})
	}
	// Documents in CSV row order, so two exports of the same stack list them alike.
	sortStable(m.Documents, entries, func(i int) int { return m.Documents[i].Row })
	if f, err = zw.Create(ArchiveManifest); err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	enc.SetIndent("", "  ")
	if err := enc.Encode(m); err != nil {
		return err
	}
	for _, e := range entries {
		body, err := s.docs.DocumentBody(ctx, u.ID, e.doc.ID)
		if err != nil {
			return fmt.Errorf("archive document %s: %w", e.doc.ID, err)
		}
		// Stored: photos and PDFs are compressed already.
		f, err := zw.CreateHeader(&zip.FileHeader{Name: e.path, Method: zip.Store})
		if err != nil {
			return err
		}
		if _, err := f.Write(body); err != nil {
			return err
		}
	}
	return zw.Close()
}

// writeTransfers writes transfers.csv: the moves of the lots exported, in CSV row order and
// each lot's oldest first.
func writeTransfers(zw *zip.Writer, moves []db.Transfer, row map[string]int, locName map[string]string) error {
	kept := make([]db.Transfer, 0, len(moves))
	for _, t := range moves {
		if _, ok := row[t.HoldingID]; ok {
			kept = append(kept, t)
		}
	}
	sort.SliceStable(kept, func(i, j int) bool { return row[kept[i].HoldingID] < row[kept[j].HoldingID] })
	f, err := zw.Create(ArchiveTransfers)
	if err != nil {
		return err
	}
	cw := csv.NewWriter(f)
	_ = cw.Write(TransferColumns)
	for _, t := range kept {
		_ = cw.Write([]string{strconv.Itoa(row[t.HoldingID]), portfolio.CSVCell(locName[t.FromLocationID.String]), portfolio.CSVCell(locName[t.ToLocationID.String]),
			t.On.String(), portfolio.CSVCell(t.Note)})
	}
	cw.Flush()
	return cw.Error()
}

// archiveTransfers reads transfers.csv (none when the archive has no such file), each move
// checked as POST /v1/holdings/{id}/move checks its date and note.
func archiveTransfers(b []byte, rows int, locIndex map[string]int) ([]db.ArchiveTransfer, error) {
	if b == nil {
		return nil, nil
	}
	r := csv.NewReader(bytes.NewReader(b))
	r.FieldsPerRecord = len(TransferColumns)
	recs, err := r.ReadAll()
	if err != nil || len(recs) == 0 || strings.Join(recs[0], ",") != strings.Join(TransferColumns, ",") {
		return nil, archiveErr("has a %s that is not a CSV with the header %s", ArchiveTransfers, strings.Join(TransferColumns, ","))
	}
	out := make([]db.ArchiveTransfer, 0, len(recs)-1)
	place := func(line int, name string) (int, error) {
		if name == "" {
			return -1, nil
		}
		i, ok := locIndex[name]
		if !ok {
			return 0, archiveErr("%s line %d names the location %q that %s does not list", ArchiveTransfers, line, name, ArchiveLocations)
		}
		return i, nil
	}
	for i, rec := range recs[1:] {
		line := i + 2
		n, err := strconv.Atoi(rec[0])
		if err != nil || n < 1 || n > rows {
			return nil, archiveErr("%s line %d names row %q; the CSV has %d", ArchiveTransfers, line, rec[0], rows)
		}
		t := db.ArchiveTransfer{Row: n - 1}
		if t.From, err = place(line, portfolio.UncsvCell(rec[1])); err != nil {
			return nil, err
		}
		if t.To, err = place(line, portfolio.UncsvCell(rec[2])); err != nil {
			return nil, err
		}
		if t.On, err = db.ParseDate(rec[3]); err != nil {
			return nil, archiveErr("%s line %d has the date %q; want YYYY-MM-DD", ArchiveTransfers, line, rec[3])
		}
		note, msg := portfolio.CleanText(portfolio.UncsvCell(rec[4]), MaxMoveNote, false)
		if msg != "" {
			return nil, archiveErr("%s line %d's note %s", ArchiveTransfers, line, msg)
		}
		t.Note = note
		out = append(out, t)
	}
	return out, nil
}

// sortStable orders the manifest's documents and their entries together by key (insertion sort:
// the lists are short and mostly in order already).
func sortStable[E any](docs []ArchiveDocumentJSON, entries []E, key func(int) int) {
	for i := 1; i < len(docs); i++ {
		for j := i; j > 0 && key(j-1) > key(j); j-- {
			docs[j-1], docs[j] = docs[j], docs[j-1]
			entries[j-1], entries[j] = entries[j], entries[j-1]
		}
	}
}

// archiveErr is a 422 naming file.
func archiveErr(format string, args ...any) error {
	return unprocessable(fmt.Sprintf(format, args...))
}

// safeEntry is whether a ZIP entry's name stays inside the archive: relative, clean, no "..".
func safeEntry(name string) bool {
	if name == "" || strings.ContainsAny(name, "\\\x00") || strings.HasPrefix(name, "/") {
		return false
	}
	for _, part := range strings.Split(name, "/") {
		if part == ".." {
			return false
		}
	}
	return path.Clean(name) == strings.TrimSuffix(name, "/")
}

// readArchive unpacks a ZIP within the limits: entry count, each document's size, the total.
func readArchive(data []byte) (map[string][]byte, error) {
	if len(data) > MaxArchiveBytes {
		return nil, apperr.New(apperr.TooLarge, "the ZIP is larger than %d MB", MaxArchiveBytes>>20)
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, archiveErr("is not a readable ZIP")
	}
	if len(zr.File) > MaxArchiveEntries {
		return nil, archiveErr("holds %d files; at most %d", len(zr.File), MaxArchiveEntries)
	}
	out := make(map[string][]byte, len(zr.File))
	var total int64
	for _, f := range zr.File {
		if !safeEntry(f.Name) {
			return nil, archiveErr("holds an entry named %q outside the archive", f.Name)
		}
		if strings.HasSuffix(f.Name, "/") {
			continue
		}
		if _, dup := out[f.Name]; dup {
			return nil, archiveErr("holds %s twice", f.Name)
		}
		limit := int64(MaxDocumentBytes)
		switch f.Name {
		case ArchiveHoldings:
			limit = portfolio.MaxImportBytes
		case ArchiveLocations, ArchiveManifest, ArchiveTransfers:
			limit = maxManifestBytes
		}
		// The sizes a ZIP declares are not trusted: reading stops one byte past the limit.
		if f.UncompressedSize64 > uint64(limit) {
			return nil, archiveErr("%s is larger than %d MB", f.Name, limit>>20)
		}
		rc, err := f.Open()
		if err != nil {
			return nil, archiveErr("%s cannot be read", f.Name)
		}
		b, err := io.ReadAll(io.LimitReader(rc, limit+1))
		rc.Close()
		if int64(len(b)) > limit {
			return nil, archiveErr("%s is larger than %d MB", f.Name, limit>>20)
		}
		if err != nil {
			return nil, archiveErr("%s is damaged", f.Name)
		}
		if total += int64(len(b)); total > maxArchiveExpanded {
			return nil, archiveErr("unpacks to more than %d MB", maxArchiveExpanded>>20)
		}
		out[f.Name] = b
	}
	return out, nil
}

// ImportArchive restores a ZIP export into u's account: the ledger CSV's holdings and sales
// (as the CSV import), the locations (one of the same name is reused), each lot's place and
// tags, and its documents, checked like uploads. All or nothing.
func (s *Service) ImportArchive(ctx context.Context, u db.User, data []byte) (portfolio.ImportResult, error) {
	if err := requireGold(u); err != nil {
		return portfolio.ImportResult{}, err
	}
	files, err := readArchive(data)
	if err != nil {
		return portfolio.ImportResult{}, err
	}
	csvBytes, ok := files[ArchiveHoldings]
	if !ok {
		return portfolio.ImportResult{}, archiveErr("holds no %s", ArchiveHoldings)
	}
	rows, sales, err := s.holdings.ImportRows(ctx, u, csvBytes)
	if err != nil {
		return portfolio.ImportResult{}, err
	}
	locs, locIndex, err := archiveLocations(files[ArchiveLocations])
	if err != nil {
		return portfolio.ImportResult{}, err
	}
	var m ArchiveManifestJSON
	if b, ok := files[ArchiveManifest]; ok {
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&m); err != nil || m.Format != archiveFormat || m.Version != 1 {
			return portfolio.ImportResult{}, archiveErr("has a %s this version cannot read", ArchiveManifest)
		}
	}
	badRow := func(r int) bool { return r < 1 || r > len(rows) }
	places := make([]db.ArchivePlace, 0, len(m.Lots))
	for _, l := range m.Lots {
		if badRow(l.Row) {
			return portfolio.ImportResult{}, archiveErr("%s names row %d; the CSV has %d", ArchiveManifest, l.Row, len(rows))
		}
		p := db.ArchivePlace{Row: l.Row - 1, Location: -1}
		if l.Location != "" {
			i, ok := locIndex[l.Location]
			if !ok {
				return portfolio.ImportResult{}, archiveErr("%s names the location %q that %s does not list", ArchiveManifest, l.Location, ArchiveLocations)
			}
			p.Location = i
		}
		tags, msg := portfolio.CleanTags(l.Tags)
		if msg != "" {
			return portfolio.ImportResult{}, archiveErr("row %d's tags: %s", l.Row, msg)
		}
		p.Tags = strings.Join(tags, ",")
		places = append(places, p)
	}
	docs := make([]db.ArchiveDocument, 0, len(m.Documents))
	var total int64
	for _, d := range m.Documents {
		if badRow(d.Row) {
			return portfolio.ImportResult{}, archiveErr("%s names row %d; the CSV has %d", ArchiveManifest, d.Row, len(rows))
		}
		body, ok := files[d.Path]
		if !ok || !strings.HasPrefix(d.Path, archiveDocDir) {
			return portfolio.ImportResult{}, archiveErr("lists %s, which it does not hold", d.Path)
		}
		name, ct, clean, err := checkDocument(d.Name, body)
		if err != nil {
			msg := err.Error()
			if e, ok := apperr.As(err); ok && len(e.Fields) > 0 {
				msg = e.Fields[0].Message
			}
			return portfolio.ImportResult{}, archiveErr("%s %s; nothing was imported", d.Path, msg)
		}
		if total += int64(len(clean)); total > MaxMemberBytes {
			return portfolio.ImportResult{}, apperr.New(apperr.TooLarge, "its documents would take over 500 MB")
		}
		docs = append(docs, db.ArchiveDocument{Row: d.Row - 1, Name: name, ContentType: ct, Body: clean})
	}
	moves, err := archiveTransfers(files[ArchiveTransfers], len(rows), locIndex)
	if err != nil {
		return portfolio.ImportResult{}, err
	}
	replay, err := s.holdings.ReplayFor(ctx, rows, sales)
	if err != nil {
		return portfolio.ImportResult{}, err
	}
	res, err := s.store.ImportArchive(ctx, u.ID, rows, sales, portfolio.DecideSale, replay, locs, places, moves, docs, MaxMemberBytes)
	err = portfolio.ReplayErr(err)
	if errors.Is(err, db.ErrQuota) {
		return portfolio.ImportResult{}, apperr.New(apperr.TooLarge, "your documents would take over 500 MB; delete some first")
	}
	if err != nil {
		return portfolio.ImportResult{}, err
	}
	return portfolio.ImportResult{Imported: res.Imported, SkippedDuplicates: len(res.Duplicates), Sales: res.Sales}, nil
}

// archiveLocations reads locations.csv, validating each as POST /v1/locations does.
func archiveLocations(b []byte) ([]db.ArchiveLocation, map[string]int, error) {
	idx := map[string]int{}
	if b == nil {
		return nil, idx, nil
	}
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil || len(recs) == 0 || strings.Join(recs[0], ",") != strings.Join(LocationColumns, ",") {
		return nil, nil, archiveErr("has a %s that is not %s with the header %s", ArchiveLocations, ArchiveLocations, strings.Join(LocationColumns, ","))
	}
	if len(recs)-1 > MaxLocs {
		return nil, nil, archiveErr("lists more than %d locations", MaxLocs)
	}
	out := make([]db.ArchiveLocation, 0, len(recs)-1)
	for i, r := range recs[1:] {
		name, kind, ins, notes := portfolio.UncsvCell(r[1]), r[2], r[3], portfolio.UncsvCell(r[4])
		var l db.Location
		if err := (LocationInput{Name: &name, Kind: &kind, InsuredValue: &ins, Notes: &notes}).apply(&l, true); err != nil {
			e, _ := apperr.As(err)
			msg := err.Error()
			if e != nil && len(e.Fields) > 0 {
				msg = e.Fields[0].Field + " " + e.Fields[0].Message
			}
			return nil, nil, archiveErr("%s row %s: %s", ArchiveLocations, strconv.Itoa(i+1), msg)
		}
		if _, dup := idx[l.Name]; dup {
			return nil, nil, archiveErr("%s lists %q twice", ArchiveLocations, l.Name)
		}
		idx[l.Name] = len(out)
		out = append(out, db.ArchiveLocation{Name: l.Name, Kind: l.Kind, InsuredValue: l.InsuredValue, Notes: l.Notes})
	}
	return out, idx, nil
}
