package comex

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"unicode/utf16"
)

// The xls reader trusts the compound-file (OLE2) container blindly: a sector chain
// that loops makes it read forever, and a forged stream size makes it allocate
// gigabytes. So Ounce walks the container itself, with every chain bounded, pulls
// out the Workbook stream, and hands the reader a freshly built container that holds
// only that stream. The reader then never sees a hostile container.

// oleMagic opens every compound file; CME's .xls files are no exception.
var oleMagic = []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}

const (
	// maxWorkbookStream is far above any CME report (about 20 KiB) yet small enough
	// that the rebuilt container needs no DIFAT sectors.
	maxWorkbookStream = 4 << 20
	// maxSheets bounds the reader's per-sheet rescans of the stream; CME uses one.
	maxSheets = 16

	secFree       uint32 = 0xFFFFFFFF
	secEndOfChain uint32 = 0xFFFFFFFE
	secFAT        uint32 = 0xFFFFFFFD
	noStream      uint32 = 0xFFFFFFFF
	miniCutoff           = 4096
	miniSectorLen        = 64
	dirEntryLen          = 128
	headerDIFATs         = 109
)

// container is a parsed compound file, sized so that every sector read is in range.
type container struct {
	data  []byte // padded to a whole number of sectors
	ssz   int
	nSect uint32
	fat   []uint32
}

func (c *container) sector(sid uint32) []byte {
	off := (int(sid) + 1) * c.ssz
	return c.data[off : off+c.ssz]
}

// chain follows a FAT (or mini FAT) chain from start. It refuses loops and sectors
// outside [0, limit), which is exactly what would hang or crash a naive reader.
func chain(start uint32, table []uint32, limit uint32, what string) ([]uint32, error) {
	var out []uint32
	seen := make(map[uint32]bool)
	for sid := start; sid != secEndOfChain; {
		if sid >= limit || int(sid) >= len(table) {
			return nil, fmt.Errorf("%s chain points outside the file (sector %d)", what, sid)
		}
		if seen[sid] {
			return nil, fmt.Errorf("%s chain loops at sector %d", what, sid)
		}
		seen[sid] = true
		out = append(out, sid)
		sid = table[sid]
	}
	return out, nil
}

func (c *container) read(start uint32, what string) ([]byte, error) {
	sids, err := chain(start, c.fat, c.nSect, what)
	if err != nil {
		return nil, err
	}
	buf := make([]byte, 0, len(sids)*c.ssz)
	for _, sid := range sids {
		buf = append(buf, c.sector(sid)...)
	}
	return buf, nil
}

// workbookStream returns the BIFF "Workbook" stream of a compound file.
func workbookStream(data []byte) ([]byte, error) {
	if len(data) < 512 || !bytes.HasPrefix(data, oleMagic) {
		return nil, errors.New("not an OLE2 compound file")
	}
	le := binary.LittleEndian
	if le.Uint16(data[28:]) != 0xFFFE {
		return nil, errors.New("compound file has a bad byte-order mark")
	}
	var ssz int
	switch major, shift := le.Uint16(data[26:]), le.Uint16(data[30:]); {
	case major == 3 && shift == 9:
		ssz = 512
	case major == 4 && shift == 12:
		ssz = 4096
	default:
		return nil, fmt.Errorf("compound file version %d with sector shift %d is not supported", major, shift)
	}
	if le.Uint16(data[32:]) != 6 || le.Uint32(data[56:]) != miniCutoff {
		return nil, errors.New("compound file has a non-standard mini stream layout")
	}
	if len(data) < 2*ssz {
		return nil, errors.New("compound file is truncated")
	}
	// Some writers drop the zero tail of the last sector; pad it back.
	if rem := len(data) % ssz; rem != 0 {
		data = append(data[:len(data):len(data)], make([]byte, ssz-rem)...)
	}
	c := &container{data: data, ssz: ssz, nSect: uint32(len(data)/ssz - 1)}

	numFAT := le.Uint32(data[44:])
	if numFAT == 0 || numFAT > c.nSect {
		return nil, fmt.Errorf("compound file claims %d FAT sectors", numFAT)
	}
	fatSecs := make([]uint32, 0, numFAT)
	for i := 0; i < headerDIFATs && uint32(len(fatSecs)) < numFAT; i++ {
		fatSecs = append(fatSecs, le.Uint32(data[76+4*i:]))
	}
	perSector := ssz / 4
	seen := make(map[uint32]bool)
	for sid := le.Uint32(data[68:]); uint32(len(fatSecs)) < numFAT; {
		if sid >= c.nSect || seen[sid] {
			return nil, errors.New("compound file DIFAT chain is broken")
		}
		seen[sid] = true
		s := c.sector(sid)
		for i := 0; i < perSector-1 && uint32(len(fatSecs)) < numFAT; i++ {
			fatSecs = append(fatSecs, le.Uint32(s[4*i:]))
		}
		sid = le.Uint32(s[ssz-4:])
	}
	c.fat = make([]uint32, 0, len(fatSecs)*perSector)
	for _, sid := range fatSecs {
		if sid >= c.nSect {
			return nil, fmt.Errorf("compound file FAT sector %d is outside the file", sid)
		}
		s := c.sector(sid)
		for i := 0; i < perSector; i++ {
			c.fat = append(c.fat, le.Uint32(s[4*i:]))
		}
	}

	dir, err := c.read(le.Uint32(data[48:]), "directory")
	if err != nil {
		return nil, err
	}
	type entry struct {
		name        string
		kind        byte
		start, size uint32
		sizeHigh    uint32
	}
	parse := func(b []byte) entry {
		n := int(le.Uint16(b[64:]))
		if n > 64 {
			n = 64
		}
		u := make([]uint16, 0, 32)
		for i := 0; i+1 < n; i += 2 {
			if ch := le.Uint16(b[i:]); ch != 0 {
				u = append(u, ch)
			}
		}
		return entry{name: string(utf16.Decode(u)), kind: b[66], start: le.Uint32(b[116:]), size: le.Uint32(b[120:]), sizeHigh: le.Uint32(b[124:])}
	}
	if len(dir) < dirEntryLen {
		return nil, errors.New("compound file has no directory")
	}
	root := parse(dir)
	if root.kind != 5 {
		return nil, errors.New("compound file has no root entry")
	}
	var book *entry
	for off := dirEntryLen; off+dirEntryLen <= len(dir); off += dirEntryLen {
		e := parse(dir[off:])
		if e.kind == 2 && strings.EqualFold(e.name, "Workbook") {
			book = &e
			break
		}
		if e.kind == 2 && strings.EqualFold(e.name, "Book") {
			return nil, errors.New("workbook is in Excel 5/95 format; only Excel 97-2003 (BIFF8) is supported")
		}
	}
	if book == nil {
		return nil, errors.New("compound file has no Workbook stream (not an Excel file)")
	}
	// Version 3 files may leave garbage in the high half of the size; version 4 may not.
	if (ssz == 4096 && book.sizeHigh != 0) || book.size > maxWorkbookStream {
		return nil, fmt.Errorf("workbook stream is larger than %d bytes", maxWorkbookStream)
	}
	size := int(book.size)

	var raw []byte
	if size >= miniCutoff {
		if raw, err = c.read(book.start, "Workbook"); err != nil {
			return nil, err
		}
	} else {
		mini, err := c.read(root.start, "mini stream")
		if err != nil {
			return nil, err
		}
		if int(root.size) < len(mini) {
			mini = mini[:root.size]
		}
		tbl, err := c.read(le.Uint32(data[60:]), "mini FAT")
		if err != nil {
			return nil, err
		}
		miniFAT := make([]uint32, len(tbl)/4)
		for i := range miniFAT {
			miniFAT[i] = le.Uint32(tbl[4*i:])
		}
		sids, err := chain(book.start, miniFAT, uint32(len(mini)/miniSectorLen), "Workbook")
		if err != nil {
			return nil, err
		}
		for _, sid := range sids {
			off := int(sid) * miniSectorLen
			raw = append(raw, mini[off:off+miniSectorLen]...)
		}
	}
	if len(raw) < size {
		return nil, errors.New("workbook stream is shorter than its directory entry says")
	}
	return raw[:size], nil
}

// checkBIFF8 walks the workbook-globals records the way the xls reader will and
// refuses anything it would trip over: another BIFF version, records running past
// the stream, no sheets, or so many sheets that rescanning them would be slow.
func checkBIFF8(stream []byte) error {
	le := binary.LittleEndian
	if len(stream) < 8 || le.Uint16(stream) != 0x0809 {
		return errors.New("workbook stream does not start with a BOF record")
	}
	if n := int(le.Uint16(stream[2:])); n < 4 || 4+n > len(stream) {
		return errors.New("workbook stream has a malformed BOF record")
	}
	if v := le.Uint16(stream[4:]); v != 0x0600 {
		return fmt.Errorf("workbook is BIFF version %#04x; only Excel 97-2003 (BIFF8) is supported", v)
	}
	if t := le.Uint16(stream[6:]); t != 0x0005 {
		return errors.New("workbook stream does not start with workbook globals")
	}
	sheets := 0
	for p := 0; ; {
		if p+4 > len(stream) {
			return errors.New("workbook globals run past the end of the stream")
		}
		typ, n := le.Uint16(stream[p:]), int(le.Uint16(stream[p+2:]))
		if p+4+n > len(stream) {
			return fmt.Errorf("record %#04x at offset %d runs past the end of the stream", typ, p)
		}
		switch {
		case typ == 0x000A && n == 0: // EOF ends the globals, as it does for the reader
			if sheets == 0 {
				return errors.New("workbook has no sheets")
			}
			return nil
		case typ == 0x0085:
			sheets++
			if sheets > maxSheets {
				return fmt.Errorf("workbook has more than %d sheets", maxSheets)
			}
			if n < 8 {
				return errors.New("malformed sheet record")
			}
			if pos := le.Uint32(stream[p+4:]); pos >= uint32(len(stream)) {
				return errors.New("sheet record points past the end of the stream")
			}
		}
		p += 4 + n
	}
}

// rebuildCFB wraps a Workbook stream in a minimal, well-formed version 3 compound
// file: header, FAT, one directory sector and the stream in consecutive sectors.
// The stream is zero-padded to at least 4 KiB so the reader takes its plain FAT path
// and never touches the mini stream.
func rebuildCFB(stream []byte) ([]byte, error) {
	const ssz = 512
	n := max(len(stream), miniCutoff)
	n = (n + ssz - 1) / ssz // stream sectors
	f := 1
	for f*(ssz/4) < n+1+f {
		f++
	}
	if f > headerDIFATs {
		return nil, errors.New("workbook stream too large to rebuild")
	}
	total := f + 1 + n
	out := make([]byte, ssz*(1+total))
	le := binary.LittleEndian

	copy(out, oleMagic)
	le.PutUint16(out[24:], 0x003E)
	le.PutUint16(out[26:], 3)
	le.PutUint16(out[28:], 0xFFFE)
	le.PutUint16(out[30:], 9)
	le.PutUint16(out[32:], 6)
	le.PutUint32(out[44:], uint32(f))
	le.PutUint32(out[48:], uint32(f)) // directory sector follows the FAT
	le.PutUint32(out[56:], miniCutoff)
	le.PutUint32(out[60:], secEndOfChain)
	le.PutUint32(out[68:], secEndOfChain)
	for i := 0; i < headerDIFATs; i++ {
		v := secFree
		if i < f {
			v = uint32(i)
		}
		le.PutUint32(out[76+4*i:], v)
	}

	fat := out[ssz : ssz+f*ssz]
	for i := 0; i < f*ssz/4; i++ {
		var v uint32
		switch {
		case i < f:
			v = secFAT
		case i == f, i == total-1:
			v = secEndOfChain
		case i < total:
			v = uint32(i + 1)
		default:
			v = secFree
		}
		le.PutUint32(fat[4*i:], v)
	}

	dir := out[(f+1)*ssz : (f+2)*ssz]
	putEntry := func(b []byte, name string, kind byte, child, start, size uint32) {
		u := utf16.Encode([]rune(name))
		for i, ch := range u {
			le.PutUint16(b[2*i:], ch)
		}
		le.PutUint16(b[64:], uint16(2*(len(u)+1)))
		b[66] = kind
		b[67] = 1 // black node
		le.PutUint32(b[68:], noStream)
		le.PutUint32(b[72:], noStream)
		le.PutUint32(b[76:], child)
		le.PutUint32(b[116:], start)
		le.PutUint32(b[120:], size)
	}
	putEntry(dir[0:], "Root Entry", 5, 1, secEndOfChain, 0)
	putEntry(dir[dirEntryLen:], "Workbook", 2, noStream, uint32(f+1), uint32(n*ssz))
	for e := 2; e < ssz/dirEntryLen; e++ {
		b := dir[e*dirEntryLen:]
		le.PutUint32(b[68:], noStream)
		le.PutUint32(b[72:], noStream)
		le.PutUint32(b[76:], noStream)
	}
	copy(out[(f+2)*ssz:], stream)
	return out, nil
}
