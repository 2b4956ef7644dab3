package write

import (
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

// trialValues is the length of the trial encode that estimates a stream's
// bytes per value before its first chunk.
const trialValues = 8 << 10

func (w *Writer) newSizer(s *shred.Stream, enc *chunkEncoder) *sizer {
	z := &sizer{ceil: w.opts.ChunkValues, floor: max(1, w.opts.ChunkValues>>minChunkShift),
		target: w.opts.ChunkTarget, enc: enc}
	if z.target > 0 && enc.bpvEst <= 0 && s.Len > z.floor {
		n := min(s.Len, trialValues)
		vals := sliceValues(s.Values, 0, n)
		var valid []bool
		if s.Valid != nil {
			valid = s.Valid[:n]
		}
		if size, err := enc.trial(vals, valid); err == nil && n > 0 {
			enc.bpvEst = float64(size) / float64(n)
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

// trial returns the encoded size of vals without touching the replay state.
func (c *chunkEncoder) trial(vals any, valid []bool) (int, error) {
	p := *c.policy
	p.Force, p.Shared = nil, c.shared
	hasNulls := false
	for _, v := range valid {
		if !v {
			hasNulls = true
			break
		}
	}
	var out []byte
	var err error
	if hasNulls {
		out, _, err = c.nullable(&p, nil, compact(vals, valid), valid)
	} else {
		out, _, err = p.Encode(nil, vals)
	}
	return len(out), err
}
