package format

import (
	"encoding/binary"
	"math"

	"strata/encoding"
)

// StripeInfo locates one stripe.
type StripeInfo struct {
	Rows     int64 // rows of the stripe (top-level rows as the writer counted them)
	FirstRow int64 // file row of the stripe's first row
	Offset   int64 // absolute file offset of the stripe's first byte
	Size     int64 // bytes of the stripe
	Group    int   // stripe group holding the stripe's chunk tables
}

// SectionInfo locates one named metadata section.
type SectionInfo struct {
	Name        string
	Offset      int64 // absolute file offset of the stored bytes
	Size        int64 // stored bytes
	Compression Compression
	Checksum    uint32 // Checksum32 of the stored bytes
}

// StreamInfo describes one stream of one stripe. A stream the stripe does not
// hold has no chunks and Size 0.
type StreamInfo struct {
	Offset int64 // absolute file offset of the stream's first chunk
	Size   int64 // bytes of all its chunks, framing included
	Rows   int64 // sum of its chunks' rows (the stream's own row domain)
	Chunks []ChunkInfo
}

// ChunkInfo describes one chunk of a stream: the row→chunk position index.
type ChunkInfo struct {
	Offset   int64  // absolute file offset of the chunk's framing header
	Size     int64  // bytes of the chunk, framing included
	Rows     int64  // rows the chunk holds
	FirstRow int64  // row of the chunk's first row within its stream
	Stats    []byte // opaque stats blob the writer supplied; read-only, may be empty
}

// ChunkForRow returns the index of the chunk holding stream row row, or -1
// when row is outside the stream.
func (s *StreamInfo) ChunkForRow(row int64) int {
	if row < 0 || row >= s.Rows {
		return -1
	}
	lo, hi := 0, len(s.Chunks)
	for lo < hi { // first chunk whose end is beyond row
		m := int(uint(lo+hi) >> 1)
		if c := s.Chunks[m]; c.FirstRow+c.Rows <= row {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// blobRef locates a stored blob (stripe group, section).
type blobRef struct {
	Off, Size int64
	Comp      Compression
	Sum       uint32
}

func appendRef(dst []byte, r blobRef) []byte {
	dst = binary.AppendUvarint(dst, uint64(r.Off))
	dst = binary.AppendUvarint(dst, uint64(r.Size))
	dst = append(dst, byte(r.Comp))
	return binary.LittleEndian.AppendUint32(dst, r.Sum)
}

// groupRef is one footer group entry.
type groupRef struct {
	First, Count int // stripes [First, First+Count)
	Ref          blobRef
}

// footer is the decoded footer.
type footer struct {
	stripes  []StripeInfo
	groups   []groupRef
	sections []SectionInfo
	byName   map[string]int
	rows     int64
}

// maxRows bounds any row count so sums never overflow int64.
const maxRows = 1 << 62

// dec is a sticky-error decoder over a metadata buffer: the first failure is
// kept, later reads return zero values, and the caller checks err once per
// record. Every count is checked against the bytes left before the caller
// allocates.
type dec struct {
	b    []byte
	what string
	err  error
}

func (d *dec) fail(err error) {
	if d.err == nil {
		d.err = err
	}
}

func (d *dec) uvarint(field string) uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail(encoding.Corruptf("%s: %s: bad uvarint", d.what, field))
		return 0
	}
	d.b = d.b[n:]
	return v
}

// int reads a uvarint that must be at most max.
func (d *dec) int(field string, max int64) int64 {
	v := d.uvarint(field)
	if d.err == nil && v > uint64(max) {
		d.fail(encoding.Corruptf("%s: %s %d exceeds %d", d.what, field, v, max))
		return 0
	}
	return int64(v)
}

// count reads an element count: at most limit (ErrLimit) and at most the
// bytes left divided by the smallest encoded element (ErrCorrupt).
func (d *dec) count(field string, limit int, minSize int) int {
	v := d.uvarint(field)
	if d.err != nil {
		return 0
	}
	if v > uint64(limit) {
		d.fail(encoding.Limitf("%s: %d %s, limit %d", d.what, v, field, limit))
		return 0
	}
	if v > uint64(len(d.b)/minSize) {
		d.fail(encoding.Corruptf("%s: %d %s cannot fit in %d bytes", d.what, v, field, len(d.b)))
		return 0
	}
	return int(v)
}

func (d *dec) bytes(n int, field string) []byte {
	if d.err != nil {
		return nil
	}
	if n > len(d.b) {
		d.fail(encoding.Corruptf("%s: %s of %d bytes beyond %d remaining", d.what, field, n, len(d.b)))
		return nil
	}
	p := d.b[:n:n]
	d.b = d.b[n:]
	return p
}

func (d *dec) u8(field string) uint8 {
	p := d.bytes(1, field)
	if p == nil {
		return 0
	}
	return p[0]
}

func (d *dec) u32(field string) uint32 {
	p := d.bytes(4, field)
	if p == nil {
		return 0
	}
	return binary.LittleEndian.Uint32(p)
}

// ref reads a blob reference that must lie within [lo, hi).
func (d *dec) ref(field string, lo, hi int64) blobRef {
	var r blobRef
	r.Off = d.int(field+" offset", math.MaxInt64)
	r.Size = d.int(field+" size", math.MaxInt64)
	r.Comp = Compression(d.u8(field + " compression"))
	r.Sum = d.u32(field + " checksum")
	if d.err == nil && (r.Off < lo || r.Off > hi || r.Size > hi-r.Off) {
		d.fail(encoding.Corruptf("%s: %s [%d,+%d) outside [%d,%d)", d.what, field, r.Off, r.Size, lo, hi))
	}
	return r
}

// Footer layout (raw, after decompression):
//
//	stripeCount uvarint
//	stripeCount × { rows uvarint | gap uvarint | size uvarint }
//	groupCount uvarint
//	groupCount × { stripes uvarint | ref }
//	sectionCount uvarint
//	sectionCount × { nameLen uvarint | name | ref }
//	ref = offset uvarint | size uvarint | compression u8 | checksum u32
//
// A stripe's offset is the end of the previous stripe (or 4, after the
// leading magic) plus gap.

// appendFooter encodes f.
func appendFooter(dst []byte, f *footer) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(f.stripes)))
	prevEnd := int64(len(Magic))
	for _, s := range f.stripes {
		dst = binary.AppendUvarint(dst, uint64(s.Rows))
		dst = binary.AppendUvarint(dst, uint64(s.Offset-prevEnd))
		dst = binary.AppendUvarint(dst, uint64(s.Size))
		prevEnd = s.Offset + s.Size
	}
	dst = binary.AppendUvarint(dst, uint64(len(f.groups)))
	for _, g := range f.groups {
		dst = binary.AppendUvarint(dst, uint64(g.Count))
		dst = appendRef(dst, g.Ref)
	}
	dst = binary.AppendUvarint(dst, uint64(len(f.sections)))
	for _, s := range f.sections {
		dst = binary.AppendUvarint(dst, uint64(len(s.Name)))
		dst = append(dst, s.Name...)
		dst = appendRef(dst, blobRef{s.Offset, s.Size, s.Compression, s.Checksum})
	}
	return dst
}

// parseFooter decodes a raw footer; dataEnd is the footer's file offset,
// the end of the region stripes, groups and sections may occupy.
func parseFooter(b []byte, dataEnd int64, minor uint16, o *ReaderOptions) (*footer, error) {
	d := &dec{b: b, what: "footer"}
	f := &footer{}
	lo := int64(len(Magic))

	n := d.count("stripes", o.MaxStripes, 3)
	if d.err != nil {
		return nil, d.err
	}
	f.stripes = make([]StripeInfo, n)
	prevEnd := lo
	for i := range f.stripes {
		s := &f.stripes[i]
		s.Rows = d.int("stripe rows", maxRows)
		gap := d.int("stripe gap", math.MaxInt64)
		s.Size = d.int("stripe size", math.MaxInt64)
		if d.err != nil {
			return nil, fmtStripe(i, d.err)
		}
		if gap > dataEnd-prevEnd || s.Size > dataEnd-prevEnd-gap {
			return nil, fmtStripe(i, encoding.Corruptf("footer: bytes [%d+%d,+%d) beyond the data region ending at %d", prevEnd, gap, s.Size, dataEnd))
		}
		if s.Rows > maxRows-f.rows {
			return nil, fmtStripe(i, encoding.Corruptf("footer: row count overflows"))
		}
		s.Offset = prevEnd + gap
		s.FirstRow = f.rows
		f.rows += s.Rows
		prevEnd = s.Offset + s.Size
	}

	ng := d.count("groups", len(f.stripes), 8)
	if d.err != nil {
		return nil, d.err
	}
	f.groups = make([]groupRef, ng)
	next := 0
	for g := range f.groups {
		gr := &f.groups[g]
		cnt := d.int("group stripes", int64(len(f.stripes)-next))
		gr.Ref = d.ref("group", lo, dataEnd)
		if d.err != nil {
			return nil, fmtGroup(g, d.err)
		}
		if cnt == 0 {
			return nil, fmtGroup(g, encoding.Corruptf("footer: group holds no stripes"))
		}
		gr.First, gr.Count = next, int(cnt)
		for s := next; s < next+gr.Count; s++ {
			f.stripes[s].Group = g
		}
		next += gr.Count
	}
	if next != len(f.stripes) {
		return nil, encoding.Corruptf("footer: groups cover %d of %d stripes", next, len(f.stripes))
	}

	ns := d.count("sections", o.MaxSections, 9)
	if d.err != nil {
		return nil, d.err
	}
	f.sections = make([]SectionInfo, ns)
	f.byName = make(map[string]int, ns)
	for k := range f.sections {
		nl := d.int("section name length", MaxNameLen)
		name := string(d.bytes(int(nl), "section name"))
		r := d.ref("section "+name, lo, dataEnd)
		if d.err != nil {
			return nil, d.err
		}
		if name == "" {
			return nil, encoding.Corruptf("footer: section %d has an empty name", k)
		}
		if _, dup := f.byName[name]; dup {
			return nil, encoding.Corruptf("footer: section %q appears twice", name)
		}
		f.byName[name] = k
		f.sections[k] = SectionInfo{Name: name, Offset: r.Off, Size: r.Size, Compression: r.Comp, Checksum: r.Sum}
	}
	if len(d.b) > 0 && minor <= MinorVersion {
		return nil, encoding.Corruptf("footer: %d trailing bytes", len(d.b))
	}
	return f, nil
}

// Stripe group layout (raw, after decompression):
//
//	stripeCount uvarint
//	stripeCount × {
//	  streamCount uvarint
//	  streamCount × {
//	    chunkCount uvarint
//	    chunkCount × { rows uvarint | size uvarint | statsLen uvarint | stats }
//	  }
//	}
//
// Streams are stored in id order, back to back from the stripe's offset, and
// chunks back to back within their stream, so offsets are implied by sizes.

// parseGroup decodes a raw stripe group covering stripes[g.First:g.First+g.Count].
// The returned slices alias b (stats blobs).
func parseGroup(b []byte, gi int, g groupRef, stripes []StripeInfo, o *ReaderOptions) ([][]StreamInfo, error) {
	d := &dec{b: b, what: "stripe group"}
	if n := d.uvarint("stripe count"); d.err == nil && n != uint64(g.Count) {
		return nil, fmtGroup(gi, encoding.Corruptf("stripe group holds %d stripes, footer says %d", n, g.Count))
	}
	if d.err != nil {
		return nil, fmtGroup(gi, d.err)
	}
	out := make([][]StreamInfo, g.Count)
	for k := range out {
		si := g.First + k
		st := stripes[si]
		ns := d.count("streams", o.MaxStreams, 1)
		if d.err != nil {
			return nil, fmtStripe(si, d.err)
		}
		streams := make([]StreamInfo, ns)
		pos := st.Offset
		end := st.Offset + st.Size
		for id := range streams {
			s := &streams[id]
			s.Offset = pos
			nc := d.count("chunks", o.MaxChunks, 3)
			if d.err != nil {
				return nil, fmtStream(si, id, d.err)
			}
			if nc > 0 {
				s.Chunks = make([]ChunkInfo, nc)
			}
			for c := range s.Chunks {
				ch := &s.Chunks[c]
				ch.Rows = d.int("chunk rows", maxRows-s.Rows)
				ch.Size = d.int("chunk size", end-pos)
				sl := d.int("stats length", int64(len(d.b)))
				ch.Stats = d.bytes(int(sl), "chunk stats")
				if d.err != nil {
					return nil, fmtChunk(si, id, c, d.err)
				}
				if ch.Size < ChunkHeaderSize {
					return nil, fmtChunk(si, id, c, encoding.Corruptf("stripe group: chunk of %d bytes is shorter than its header", ch.Size))
				}
				ch.Offset, ch.FirstRow = pos, s.Rows
				pos += ch.Size
				s.Rows += ch.Rows
			}
			s.Size = pos - s.Offset
		}
		if pos != end {
			return nil, fmtStripe(si, encoding.Corruptf("stripe group: streams cover %d of the stripe's %d bytes", pos-st.Offset, st.Size))
		}
		out[k] = streams
	}
	if len(d.b) > 0 {
		return nil, fmtGroup(gi, encoding.Corruptf("stripe group: %d trailing bytes", len(d.b)))
	}
	return out, nil
}
