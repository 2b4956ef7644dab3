package read

import (
	"fmt"
	"sync"
	"sync/atomic"

	"strata/encoding"
	"strata/format"
	"strata/iox"
)

// Partial chunk reads for point lookups.
//
// A lookup of a few rows in a large chunk that no query opened before reads
// the chunk's head (framing, segment table and first segment) with the
// other chunks of its plan, and then, when the chunk is segmented
// (format.Segments) and its root node is of an InPlace codec stored
// uncompressed, or a dictionary over such ids, or a column stored relative
// to another over such differences (encoding.InPlaceNode), only
// the segments holding the rows' bytes: each checked against its own checksum, the decoder opened over a
// buffer in which nothing else was filled in, and dropped after the gather.
// Anything else (an unsegmented chunk, a root that reads more than its
// rows' bytes, a chunk looked up in part partialTouches times already)
// reads the rest of the chunk and opens it whole as before, so that the
// decoder cache serves the lookups after it.
//
// It is done only where a read costs little beyond its bytes (a local file
// or memory: the source's coalescing gap is at most iox.DefaultGap); on an
// object store the second round trip would cost more than the bytes it
// saves.

const (
	// partialMinChunk is the smallest chunk read in part: four segments.
	partialMinChunk = 16 << 10
	// headPayload is how many payload bytes a head read takes after the
	// segment table: one segment of the writer's default size, which holds
	// the root node's header.
	headPayload = 1 << format.DefaultSegmentLog
	// touchedMax bounds the set of chunks read in part; it is cleared when
	// full (a chunk then forgets its lookups and is read in part again).
	touchedMax = 1 << 16
)

// partialState is a File's record of partial reads: per stream how often
// a head led to a partial read and how often not (a stream whose chunks
// are not InPlace stops paying for heads), and which chunks were read in
// part already.
type partialState struct {
	ok        bool // the source suits partial reads
	hit, miss []atomic.Int32
	mu        sync.Mutex
	touched   map[chunkKey]int32 // lookups that read the chunk in part
}

func (f *File) initPartial() {
	f.partial.ok = f.fetch.Hints().Gap <= iox.DefaultGap
	n := f.sch.NumStreams()
	f.partial.hit = make([]atomic.Int32, n)
	f.partial.miss = make([]atomic.Int32, n)
}

// wantPartial reports whether a lookup of k rows in chunk c of a stream
// should read the chunk's head first. The caller holds s.mu.
func (s *stripeIO) wantPartial(stream, c, k int) bool {
	p := &s.f.partial
	if !p.ok || stream < 0 || stream >= len(p.hit) {
		return false
	}
	info := s.stream(stream)
	if c < 0 || c >= len(info.Chunks) {
		return false
	}
	size := info.Chunks[c].Size
	if size < partialMinChunk || int64(k)*2*headPayload > size {
		return false
	}
	if m, h := p.miss[stream].Load(), p.hit[stream].Load(); m > 2*h+2 {
		return false
	}
	p.mu.Lock()
	n := p.touched[chunkKey{s.f.m, s.stripe, stream, c}]
	p.mu.Unlock()
	return int64(n) < partialTouches(size)
}

// partialTouches is how many lookups of a chunk of size bytes read it in
// part before the next reads it whole and keeps its decoder: a partial
// read costs about a head and a segment (some 16 KiB of reading, counting
// each request's own cost), so the lookups a chunk gets before it is read
// whole cost at most about as much as reading it whole (the ski-rental
// rule: never more than twice what knowing the future would cost).
func partialTouches(size int64) int64 { return max(1, size/(16<<10)) }

// needHead declares a lookup of k rows in chunk c of a stream: its head
// when wantPartial says so, else the whole chunk (need).
func (s *stripeIO) needHead(stream, c, k int) error {
	s.mu.Lock()
	ch, err := s.lookup(stream, c)
	if err != nil {
		s.mu.Unlock()
		return err
	}
	if ch.dec != nil || ch.raw != nil || ch.queued || ch.rows == 0 || !s.wantPartial(stream, c, k) {
		s.mu.Unlock()
		return s.need(stream, c)
	}
	if !ch.wantHead {
		ch.wantHead = true
		s.heads = append(s.heads, ch)
	}
	// A SharedDictionary root reads its stripe's alphabet. A Correlated
	// one reads its reference's rows in part as well, when it opens.
	err = s.needDefs(stream)
	s.mu.Unlock()
	return err
}

// headRange is the part of a chunk a head read takes.
func headRange(ch *chunk) iox.Range {
	return iox.Range{Off: ch.rng.Off, Len: format.HeadLen(ch.rng.Len, headPayload)}
}

// readRanges reads ranges for this stripe's query, counting its requests
// and bytes.
func (s *stripeIO) readRanges(ranges []iox.Range) ([][]byte, error) {
	reads := s.f.fetch.Plan(ranges)
	bufs, err := s.f.fetchRanges(s.ctx, ranges)
	if err != nil {
		return nil, fmt.Errorf("read: stripe %d: %w", s.stripe, err)
	}
	s.requests.Add(int64(len(reads)))
	var n int64
	for _, r := range reads {
		n += r.Len
	}
	s.bytes.Add(n)
	return bufs, nil
}

// partialBufs holds the buffers partial reads open their decoders over:
// they are dropped after one gather, and a fresh large buffer costs more
// than the read (zeroed, faulted-in memory), so they are reused.
var partialBufs sync.Pool

// usePartial gathers from chunk c of a stream through a partial read when
// its head was fetched and the chunk allows it, calling fn with a decoder
// that is not kept. It returns false when it did not: the chunk's bytes
// are then complete (its head plus the rest, read now) for use.
func (s *stripeIO) usePartial(stream, c int, rel []int32, fn func(encoding.Decoder) error) (bool, error) {
	s.mu.Lock()
	ch, err := s.lookup(stream, c)
	s.mu.Unlock()
	if err != nil {
		return false, err
	}
	ch.mu.Lock()
	defer ch.mu.Unlock()
	if ch.head == nil || ch.dec != nil || ch.raw != nil {
		return false, nil
	}
	head := ch.head
	ch.head = nil
	po := &partialOpen{rel: rel}
	defer po.release()
	d, err := s.openPartial(stream, c, ch.rng, ch.rows, head, po, true)
	if err != nil {
		return false, fmt.Errorf("read: stripe %d, stream %d, chunk %d: %w", s.stripe, stream, c, err)
	}
	p := &s.f.partial
	if d == nil {
		p.miss[stream].Add(1)
		// Complete the chunk: the rest after its head, read now.
		raw := make([]byte, ch.rng.Len)
		copy(raw, head)
		if err := s.readInto(raw[len(head):], ch.rng.Off+int64(len(head))); err != nil {
			return false, err
		}
		ch.raw, ch.readLen = raw, ch.rng.Len
		return false, nil
	}
	p.hit[stream].Add(1)
	p.mu.Lock()
	if len(p.touched) >= touchedMax || p.touched == nil {
		p.touched = make(map[chunkKey]int32)
	}
	p.touched[ch.key]++
	p.mu.Unlock()
	s.opened.Add(1)
	if onOpen != nil {
		onOpen(ch.key)
	}
	if err := fn(d); err != nil {
		return true, fmt.Errorf("read: stripe %d, stream %d, chunk %d: %w", s.stripe, stream, c, err)
	}
	return true, nil
}

// readInto fills p from the file at off with one read, counted in the
// stripe's traffic.
func (s *stripeIO) readInto(p []byte, off int64) error {
	if len(p) == 0 {
		return nil
	}
	if err := s.ctx.Err(); err != nil {
		return err
	}
	if err := iox.ReadFull(s.ctx, s.f.fetch, p, off); err != nil {
		return fmt.Errorf("read: stripe %d: bytes [%d, %d): %w", s.stripe, off, off+int64(len(p)), err)
	}
	s.requests.Add(1)
	s.bytes.Add(int64(len(p)))
	return nil
}

// partialOpen is one chunk opened in part: the rows gathered (relative to
// the chunk) and the buffers its decoder and its references' decoders
// were opened over, returned to partialBufs once the gather is done.
type partialOpen struct {
	rel  []int32
	bufs []*[]byte
}

func (po *partialOpen) buffer() *[]byte {
	b, ok := partialBufs.Get().(*[]byte)
	if !ok {
		b = new([]byte)
	}
	po.bufs = append(po.bufs, b)
	return b
}

func (po *partialOpen) release() {
	for _, b := range po.bufs {
		partialBufs.Put(b)
	}
	po.bufs = nil
}

// openPartial opens the chunk at rng holding rows from its head and the
// segments holding rows po.rel, read now into a buffer of po, or returns
// nil when the chunk cannot be read in part. refs is false for a chunk
// opened as another's reference (whose references do not chain). The
// decoder is valid until po is released.
func (s *stripeIO) openPartial(stream, c int, rng iox.Range, rows int, head []byte, po *partialOpen, refs bool) (encoding.Decoder, error) {
	if !format.IsSegmented(head) {
		return nil, nil
	}
	seg, err := format.ParseSegments(head, rng.Len, true)
	if err != nil {
		return nil, err
	}
	if seg.DataOff+seg.SegmentEnd(0) > len(head) {
		return nil, nil // a segment larger than the head: read it whole
	}
	// The node is opened over data, where only checked segments hold
	// what was stored; the rest is whatever the buffer held before.
	buf := po.buffer()
	if cap(*buf) < seg.DataLen {
		*buf = make([]byte, (seg.DataLen+64<<10-1)&^(64<<10-1))
	}
	data := (*buf)[:seg.DataLen]
	have := make([]bool, len(seg.Sums))
	for i := range seg.Sums {
		lo, hi := seg.DataOff+seg.SegmentStart(i), seg.DataOff+seg.SegmentEnd(i)
		if hi > len(head) {
			break
		}
		if err := seg.Check(i, head[lo:hi]); err != nil {
			return nil, err
		}
		copy(data[seg.SegmentStart(i):], head[lo:hi])
		have[i] = true
	}
	if !encoding.InPlaceNode(data, seg.SegmentEnd(0), s.f.dec) {
		return nil, nil
	}
	o := s.chunkOptions(stream, c, refs)
	if r, ok := o.Resolver.(*chunkResolver); ok && refs {
		r.part = po
	}
	d, err := encoding.Open(data, o)
	if err != nil {
		return nil, err
	}
	if d.Len() != rows {
		return nil, encoding.Corruptf("chunk holds %d rows, index says %d", d.Len(), rows)
	}
	for _, r := range po.rel {
		lo, hi, ok := encoding.RowRange(d, data, int(r))
		if !ok {
			return nil, nil
		}
		if hi > lo {
			for i := lo >> seg.Log; i <= (hi-1)>>seg.Log; i++ {
				if !have[i] {
					if err := s.readSegment(rng, seg, i, data); err != nil {
						return nil, err
					}
					have[i] = true
				}
			}
		}
	}
	return d, nil
}

// partialReference opens the rows of reference stream ref under own (a
// chunk of the stream being opened in part, whose rows under the
// reference begin in ref's chunk first) over the reference chunks' heads
// and the segments of the rows po gathers; chunks holding none of them
// stand in with decoders that cannot be read. It returns false when a
// reference chunk cannot be read in part (the caller reads them whole).
func (s *stripeIO) partialReference(ref int, typ encoding.Type, own format.ChunkInfo, first int, po *partialOpen) (encoding.Decoder, bool, error) {
	info := s.stream(ref)
	var decs []encoding.Decoder
	for c := first; c < len(info.Chunks) && info.Chunks[c].FirstRow < own.FirstRow+own.Rows; c++ {
		ci := info.Chunks[c]
		if ci.Rows == 0 {
			continue
		}
		var rel []int32
		for _, x := range po.rel {
			if abs := own.FirstRow + int64(x); abs >= ci.FirstRow && abs < ci.FirstRow+ci.Rows {
				rel = append(rel, int32(abs-ci.FirstRow))
			}
		}
		if len(rel) == 0 {
			d, err := unreadable(typ, int(ci.Rows))
			if err != nil {
				return nil, false, err
			}
			decs = append(decs, d)
			continue
		}
		if ci.Size < partialMinChunk {
			return nil, false, nil
		}
		rng := iox.Range{Off: ci.Offset, Len: ci.Size}
		bufs, err := s.readRanges([]iox.Range{{Off: rng.Off, Len: format.HeadLen(rng.Len, headPayload)}})
		if err != nil {
			return nil, false, err
		}
		rpo := &partialOpen{rel: rel}
		d, err := s.openPartial(ref, c, rng, int(ci.Rows), bufs[0], rpo, false)
		po.bufs = append(po.bufs, rpo.bufs...)
		if err != nil || d == nil {
			return nil, false, err
		}
		decs = append(decs, d)
	}
	if len(decs) == 0 {
		return nil, false, nil
	}
	d, err := encoding.Concat(decs, int(own.FirstRow-info.Chunks[first].FirstRow), int(own.Rows))
	return d, err == nil, err
}

// unread is a stand-in for a reference chunk a lookup reads no row of: it
// has the chunk's length and moves its cursor, and fails any read.
type unread[T encoding.Integer] struct{ n, pos int }

func (u *unread[T]) Kind() encoding.Kind { return encoding.KindTrivial }
func (u *unread[T]) Type() encoding.Type { return encoding.TypeFor[T]() }
func (u *unread[T]) Len() int            { return u.n }
func (u *unread[T]) Pos() int            { return u.pos }
func (u *unread[T]) Reset()              { u.pos = 0 }
func (u *unread[T]) Skip(n int) error {
	if n < 0 || n > u.n-u.pos {
		return encoding.Corruptf("unread reference chunk: skip %d at %d of %d", n, u.pos, u.n)
	}
	u.pos += n
	return nil
}
func (u *unread[T]) Read([]T) error {
	return fmt.Errorf("read: a reference chunk a lookup did not read was read: %w", encoding.ErrCorrupt)
}
func (u *unread[T]) Gather([]int32, []T) error { return u.Read(nil) }

func unreadable(t encoding.Type, n int) (encoding.Decoder, error) {
	switch t {
	case encoding.Int8:
		return &unread[int8]{n: n}, nil
	case encoding.Int16:
		return &unread[int16]{n: n}, nil
	case encoding.Int32:
		return &unread[int32]{n: n}, nil
	case encoding.Int64:
		return &unread[int64]{n: n}, nil
	case encoding.Uint8:
		return &unread[uint8]{n: n}, nil
	case encoding.Uint16:
		return &unread[uint16]{n: n}, nil
	case encoding.Uint32:
		return &unread[uint32]{n: n}, nil
	case encoding.Uint64:
		return &unread[uint64]{n: n}, nil
	}
	return nil, encoding.Unsupportedf("reference of %v", t)
}

// readSegment reads segment i of the chunk at rng into its place in data
// and checks it.
func (s *stripeIO) readSegment(rng iox.Range, seg format.Segments, i int, data []byte) error {
	b := data[seg.SegmentStart(i):seg.SegmentEnd(i)]
	if err := s.readInto(b, rng.Off+int64(seg.DataOff+seg.SegmentStart(i))); err != nil {
		return err
	}
	return seg.Check(i, b)
}
