// Package meta encodes the metadata sections the writer stores in the
// container beside the schema: file statistics, stripe statistics with bloom
// filters, and string key/value maps. Layouts are in docs/FORMAT.md.
package meta

import (
	"encoding/binary"
	"fmt"
	"math"
	"sort"

	"strata/encoding"
	"strata/stats"
)

// StripeStats holds one stripe's per-stream statistics and bloom filters,
// keyed by stream id.
type StripeStats struct {
	Rows    int64
	Columns map[int]stats.ColumnStats
	Blooms  map[int][]byte
}

func appendBlob(dst, b []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(b)))
	return append(dst, b...)
}

func sortedKeys[V any](m map[int]V) []int {
	ks := make([]int, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Ints(ks)
	return ks
}

// MarshalFileStats encodes per-stream file statistics.
func MarshalFileStats(m map[int]stats.ColumnStats) []byte {
	out := binary.AppendUvarint(nil, uint64(len(m)))
	for _, id := range sortedKeys(m) {
		out = binary.AppendUvarint(out, uint64(id))
		cs := m[id]
		out = appendBlob(out, cs.AppendBinary(nil))
	}
	return out
}

// UnmarshalFileStats decodes MarshalFileStats output.
func UnmarshalFileStats(b []byte) (map[int]stats.ColumnStats, error) {
	d := dec{b: b, what: "file stats"}
	n := d.count(2)
	m := make(map[int]stats.ColumnStats, n)
	for i := 0; i < n && d.err == nil; i++ {
		id := d.count(0)
		blob := d.blob()
		if d.err != nil {
			break
		}
		cs, err := DecodeStats(blob)
		if err != nil {
			return nil, fmt.Errorf("file stats, stream %d: %w", id, err)
		}
		m[id] = cs
	}
	return m, d.err
}

// MarshalStripeStats encodes the statistics of every stripe: their count,
// then each stripe's entry (AppendStripeStats).
func MarshalStripeStats(ss []StripeStats) []byte {
	var entries []byte
	for _, s := range ss {
		entries = AppendStripeStats(entries, s)
	}
	return Counted(len(ss), entries)
}

// AppendStripeStats appends one stripe's entry of MarshalStripeStats to
// dst. A writer encodes each stripe's statistics when the stripe ends and
// keeps these bytes, instead of the maps of StripeStats (over a kilobyte
// a stripe of a few columns, gigabytes for a file of a million small
// stripes), and joins them with Counted at the end.
func AppendStripeStats(dst []byte, s StripeStats) []byte {
	dst = binary.AppendUvarint(dst, uint64(s.Rows))
	dst = binary.AppendUvarint(dst, uint64(len(s.Columns)))
	var scratch []byte
	for _, id := range sortedKeys(s.Columns) {
		dst = binary.AppendUvarint(dst, uint64(id))
		cs := s.Columns[id]
		scratch = cs.AppendBinary(scratch[:0])
		dst = appendBlob(dst, scratch)
	}
	dst = binary.AppendUvarint(dst, uint64(len(s.Blooms)))
	for _, id := range sortedKeys(s.Blooms) {
		dst = binary.AppendUvarint(dst, uint64(id))
		dst = appendBlob(dst, s.Blooms[id])
	}
	return dst
}

// Counted returns the section of n entries encoded back to back in
// entries (AppendStripeStats, AppendBloomIndex): their count, then them.
func Counted(n int, entries []byte) []byte {
	out := make([]byte, 0, binary.MaxVarintLen64+len(entries))
	out = binary.AppendUvarint(out, uint64(n))
	return append(out, entries...)
}

// UnmarshalStripeStats decodes MarshalStripeStats output into a
// StripeStats per stripe. A reader holding a file open keeps the section
// as ParseStripeStats returns it instead: these maps take over a kilobyte
// a stripe.
func UnmarshalStripeStats(b []byte) ([]StripeStats, error) {
	sec, err := ParseStripeStats(b)
	if err != nil {
		return nil, err
	}
	out := make([]StripeStats, sec.Len())
	for i := range out {
		if out[i], err = sec.Stripe(i); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// StripeStatsSection is a stats.stripe section (MarshalStripeStats) held
// as its bytes, with where each stripe's entry begins, so that an open
// file costs the section's bytes and a word a stripe rather than a
// decoded StripeStats a stripe. ParseStripeStats checks the framing of
// every entry; a stripe's ColumnStats blobs are decoded when asked for,
// so an undecodable blob is reported by the accessor that meets it, as
// an error naming the stripe and stream. It is immutable and safe for
// concurrent use.
type StripeStatsSection struct {
	b []byte
	// offs[i] is where stripe i's entry begins in b, offs[len-1] where
	// the last one ends.
	offs []int
}

// ParseStripeStats checks the framing of a stats.stripe section: the
// count of stripes, each stripe's counts, stream ids strictly ascending
// (as docs/FORMAT.md requires; lookups rely on it) and blob lengths
// within the section. It keeps b, which the caller must not change. Bytes
// after the last stripe are ignored, as they always were.
func ParseStripeStats(b []byte) (*StripeStatsSection, error) {
	d := dec{b: b, what: "stripe stats"}
	n := d.count(3) // a stripe takes at least rows, ncols and nblooms
	offs := make([]int, 0, n+1)
	for i := 0; i < n && d.err == nil; i++ {
		offs = append(offs, len(b)-len(d.b))
		d.uvarint() // rows
		for part := 0; part < 2 && d.err == nil; part++ {
			k := d.count(2)
			last := -1
			for j := 0; j < k && d.err == nil; j++ {
				id := d.count(0)
				d.blob()
				if d.err == nil && id <= last {
					d.err = encoding.Corruptf("%s: stripe %d: stream %d after stream %d, ids must ascend", d.what, i, id, last)
				}
				last = id
			}
		}
	}
	if d.err != nil {
		return nil, d.err
	}
	offs = append(offs, len(b)-len(d.b))
	return &StripeStatsSection{b: b, offs: offs}, nil
}

// Len returns the number of stripes the section describes.
func (s *StripeStatsSection) Len() int { return len(s.offs) - 1 }

// Bytes returns the memory s holds: the section and its offsets.
func (s *StripeStatsSection) Bytes() int64 {
	return int64(cap(s.b)) + 8*int64(cap(s.offs))
}

// entry returns a decoder over stripe i's entry, past its row count, and
// that row count. (Its errors do not name the stripe: formatting the name
// for every lookup would cost a pruning scan more than the lookup; see
// framingErr.)
func (s *StripeStatsSection) entry(i int) (dec, int64) {
	d := dec{b: s.b[s.offs[i]:s.offs[i+1]], what: "stripe stats"}
	rows := int64(d.uvarint())
	return d, rows
}

// framingErr places an error of an entry's framing, which ParseStripeStats
// has checked and so should never occur, in stripe i.
func framingErr(i int, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("stripe %d: %w", i, err)
}

// Column returns stripe i's statistics of a stream, decoded from its
// blob; ok is false when the stripe has none for the stream. An error
// names the stripe and stream.
func (s *StripeStatsSection) Column(i, stream int) (cs stats.ColumnStats, ok bool, err error) {
	d, _ := s.entry(i)
	k := d.count(2)
	for j := 0; j < k && d.err == nil; j++ {
		id := d.count(0)
		blob := d.blob()
		if d.err != nil || id < stream {
			continue
		}
		if id > stream {
			break
		}
		if cs, err = DecodeStats(blob); err != nil {
			return cs, false, fmt.Errorf("stripe %d stats, stream %d: %w", i, id, err)
		}
		return cs, true, nil
	}
	return cs, false, framingErr(i, d.err)
}

// Bloom returns the bloom filter stripe i keeps inline for a stream
// (files written before the stats.bloom section), undecoded and aliasing
// the section; ok is false when there is none.
func (s *StripeStatsSection) Bloom(i, stream int) (b []byte, ok bool, err error) {
	d, _ := s.entry(i)
	k := d.count(2)
	for j := 0; j < k && d.err == nil; j++ { // the column statistics
		d.count(0)
		d.blob()
	}
	k = d.count(2)
	for j := 0; j < k && d.err == nil; j++ {
		id := d.count(0)
		blob := d.blob()
		if d.err != nil || id < stream {
			continue
		}
		if id > stream {
			break
		}
		return blob, true, nil
	}
	return nil, false, framingErr(i, d.err)
}

// Stripe decodes stripe i's whole entry. Its bloom filters alias the
// section. An error names the stripe and stream.
func (s *StripeStatsSection) Stripe(i int) (StripeStats, error) {
	d, rows := s.entry(i)
	out := StripeStats{Rows: rows, Columns: map[int]stats.ColumnStats{}, Blooms: map[int][]byte{}}
	k := d.count(2)
	for j := 0; j < k && d.err == nil; j++ {
		id := d.count(0)
		blob := d.blob()
		if d.err != nil {
			break
		}
		cs, err := DecodeStats(blob)
		if err != nil {
			return StripeStats{}, fmt.Errorf("stripe %d stats, stream %d: %w", i, id, err)
		}
		out.Columns[id] = cs
	}
	k = d.count(2)
	for j := 0; j < k && d.err == nil; j++ {
		id := d.count(0)
		out.Blooms[id] = d.blob()
	}
	if d.err != nil {
		return StripeStats{}, framingErr(i, d.err)
	}
	return out, nil
}

// BloomRef locates one stripe's bloom filter of one stream inside the
// stats.bloom section: Len bytes from Off (relative to the section's
// first byte), whose Checksum32 is Sum.
type BloomRef struct {
	Off, Len int64
	Sum      uint32
}

// MarshalBloomIndex encodes, per stripe, where its bloom filters lie in
// the stats.bloom section (refs[stripe][streamID]): the count of stripes,
// then each stripe's entry (AppendBloomIndex).
func MarshalBloomIndex(refs []map[int]BloomRef) []byte {
	var entries []byte
	for _, m := range refs {
		entries = AppendBloomIndex(entries, m)
	}
	return Counted(len(refs), entries)
}

// AppendBloomIndex appends one stripe's entry of MarshalBloomIndex to dst
// (refs by stream id), so that a writer need not keep every stripe's
// references until the file closes.
func AppendBloomIndex(dst []byte, refs map[int]BloomRef) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(refs)))
	for _, id := range sortedKeys(refs) {
		r := refs[id]
		dst = binary.AppendUvarint(dst, uint64(id))
		dst = binary.AppendUvarint(dst, uint64(r.Off))
		dst = binary.AppendUvarint(dst, uint64(r.Len))
		dst = binary.LittleEndian.AppendUint32(dst, r.Sum)
	}
	return dst
}

// UnmarshalBloomIndex decodes MarshalBloomIndex output; every range must
// lie within a section of sectionSize bytes. A reader holding a file open
// keeps the index as ParseBloomIndex returns it instead of a map a stripe.
func UnmarshalBloomIndex(b []byte, sectionSize int64) ([]map[int]BloomRef, error) {
	x, err := ParseBloomIndex(b, sectionSize)
	if err != nil {
		return nil, err
	}
	out := make([]map[int]BloomRef, x.Len())
	for i := range out {
		out[i] = x.Stripe(i)
	}
	return out, nil
}

// BloomIndex is a stats.bloom.index section (MarshalBloomIndex) held as
// its bytes, with where each stripe's entry begins: a file of many
// stripes costs the index's bytes and a word a stripe instead of a map a
// stripe. ParseBloomIndex checks all of it, so lookups cannot fail. It is
// immutable and safe for concurrent use.
type BloomIndex struct {
	b    []byte
	offs []int // as in StripeStatsSection
}

// bloomRefBytes is the least an index record takes: a one-byte stream
// id, offset and length, and the checksum.
const bloomRefBytes = 7

// ParseBloomIndex checks a stats.bloom.index section: its counts, stream
// ids strictly ascending within each stripe, every range within a
// stats.bloom section of sectionSize bytes, and no bytes after the last
// stripe. It keeps b, which the caller must not change.
func ParseBloomIndex(b []byte, sectionSize int64) (*BloomIndex, error) {
	d := dec{b: b, what: "bloom index"}
	n := d.count(1)
	offs := make([]int, 0, n+1)
	for i := 0; i < n && d.err == nil; i++ {
		offs = append(offs, len(b)-len(d.b))
		k := d.count(bloomRefBytes)
		last := -1
		for j := 0; j < k && d.err == nil; j++ {
			id, r := d.bloomRef()
			if d.err != nil {
				break
			}
			if id <= last {
				d.err = encoding.Corruptf("%s: stripe %d: stream %d after stream %d, ids must ascend", d.what, i, id, last)
			} else if r.Off < 0 || r.Len < 0 || r.Off > sectionSize || r.Len > sectionSize-r.Off {
				d.err = encoding.Corruptf("%s: stripe %d, stream %d: bloom [%d,+%d) outside the %d-byte section", d.what, i, id, r.Off, r.Len, sectionSize)
			}
			last = id
		}
	}
	if d.err != nil {
		return nil, d.err
	}
	if len(d.b) > 0 {
		return nil, encoding.Corruptf("%s: %d trailing bytes", d.what, len(d.b))
	}
	offs = append(offs, len(b))
	return &BloomIndex{b: b, offs: offs}, nil
}

// bloomRef reads one record of a stripe's entry in the bloom index. An
// offset or length past MaxInt64 is made -1, which the range check of
// ParseBloomIndex refuses.
func (d *dec) bloomRef() (int, BloomRef) {
	id := d.count(0)
	off, ln := d.uvarint(), d.uvarint()
	var sum uint32
	if len(d.b) >= 4 {
		sum = binary.LittleEndian.Uint32(d.b)
		d.b = d.b[4:]
	} else if d.err == nil {
		d.err = encoding.Corruptf("%s: truncated checksum", d.what)
	}
	return id, BloomRef{Off: clampInt64(off), Len: clampInt64(ln), Sum: sum}
}

// clampInt64 returns v as an int64, or -1 when it does not fit.
func clampInt64(v uint64) int64 {
	if v > 1<<63-1 {
		return -1
	}
	return int64(v)
}

// Len returns the number of stripes the index describes.
func (x *BloomIndex) Len() int { return len(x.offs) - 1 }

// Bytes returns the memory x holds: the section and its offsets.
func (x *BloomIndex) Bytes() int64 {
	return int64(cap(x.b)) + 8*int64(cap(x.offs))
}

// Ref returns where stripe i's bloom filter of a stream lies; ok is
// false when the stripe has none for the stream.
func (x *BloomIndex) Ref(i, stream int) (BloomRef, bool) {
	d := dec{b: x.b[x.offs[i]:x.offs[i+1]], what: "bloom index"}
	k := d.count(bloomRefBytes)
	for j := 0; j < k && d.err == nil; j++ {
		id, r := d.bloomRef()
		if id == stream && d.err == nil {
			return r, true
		}
		if id > stream {
			break
		}
	}
	return BloomRef{}, false
}

// Stripe returns every bloom reference of stripe i, by stream id.
func (x *BloomIndex) Stripe(i int) map[int]BloomRef {
	d := dec{b: x.b[x.offs[i]:x.offs[i+1]], what: "bloom index"}
	k := d.count(bloomRefBytes)
	m := make(map[int]BloomRef, k)
	for j := 0; j < k && d.err == nil; j++ {
		id, r := d.bloomRef()
		m[id] = r
	}
	return m
}

// MarshalKV encodes a string map, keys sorted.
func MarshalKV(m map[string]string) []byte {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	out := binary.AppendUvarint(nil, uint64(len(ks)))
	for _, k := range ks {
		out = appendBlob(out, []byte(k))
		out = appendBlob(out, []byte(m[k]))
	}
	return out
}

// UnmarshalKV decodes MarshalKV output.
func UnmarshalKV(b []byte) (map[string]string, error) {
	d := dec{b: b, what: "key/value section"}
	n := d.count(2)
	m := make(map[string]string, n)
	for i := 0; i < n && d.err == nil; i++ {
		k := d.blob()
		v := d.blob()
		m[string(k)] = string(v)
	}
	return m, d.err
}

// dec is a sticky-error reader over a section.
type dec struct {
	b    []byte
	what string
	err  error
}

func (d *dec) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = encoding.Corruptf("%s: bad uvarint", d.what)
		return 0
	}
	d.b = d.b[n:]
	return v
}

// count reads a count of items each taking at least minBytes bytes, checked
// against what remains so a hostile count cannot drive an allocation.
func (d *dec) count(minBytes int) int {
	v := d.uvarint()
	if d.err != nil {
		return 0
	}
	if minBytes > 0 && v > uint64(len(d.b)/minBytes) {
		d.err = encoding.Corruptf("%s: count %d exceeds remaining %d bytes", d.what, v, len(d.b))
		return 0
	}
	if v > math.MaxInt32 { // an int on every platform
		d.err = encoding.Corruptf("%s: value %d too large", d.what, v)
		return 0
	}
	return int(v)
}

func (d *dec) blob() []byte {
	n := d.uvarint()
	if d.err != nil {
		return nil
	}
	if n > uint64(len(d.b)) {
		d.err = encoding.Corruptf("%s: blob of %d bytes beyond %d remaining", d.what, n, len(d.b))
		return nil
	}
	b := d.b[:n]
	d.b = d.b[n:]
	return b
}

// DecodeStats decodes one ColumnStats blob, which must be consumed whole.
func DecodeStats(b []byte) (stats.ColumnStats, error) {
	cs, n, err := stats.DecodeColumnStats(b)
	if err != nil {
		return cs, err
	}
	if n != len(b) {
		return cs, encoding.Corruptf("column stats: %d trailing bytes", len(b)-n)
	}
	return cs, nil
}
