package write

import (
	"slices"

	"strata/encoding"
	"strata/shred"
)

// Byte-sized chunks. A chunk costs a fixed overhead whatever it holds: its
// framing and chunk-table entry, its statistics, the headers of its
// encoding tree, a dictionary's alphabet, a block's reference values and a
// zstd frame's tables. Cutting every stream at the same count of values
// makes that overhead dominate narrow and low-cardinality columns, while
// wide text columns get chunks a hundred times larger than a bit-packed
// integer's. The writer therefore aims every chunk at about ChunkTarget
// encoded bytes: a column of 1-bit values holds up to ChunkValues values
// per chunk, a column of long strings a few thousand.
//
// Chunk sizes are ChunkValues >> j (powers of two for the default), and a
// chunk of size k ends at the next multiple of k, so the chunk boundaries
// of any two columns nest: a boundary of a column with larger chunks is a
// boundary of every column with smaller ones. A scan batch cut at the end
// of the largest chunk then covers whole chunks of every column, and a
// column stored relative to another (Correlated) finds its reference rows
// in one chunk or in whole chunks.

// sizer chooses the chunk sizes of one stream of one stripe.
type sizer struct {
	ceil, floor int
	target      int
	enc         *chunkEncoder
}

// minChunkShift bounds how far below ChunkValues the byte target may cut a
// chunk: 1 Ki values for the default 64 Ki. Below that the fixed overhead
// per chunk outweighs what a smaller chunk saves a point lookup.
const minChunkShift = 6

// trialValues is the length of the start of a stream whose estimated size
// (or, for a stream no longer than the trial, whose full selection) gives
// its bytes per value before its first chunk.
const trialValues = 8 << 10

// newSizer starts the sizing of a stream whose trial (trialLen) looks at
// its first n values and, when whole, selects the stream's whole length.
func (w *Writer) newSizer(s *shred.Stream, enc *chunkEncoder, n int, whole bool) *sizer {
	z := &sizer{ceil: w.opts.ChunkValues, floor: max(1, w.opts.ChunkValues>>minChunkShift),
		target: w.opts.ChunkTarget, enc: enc}
	if z.target > 0 && enc.bpvEst <= 0 && s.Len > z.floor {
		vals := sliceValues(s.Values, 0, n)
		var valid []bool
		if s.Valid != nil {
			valid = s.Valid[:n]
		}
		if !whole && enc.fixed == nil {
			// The start of a stream of several chunks only sizes its first
			// chunk, which is selected on its own values anyway:
			// selection's estimate (the candidates' sampled trials,
			// without the whole encodes) is enough. On the 17 data sets
			// and the 37 held-out ones this left every file within 0.12 %
			// of its size with a full selection of the start, and took a
			// sixth off the writes of zipcodes and oui.
			if est, err := enc.estimate(vals, valid); err == nil && n > 0 {
				enc.bpvEst = est / float64(n)
			}
			return z
		}
		if node, tree, err := enc.trial(vals, valid); err == nil && n > 0 {
			enc.bpvEst = float64(len(node)) / float64(n)
			if enc.fixed == nil {
				// The trial ran full selection on the whole stream, as
				// encode would: when the stream is cut as one chunk the
				// trial is that chunk, so it is not selected twice.
				// (Replaying the trial's tree on a longer first chunk
				// instead of selecting it made lineitem 1.6 % larger.)
				enc.trialNode, enc.trialTree, enc.trialN = node, tree, n
			}
		}
	}
	return z
}

// size returns the size class k of the next chunk: it ends at the next
// multiple of k (before the stream's end and the raw-byte cut).
func (z *sizer) size() int {
	if z.target <= 0 || z.enc.bpvEst <= 0 {
		return z.ceil
	}
	k := z.ceil
	for k > z.floor && float64(k)*z.enc.bpvEst > float64(z.target) {
		k >>= 1
	}
	return max(k, z.floor)
}

// observe records the encoded size of a chunk of n values.
func (z *sizer) observe(n, size int) {
	if n > 0 && z.target > 0 {
		z.enc.bpvEst = float64(size) / float64(n)
	}
}

// trialLen returns the number of values n at the start of a stream that
// the sizer's trial looks at, and whether the trial selects the stream
// whole (n is its length), so that a stream cut as one chunk is selected
// once (its trial is its chunk) rather than on a trial and again whole.
// Otherwise the trial estimates the size of the first n values.
//
// A stream whose first chunk ends before it whatever its bytes per value
// (cutInside) is never trialled whole: its trial would be thrown away and
// its chunks selected again (species' item_id, 12,360 values of 296 KB
// cut by ChunkBytes, was selected whole twice, without and with its
// shared alphabet, for 12 % of the set's write). Any other stream of at
// most twice trialValues values is trialled whole.
//
// A longer stream of at most ChunkValues values that will clearly be one
// chunk is trialled whole too, for the same reason: its trial of the first
// values would only be followed by a second selection of the whole stream
// as its chunk. Whether it will be one chunk is judged from selection's
// estimate of its size (Policy.EstimateSize, the candidates' trials on a
// sample, a few percent of a selection), which must keep a chunk of its
// power-of-two size class under half of ChunkTarget: a factor of two for
// the estimate's error. On the real data sets this is every stream of
// unicode (35 Ki rows) and the narrow streams of zipcodes and oui.
func (w *Writer) trialLen(s *shred.Stream, enc *chunkEncoder) (n int, whole bool) {
	if w.opts.ChunkTarget > 0 && enc.fixed == nil && w.cutInside(s) {
		return min(s.Len, trialValues), false
	}
	if s.Len <= 2*trialValues {
		return s.Len, true
	}
	if s.Len <= w.opts.ChunkValues && w.opts.ChunkTarget > 0 && enc.fixed == nil && w.clearlyOneChunk(s, enc) {
		return s.Len, true
	}
	return trialValues, false
}

// cutInside reports whether a stream's first chunk ends before the stream
// does whatever its encoded size: it holds more than ChunkValues values, a
// Cut falls inside it, or it holds binary values of more than ChunkBytes
// raw bytes (chunkEnd).
func (w *Writer) cutInside(s *shred.Stream) bool {
	if s.Len > w.opts.ChunkValues {
		return true
	}
	if s.ID < len(w.aligned) && w.aligned[s.ID] {
		if i, _ := slices.BinarySearch(w.fcuts, 1); i < len(w.fcuts) && w.fcuts[i] < s.Len {
			return true
		}
	}
	b, ok := s.Values.(*encoding.Bytes)
	return ok && s.Len > 1 && int64(b.Offsets[s.Len]-b.Offsets[0]) > int64(w.opts.ChunkBytes)
}

// clearlyOneChunk reports whether a stream of at most ChunkValues values,
// not cut inside (cutInside), will clearly be cut as one chunk: its
// estimated encoded size, scaled to its power-of-two size class, is under
// half of ChunkTarget.
func (w *Writer) clearlyOneChunk(s *shred.Stream, enc *chunkEncoder) bool {
	k := 1
	for k < s.Len {
		k <<= 1
	}
	vals := sliceValues(s.Values, 0, s.Len)
	nulls := 0.0
	if s.Valid != nil {
		vals = compact(vals, s.Valid)
		nulls = float64(s.Len) / 8 // a validity bitmap at most
	}
	p := *enc.policy
	p.Force, p.Shared = nil, nil
	est, err := p.EstimateSize(vals)
	if err != nil {
		return false
	}
	return (est+nulls)/float64(s.Len)*float64(k) < float64(w.opts.ChunkTarget)/2
}

// trial encodes vals by full selection without touching the replay state.
func (c *chunkEncoder) trial(vals any, valid []bool) ([]byte, *encoding.Tree, error) {
	p := *c.policy
	p.Force, p.Shared = nil, c.shared
	hasNulls := hasNull(valid)
	if hasNulls {
		return c.nullable(&p, nil, compact(vals, valid), valid)
	}
	return p.Encode(nil, vals)
}

// estimate returns selection's estimate of the bytes of vals encoded by
// full selection (Policy.EstimateSize, the candidates' sampled trials),
// with a validity bitmap's bytes when some are null.
func (c *chunkEncoder) estimate(vals any, valid []bool) (float64, error) {
	p := *c.policy
	p.Force, p.Shared = nil, c.shared
	if hasNull(valid) {
		est, err := p.EstimateSize(compact(vals, valid))
		return est + float64(len(valid))/8, err
	}
	return p.EstimateSize(vals)
}

// takeTrial returns the trial's node when the chunk [lo, hi) is the one the
// trial encoded, and forgets the trial either way (only a stream's first
// chunk can reuse it).
func (c *chunkEncoder) takeTrial(lo, hi int) ([]byte, bool) {
	node, tree, n := c.trialNode, c.trialTree, c.trialN
	c.trialNode, c.trialTree, c.trialN = nil, nil, 0
	if node == nil || lo != 0 || hi != n {
		return nil, false
	}
	c.last = tree
	c.tree, c.bpv, c.replayed = tree, float64(len(node))/float64(max(n, 1)), 0
	return node, true
}
