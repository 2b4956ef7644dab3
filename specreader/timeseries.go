package specreader

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/zeebo/xxh3"

	"strata/specreader/node"
)

// This file reads the time-series index (FORMAT.md, "Time-series index"):
// the ts.model section, the pages of ts.index (directory leaves and inner
// pages, unit pages, statistics pages, bloom pages), and checks everything
// the index says against the columns this reader decodes. Where the
// chapter left a choice open, specreader/gaps/timeseries.md says which one
// was taken.

// Column roles in ts.model.
const (
	RoleMeasurement = 0
	RoleKey         = 1
	RoleTime        = 2
)

// Index page kinds (FORMAT.md, "ts.index pages").
const (
	tsLeaf  = 1
	tsInner = 2
	tsUnit  = 3
	tsStat  = 4
	tsBloom = 5
)

// Limits this reader applies to the index (the chapter states none; see
// gaps/timeseries.md).
const (
	maxTSHeight    = 64
	maxBloomBlocks = 4 << 20 // the Bloom filters chapter's bound on one filter
	tsPageHeader   = 9
	kindDoD        = 19
)

// TSPageRef locates one page of ts.index; First is the first unit of a
// unit or statistics page (0 for bloom pages).
type TSPageRef struct {
	First, Off, Size uint64
}

// TSModel is the parsed ts.model section.
type TSModel struct {
	Version                            uint8
	Roles                              []uint8 // per schema column
	Keys                               []int   // key columns (schema column indexes) in key order
	Time                               int     // the time column
	Measurements                       []int   // every other column, in schema order
	Series, Rows, Units                uint64
	TMin, TMax                         int64
	ChunkRows, MinChunkRows, BlockSize uint64
	Height                             int
	Root                               []byte
	UnitPages, StatPages               []TSPageRef
	BloomBlocks, BloomPerPage          uint64
	BloomPages                         []TSPageRef
}

// TSLast is the last value of one measurement of a series (leaf entry).
type TSLast struct {
	Has   bool
	Time  int64 // the time of its row: tmax − (stored distance)
	Value any   // int64, uint64, float64, bool or []byte by the column's class
}

// TSSeries is one directory leaf entry, with its fields made absolute.
type TSSeries struct {
	Ordinal    uint64
	Key        [][]byte // canonical components, in key order
	FirstRow   uint64
	Rows       uint64
	TMin, TMax int64
	C0, C1     uint64   // units [C0, C1)
	Last       []TSLast // per measurement, in schema order
}

// TSUnitCol is one column's chunks of a unit, with absolute offsets.
type TSUnitCol struct {
	Offsets, Sizes, Rows []uint64
}

// TSUnit is one unit of a unit page, with its fields made absolute.
type TSUnit struct {
	Stripe      uint64
	FirstSeries uint64
	NSeries     uint64
	TMin, TMax  int64
	Row, Rows   uint64      // first row within its stripe, row count
	Cols        []TSUnitCol // per schema column
}

// TSStat is one statistics entry: count of non-null values and the
// float64 bits of their minimum, maximum and sum, and from version 2 of
// their first and last in row order (0 in a version 1 index).
type TSStat struct {
	Count               uint64
	MinBits, MaxBits    uint64
	SumBits             uint64
	FirstBits, LastBits uint64
}

// TimeSeries is a parsed series index.
type TimeSeries struct {
	Model TSModel
	// Numeric lists the measurements with statistics (schema column
	// indexes): the integer, unsigned and float classes, in schema order.
	Numeric    []int
	Series     []TSSeries
	Units      []TSUnit
	Stats      [][]TSStat // per unit, per numeric measurement
	Bloom      *Bloom     // the whole filter, pages joined (nil when bloomBlocks = 0)
	InnerPages int        // directory inner pages read, the root included
	ZstdPages  int        // pages of ts.index stored with zstd
	LeafPages  int        // directory leaves read, the root included

	index []byte // ts.index as stored
	minor uint16 // the file's minor version (unknown page compressions)
}

// valueClass is how the chapter writes a value of a column: int, uint,
// float, bool or bytes ("last values", statistics pages).
type valueClass uint8

const (
	classInt valueClass = iota + 1
	classUint
	classFloat
	classBool
	classBytes
)

// classOf returns the class of a top-level leaf, or 0 when the chapter
// does not name it (decimal, null).
func classOf(n *Node) valueClass {
	switch n.Kind {
	case KInt8, KInt16, KInt32, KInt64, KDate, KTimestamp, KTime, KDuration:
		return classInt
	case KUint8, KUint16, KUint32, KUint64:
		return classUint
	case KFloat32, KFloat64:
		return classFloat
	case KBool:
		return classBool
	case KString, KBinary:
		return classBytes
	}
	return 0
}

// ReadTimeSeries parses ts.model and every page of ts.index the model
// reaches (the whole directory, every unit, statistics and bloom page) and
// checks the rules the chapter states for them. It does not decode the
// table; VerifyTimeSeries compares the index with the data.
func (f *File) ReadTimeSeries() (*TimeSeries, error) {
	mb, ok, err := f.Section("ts.model")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("no ts.model section: %w", ErrCorrupt)
	}
	var idxSec *Section
	for i := range f.Sections {
		if f.Sections[i].Name == "ts.index" {
			idxSec = &f.Sections[i]
		}
	}
	if idxSec == nil {
		return nil, fmt.Errorf("ts.model without ts.index: %w", ErrCorrupt)
	}
	if idxSec.Ref.Compression != 0 {
		return nil, fmt.Errorf("ts.index stored with compression %d, not none: %w", idxSec.Ref.Compression, ErrCorrupt)
	}
	return f.ParseTimeSeries(mb, f.data[idxSec.Ref.Offset:idxSec.Ref.Offset+idxSec.Ref.Size])
}

// ParseTimeSeries parses a ts.model section's raw bytes and the stored
// bytes of ts.index (compression none) for f's schema and container.
func (f *File) ParseTimeSeries(model, index []byte) (*TimeSeries, error) {
	ts := &TimeSeries{index: index, minor: f.Minor}
	if err := f.parseModel(ts, model); err != nil {
		return nil, err
	}
	if err := ts.readDirectory(f); err != nil {
		return nil, err
	}
	if err := ts.readUnits(f); err != nil {
		return nil, err
	}
	if err := ts.readStats(); err != nil {
		return nil, err
	}
	if err := ts.readBloom(); err != nil {
		return nil, err
	}
	return ts, nil
}

// parseModel parses ts.model (FORMAT.md, "ts.model") and checks it against
// the schema and the container.
func (f *File) parseModel(ts *TimeSeries, b []byte) error {
	m := &ts.Model
	r := &reader{b: b, what: "ts.model"}
	m.Version = r.u8()
	if r.err != nil {
		return r.err
	}
	if m.Version != 1 && m.Version != 2 {
		return fmt.Errorf("ts.model version %d: %w", m.Version, ErrUnsupported)
	}
	fields := f.Schema.Root.Fields
	ncols := r.count(maxStreams, 1)
	if r.err == nil && ncols != len(fields) {
		return fmt.Errorf("ts.model: %d roles, the schema has %d columns: %w", ncols, len(fields), ErrCorrupt)
	}
	m.Roles = make([]uint8, 0, ncols)
	m.Time = -1
	nkeyRoles := 0
	for i := 0; i < ncols && r.err == nil; i++ {
		role := r.u8()
		switch role {
		case RoleMeasurement:
			m.Measurements = append(m.Measurements, i)
		case RoleKey:
			nkeyRoles++
		case RoleTime:
			if m.Time >= 0 {
				return fmt.Errorf("ts.model: columns %d and %d both have the time role: %w", m.Time, i, ErrCorrupt)
			}
			m.Time = i
		default:
			if r.err == nil {
				return fmt.Errorf("ts.model: column %d has role %d: %w", i, role, ErrCorrupt)
			}
		}
		m.Roles = append(m.Roles, role)
	}
	nkeys := r.count(ncols, 1)
	seen := make([]bool, ncols)
	for i := 0; i < nkeys && r.err == nil; i++ {
		c := r.uvarint()
		if r.err != nil {
			break
		}
		if c >= uint64(ncols) || m.Roles[c] != RoleKey || seen[c] {
			return fmt.Errorf("ts.model: key %d is column %d (role or repeat wrong): %w", i, c, ErrCorrupt)
		}
		seen[c] = true
		m.Keys = append(m.Keys, int(c))
	}
	if r.err == nil && (m.Time < 0 || nkeys != nkeyRoles) {
		return fmt.Errorf("ts.model: time column %d, %d keys listed for %d key roles: %w", m.Time, nkeys, nkeyRoles, ErrCorrupt)
	}
	m.Series, m.Rows, m.Units = r.uvarint(), r.uvarint(), r.uvarint()
	m.TMin, m.TMax = r.varint(), r.varint()
	m.ChunkRows, m.MinChunkRows, m.BlockSize = r.uvarint(), r.uvarint(), r.uvarint()
	h := r.uvarint()
	if r.err == nil && h > maxTSHeight {
		return fmt.Errorf("ts.model: directory height %d: %w", h, ErrLimit)
	}
	m.Height = int(h)
	m.Root = r.bytes(r.count(len(r.b), 1))
	m.UnitPages = pageRefs(r, "unit", m.Units)
	m.StatPages = pageRefs(r, "statistics", m.Units)
	m.BloomBlocks, m.BloomPerPage = r.uvarint(), r.uvarint()
	nb := r.count(maxStripes, 2)
	for i := 0; i < nb && r.err == nil; i++ {
		m.BloomPages = append(m.BloomPages, TSPageRef{Off: r.uvarint(), Size: r.uvarint()})
	}
	if r.err != nil {
		return r.err
	}
	if len(r.b) != 0 {
		return fmt.Errorf("ts.model: %d trailing bytes: %w", len(r.b), ErrCorrupt)
	}
	// Rules the chapter lists for a reader.
	var fileRows uint64
	for _, s := range f.Stripes {
		fileRows += s.Rows
	}
	if m.Rows != fileRows {
		return fmt.Errorf("ts.model: %d rows, the file %d: %w", m.Rows, fileRows, ErrCorrupt)
	}
	if m.Units > 0 && (len(m.UnitPages) == 0 || len(m.StatPages) == 0) {
		return fmt.Errorf("ts.model: %d units with %d unit and %d statistics pages: %w", m.Units, len(m.UnitPages), len(m.StatPages), ErrCorrupt)
	}
	if m.Series > 0 && len(m.Root) == 0 {
		return fmt.Errorf("ts.model: %d series without a root: %w", m.Series, ErrCorrupt)
	}
	if m.BloomBlocks > maxBloomBlocks {
		return fmt.Errorf("ts.model: %d bloom blocks: %w", m.BloomBlocks, ErrLimit)
	}
	want := uint64(0)
	if m.BloomBlocks > 0 {
		if m.BloomPerPage == 0 {
			return fmt.Errorf("ts.model: %d bloom blocks, 0 per page: %w", m.BloomBlocks, ErrCorrupt)
		}
		want = (m.BloomBlocks + m.BloomPerPage - 1) / m.BloomPerPage
	}
	if uint64(len(m.BloomPages)) != want {
		return fmt.Errorf("ts.model: %d bloom pages for %d blocks of %d per page: %w", len(m.BloomPages), m.BloomBlocks, m.BloomPerPage, ErrCorrupt)
	}
	// Checks of the table model the chapter states as layout rules.
	for i, n := range fields {
		if !n.Kind.leaf() || n.Values < 0 {
			return fmt.Errorf("ts.model: column %q (kind %d) is not a flat primitive column: %w", n.Name, n.Kind, ErrCorrupt)
		}
		if m.Roles[i] != RoleTime && classOf(n) == 0 {
			return fmt.Errorf("ts.model: column %q of kind %d has no value class in the chapter: %w", n.Name, n.Kind, ErrUnsupported)
		}
		if m.Roles[i] == RoleMeasurement && (classOf(n) == classInt || classOf(n) == classUint || classOf(n) == classFloat) {
			ts.Numeric = append(ts.Numeric, i)
		}
	}
	if k := fields[m.Time].Kind; k != KTimestamp && k != KInt64 {
		return fmt.Errorf("ts.model: time column %q has kind %d, not timestamp or int64: %w", fields[m.Time].Name, k, ErrCorrupt)
	}
	for _, c := range m.Keys {
		switch classOf(fields[c]) {
		case classInt, classUint, classBytes:
		default:
			return fmt.Errorf("ts.model: key column %q of kind %d has no canonical form: %w", fields[c].Name, fields[c].Kind, ErrUnsupported)
		}
	}
	return nil
}

// pageRefs reads `n | n × (firstDelta | off | size)` and checks that the
// firsts start at 0, increase strictly and stay below units.
func pageRefs(r *reader, what string, units uint64) []TSPageRef {
	n := r.count(maxStripes, 3)
	var out []TSPageRef
	var first uint64
	for i := 0; i < n && r.err == nil; i++ {
		d, off, size := r.uvarint(), r.uvarint(), r.uvarint()
		if r.err != nil {
			break
		}
		if (i == 0 && d != 0) || (i > 0 && d == 0) || first+d < first || first+d >= units {
			r.fail("%s page %d: first unit %d+%d of %d units: %w", what, i, first, d, units, ErrCorrupt)
			break
		}
		first += d
		out = append(out, TSPageRef{First: first, Off: off, Size: size})
	}
	return out
}

// page returns the payload of the ts.index page at [off, off+size): the
// framing of a chunk (container §4.1), checksum checked, decompressed; its
// first byte must be kind.
func (ts *TimeSeries) page(off, size uint64, kind byte, what string) ([]byte, error) {
	n := uint64(len(ts.index))
	if off > n || size > n-off || size < tsPageHeader {
		return nil, fmt.Errorf("%s page at [%d, +%d) outside ts.index of %d bytes: %w", what, off, size, n, ErrCorrupt)
	}
	b := ts.index[off : off+size]
	storedLen := binary.LittleEndian.Uint32(b)
	if uint64(storedLen) != size-tsPageHeader {
		return nil, fmt.Errorf("%s page at %d: storedLen %d, its reference says %d bytes: %w", what, off, storedLen, size, ErrCorrupt)
	}
	stored := b[tsPageHeader:]
	if got := sum32(stored); got != binary.LittleEndian.Uint32(b[5:]) {
		return nil, fmt.Errorf("%s page at %d: checksum %#x, framing says %#x: %w", what, off, got, binary.LittleEndian.Uint32(b[5:]), ErrCorrupt)
	}
	if b[4] == 1 {
		ts.ZstdPages++
	}
	p, err := unstore(stored, b[4], maxSection, ts.minor)
	if err != nil {
		return nil, fmt.Errorf("%s page at %d: %w", what, off, err)
	}
	if len(p) == 0 || p[0] != kind {
		return nil, fmt.Errorf("%s page at %d: kind %v, want %d: %w", what, off, p[:min(len(p), 1)], kind, ErrCorrupt)
	}
	return p, nil
}

// readKey reads nkeys prefix-compressed components: `shared | blob(suffix)`
// each, component = prev[i][:shared] + suffix; prev is nil for a page's
// first entry (shared must then be 0).
func readKey(r *reader, nkeys int, prev [][]byte) [][]byte {
	k := make([][]byte, nkeys)
	for i := 0; i < nkeys && r.err == nil; i++ {
		shared := r.uvarint()
		suffix := r.bytes(r.count(len(r.b), 1))
		if r.err != nil {
			break
		}
		var base []byte
		if prev != nil {
			base = prev[i]
		}
		if shared > uint64(len(base)) {
			r.fail("key component %d shares %d bytes of a %d-byte predecessor: %w", i, shared, len(base), ErrCorrupt)
			break
		}
		c := make([]byte, 0, int(shared)+len(suffix))
		k[i] = append(append(c, base[:shared]...), suffix...)
	}
	return k
}

// compareKeys compares canonical keys component by component, bytewise; a
// key that is a prefix of another sorts first.
func compareKeys(a, b [][]byte) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if c := bytes.Compare(a[i], b[i]); c != 0 {
			return c
		}
	}
	return cmp3(len(a) < len(b), len(a) > len(b))
}

// dirWalk carries the state of a directory walk: the next ordinal and the
// previous key, over all leaves in order.
type dirWalk struct {
	ts      *TimeSeries
	f       *File
	next    uint64
	prevKey [][]byte
	prevEnd uint64 // previous series' firstRow + rows
	prevC1  uint64
	prevT   int64
}

// readDirectory walks the B-tree from the root, every child of every
// inner page, and collects the leaves' entries in order.
func (ts *TimeSeries) readDirectory(f *File) error {
	m := &ts.Model
	if len(m.Root) == 0 {
		if m.Height != 0 {
			return fmt.Errorf("ts.model: height %d with an empty root: %w", m.Height, ErrCorrupt)
		}
		return nil
	}
	w := &dirWalk{ts: ts, f: f}
	kind := byte(tsLeaf)
	if m.Height > 0 {
		kind = tsInner
	}
	if m.Root[0] != kind {
		return fmt.Errorf("directory root: kind %d at height %d: %w", m.Root[0], m.Height, ErrCorrupt)
	}
	if err := w.visit(m.Root, m.Height, nil, 0, "root"); err != nil {
		return err
	}
	if w.next != m.Series {
		return fmt.Errorf("directory holds %d series, ts.model %d: %w", w.next, m.Series, ErrCorrupt)
	}
	return nil
}

// visit reads one directory page at the given level (0: a leaf). wantKey
// and wantFirst are what the parent entry says the page starts with (nil
// for the root).
func (w *dirWalk) visit(p []byte, level int, wantKey [][]byte, wantFirst uint64, what string) error {
	nkeys := len(w.ts.Model.Keys)
	if level == 0 {
		w.ts.LeafPages++
		return w.leaf(p, wantKey, wantFirst, what)
	}
	w.ts.InnerPages++
	r := &reader{b: p[1:], what: what + " (directory inner page)"}
	n := r.count(maxStripes, 3+2*nkeys)
	if r.err == nil && n == 0 {
		return fmt.Errorf("%s: inner page with no entries: %w", what, ErrCorrupt)
	}
	var prev [][]byte
	var first uint64
	for i := 0; i < n && r.err == nil; i++ {
		key := readKey(r, nkeys, prev)
		d, off, size := r.uvarint(), r.uvarint(), r.uvarint()
		if r.err != nil {
			break
		}
		if i > 0 && (d == 0 || compareKeys(prev, key) >= 0) {
			return fmt.Errorf("%s entry %d: keys or firsts do not increase strictly: %w", what, i, ErrCorrupt)
		}
		if first+d < first {
			return fmt.Errorf("%s entry %d: first ordinal overflows: %w", what, i, ErrCorrupt)
		}
		first += d
		if i == 0 && wantKey != nil && (first != wantFirst || compareKeys(key, wantKey) != 0) {
			return fmt.Errorf("%s: starts at series %d key %q, its parent says %d %q: %w", what, first, key, wantFirst, wantKey, ErrCorrupt)
		}
		if first != w.next {
			return fmt.Errorf("%s entry %d: child starts at series %d, the walk is at %d: %w", what, i, first, w.next, ErrCorrupt)
		}
		kind := byte(tsInner)
		if level == 1 {
			kind = tsLeaf
		}
		cwhat := fmt.Sprintf("directory level %d page at %d", level-1, off)
		child, err := w.ts.page(off, size, kind, fmt.Sprintf("directory level %d", level-1))
		if err != nil {
			return err
		}
		if err := w.visit(child, level-1, key, first, cwhat); err != nil {
			return err
		}
		prev = key
	}
	if r.err != nil {
		return r.err
	}
	if len(r.b) != 0 {
		return fmt.Errorf("%s: %d trailing bytes: %w", what, len(r.b), ErrCorrupt)
	}
	return nil
}

// leaf parses a directory leaf and appends its series.
func (w *dirWalk) leaf(p []byte, wantKey [][]byte, wantFirst uint64, what string) error {
	ts := w.ts
	m := &ts.Model
	nkeys, nmeas := len(m.Keys), len(m.Measurements)
	fields := w.f.Schema.Root.Fields
	r := &reader{b: p[1:], what: what + " (directory leaf)"}
	first := r.uvarint()
	n := r.count(maxStripes, 6+2*nkeys+nmeas)
	if r.err != nil {
		return r.err
	}
	if n == 0 && (m.Series != 0 || wantKey != nil) {
		return fmt.Errorf("%s: empty leaf: %w", what, ErrCorrupt)
	}
	if first != w.next || (wantKey != nil && first != wantFirst) {
		return fmt.Errorf("%s: first ordinal %d, expected %d: %w", what, first, w.next, ErrCorrupt)
	}
	if uint64(n) > m.Series-w.next {
		return fmt.Errorf("%s: %d series beyond ts.model's %d: %w", what, n, m.Series, ErrCorrupt)
	}
	var prev [][]byte
	for i := 0; i < n && r.err == nil; i++ {
		var s TSSeries
		s.Ordinal = w.next
		s.Key = readKey(r, nkeys, prev)
		rowField := r.uvarint()
		tmin := r.varint()
		unitField := r.uvarint()
		s.Rows = r.uvarint()
		span := r.uvarint()
		units := r.uvarint()
		if r.err != nil {
			break
		}
		ctx := fmt.Sprintf("%s entry %d (series %d)", what, i, s.Ordinal)
		if i == 0 {
			if wantKey != nil && compareKeys(s.Key, wantKey) != 0 {
				return fmt.Errorf("%s: key %q, the parent entry says %q: %w", ctx, s.Key, wantKey, ErrCorrupt)
			}
			s.FirstRow, s.TMin, s.C0 = rowField, tmin, unitField
		} else {
			if compareKeys(prev, s.Key) >= 0 {
				return fmt.Errorf("%s: key %q does not follow %q: %w", ctx, s.Key, prev, ErrCorrupt)
			}
			s.FirstRow = w.prevEnd + rowField
			s.TMin = w.prevT + tmin
			if w.prevC1 == 0 {
				return fmt.Errorf("%s: previous series has no unit: %w", ctx, ErrCorrupt)
			}
			s.C0 = w.prevC1 - 1 + unitField
		}
		// Across pages too: keys increase strictly, rows and units follow.
		if s.Ordinal > 0 {
			if compareKeys(w.prevKey, s.Key) >= 0 {
				return fmt.Errorf("%s: key %q does not follow the previous series' %q: %w", ctx, s.Key, w.prevKey, ErrCorrupt)
			}
			if s.FirstRow < w.prevEnd || s.C0+1 < w.prevC1 {
				return fmt.Errorf("%s: row %d or unit %d goes back: %w", ctx, s.FirstRow, s.C0, ErrCorrupt)
			}
		}
		if s.Rows == 0 || s.FirstRow+s.Rows < s.FirstRow || s.FirstRow+s.Rows > m.Rows {
			return fmt.Errorf("%s: rows [%d, +%d) of %d: %w", ctx, s.FirstRow, s.Rows, m.Rows, ErrCorrupt)
		}
		// a span may pass math.MaxInt64 (times at both ends of int64)
		s.TMax = int64(uint64(s.TMin) + span)
		if span > uint64(math.MaxInt64)-uint64(s.TMin) {
			return fmt.Errorf("%s: tmax overflows (tmin %d + %d): %w", ctx, s.TMin, span, ErrCorrupt)
		}
		s.C1 = s.C0 + units
		if units == 0 || s.C1 < s.C0 || s.C1 > m.Units {
			return fmt.Errorf("%s: units [%d, %d) of %d: %w", ctx, s.C0, s.C1, m.Units, ErrCorrupt)
		}
		s.Last = make([]TSLast, nmeas)
		for j, c := range m.Measurements {
			flag := r.u8()
			if r.err != nil {
				break
			}
			switch flag {
			case 0:
				continue
			case 1:
			default:
				return fmt.Errorf("%s: last value flag %d of column %q: %w", ctx, flag, fields[c].Name, ErrCorrupt)
			}
			d := r.uvarint()
			l := TSLast{Has: true, Time: int64(uint64(s.TMax) - d)}
			if d > uint64(s.TMax)-uint64(s.TMin) {
				return fmt.Errorf("%s: last value of %q at tmax−%d, outside [%d, %d]: %w", ctx, fields[c].Name, d, s.TMin, s.TMax, ErrCorrupt)
			}
			switch classOf(fields[c]) {
			case classInt:
				l.Value = r.varint()
			case classUint:
				l.Value = r.uvarint()
			case classFloat:
				if b := r.bytes(8); b != nil {
					l.Value = math.Float64frombits(binary.LittleEndian.Uint64(b))
				}
			case classBool:
				v := r.u8()
				if v > 1 {
					return fmt.Errorf("%s: bool last value %d: %w", ctx, v, ErrCorrupt)
				}
				l.Value = v == 1
			case classBytes:
				l.Value = r.bytes(r.count(len(r.b), 1))
			}
			s.Last[j] = l
		}
		if r.err != nil {
			break
		}
		ts.Series = append(ts.Series, s)
		prev = s.Key
		w.prevKey = s.Key
		w.prevEnd = s.FirstRow + s.Rows
		w.prevC1 = s.C1
		w.prevT = s.TMin
		w.next++
	}
	if r.err != nil {
		return r.err
	}
	if len(r.b) != 0 {
		return fmt.Errorf("%s: %d trailing bytes: %w", what, len(r.b), ErrCorrupt)
	}
	return nil
}

// pageSpan returns the units [first, end) of page i of refs.
func pageSpan(refs []TSPageRef, i int, units uint64) (uint64, uint64) {
	end := units
	if i+1 < len(refs) {
		end = refs[i+1].First
	}
	return refs[i].First, end
}

// readUnits reads every unit page.
func (ts *TimeSeries) readUnits(f *File) error {
	m := &ts.Model
	ncols := len(m.Roles)
	for i, ref := range m.UnitPages {
		what := fmt.Sprintf("unit page %d", i)
		p, err := ts.page(ref.Off, ref.Size, tsUnit, what)
		if err != nil {
			return err
		}
		lo, hi := pageSpan(m.UnitPages, i, m.Units)
		r := &reader{b: p[1:], what: what}
		first := r.uvarint()
		n := r.count(maxStripes, 7+3*ncols)
		if r.err != nil {
			return r.err
		}
		if first != lo || uint64(n) != hi-lo {
			return fmt.Errorf("%s: units [%d, +%d), ts.model says [%d, %d): %w", what, first, n, lo, hi, ErrCorrupt)
		}
		var prev *TSUnit
		for k := 0; k < n && r.err == nil; k++ {
			var u TSUnit
			stripe, fs, tmin := r.uvarint(), r.uvarint(), r.varint()
			u.Row, u.Rows, u.NSeries = r.uvarint(), r.uvarint(), r.uvarint()
			span := r.uvarint()
			if r.err != nil {
				break
			}
			ctx := fmt.Sprintf("%s unit %d", what, first+uint64(k))
			if prev == nil {
				u.Stripe, u.FirstSeries, u.TMin = stripe, fs, tmin
			} else {
				u.Stripe = prev.Stripe + stripe
				u.FirstSeries = prev.FirstSeries + prev.NSeries - 1 + fs
				u.TMin = prev.TMin + tmin
			}
			u.TMax = int64(uint64(u.TMin) + span)
			if span > uint64(math.MaxInt64)-uint64(u.TMin) {
				return fmt.Errorf("%s: tmax overflows: %w", ctx, ErrCorrupt)
			}
			if u.Stripe >= uint64(len(f.Stripes)) || u.Rows == 0 || u.Row+u.Rows < u.Row || u.Row+u.Rows > f.Stripes[u.Stripe].Rows {
				return fmt.Errorf("%s: rows [%d, +%d) of stripe %d: %w", ctx, u.Row, u.Rows, u.Stripe, ErrCorrupt)
			}
			if u.NSeries == 0 || u.FirstSeries+u.NSeries < u.FirstSeries || u.FirstSeries+u.NSeries > m.Series {
				return fmt.Errorf("%s: series [%d, +%d) of %d: %w", ctx, u.FirstSeries, u.NSeries, m.Series, ErrCorrupt)
			}
			u.Cols = make([]TSUnitCol, ncols)
			for j := 0; j < ncols && r.err == nil; j++ {
				nc := r.count(maxChunks, 2)
				off := r.uvarint()
				if r.err != nil {
					break
				}
				if nc == 0 {
					return fmt.Errorf("%s column %d: no chunks: %w", ctx, j, ErrCorrupt)
				}
				if prev != nil {
					pc := prev.Cols[j]
					last := len(pc.Offsets) - 1
					end := pc.Offsets[last] + pc.Sizes[last]
					if end+off < end {
						return fmt.Errorf("%s column %d: offset overflows: %w", ctx, j, ErrCorrupt)
					}
					off += end
				}
				c := TSUnitCol{Offsets: make([]uint64, nc), Sizes: make([]uint64, nc), Rows: make([]uint64, nc)}
				at := off
				for q := 0; q < nc && r.err == nil; q++ {
					c.Offsets[q] = at
					c.Sizes[q] = r.uvarint()
					if at+c.Sizes[q] < at {
						return fmt.Errorf("%s column %d: offset overflows: %w", ctx, j, ErrCorrupt)
					}
					at += c.Sizes[q]
				}
				left := u.Rows
				for q := 0; q+1 < nc && r.err == nil; q++ {
					c.Rows[q] = r.uvarint()
					if c.Rows[q] > left {
						return fmt.Errorf("%s column %d: chunk rows exceed the unit's %d: %w", ctx, j, u.Rows, ErrCorrupt)
					}
					left -= c.Rows[q]
				}
				c.Rows[nc-1] = left
				u.Cols[j] = c
			}
			if r.err != nil {
				break
			}
			ts.Units = append(ts.Units, u)
			prev = &ts.Units[len(ts.Units)-1]
		}
		if r.err != nil {
			return r.err
		}
		if len(r.b) != 0 {
			return fmt.Errorf("%s: %d trailing bytes: %w", what, len(r.b), ErrCorrupt)
		}
	}
	if uint64(len(ts.Units)) != m.Units {
		return fmt.Errorf("unit pages hold %d units, ts.model %d: %w", len(ts.Units), m.Units, ErrCorrupt)
	}
	return nil
}

// readStats reads every statistics page.
func (ts *TimeSeries) readStats() error {
	m := &ts.Model
	nn := len(ts.Numeric)
	for i, ref := range m.StatPages {
		what := fmt.Sprintf("statistics page %d", i)
		p, err := ts.page(ref.Off, ref.Size, tsStat, what)
		if err != nil {
			return err
		}
		lo, hi := pageSpan(m.StatPages, i, m.Units)
		r := &reader{b: p[1:], what: what}
		first := r.uvarint()
		n := r.count(maxStripes, nn)
		if r.err != nil {
			return r.err
		}
		if first != lo || uint64(n) != hi-lo {
			return fmt.Errorf("%s: units [%d, +%d), ts.model says [%d, %d): %w", what, first, n, lo, hi, ErrCorrupt)
		}
		for k := 0; k < n && r.err == nil; k++ {
			st := make([]TSStat, nn)
			for j := range st {
				st[j].Count = r.uvarint()
				if st[j].Count > 0 {
					size := 24
					if m.Version >= 2 {
						size = 40 // first and last follow
					}
					b := r.bytes(size)
					if b == nil {
						break
					}
					st[j].MinBits = binary.LittleEndian.Uint64(b)
					st[j].MaxBits = binary.LittleEndian.Uint64(b[8:])
					st[j].SumBits = binary.LittleEndian.Uint64(b[16:])
					if m.Version >= 2 {
						st[j].FirstBits = binary.LittleEndian.Uint64(b[24:])
						st[j].LastBits = binary.LittleEndian.Uint64(b[32:])
					}
				}
			}
			ts.Stats = append(ts.Stats, st)
		}
		if r.err != nil {
			return r.err
		}
		if len(r.b) != 0 {
			return fmt.Errorf("%s: %d trailing bytes: %w", what, len(r.b), ErrCorrupt)
		}
	}
	if uint64(len(ts.Stats)) != m.Units {
		return fmt.Errorf("statistics pages hold %d units, ts.model %d: %w", len(ts.Stats), m.Units, ErrCorrupt)
	}
	return nil
}

// readBloom reads the bloom pages and joins their blocks into one filter.
func (ts *TimeSeries) readBloom() error {
	m := &ts.Model
	if m.BloomBlocks == 0 {
		return nil
	}
	words := make([]uint32, 0, 8*m.BloomBlocks)
	for i, ref := range m.BloomPages {
		what := fmt.Sprintf("bloom page %d", i)
		p, err := ts.page(ref.Off, ref.Size, tsBloom, what)
		if err != nil {
			return err
		}
		want := min(m.BloomPerPage, m.BloomBlocks-uint64(i)*m.BloomPerPage)
		if uint64(len(p)-1) != 32*want {
			return fmt.Errorf("%s: %d bytes of blocks, want %d blocks: %w", what, len(p)-1, want, ErrCorrupt)
		}
		for q := 1; q < len(p); q += 4 {
			words = append(words, binary.LittleEndian.Uint32(p[q:]))
		}
	}
	ts.Bloom = &Bloom{words: words}
	return nil
}

// KeyHash is the bloom hash of a key's first k components: xxh3-64 of
// `uvarint(length) | bytes` of each component's canonical form.
func KeyHash(key [][]byte) uint64 {
	var b []byte
	for _, c := range key {
		b = binary.AppendUvarint(b, uint64(len(c)))
		b = append(b, c...)
	}
	return xxh3.Hash(b)
}

// MayContain reports whether the index's bloom filter may hold the key (or
// key prefix); with no filter, every key may be present.
func (ts *TimeSeries) MayContain(key [][]byte) bool {
	if ts.Bloom == nil {
		return true
	}
	return ts.Bloom.MayContain(KeyHash(key))
}

// CanonicalInt is the canonical form of a signed integer key: 8 bytes big
// endian with the sign bit flipped.
func CanonicalInt(v int64) []byte {
	return binary.BigEndian.AppendUint64(nil, uint64(v)^(1<<63))
}

// CanonicalUint is the canonical form of an unsigned integer key.
func CanonicalUint(v uint64) []byte {
	return binary.BigEndian.AppendUint64(nil, v)
}

// DoDBlock is one block of a DeltaOfDelta node with its exact bounds read
// from the header alone (FORMAT.md, DeltaOfDelta: "Reading without
// decoding").
type DoDBlock struct {
	Rows     int
	Regular  bool
	Min, Max int64
}

// DoDBlocks walks the block headers of an int64 DeltaOfDelta node without
// decoding the payloads and returns the block size and every block's
// bounds.
func DoDBlocks(payload []byte) (int, []DoDBlock, error) {
	h, err := node.ParseHeader(payload)
	if err != nil {
		return 0, nil, err
	}
	if h.Kind != kindDoD || h.Type != node.Int64 {
		return 0, nil, fmt.Errorf("node kind %d type %v, not an int64 DeltaOfDelta: %w", h.Kind, h.Type, ErrCorrupt)
	}
	r := &reader{b: h.Body, what: "DeltaOfDelta"}
	bs := r.uvarint()
	if r.err != nil {
		return 0, nil, r.err
	}
	if bs < 1 || bs > 65536 {
		return 0, nil, fmt.Errorf("DeltaOfDelta block size %d: %w", bs, ErrCorrupt)
	}
	nb := (uint64(h.Rows) + bs - 1) / bs
	if nb > uint64(len(r.b)) {
		return 0, nil, fmt.Errorf("DeltaOfDelta: %d blocks in %d bytes: %w", nb, len(r.b), ErrCorrupt)
	}
	blocks := make([]DoDBlock, 0, nb)
	var prevFirst, prevD1 uint64
	var prevLen uint64
	for b := uint64(0); b < nb && r.err == nil; b++ {
		L := min(uint64(h.Rows)-b*bs, bs)
		pred := prevFirst + prevLen*prevD1
		tag := r.u8()
		var v0, d1, lo, hi uint64
		var blk DoDBlock
		blk.Rows = int(L)
		if tag == 0x80 {
			if b == 0 {
				return 0, nil, fmt.Errorf("DeltaOfDelta: regular block 0: %w", ErrCorrupt)
			}
			v0, d1 = pred, prevD1
			end := v0 + (L-1)*d1
			blk.Regular = true
			blk.Min, blk.Max = min(int64(v0), int64(end)), max(int64(v0), int64(end))
		} else {
			if tag > 64 || (tag > 0 && L < 3) {
				return 0, nil, fmt.Errorf("DeltaOfDelta block %d: tag %d on %d rows: %w", b, tag, L, ErrCorrupt)
			}
			v0 = uint64(r.varint())
			if b > 0 {
				v0 += pred
			}
			d1 = prevD1
			if L >= 2 {
				d1 = uint64(r.varint())
				if b > 0 {
					d1 += prevD1
				}
			}
			if L >= 3 {
				r.varint() // dmin
			}
			if L >= 2 {
				lo, hi = r.uvarint(), uint64(r.varint())
			}
			blk.Min = int64(v0 - lo)
			blk.Max = int64(v0 + (L-1)*d1 + hi)
			if blk.Min > int64(v0) || blk.Max < int64(v0) {
				return 0, nil, fmt.Errorf("DeltaOfDelta block %d: bounds [%d, %d] miss the first value %d: %w", b, blk.Min, blk.Max, int64(v0), ErrCorrupt)
			}
			if L >= 3 {
				r.bytes(int((L-2)*uint64(tag)+7) / 8)
			}
		}
		blocks = append(blocks, blk)
		prevFirst, prevD1, prevLen = v0, d1, L
	}
	if r.err != nil {
		return 0, nil, r.err
	}
	if len(r.b) != 0 {
		return 0, nil, fmt.Errorf("DeltaOfDelta: %d trailing bytes: %w", len(r.b), ErrCorrupt)
	}
	return int(bs), blocks, nil
}

// TSReport counts what VerifyTimeSeries compared.
type TSReport struct {
	Series, Units, Chunks, TimeBlocks int
	// SplitColumns counts (unit, column) pairs stored as several chunks.
	SplitColumns                 int
	Stats, LastValues, BloomKeys int
	// ZeroRowChunks counts chunks of 0 rows that no unit lists.
	ZeroRowChunks int
	// UnequalSplits counts series of at least minChunkRows rows whose units
	// differ in size by more than one row ("equal units").
	UnequalSplits int
	Unequal       []string // the first few unequal splits
	// BlockSizes tallies the DeltaOfDelta block size of the time chunks.
	BlockSizes map[int]int
	// TimeKinds tallies the root node kind of the time chunks. The chapter
	// says they are DeltaOfDelta (19); the Go writer also writes others
	// (gaps/timeseries.md), whose bounds are then checked from the values
	// only.
	TimeKinds map[uint8]int
	// NotDoD describes the first few time chunks that are not DeltaOfDelta.
	NotDoD []string
}

// tsData holds the decoded columns of the whole file.
type tsData struct {
	cols []node.Values // per schema column
	keys [][][]byte    // per row, canonical key
}

// rowValue returns row i of column v in the class the index uses.
func rowValue(v *node.Values, i int, c valueClass) any {
	switch c {
	case classInt:
		return v.Int[i]
	case classUint:
		return v.Uint[i]
	case classFloat:
		if v.Type == node.Float32 {
			return float64(v.F32[i])
		}
		return v.F64[i]
	case classBool:
		return v.Bool[i]
	}
	return v.Bin[i]
}

// sameValue compares two index values (floats by their bits).
func sameValue(a, b any) bool {
	switch x := a.(type) {
	case float64:
		y, ok := b.(float64)
		return ok && math.Float64bits(x) == math.Float64bits(y)
	case []byte:
		y, ok := b.([]byte)
		return ok && bytes.Equal(x, y)
	}
	return a == b
}

// loadData decodes every column of every stripe and builds each row's
// canonical key.
func (ts *TimeSeries) loadData(f *File) (*tsData, error) {
	fields := f.Schema.Root.Fields
	d := &tsData{cols: make([]node.Values, len(fields))}
	for j, n := range fields {
		d.cols[j] = node.Values{Type: f.Schema.Types[n.Values]}
	}
	for s := range f.Stripes {
		st, err := f.stripe(s)
		if err != nil {
			return nil, err
		}
		for j, n := range fields {
			v, err := f.stream(st, n.Values, int(f.Stripes[s].Rows), fmt.Sprintf("column %q", n.Name))
			if err != nil {
				return nil, fmt.Errorf("stripe %d: %w", s, err)
			}
			appendValues(&d.cols[j], v)
		}
	}
	rows := int(ts.Model.Rows)
	d.keys = make([][][]byte, rows)
	for i := 0; i < rows; i++ {
		k := make([][]byte, len(ts.Model.Keys))
		for q, c := range ts.Model.Keys {
			v := &d.cols[c]
			if !v.Valid[i] {
				return nil, fmt.Errorf("row %d: key column %q is null (the chapter gives nulls no canonical form): %w", i, fields[c].Name, ErrUnsupported)
			}
			switch {
			case v.Type == node.Binary:
				k[q] = v.Bin[i]
			case v.Type.Signed():
				k[q] = CanonicalInt(v.Int[i])
			default:
				k[q] = CanonicalUint(v.Uint[i])
			}
		}
		d.keys[i] = k
	}
	tv := &d.cols[ts.Model.Time]
	for i := 0; i < rows; i++ {
		if !tv.Valid[i] {
			return nil, fmt.Errorf("row %d: the time column is null: %w", i, ErrCorrupt)
		}
	}
	return d, nil
}

// VerifyTimeSeries decodes the table and checks everything the index says
// against it: series keys, rows and time ranges, last values, units (rows,
// stripes, series, time ranges, every column's chunks against the group
// tables), the time chunks' DeltaOfDelta block bounds, the statistics
// pages and the bloom filter.
func (f *File) VerifyTimeSeries(ts *TimeSeries) (TSReport, error) {
	rep := TSReport{BlockSizes: map[int]int{}, TimeKinds: map[uint8]int{}}
	m := &ts.Model
	if m.Rows > maxStreamRows {
		return rep, fmt.Errorf("time series of %d rows: %w", m.Rows, ErrLimit)
	}
	d, err := ts.loadData(f)
	if err != nil {
		return rep, err
	}
	if err := ts.verifySeries(f, d, &rep); err != nil {
		return rep, err
	}
	if err := ts.verifyUnits(f, d, &rep); err != nil {
		return rep, err
	}
	for _, s := range ts.Series {
		for k := 1; k <= len(s.Key); k++ {
			if !ts.MayContain(s.Key[:k]) {
				return rep, fmt.Errorf("series %d: the bloom filter rejects its first %d key components: %w", s.Ordinal, k, ErrCorrupt)
			}
			rep.BloomKeys++
		}
	}
	return rep, nil
}

// verifySeries checks the directory's series against the rows.
func (ts *TimeSeries) verifySeries(f *File, d *tsData, rep *TSReport) error {
	m := &ts.Model
	fields := f.Schema.Root.Fields
	tv := d.cols[m.Time].Int
	next := uint64(0)
	fileMin, fileMax := int64(math.MaxInt64), int64(math.MinInt64)
	for _, s := range ts.Series {
		ctx := fmt.Sprintf("series %d %q", s.Ordinal, s.Key)
		if s.FirstRow != next {
			return fmt.Errorf("%s starts at row %d, the previous series ends at %d: %w", ctx, s.FirstRow, next, ErrCorrupt)
		}
		end := s.FirstRow + s.Rows
		for i := s.FirstRow; i < end; i++ {
			if compareKeys(d.keys[i], s.Key) != 0 {
				return fmt.Errorf("%s: row %d has key %q: %w", ctx, i, d.keys[i], ErrCorrupt)
			}
			if i > s.FirstRow && tv[i] < tv[i-1] {
				return fmt.Errorf("%s: time goes back at row %d (%d after %d): %w", ctx, i, tv[i], tv[i-1], ErrCorrupt)
			}
		}
		lo, hi := tv[s.FirstRow], tv[end-1]
		if s.TMin != lo || s.TMax != hi {
			return fmt.Errorf("%s: index time [%d, %d], rows [%d, %d]: %w", ctx, s.TMin, s.TMax, lo, hi, ErrCorrupt)
		}
		fileMin, fileMax = min(fileMin, lo), max(fileMax, hi)
		for j, c := range m.Measurements {
			v := &d.cols[c]
			want := TSLast{}
			for i := end; i > s.FirstRow; i-- {
				if v.Valid[i-1] {
					want = TSLast{Has: true, Time: tv[i-1], Value: rowValue(v, int(i-1), classOf(fields[c]))}
					break
				}
			}
			got := s.Last[j]
			if got.Has != want.Has || got.Has && (got.Time != want.Time || !sameValue(got.Value, want.Value)) {
				return fmt.Errorf("%s column %q: last value %+v, rows say %+v: %w", ctx, fields[c].Name, got, want, ErrCorrupt)
			}
			rep.LastValues++
		}
		next = end
		rep.Series++
	}
	if next != m.Rows {
		return fmt.Errorf("series cover %d of %d rows: %w", next, m.Rows, ErrCorrupt)
	}
	if m.Rows > 0 && (m.TMin != fileMin || m.TMax != fileMax) {
		return fmt.Errorf("ts.model time [%d, %d], rows [%d, %d]: %w", m.TMin, m.TMax, fileMin, fileMax, ErrCorrupt)
	}
	return nil
}

// seriesAt returns the ordinal of the series holding file row r.
func (ts *TimeSeries) seriesAt(r uint64) int {
	lo, hi := 0, len(ts.Series)
	for lo < hi {
		mid := (lo + hi) / 2
		if ts.Series[mid].FirstRow+ts.Series[mid].Rows <= r {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// verifyUnits checks every unit against the rows, the series and the
// group tables, and the statistics pages against the values.
func (ts *TimeSeries) verifyUnits(f *File, d *tsData, rep *TSReport) error {
	m := &ts.Model
	fields := f.Schema.Root.Fields
	tv := d.cols[m.Time].Int
	covered := map[[3]int]int{} // (stripe, column, chunk) → units listing it
	next := uint64(0)
	unitOf := make([]int, 0, len(ts.Units)) // per unit: series ordinal when it holds part of one series, else -1
	for ui, u := range ts.Units {
		ctx := fmt.Sprintf("unit %d", ui)
		stripe := f.Stripes[u.Stripe]
		start := stripe.FirstRow + u.Row
		end := start + u.Rows
		if start != next {
			return fmt.Errorf("%s starts at file row %d (stripe %d row %d), the previous unit ends at %d: %w", ctx, start, u.Stripe, u.Row, next, ErrCorrupt)
		}
		next = end
		if u.Rows > m.ChunkRows {
			return fmt.Errorf("%s holds %d rows, over chunkRows %d: %w", ctx, u.Rows, m.ChunkRows, ErrCorrupt)
		}
		s0, s1 := ts.seriesAt(start), ts.seriesAt(end-1)
		if uint64(s0) != u.FirstSeries || uint64(s1-s0+1) != u.NSeries {
			return fmt.Errorf("%s: series [%d, +%d), the rows hold [%d, %d]: %w", ctx, u.FirstSeries, u.NSeries, s0, s1, ErrCorrupt)
		}
		whole := -1
		for s := s0; s <= s1; s++ {
			se := ts.Series[s]
			isWhole := se.FirstRow >= start && se.FirstRow+se.Rows <= end
			if u.NSeries > 1 && (!isWhole || se.Rows >= m.MinChunkRows) {
				return fmt.Errorf("%s shares %d series but series %d (%d rows, whole %v) is not whole and shorter than minChunkRows %d: %w", ctx, u.NSeries, s, se.Rows, isWhole, m.MinChunkRows, ErrCorrupt)
			}
			if !isWhole {
				if se.Rows < m.MinChunkRows {
					return fmt.Errorf("%s holds part of series %d of %d rows, under minChunkRows %d: %w", ctx, s, se.Rows, m.MinChunkRows, ErrCorrupt)
				}
				whole = s
			}
			if uint64(ui) < se.C0 || uint64(ui) >= se.C1 {
				return fmt.Errorf("%s holds rows of series %d, whose units are [%d, %d): %w", ctx, s, se.C0, se.C1, ErrCorrupt)
			}
		}
		unitOf = append(unitOf, whole)
		lo, hi := tv[start], tv[start]
		for i := start; i < end; i++ {
			lo, hi = min(lo, tv[i]), max(hi, tv[i])
		}
		if u.TMin != lo || u.TMax != hi {
			return fmt.Errorf("%s: index time [%d, %d], rows [%d, %d]: %w", ctx, u.TMin, u.TMax, lo, hi, ErrCorrupt)
		}
		if err := ts.verifyUnitChunks(f, d, ui, covered, rep); err != nil {
			return err
		}
		if err := ts.verifyUnitStats(f, d, ui, start, end, rep); err != nil {
			return err
		}
		rep.Units++
	}
	if next != m.Rows {
		return fmt.Errorf("units cover %d of %d rows: %w", next, m.Rows, ErrCorrupt)
	}
	// Series' unit ranges are exactly the units holding their rows.
	for _, s := range ts.Series {
		first := ts.unitAt(f, s.FirstRow)
		last := ts.unitAt(f, s.FirstRow+s.Rows-1)
		if uint64(first) != s.C0 || uint64(last+1) != s.C1 {
			return fmt.Errorf("series %d: units [%d, %d), its rows lie in [%d, %d]: %w", s.Ordinal, s.C0, s.C1, first, last, ErrCorrupt)
		}
		if s.Rows >= m.MinChunkRows && s.C1-s.C0 > 1 {
			lo, hi := uint64(math.MaxUint64), uint64(0)
			for c := s.C0; c < s.C1; c++ {
				lo, hi = min(lo, ts.Units[c].Rows), max(hi, ts.Units[c].Rows)
			}
			if hi-lo > 1 {
				rep.UnequalSplits++
				if len(rep.Unequal) < 4 {
					var sizes []uint64
					for c := s.C0; c < s.C1; c++ {
						sizes = append(sizes, ts.Units[c].Rows)
					}
					rep.Unequal = append(rep.Unequal, fmt.Sprintf("series %d of %d rows: units %v", s.Ordinal, s.Rows, sizes))
				}
			}
		}
	}
	// Every chunk of every column lies in exactly one unit.
	for s := range f.Stripes {
		t, err := f.table(s)
		if err != nil {
			return err
		}
		for j, n := range fields {
			if n.Values >= len(t.Streams) {
				continue
			}
			for c, e := range t.Streams[n.Values].Chunks {
				switch k := covered[[3]int{s, j, c}]; {
				case k == 0 && e.Rows == 0:
					rep.ZeroRowChunks++
				case k != 1:
					return fmt.Errorf("stripe %d column %q chunk %d (%d rows) lies in %d units: %w", s, n.Name, c, e.Rows, k, ErrCorrupt)
				}
			}
		}
	}
	return nil
}

// unitAt returns the unit holding file row r.
func (ts *TimeSeries) unitAt(f *File, r uint64) int {
	lo, hi := 0, len(ts.Units)
	for lo < hi {
		mid := (lo + hi) / 2
		u := ts.Units[mid]
		if f.Stripes[u.Stripe].FirstRow+u.Row+u.Rows <= r {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// verifyUnitChunks checks a unit's chunk lists against the group tables:
// consecutive chunks of the column's values stream at the offsets, sizes
// and row counts the unit gives, starting at the unit's row; and the time
// chunks' DeltaOfDelta block bounds against the times.
func (ts *TimeSeries) verifyUnitChunks(f *File, d *tsData, ui int, covered map[[3]int]int, rep *TSReport) error {
	u := ts.Units[ui]
	fields := f.Schema.Root.Fields
	t, err := f.table(int(u.Stripe))
	if err != nil {
		return err
	}
	stripe := f.Stripes[u.Stripe]
	tmin, tmax := int64(math.MaxInt64), int64(math.MinInt64)
	for j, n := range fields {
		ctx := fmt.Sprintf("unit %d column %q", ui, n.Name)
		uc := u.Cols[j]
		if n.Values >= len(t.Streams) {
			return fmt.Errorf("%s: stream %d absent from stripe %d: %w", ctx, n.Values, u.Stripe, ErrCorrupt)
		}
		chunks := t.Streams[n.Values].Chunks
		c0 := -1
		for c, e := range chunks {
			if e.Offset == uc.Offsets[0] {
				c0 = c
				break
			}
		}
		if c0 < 0 || c0+len(uc.Offsets) > len(chunks) {
			return fmt.Errorf("%s: no run of %d chunks at offset %d in stripe %d: %w", ctx, len(uc.Offsets), uc.Offsets[0], u.Stripe, ErrCorrupt)
		}
		if len(uc.Offsets) > 1 {
			rep.SplitColumns++
		}
		if chunks[c0].FirstRow != u.Row {
			return fmt.Errorf("%s: first chunk starts at stripe row %d, the unit at %d: %w", ctx, chunks[c0].FirstRow, u.Row, ErrCorrupt)
		}
		for q := range uc.Offsets {
			e := chunks[c0+q]
			if e.Offset != uc.Offsets[q] || e.Size != uc.Sizes[q] || e.Rows != uc.Rows[q] {
				return fmt.Errorf("%s chunk %d: index says offset %d size %d rows %d, the group table %d %d %d: %w", ctx, q, uc.Offsets[q], uc.Sizes[q], uc.Rows[q], e.Offset, e.Size, e.Rows, ErrCorrupt)
			}
			covered[[3]int{int(u.Stripe), j, c0 + q}]++
			rep.Chunks++
			if j != ts.Model.Time {
				continue
			}
			p, err := f.chunkPayload(int(u.Stripe), n.Values, c0+q, e)
			if err != nil {
				return err
			}
			rep.TimeKinds[p[0]]++
			if p[0] != kindDoD {
				if len(rep.NotDoD) < 3 {
					tv := d.cols[j].Int[stripe.FirstRow+e.FirstRow : stripe.FirstRow+e.FirstRow+e.Rows]
					rep.NotDoD = append(rep.NotDoD, fmt.Sprintf("%s chunk %d: kind %d, %d rows, times %v", ctx, q, p[0], e.Rows, tv[:min(len(tv), 12)]))
				}
				for _, x := range d.cols[j].Int[stripe.FirstRow+e.FirstRow : stripe.FirstRow+e.FirstRow+e.Rows] {
					tmin, tmax = min(tmin, x), max(tmax, x)
				}
				continue
			}
			bs, blocks, err := DoDBlocks(p)
			if err != nil {
				return fmt.Errorf("%s chunk %d (the time column must be DeltaOfDelta): %w", ctx, q, err)
			}
			rep.BlockSizes[bs]++
			row := stripe.FirstRow + e.FirstRow
			for b, blk := range blocks {
				lo, hi := d.cols[j].Int[row], d.cols[j].Int[row]
				for i := row; i < row+uint64(blk.Rows); i++ {
					lo, hi = min(lo, d.cols[j].Int[i]), max(hi, d.cols[j].Int[i])
				}
				if blk.Min != lo || blk.Max != hi {
					return fmt.Errorf("%s chunk %d block %d: header bounds [%d, %d], values [%d, %d]: %w", ctx, q, b, blk.Min, blk.Max, lo, hi, ErrCorrupt)
				}
				tmin, tmax = min(tmin, lo), max(tmax, hi)
				row += uint64(blk.Rows)
				rep.TimeBlocks++
			}
		}
	}
	if tmin != u.TMin || tmax != u.TMax {
		return fmt.Errorf("unit %d: time [%d, %d], its time blocks [%d, %d]: %w", ui, u.TMin, u.TMax, tmin, tmax, ErrCorrupt)
	}
	return nil
}

// verifyUnitStats checks the statistics of unit ui (file rows [start,
// end)): count of non-null values, and the float64 bits of their minimum,
// maximum and sum, summed in row order, and (version 2) of the first and
// last of them in row order.
func (ts *TimeSeries) verifyUnitStats(f *File, d *tsData, ui int, start, end uint64, rep *TSReport) error {
	fields := f.Schema.Root.Fields
	for q, c := range ts.Numeric {
		v := &d.cols[c]
		cl := classOf(fields[c])
		var want TSStat
		var lo, hi, sum, first, last float64
		for i := start; i < end; i++ {
			if !v.Valid[i] {
				continue
			}
			var x float64
			switch cl {
			case classInt:
				x = float64(v.Int[i])
			case classUint:
				x = float64(v.Uint[i])
			default:
				x = rowValue(v, int(i), cl).(float64)
			}
			if want.Count == 0 {
				lo, hi, first = x, x, x
			}
			lo, hi = math.Min(lo, x), math.Max(hi, x)
			sum += x
			last = x
			want.Count++
		}
		if want.Count > 0 {
			want.MinBits, want.MaxBits, want.SumBits = math.Float64bits(lo), math.Float64bits(hi), math.Float64bits(sum)
			if ts.Model.Version >= 2 {
				want.FirstBits, want.LastBits = math.Float64bits(first), math.Float64bits(last)
			}
		}
		got := ts.Stats[ui][q]
		if got != want {
			return fmt.Errorf("unit %d column %q: statistics count %d min %g max %g sum %g first %g last %g, values %d %g %g %g %g %g: %w", ui, fields[c].Name,
				got.Count, math.Float64frombits(got.MinBits), math.Float64frombits(got.MaxBits), math.Float64frombits(got.SumBits),
				math.Float64frombits(got.FirstBits), math.Float64frombits(got.LastBits),
				want.Count, lo, hi, sum, first, last, ErrCorrupt)
		}
		rep.Stats++
	}
	return nil
}

// Find descends the directory as the chapter's B-tree rule says, reading
// one page per level below the root: in each inner page it takes the last
// child whose first key is at most key (byOrdinal false) or whose first
// ordinal is at most ord (byOrdinal true), then searches the leaf. It
// returns the series, whether it was found, and the pages read.
func (ts *TimeSeries) Find(f *File, key [][]byte, ord uint64, byOrdinal bool) (TSSeries, bool, int, error) {
	m := &ts.Model
	if len(m.Root) == 0 {
		return TSSeries{}, false, 0, nil
	}
	p := m.Root
	reads := 0
	nkeys := len(m.Keys)
	for level := m.Height; level > 0; level-- {
		r := &reader{b: p[1:], what: "directory inner page"}
		n := r.count(maxStripes, 3+2*nkeys)
		var prev [][]byte
		var first uint64
		pick := -1
		var off, size uint64
		for i := 0; i < n && r.err == nil; i++ {
			k := readKey(r, nkeys, prev)
			d, o, s := r.uvarint(), r.uvarint(), r.uvarint()
			first += d
			prev = k
			if r.err != nil {
				break
			}
			if (byOrdinal && first <= ord) || (!byOrdinal && compareKeys(k, key) <= 0) {
				pick, off, size = i, o, s
			}
		}
		if r.err != nil {
			return TSSeries{}, false, reads, r.err
		}
		if pick < 0 {
			return TSSeries{}, false, reads, nil
		}
		kind := byte(tsInner)
		if level == 1 {
			kind = tsLeaf
		}
		child, err := ts.page(off, size, kind, fmt.Sprintf("directory level %d", level-1))
		if err != nil {
			return TSSeries{}, false, reads, err
		}
		reads++
		p = child
	}
	first, _, err := node.Uvarint(p[1:])
	if err != nil {
		return TSSeries{}, false, reads, fmt.Errorf("directory leaf: %w", err)
	}
	scratch := &TimeSeries{Model: ts.Model, Numeric: ts.Numeric, index: ts.index, minor: ts.minor}
	w := &dirWalk{ts: scratch, f: f, next: first}
	if err := w.leaf(p, nil, first, "directory leaf"); err != nil {
		return TSSeries{}, false, reads, err
	}
	for _, s := range scratch.Series {
		if (byOrdinal && s.Ordinal == ord) || (!byOrdinal && compareKeys(s.Key, key) == 0) {
			return s, true, reads, nil
		}
	}
	return TSSeries{}, false, reads, nil
}
