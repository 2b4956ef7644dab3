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
// rows' bytes, a second lookup in the same chunk) reads the rest of the
// chunk and opens it whole as before, so that the decoder cache serves the
// lookups after it.
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
	// full (a chunk then forgets it was read in part and is read in part
	// once more).
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
	touched   map[chunkKey]struct{}
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
	_, seen := p.touched[chunkKey{s.f.m, s.stripe, stream, c}]
	p.mu.Unlock()
	return !seen
}

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
	// A SharedDictionary root reads its stripe's alphabet, a Correlated
	// one the rows of its reference stream.
	if err = s.needRefs(stream, c); err == nil {
		err = s.needDefs(stream)
	}
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
	var buf *[]byte
	if b, ok := partialBufs.Get().(*[]byte); ok {
		buf = b
	} else {
		buf = new([]byte)
	}
	defer partialBufs.Put(buf)
	d, err := s.openPartial(stream, c, ch, head, rel, buf)
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
		p.touched = make(map[chunkKey]struct{})
	}
	p.touched[ch.key] = struct{}{}
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

// openPartial opens a chunk from its head and the segments holding rows
// rel, read now into *buf (grown as needed), or returns nil when the chunk
// cannot be read in part. The decoder is valid until *buf is reused.
func (s *stripeIO) openPartial(stream, c int, ch *chunk, head []byte, rel []int32, buf *[]byte) (encoding.Decoder, error) {
	if !format.IsSegmented(head) {
		return nil, nil
	}
	seg, err := format.ParseSegments(head, ch.rng.Len, true)
	if err != nil {
		return nil, err
	}
	if seg.DataOff+seg.SegmentEnd(0) > len(head) {
		return nil, nil // a segment larger than the head: read it whole
	}
	// The node is opened over data, where only checked segments hold
	// what was stored; the rest is whatever the buffer held before.
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
	d, _, err := s.openChunk(stream, c, data, ch.rows)
	if err != nil {
		return nil, err
	}
	for _, r := range rel {
		lo, hi, ok := encoding.RowRange(d, data, int(r))
		if !ok {
			return nil, nil
		}
		if hi > lo {
			for i := lo >> seg.Log; i <= (hi-1)>>seg.Log; i++ {
				if !have[i] {
					if err := s.readSegment(ch, seg, i, data); err != nil {
						return nil, err
					}
					have[i] = true
				}
			}
		}
	}
	return d, nil
}

// readSegment reads segment i of a chunk into its place in data and
// checks it.
func (s *stripeIO) readSegment(ch *chunk, seg format.Segments, i int, data []byte) error {
	b := data[seg.SegmentStart(i):seg.SegmentEnd(i)]
	if err := s.readInto(b, ch.rng.Off+int64(seg.DataOff+seg.SegmentStart(i))); err != nil {
		return err
	}
	return seg.Check(i, b)
}
