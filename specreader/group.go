package specreader

import (
	"encoding/binary"
	"fmt"
)

// chunkEntry is one chunk of a stream as its stripe group records it
// (FORMAT.md §6), with the derived offset and first row.
type chunkEntry struct {
	Rows     uint64 // entries of the chunk, in the stream's own row domain
	Size     uint64 // total bytes, framing included
	Offset   uint64 // absolute offset of the chunk's framing
	FirstRow uint64 // first entry of the chunk within the stream
	Stats    []byte // opaque stats blob (a ColumnStats record or empty); not parsed
}

// streamTable is the chunk table of one stream of one stripe.
type streamTable struct {
	Chunks []chunkEntry
	Rows   uint64 // Σ chunk rows
}

// stripeTable holds the stream tables of one stripe (ids 0..len-1; ids
// beyond are absent from the stripe).
type stripeTable struct {
	Streams []streamTable
}

// table returns the chunk tables of stripe s, loading its group on first use.
func (f *File) table(s int) (*stripeTable, error) {
	st := f.Stripes[s]
	g := st.Group
	if f.tables[g] == nil {
		ts, err := f.loadGroup(g)
		if err != nil {
			return nil, err
		}
		f.tables[g] = ts
	}
	return &f.tables[g][s-f.Groups[g].FirstStripe], nil
}

// loadGroup parses stripe group g (FORMAT.md §6) and checks that the
// streams of every stripe it covers fill the stripe exactly.
func (f *File) loadGroup(g int) ([]stripeTable, error) {
	grp := f.Groups[g]
	raw, err := f.blob(grp.Ref, maxGroup, fmt.Sprintf("stripe group %d", g))
	if err != nil {
		return nil, err
	}
	return f.parseGroup(g, raw)
}

// parseGroup parses the raw bytes of stripe group g.
func (f *File) parseGroup(g int, raw []byte) ([]stripeTable, error) {
	grp := f.Groups[g]
	r := &reader{b: raw, what: fmt.Sprintf("stripe group %d", g)}
	n := r.count(maxStripes, 1)
	if r.err == nil && n != grp.Stripes {
		return nil, fmt.Errorf("stripe group %d holds %d stripe tables, the footer says %d: %w", g, n, grp.Stripes, ErrCorrupt)
	}
	tables := make([]stripeTable, 0, n)
	for i := 0; i < n && r.err == nil; i++ {
		s := grp.FirstStripe + i
		stripe := f.Stripes[s]
		ns := r.count(maxStreams, 1)
		st := stripeTable{Streams: make([]streamTable, 0, ns)}
		off := stripe.Offset
		for j := 0; j < ns && r.err == nil; j++ {
			nc := r.count(maxChunks, 3)
			var tab streamTable
			tab.Chunks = make([]chunkEntry, 0, nc)
			for c := 0; c < nc && r.err == nil; c++ {
				rows, size := r.uvarint(), r.uvarint()
				stats := r.bytes(r.count(len(r.b), 1))
				if r.err != nil {
					break
				}
				if size < chunkHeader || size > stripe.Offset+stripe.Size-off {
					return nil, fmt.Errorf("stripe %d stream %d chunk %d: size %d does not fit the stripe: %w", s, j, c, size, ErrCorrupt)
				}
				if tab.Rows+rows < tab.Rows {
					return nil, fmt.Errorf("stripe %d stream %d chunk %d: row count overflows: %w", s, j, c, ErrCorrupt)
				}
				tab.Chunks = append(tab.Chunks, chunkEntry{Rows: rows, Size: size, Offset: off, FirstRow: tab.Rows, Stats: stats})
				tab.Rows += rows
				off += size
			}
			st.Streams = append(st.Streams, tab)
		}
		if r.err == nil && off != stripe.Offset+stripe.Size {
			return nil, fmt.Errorf("stripe %d: streams hold %d bytes, the stripe %d: %w", s, off-stripe.Offset, stripe.Size, ErrCorrupt)
		}
		tables = append(tables, st)
	}
	if r.err != nil {
		return nil, r.err
	}
	if len(r.b) != 0 {
		return nil, fmt.Errorf("stripe group %d: %d bytes after the last stripe table: %w", g, len(r.b), ErrCorrupt)
	}
	return tables, nil
}

// chunkPayload returns the raw payload of a chunk after checking its framing
// against the group table and its checksum (FORMAT.md §4.1).
func (f *File) chunkPayload(s, stream, c int, e chunkEntry) ([]byte, error) {
	b := f.data[e.Offset : e.Offset+e.Size]
	storedLen := binary.LittleEndian.Uint32(b[0:])
	comp := b[4]
	sum := binary.LittleEndian.Uint32(b[5:])
	if uint64(storedLen) != e.Size-chunkHeader {
		return nil, fmt.Errorf("stripe %d stream %d chunk %d: storedLen %d, group table says %d: %w", s, stream, c, storedLen, e.Size-chunkHeader, ErrCorrupt)
	}
	stored := b[chunkHeader:]
	if got := sum32(stored); got != sum {
		return nil, fmt.Errorf("stripe %d stream %d chunk %d: checksum %#x, framing says %#x: %w", s, stream, c, got, sum, ErrCorrupt)
	}
	raw, err := unstore(stored, comp, maxChunk, f.Minor)
	if err != nil {
		return nil, fmt.Errorf("stripe %d stream %d chunk %d: %w", s, stream, c, err)
	}
	return raw, nil
}
