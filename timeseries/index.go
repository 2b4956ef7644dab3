package timeseries

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/zeebo/xxh3"

	"strata/encoding"
	"strata/format"
)

// The series index lives in two named sections of the file:
//
//   - "ts.index" (stored uncompressed, so it can be read by range) is a
//     sequence of pages, each framed like a chunk (length, compression,
//     checksum): directory pages (the leaves and inner nodes of a B-tree
//     over series keys), unit pages (where each chunk of rows lies),
//     statistics pages, and bloom pages (the blocks of a filter on series
//     paths).
//   - "ts.model" (small, next to the footer, so Open reads it with the
//     file's tail) holds the table model, the root of the directory and
//     the page tables of the other page kinds.
//
// A lookup reads the bloom block of the key, one page per directory level
// below the root and the unit page(s) of the series: a handful of small
// reads whatever the number of series. Layout in docs/FORMAT.md.

// Section names.
const (
	sectionIndex = "ts.index"
	sectionModel = "ts.model"
)

// indexVersion is the version of both sections' layout the writer
// writes. Version 2 added each unit's first and last value of every
// numeric measurement to its statistics, so that bars (first, last, min,
// max) over whole units come from the index alone, as TsFile's chunk
// statistics give them; version 1 files stay readable and take their
// first and last from the units' rows.
const indexVersion = 2

// minIndexVersion is the oldest version a reader accepts.
const minIndexVersion = 1

// endsVersion is the first version whose statistics hold first and last.
const endsVersion = 2

// Page kinds: the first byte of every page payload.
const (
	pageLeaf  = 1
	pageInner = 2
	pageUnits = 3
	pageStats = 4
	pageBloom = 5
)

func hashBytes(b []byte) uint64 { return xxh3.Hash(b) }

// seriesEntry is one series of the directory.
type seriesEntry struct {
	ord        int
	key        Key
	firstRow   int64 // file row of the series' first row
	rows       int64
	tmin, tmax int64
	c0, c1     int         // units [c0, c1) hold the series' rows
	last       []lastValue // per measurement, its latest non-null value
}

// lastValue is a measurement's latest non-null value in a series.
type lastValue struct {
	ok  bool
	t   int64
	num uint64 // int64 or uint64 bits, float64 bits, 0/1 for bool
	b   []byte // classBytes
}

// unitRec is one unit: a run of rows that every column stores as its own
// chunk(s), holding one series or several whole small series.
type unitRec struct {
	stripe      int
	row, rows   int64 // first row within the stripe, row count
	firstSeries int
	nSeries     int
	tmin, tmax  int64
	cols        []colLoc // per column of the schema
}

// colLoc locates one column's chunks of a unit: consecutive in the file
// from off, usually one.
type colLoc struct {
	off   int64
	sizes []int64
	rows  []int64
}

// unitStats summarizes one numeric measurement over one unit.
type unitStats struct {
	count         int64 // non-null values
	min, max, sum float64
	// first and last are the unit's first and last non-null values in row
	// order (version 2 on); ends is set when the record holds them.
	first, last float64
	ends        bool
}

// pageRef locates a page within the ts.index section.
type pageRef struct{ off, size int64 }

// pageDir is an entry of a page table: the first ordinal a page holds.
type pageDir struct {
	first int
	ref   pageRef
}

// indexMeta is the decoded ts.model section.
type indexMeta struct {
	version      int
	roles        []role
	keyOrder     []int
	series, rows int64
	units        int
	tmin, tmax   int64
	chunkRows    int
	minChunkRows int
	blockSize    int
	height       int    // directory levels below the root
	root         []byte // payload of the root page
	unitPages    []pageDir
	statPages    []pageDir
	bloomBlocks  int
	bloomPerPage int
	bloomPages   []pageRef
}

// layout is what page decoding needs to know about the table.
type layout struct {
	nkeys   int
	ncols   int
	classes []valueClass // per measurement
	nnum    int          // numeric measurements
	// ends: statistics records hold first and last (index version 2 on).
	ends bool
}

func (t *table) layout() *layout {
	l := &layout{nkeys: len(t.keys), ncols: len(t.roles), classes: t.classes}
	for _, c := range t.classes {
		if c.numeric() {
			l.nnum++
		}
	}
	return l
}

// ---- encoding ----

func appendBlob(dst, b []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(b)))
	return append(dst, b...)
}

// appendKey appends k prefix-compressed against prev (nil at a page start).
func appendKey(dst []byte, k, prev Key) []byte {
	for i, v := range k {
		s := 0
		if prev != nil {
			s = sharedPrefix(prev[i], v)
		}
		dst = binary.AppendUvarint(dst, uint64(s))
		dst = appendBlob(dst, []byte(v[s:]))
	}
	return dst
}

func appendLast(dst []byte, l *layout, last []lastValue, tmax int64) []byte {
	for i, c := range l.classes {
		v := last[i]
		if !v.ok {
			dst = append(dst, 0)
			continue
		}
		dst = append(dst, 1)
		dst = binary.AppendUvarint(dst, uint64(tmax-v.t))
		switch c {
		case classInt:
			dst = binary.AppendVarint(dst, int64(v.num))
		case classUint:
			dst = binary.AppendUvarint(dst, v.num)
		case classFloat:
			dst = binary.LittleEndian.AppendUint64(dst, v.num)
		case classBool:
			dst = append(dst, byte(v.num&1))
		case classBytes:
			dst = appendBlob(dst, v.b)
		}
	}
	return dst
}

// appendLeaf encodes a directory leaf page.
func appendLeaf(dst []byte, l *layout, es []seriesEntry) []byte {
	dst = append(dst, pageLeaf)
	dst = binary.AppendUvarint(dst, uint64(es[0].ord))
	dst = binary.AppendUvarint(dst, uint64(len(es)))
	var prev *seriesEntry
	for i := range es {
		e := &es[i]
		if prev == nil {
			dst = appendKey(dst, e.key, nil)
			dst = binary.AppendUvarint(dst, uint64(e.firstRow))
			dst = binary.AppendVarint(dst, e.tmin)
			dst = binary.AppendUvarint(dst, uint64(e.c0))
		} else {
			dst = appendKey(dst, e.key, prev.key)
			dst = binary.AppendUvarint(dst, uint64(e.firstRow-(prev.firstRow+prev.rows)))
			dst = binary.AppendVarint(dst, e.tmin-prev.tmin)
			dst = binary.AppendUvarint(dst, uint64(e.c0-(prev.c1-1)))
		}
		dst = binary.AppendUvarint(dst, uint64(e.rows))
		dst = binary.AppendUvarint(dst, uint64(e.tmax-e.tmin))
		dst = binary.AppendUvarint(dst, uint64(e.c1-e.c0))
		dst = appendLast(dst, l, e.last, e.tmax)
		prev = e
	}
	return dst
}

// innerEntry is one child of an inner page.
type innerEntry struct {
	key   Key // first key of the child
	first int // first series ordinal of the child
	ref   pageRef
}

func appendInner(dst []byte, es []innerEntry) []byte {
	dst = append(dst, pageInner)
	dst = binary.AppendUvarint(dst, uint64(len(es)))
	var prev Key
	prevFirst := 0
	for _, e := range es {
		dst = appendKey(dst, e.key, prev)
		dst = binary.AppendUvarint(dst, uint64(e.first-prevFirst))
		dst = binary.AppendUvarint(dst, uint64(e.ref.off))
		dst = binary.AppendUvarint(dst, uint64(e.ref.size))
		prev, prevFirst = e.key, e.first
	}
	return dst
}

func appendUnits(dst []byte, first int, us []unitRec) []byte {
	dst = append(dst, pageUnits)
	dst = binary.AppendUvarint(dst, uint64(first))
	dst = binary.AppendUvarint(dst, uint64(len(us)))
	var prev *unitRec
	for i := range us {
		u := &us[i]
		if prev == nil {
			dst = binary.AppendUvarint(dst, uint64(u.stripe))
			dst = binary.AppendUvarint(dst, uint64(u.firstSeries))
			dst = binary.AppendVarint(dst, u.tmin)
		} else {
			dst = binary.AppendUvarint(dst, uint64(u.stripe-prev.stripe))
			dst = binary.AppendUvarint(dst, uint64(u.firstSeries-(prev.firstSeries+prev.nSeries-1)))
			dst = binary.AppendVarint(dst, u.tmin-prev.tmin)
		}
		dst = binary.AppendUvarint(dst, uint64(u.row))
		dst = binary.AppendUvarint(dst, uint64(u.rows))
		dst = binary.AppendUvarint(dst, uint64(u.nSeries))
		dst = binary.AppendUvarint(dst, uint64(u.tmax-u.tmin))
		for c := range u.cols {
			cl := &u.cols[c]
			dst = binary.AppendUvarint(dst, uint64(len(cl.sizes)))
			if prev == nil {
				dst = binary.AppendUvarint(dst, uint64(cl.off))
			} else {
				p := &prev.cols[c]
				dst = binary.AppendUvarint(dst, uint64(cl.off-p.end()))
			}
			for _, s := range cl.sizes {
				dst = binary.AppendUvarint(dst, uint64(s))
			}
			if len(cl.rows) > 1 {
				for _, r := range cl.rows[:len(cl.rows)-1] {
					dst = binary.AppendUvarint(dst, uint64(r))
				}
			}
		}
		prev = u
	}
	return dst
}

// end returns the offset just past the column's chunks of a unit.
func (c *colLoc) end() int64 {
	e := c.off
	for _, s := range c.sizes {
		e += s
	}
	return e
}

// appendStats appends a statistics page; ends writes each record's first
// and last (index version 2 on).
func appendStats(dst []byte, first int, st [][]unitStats, ends bool) []byte {
	dst = append(dst, pageStats)
	dst = binary.AppendUvarint(dst, uint64(first))
	dst = binary.AppendUvarint(dst, uint64(len(st)))
	for _, rec := range st {
		for _, s := range rec {
			dst = binary.AppendUvarint(dst, uint64(s.count))
			if s.count > 0 {
				dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(s.min))
				dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(s.max))
				dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(s.sum))
				if ends {
					dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(s.first))
					dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(s.last))
				}
			}
		}
	}
	return dst
}

func appendMeta(dst []byte, m *indexMeta) []byte {
	dst = append(dst, byte(m.version))
	dst = binary.AppendUvarint(dst, uint64(len(m.roles)))
	for _, r := range m.roles {
		dst = append(dst, byte(r))
	}
	dst = binary.AppendUvarint(dst, uint64(len(m.keyOrder)))
	for _, k := range m.keyOrder {
		dst = binary.AppendUvarint(dst, uint64(k))
	}
	dst = binary.AppendUvarint(dst, uint64(m.series))
	dst = binary.AppendUvarint(dst, uint64(m.rows))
	dst = binary.AppendUvarint(dst, uint64(m.units))
	dst = binary.AppendVarint(dst, m.tmin)
	dst = binary.AppendVarint(dst, m.tmax)
	dst = binary.AppendUvarint(dst, uint64(m.chunkRows))
	dst = binary.AppendUvarint(dst, uint64(m.minChunkRows))
	dst = binary.AppendUvarint(dst, uint64(m.blockSize))
	dst = binary.AppendUvarint(dst, uint64(m.height))
	dst = appendBlob(dst, m.root)
	for _, t := range [][]pageDir{m.unitPages, m.statPages} {
		dst = binary.AppendUvarint(dst, uint64(len(t)))
		prev := 0
		for _, p := range t {
			dst = binary.AppendUvarint(dst, uint64(p.first-prev))
			dst = binary.AppendUvarint(dst, uint64(p.ref.off))
			dst = binary.AppendUvarint(dst, uint64(p.ref.size))
			prev = p.first
		}
	}
	dst = binary.AppendUvarint(dst, uint64(m.bloomBlocks))
	dst = binary.AppendUvarint(dst, uint64(m.bloomPerPage))
	dst = binary.AppendUvarint(dst, uint64(len(m.bloomPages)))
	for _, p := range m.bloomPages {
		dst = binary.AppendUvarint(dst, uint64(p.off))
		dst = binary.AppendUvarint(dst, uint64(p.size))
	}
	return dst
}

// framePage frames a page payload like a chunk, compressed with zstd when
// that saves at least a tenth.
func framePage(payload []byte) []byte {
	plain, _ := format.AppendChunk(nil, payload, format.CompressionNone)
	if len(payload) < 256 {
		return plain
	}
	z, err := format.AppendChunk(nil, payload, format.CompressionZstd)
	if err == nil && len(z) < len(plain)*9/10 {
		return z
	}
	return plain
}

// ---- decoding ----

// dec reads an index buffer with a sticky error; every count is checked
// against the bytes that remain before the caller allocates.
type dec struct {
	b    []byte
	what string
	err  error
}

func (d *dec) fail(format string, args ...any) {
	if d.err == nil {
		d.err = encoding.Corruptf("timeseries: %s: "+format, append([]any{d.what}, args...)...)
	}
}

func (d *dec) uvarint(field string) uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail("%s: bad uvarint", field)
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *dec) varint(field string) int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail("%s: bad varint", field)
		return 0
	}
	d.b = d.b[n:]
	return v
}

// int returns a uvarint that must fit in [0, max].
func (d *dec) int(field string, max int64) int64 {
	v := d.uvarint(field)
	if d.err == nil && v > uint64(max) {
		d.fail("%s: %d exceeds %d", field, v, max)
		return 0
	}
	return int64(v)
}

// count returns a uvarint count of items that take at least per bytes each.
func (d *dec) count(field string, per int) int {
	v := d.uvarint(field)
	if d.err == nil && v > uint64(len(d.b)/max(per, 1)) {
		d.fail("%s: %d items in %d bytes", field, v, len(d.b))
		return 0
	}
	return int(v)
}

func (d *dec) byte1(field string) byte {
	if d.err != nil {
		return 0
	}
	if len(d.b) < 1 {
		d.fail("%s: truncated", field)
		return 0
	}
	v := d.b[0]
	d.b = d.b[1:]
	return v
}

func (d *dec) u64(field string) uint64 {
	if d.err != nil {
		return 0
	}
	if len(d.b) < 8 {
		d.fail("%s: truncated", field)
		return 0
	}
	v := binary.LittleEndian.Uint64(d.b)
	d.b = d.b[8:]
	return v
}

func (d *dec) blob(field string) []byte {
	n := d.uvarint(field + " length")
	if d.err != nil {
		return nil
	}
	if n > uint64(len(d.b)) {
		d.fail("%s: %d bytes, %d remain", field, n, len(d.b))
		return nil
	}
	v := d.b[:n:n]
	d.b = d.b[n:]
	return v
}

func (d *dec) key(nkeys int, prev Key) Key {
	k := make(Key, nkeys)
	for i := range k {
		s := d.uvarint("key prefix")
		suf := d.blob("key suffix")
		if d.err != nil {
			return nil
		}
		if prev == nil && s != 0 || prev != nil && s > uint64(len(prev[i])) {
			d.fail("key prefix %d beyond the previous key", s)
			return nil
		}
		if prev != nil {
			k[i] = prev[i][:s] + string(suf)
		} else {
			k[i] = string(suf)
		}
	}
	return k
}

func (d *dec) end() error {
	if d.err == nil && len(d.b) != 0 {
		d.fail("%d trailing bytes", len(d.b))
	}
	return d.err
}

// maxRows bounds row counts so sums of them cannot overflow.
const maxRows = 1 << 62

// timeEnd reads the uvarint span of a time range starting at tmin and
// returns its end. A span may exceed math.MaxInt64 (a series from before
// 1700 to after 2200 in nanoseconds, or int64 times at both extremes): it
// is only corrupt when the end lies beyond math.MaxInt64.
func (d *dec) timeEnd(field string, tmin int64) int64 {
	v := d.uvarint(field)
	if d.err == nil && v > uint64(math.MaxInt64)-uint64(tmin) {
		d.fail("%s: %d from %d passes the largest time", field, v, tmin)
		return tmin
	}
	return int64(uint64(tmin) + v)
}

// decodeLast reads the last values of a series with times [tmin, tmax].
func decodeLast(d *dec, l *layout, tmin, tmax int64) []lastValue {
	last := make([]lastValue, len(l.classes))
	for i, c := range l.classes {
		if d.byte1("last flag") == 0 || d.err != nil {
			continue
		}
		v := &last[i]
		v.ok = true
		// the gap back from tmax, up to the series' whole span
		gap := d.uvarint("last time")
		if d.err == nil && gap > uint64(tmax)-uint64(tmin) {
			d.fail("last time: %d before %d precedes the series' first time %d", gap, tmax, tmin)
		}
		v.t = int64(uint64(tmax) - gap)
		switch c {
		case classInt:
			v.num = uint64(d.varint("last value"))
		case classUint:
			v.num = d.uvarint("last value")
		case classFloat:
			v.num = d.u64("last value")
		case classBool:
			v.num = uint64(d.byte1("last value") & 1)
		case classBytes:
			v.b = d.blob("last value")
		}
	}
	return last
}

type leafPage struct {
	first   int
	entries []seriesEntry
}

func decodeLeaf(b []byte, l *layout) (*leafPage, error) {
	d := &dec{b: b, what: "directory leaf"}
	if d.byte1("kind") != pageLeaf {
		d.fail("not a leaf page")
	}
	p := &leafPage{first: int(d.int("first ordinal", math.MaxInt32))}
	n := d.count("entries", 1+l.nkeys*2)
	p.entries = make([]seriesEntry, n)
	for i := range p.entries {
		e := &p.entries[i]
		e.ord = p.first + i
		if i == 0 {
			e.key = d.key(l.nkeys, nil)
			e.firstRow = d.int("first row", maxRows)
			e.tmin = d.varint("tmin")
			e.c0 = int(d.int("first unit", math.MaxInt32))
		} else {
			pr := &p.entries[i-1]
			e.key = d.key(l.nkeys, pr.key)
			e.firstRow = pr.firstRow + pr.rows + d.int("row gap", maxRows)
			e.tmin = pr.tmin + d.varint("tmin")
			e.c0 = pr.c1 - 1 + int(d.int("first unit", math.MaxInt32))
			if d.err == nil && compareKeys(pr.key, e.key) >= 0 {
				d.fail("keys out of order at entry %d", i)
			}
		}
		e.rows = d.int("rows", maxRows)
		e.tmax = d.timeEnd("time span", e.tmin)
		e.c1 = e.c0 + int(d.int("units", math.MaxInt32))
		e.last = decodeLast(d, l, e.tmin, e.tmax)
		if d.err != nil {
			return nil, d.err
		}
		if e.firstRow > maxRows || e.rows == 0 || e.c1 <= e.c0 || e.c1 > math.MaxInt32 {
			d.fail("entry %d: rows %d, units [%d, %d)", i, e.rows, e.c0, e.c1)
			return nil, d.err
		}
	}
	return p, d.end()
}

type innerPage struct{ entries []innerEntry }

func decodeInner(b []byte, nkeys int) (*innerPage, error) {
	d := &dec{b: b, what: "directory inner page"}
	if d.byte1("kind") != pageInner {
		d.fail("not an inner page")
	}
	n := d.count("children", 3+nkeys*2)
	if d.err == nil && n == 0 {
		d.fail("no children")
	}
	p := &innerPage{entries: make([]innerEntry, n)}
	var prev Key
	prevFirst := 0
	for i := range p.entries {
		e := &p.entries[i]
		e.key = d.key(nkeys, prev)
		e.first = prevFirst + int(d.int("first ordinal", math.MaxInt32))
		e.ref.off = d.int("child offset", maxRows)
		e.ref.size = d.int("child size", math.MaxInt32)
		if d.err != nil {
			return nil, d.err
		}
		if i > 0 && (compareKeys(prev, e.key) >= 0 || e.first <= prevFirst) {
			d.fail("children out of order at %d", i)
			return nil, d.err
		}
		prev, prevFirst = e.key, e.first
	}
	return p, d.end()
}

type unitsPage struct {
	first int
	recs  []unitRec
}

func decodeUnits(b []byte, l *layout) (*unitsPage, error) {
	d := &dec{b: b, what: "unit page"}
	if d.byte1("kind") != pageUnits {
		d.fail("not a unit page")
	}
	p := &unitsPage{first: int(d.int("first ordinal", math.MaxInt32))}
	n := d.count("units", 7+3*l.ncols)
	p.recs = make([]unitRec, n)
	for i := range p.recs {
		u := &p.recs[i]
		var prev *unitRec
		if i == 0 {
			u.stripe = int(d.int("stripe", math.MaxInt32))
			u.firstSeries = int(d.int("first series", math.MaxInt32))
			u.tmin = d.varint("tmin")
		} else {
			prev = &p.recs[i-1]
			u.stripe = prev.stripe + int(d.int("stripe", math.MaxInt32))
			u.firstSeries = prev.firstSeries + prev.nSeries - 1 + int(d.int("first series", math.MaxInt32))
			u.tmin = prev.tmin + d.varint("tmin")
		}
		u.row = d.int("row", maxRows)
		u.rows = d.int("rows", maxRows)
		u.nSeries = int(d.int("series", math.MaxInt32))
		u.tmax = d.timeEnd("time span", u.tmin)
		if d.err == nil && (u.rows == 0 || u.nSeries == 0 || u.stripe > math.MaxInt32 || u.firstSeries > math.MaxInt32) {
			d.fail("unit %d: %d rows, %d series", p.first+i, u.rows, u.nSeries)
		}
		u.cols = make([]colLoc, l.ncols)
		for c := range u.cols {
			cl := &u.cols[c]
			k := d.count("chunks", 1)
			if d.err == nil && (k == 0 || int64(k) > u.rows) {
				d.fail("unit %d column %d: %d chunks for %d rows", p.first+i, c, k, u.rows)
			}
			if prev == nil {
				cl.off = d.int("offset", maxRows)
			} else {
				cl.off = prev.cols[c].end() + d.int("offset gap", maxRows)
			}
			cl.sizes = make([]int64, k)
			for j := range cl.sizes {
				cl.sizes[j] = d.int("chunk size", math.MaxInt32)
			}
			cl.rows = make([]int64, k)
			left := u.rows
			for j := 0; j < k-1; j++ {
				cl.rows[j] = d.int("chunk rows", maxRows)
				left -= cl.rows[j]
			}
			if k > 0 {
				cl.rows[k-1] = left
			}
			if d.err == nil && (left <= 0 || cl.off > maxRows) {
				d.fail("unit %d column %d: chunk rows do not add up to %d", p.first+i, c, u.rows)
			}
			if d.err != nil {
				return nil, d.err
			}
		}
	}
	return p, d.end()
}

type statsPage struct {
	first int
	stats [][]unitStats
}

func decodeStats(b []byte, l *layout) (*statsPage, error) {
	d := &dec{b: b, what: "statistics page"}
	if d.byte1("kind") != pageStats {
		d.fail("not a statistics page")
	}
	p := &statsPage{first: int(d.int("first ordinal", math.MaxInt32))}
	n := d.count("units", max(1, l.nnum))
	p.stats = make([][]unitStats, n)
	for i := range p.stats {
		rec := make([]unitStats, l.nnum)
		for j := range rec {
			s := &rec[j]
			s.count = d.int("count", maxRows)
			if s.count > 0 {
				s.min, s.max, s.sum = f64(d.u64("min")), f64(d.u64("max")), f64(d.u64("sum"))
				if l.ends {
					s.first, s.last, s.ends = f64(d.u64("first")), f64(d.u64("last")), true
				}
				if d.err == nil && !s.plausible() {
					d.fail("unit %d statistic %d: min %g, max %g, first %g, last %g: a value outside the minimum and maximum", p.first+i, j, s.min, s.max, s.first, s.last)
				}
			}
		}
		p.stats[i] = rec
		if d.err != nil {
			return nil, d.err
		}
	}
	return p, d.end()
}

// plausible reports whether a record of values holds together: where
// the minimum and maximum are numbers (a NaN among the values makes them
// NaN, unless an infinity stands in for it), every value lies between
// them, so the minimum is at most the maximum and a first or last that is
// a number lies between them. A record read with the other version's
// layout (a version byte of 2 on a version 1 body) fails it but by
// chance, where it would give wrong first and last values.
func (s *unitStats) plausible() bool {
	if s.min != s.min || s.max != s.max {
		return true
	}
	in := func(v float64) bool { return v != v || s.min <= v && v <= s.max }
	return s.min <= s.max && (!s.ends || in(s.first) && in(s.last))
}

func decodeMeta(b []byte) (*indexMeta, error) {
	d := &dec{b: b, what: sectionModel}
	v := d.byte1("version")
	if d.err == nil && (v < minIndexVersion || v > indexVersion) {
		return nil, encoding.Unsupportedf("timeseries: index version %d (this reader reads %d to %d)", v, minIndexVersion, indexVersion)
	}
	m := &indexMeta{version: int(v)}
	nc := d.count("columns", 1)
	m.roles = make([]role, nc)
	for i := range m.roles {
		m.roles[i] = role(d.byte1("role"))
	}
	nk := d.count("keys", 1)
	m.keyOrder = make([]int, nk)
	for i := range m.keyOrder {
		m.keyOrder[i] = int(d.int("key column", int64(nc)))
	}
	m.series = d.int("series", math.MaxInt32)
	m.rows = d.int("rows", maxRows)
	m.units = int(d.int("units", math.MaxInt32))
	m.tmin = d.varint("tmin")
	m.tmax = d.varint("tmax")
	m.chunkRows = int(d.int("chunk rows", math.MaxInt32))
	m.minChunkRows = int(d.int("min chunk rows", math.MaxInt32))
	m.blockSize = int(d.int("block size", math.MaxInt32))
	m.height = int(d.int("height", 64))
	m.root = d.blob("root")
	for _, t := range []*[]pageDir{&m.unitPages, &m.statPages} {
		n := d.count("pages", 3)
		*t = make([]pageDir, n)
		prev := 0
		for i := range *t {
			p := &(*t)[i]
			p.first = prev + int(d.int("first ordinal", math.MaxInt32))
			p.ref.off = d.int("page offset", maxRows)
			p.ref.size = d.int("page size", math.MaxInt32)
			if d.err == nil && (i > 0 && p.first <= prev || i == 0 && p.first != 0 || p.first >= m.units) {
				d.fail("page table out of order at %d", i)
			}
			prev = p.first
		}
	}
	m.bloomBlocks = int(d.int("bloom blocks", math.MaxInt32))
	m.bloomPerPage = int(d.int("bloom blocks per page", math.MaxInt32))
	n := d.count("bloom pages", 2)
	m.bloomPages = make([]pageRef, n)
	for i := range m.bloomPages {
		m.bloomPages[i].off = d.int("page offset", maxRows)
		m.bloomPages[i].size = d.int("page size", math.MaxInt32)
	}
	if err := d.end(); err != nil {
		return nil, err
	}
	if m.units > 0 && (len(m.unitPages) == 0 || len(m.statPages) == 0) {
		return nil, encoding.Corruptf("timeseries: %d units without unit or statistics pages", m.units)
	}
	if m.bloomBlocks > 0 && (m.bloomPerPage == 0 || (m.bloomBlocks+m.bloomPerPage-1)/m.bloomPerPage != len(m.bloomPages)) {
		return nil, encoding.Corruptf("timeseries: bloom of %d blocks, %d per page, in %d pages", m.bloomBlocks, m.bloomPerPage, len(m.bloomPages))
	}
	if m.series > 0 && len(m.root) == 0 {
		return nil, encoding.Corruptf("timeseries: %d series without a directory root", m.series)
	}
	return m, nil
}

// decodeBloomPage checks a bloom page and returns its blocks.
func decodeBloomPage(b []byte, want int) ([]byte, error) {
	d := &dec{b: b, what: "bloom page"}
	if d.byte1("kind") != pageBloom {
		d.fail("not a bloom page")
	}
	if d.err == nil && len(d.b) != want*32 {
		d.fail("%d bytes for %d blocks", len(d.b), want)
	}
	if d.err != nil {
		return nil, d.err
	}
	return d.b, nil
}

func errPage(kind string, ref pageRef, err error) error {
	return fmt.Errorf("timeseries: %s page at %d: %w", kind, ref.off, err)
}
