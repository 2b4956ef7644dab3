// Package meta encodes the metadata sections the writer stores in the
// container beside the schema: file statistics, stripe statistics with bloom
// filters, and string key/value maps. Layouts are in docs/FORMAT.md.
package meta

import (
	"encoding/binary"
	"fmt"
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

// UnmarshalStripeStats decodes MarshalStripeStats output.
func UnmarshalStripeStats(b []byte) ([]StripeStats, error) {
	d := dec{b: b, what: "stripe stats"}
	n := d.count(2)
	out := make([]StripeStats, 0, n)
	for i := 0; i < n && d.err == nil; i++ {
		s := StripeStats{Rows: int64(d.uvarint()), Columns: map[int]stats.ColumnStats{}, Blooms: map[int][]byte{}}
		nc := d.count(2)
		for j := 0; j < nc && d.err == nil; j++ {
			id := d.count(0)
			blob := d.blob()
			if d.err != nil {
				break
			}
			cs, err := DecodeStats(blob)
			if err != nil {
				return nil, fmt.Errorf("stripe %d stats, stream %d: %w", i, id, err)
			}
			s.Columns[id] = cs
		}
		nb := d.count(2)
		for j := 0; j < nb && d.err == nil; j++ {
			id := d.count(0)
			s.Blooms[id] = d.blob()
		}
		out = append(out, s)
	}
	if d.err != nil {
		return nil, d.err
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
// lie within a section of sectionSize bytes.
func UnmarshalBloomIndex(b []byte, sectionSize int64) ([]map[int]BloomRef, error) {
	d := dec{b: b, what: "bloom index"}
	n := d.count(1)
	out := make([]map[int]BloomRef, 0, n)
	for i := 0; i < n && d.err == nil; i++ {
		k := d.count(7)
		m := make(map[int]BloomRef, k)
		for j := 0; j < k && d.err == nil; j++ {
			id := d.count(0)
			off, ln := d.uvarint(), d.uvarint()
			var sum uint32
			if len(d.b) >= 4 {
				sum = binary.LittleEndian.Uint32(d.b)
				d.b = d.b[4:]
			} else if d.err == nil {
				d.err = encoding.Corruptf("%s: truncated checksum", d.what)
			}
			if d.err == nil && (off > uint64(sectionSize) || ln > uint64(sectionSize)-off) {
				d.err = encoding.Corruptf("%s: stripe %d, stream %d: bloom [%d,+%d) outside the %d-byte section", d.what, i, id, off, ln, sectionSize)
			}
			m[id] = BloomRef{Off: int64(off), Len: int64(ln), Sum: sum}
		}
		out = append(out, m)
	}
	if d.err != nil {
		return nil, d.err
	}
	if len(d.b) > 0 {
		return nil, encoding.Corruptf("%s: %d trailing bytes", d.what, len(d.b))
	}
	return out, nil
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
	if v > 1<<31 {
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
