package comex

import (
	"encoding/binary"
	"math"
	"strings"
	"unicode/utf16"
)

// This file writes small Excel 97-2003 workbooks for the tests, so that layouts the
// real files do not show (a missing date, a moved column, a tampered figure) can be
// exercised through the same ParseXLS path. Cells are given as Go values: a string
// becomes a LABEL record, a float64 a NUMBER record, an int an RK record, nil nothing.

var le = binary.LittleEndian

func rec(typ uint16, data []byte) []byte {
	b := make([]byte, 4, 4+len(data))
	le.PutUint16(b, typ)
	le.PutUint16(b[2:], uint16(len(data)))
	return append(b, data...)
}

func bof(kind uint16) []byte {
	d := make([]byte, 16)
	le.PutUint16(d, 0x0600)
	le.PutUint16(d[2:], kind)
	return rec(0x0809, d)
}

func eofRec() []byte { return rec(0x000A, nil) }

func cellRec(r, c int, v any) []byte {
	head := func(n int) []byte {
		d := make([]byte, 6, 6+n)
		le.PutUint16(d, uint16(r))
		le.PutUint16(d[2:], uint16(c))
		return d
	}
	switch v := v.(type) {
	case string:
		u := utf16.Encode([]rune(v))
		d := head(3 + 2*len(u))
		d = le.AppendUint16(d, uint16(len(u)))
		d = append(d, 1) // UTF-16 characters
		for _, ch := range u {
			d = le.AppendUint16(d, ch)
		}
		return rec(0x0204, d)
	case float64:
		d := le.AppendUint64(head(8), math.Float64bits(v))
		return rec(0x0203, d)
	case int:
		d := le.AppendUint32(head(4), uint32(v)<<2|2) // RK: 30-bit integer
		return rec(0x027E, d)
	}
	return nil
}

// biffStream writes a BIFF8 Workbook stream with one worksheet per grid.
func biffStream(sheets ...[][]any) []byte {
	var glob []byte
	glob = append(glob, bof(0x0005)...)
	var posAt []int
	for i := range sheets {
		name := []byte("Sheet" + string(rune('1'+i)))
		d := make([]byte, 8, 8+len(name))
		d[6] = byte(len(name))
		posAt = append(posAt, len(glob)+4)
		glob = append(glob, rec(0x0085, append(d, name...))...)
	}
	glob = append(glob, eofRec()...)
	out := glob
	for i, rows := range sheets {
		le.PutUint32(out[posAt[i]:], uint32(len(out)))
		out = append(out, bof(0x0010)...)
		for r, row := range rows {
			for c, v := range row {
				out = append(out, cellRec(r, c, v)...)
			}
		}
		out = append(out, eofRec()...)
	}
	return out
}

// cfbFile wraps a Workbook stream the way Excel does: below 4 KiB in the mini
// stream, otherwise in ordinary sectors, which are laid out back to front so that a
// reader assuming contiguous sectors would fail.
func cfbFile(stream []byte) []byte {
	const ssz = 512
	sec := func(b []byte, n int) []byte { return b[ssz*(n+1) : ssz*(n+2)] }
	var nData int
	mini := len(stream) < 4096
	if mini {
		nData = (len(stream) + 511) / 512 // mini stream sectors, 8 mini sectors each
	} else {
		nData = (len(stream) + 511) / 512
	}
	// sector 0 FAT, 1 directory, 2 mini FAT, 3.. data
	total := 3 + nData
	if total > 128 {
		panic("test workbook too large for one FAT sector")
	}
	out := make([]byte, ssz*(1+total))
	copy(out, oleMagic)
	le.PutUint16(out[24:], 0x003E)
	le.PutUint16(out[26:], 3)
	le.PutUint16(out[28:], 0xFFFE)
	le.PutUint16(out[30:], 9)
	le.PutUint16(out[32:], 6)
	le.PutUint32(out[44:], 1)
	le.PutUint32(out[48:], 1)
	le.PutUint32(out[56:], 4096)
	le.PutUint32(out[60:], 2)
	le.PutUint32(out[64:], 1)
	le.PutUint32(out[68:], secEndOfChain)
	for i := 0; i < 109; i++ {
		le.PutUint32(out[76+4*i:], secFree)
	}
	le.PutUint32(out[76:], 0)

	fat := sec(out, 0)
	for i := 0; i < 128; i++ {
		le.PutUint32(fat[4*i:], secFree)
	}
	le.PutUint32(fat[0:], secFAT)
	le.PutUint32(fat[4:], secEndOfChain)
	le.PutUint32(fat[8:], secEndOfChain)
	// data sector k of the stream lives in physical sector 3+(nData-1-k)
	phys := func(k int) int { return 3 + nData - 1 - k }
	for k := 0; k < nData; k++ {
		next := secEndOfChain
		if k+1 < nData {
			next = uint32(phys(k + 1))
		}
		le.PutUint32(fat[4*phys(k):], next)
	}
	for k := 0; k < nData; k++ {
		lo := k * ssz
		copy(sec(out, phys(k)), stream[lo:min(lo+ssz, len(stream))])
	}

	miniFAT := sec(out, 2)
	for i := 0; i < 128; i++ {
		le.PutUint32(miniFAT[4*i:], secFree)
	}
	nMini := (len(stream) + 63) / 64
	if mini {
		// the mini stream is contiguous inside the root's chain, so mini sector
		// i is simply bytes 64i..64i+63 of the copied stream
		for i := 0; i < nMini; i++ {
			next := secEndOfChain
			if i+1 < nMini {
				next = uint32(i + 1)
			}
			le.PutUint32(miniFAT[4*i:], next)
		}
	}

	dir := sec(out, 1)
	entry := func(b []byte, name string, kind byte, child, start, size uint32) {
		u := utf16.Encode([]rune(name))
		for i, ch := range u {
			le.PutUint16(b[2*i:], ch)
		}
		le.PutUint16(b[64:], uint16(2*(len(u)+1)))
		b[66] = kind
		b[67] = 1
		le.PutUint32(b[68:], noStream)
		le.PutUint32(b[72:], noStream)
		le.PutUint32(b[76:], child)
		le.PutUint32(b[116:], start)
		le.PutUint32(b[120:], size)
	}
	for e := 0; e < 4; e++ {
		b := dir[e*128:]
		le.PutUint32(b[68:], noStream)
		le.PutUint32(b[72:], noStream)
		le.PutUint32(b[76:], noStream)
	}
	if mini {
		entry(dir, "Root Entry", 5, 1, uint32(phys(0)), uint32(nMini*64))
		entry(dir[128:], "Workbook", 2, noStream, 0, uint32(len(stream)))
	} else {
		entry(dir, "Root Entry", 5, 1, secEndOfChain, 0)
		entry(dir[128:], "Workbook", 2, noStream, uint32(phys(0)), uint32(len(stream)))
	}
	return out
}

// xlsOf is the whole pipeline for tests: grids → BIFF8 stream → compound file.
func xlsOf(sheets ...[][]any) []byte { return cfbFile(biffStream(sheets...)) }

// synthDep is one depository line for synthSection: registered, pledged (negative
// for "no Pledged row") and eligible, in ounces.
type synthDep struct {
	name          string
	reg, pl, elig float64
}

// synthSection lays out a metal section the way CME does, with TOTAL TODAY in the
// given column and PREV TOTAL filled with decoys so a parser reading the wrong
// column notices.
func synthSection(metal string, totalCol int, reportDate, activityDate string, deps []synthDep) [][]any {
	width := totalCol + 2
	row := func(label string, v float64, pledgedStyle bool) []any {
		r := make([]any, width)
		r[0] = label
		r[2] = v + 1000 // PREV TOTAL decoy
		if !pledgedStyle {
			for c := 3; c < totalCol; c++ {
				r[c] = 0
			}
		}
		r[totalCol] = v
		return r
	}
	dated := func(label, text string) []any {
		r := make([]any, width)
		r[0] = label
		if text != "" {
			r[totalCol-1] = text
		}
		return r
	}
	var rows [][]any
	rows = append(rows, dated(metal, reportDate), dated("Troy Ounce", activityDate), nil)
	hdr := make([]any, width)
	hdr[0], hdr[1] = "DEPOSITORY", ""
	names := []string{"PREV TOTAL", "RECEIVED", "WITHDRAWN", "NET CHANGE", "ADJUSTMENT"}
	for c := 2; c < totalCol; c++ {
		hdr[c] = names[(c-2)%len(names)]
	}
	hdr[totalCol] = "TOTAL TODAY"
	rows = append(rows, hdr, nil)
	var reg, pl, elig float64
	anyPledged := false
	for _, d := range deps {
		rows = append(rows, []any{d.name}, row("  Registered", d.reg, false))
		if d.pl >= 0 {
			rows = append(rows, row("  Pledged", d.pl, true))
			pl += d.pl
			anyPledged = true
		}
		rows = append(rows, row("  Eligible", d.elig, false), row("  Total", d.reg+d.elig, false), nil)
		reg += d.reg
		elig += d.elig
	}
	rows = append(rows, row("TOTAL REGISTERED", reg, false))
	if anyPledged {
		rows = append(rows, row("TOTAL PLEDGED", pl, true))
	}
	rows = append(rows, row("TOTAL ELIGIBLE", elig, false), row("COMBINED TOTAL", reg+elig, false), nil)
	return rows
}

var synthSilverDeps = []synthDep{
	{"ALPHA VAULTS LLC", 1000.5, -1, 250.25},
	{"BETA DEPOSITORY, INC.", 0, -1, 75},
	{"GAMMA BANK NA", 12345.678, -1, 0.001},
}

// synthSheet is a complete, valid silver sheet with a title block like CME's.
func synthSheet() [][]any {
	rows := [][]any{nil, {"COMMODITY EXCHANGE, INC."}, nil, {"METAL DEPOSITORY STATISTICS"}}
	return append(rows, synthSection("SILVER", 7, "Report Date: 4/28/2026", "Activity Date: 4/27/2026", synthSilverDeps)...)
}

// findRow returns the index of the first row whose column-A label, trimmed, equals
// label (case-insensitive), or panics: tests mutate rows they know are there.
func findRow(rows [][]any, label string) int {
	for i, r := range rows {
		if len(r) > 0 {
			if s, ok := r[0].(string); ok && strings.EqualFold(strings.TrimSpace(s), label) {
				return i
			}
		}
	}
	panic("no row " + label)
}

func cloneRows(rows [][]any) [][]any {
	out := make([][]any, len(rows))
	for i, r := range rows {
		out[i] = append([]any(nil), r...)
	}
	return out
}
