package encoding

// Decoder is the cursor every encoding returns. Values are consumed in order:
// Skip and Read advance the position; Reset returns to the first value.
// Typed reading is through Reader[T] or BinaryReader, which every decoder of
// the matching physical type implements.
type Decoder interface {
	Kind() Kind
	Type() Type
	// Len is the number of values (rows) in the node.
	Len() int
	// Pos is the index of the next value Read would return.
	Pos() int
	// Reset moves the cursor back to the first value.
	Reset()
	// Skip advances the cursor by n values without materializing them.
	Skip(n int) error
}

// Reader decodes fixed-width values into caller-owned buffers.
type Reader[T Fixed] interface {
	Decoder
	// Read decodes the next len(dst) values into dst. It is an error to read
	// past Len.
	Read(dst []T) error
}

// BinaryReader decodes variable-length values.
type BinaryReader interface {
	Decoder
	// ReadBinary appends the next n values to dst. Whatever the input, the
	// offsets it appends never decrease and stay within dst.Data, so
	// readers can hand them to Arrow without checking each one (the fuzz
	// targets hold every decoder to this through encodingtest.Decode).
	ReadBinary(dst *Bytes, n int) error
}

// NullableReader is implemented by decoders whose values may be null
// (Nullable). Nulls leave the zero value in dst and false in valid.
type NullableReader[T Fixed] interface {
	ReadNullable(dst []T, valid []bool) error
}

// NullableBinaryReader is the binary counterpart of NullableReader: null
// values are appended as empty values.
type NullableBinaryReader interface {
	ReadBinaryNullable(dst *Bytes, valid []bool, n int) error
}

// ReadNullable reads len(dst) values and their validity. Decoders without
// nulls report every value valid.
func ReadNullable[T Fixed](r Reader[T], dst []T, valid []bool) error {
	if nr, ok := r.(NullableReader[T]); ok {
		return nr.ReadNullable(dst, valid)
	}
	for i := range valid[:len(dst)] {
		valid[i] = true
	}
	return r.Read(dst)
}

// ReadBinaryNullable appends n values and fills their validity.
func ReadBinaryNullable(r BinaryReader, dst *Bytes, valid []bool, n int) error {
	if nr, ok := r.(NullableBinaryReader); ok {
		return nr.ReadBinaryNullable(dst, valid, n)
	}
	for i := range valid[:n] {
		valid[i] = true
	}
	return r.ReadBinary(dst, n)
}

// Optional selective capabilities, found by type assertion on a decoder.

// Bounder reports the minimum and maximum of a node's values from its header
// alone, without decoding. ok is false when the encoding cannot tell cheaply.
// Nulls are ignored; NaN makes float bounds unknown.
type Bounder[T Number] interface {
	Bounds() (min, max T, ok bool)
}

// BlockBounder is implemented by decoders whose header table bounds each
// block of rows (Delta, DeltaOfDelta): a reader settles whole blocks from
// the headers alone, without decoding them (TsFile's TS2DIFF block peek),
// and knows that Skip reaches a block's first row without decoding the
// rows before it. Blocks are consecutive and cover the node; BlockBounds
// returns block b's first row, its row count and bounds of its values
// (conservative: every value lies in [lo, hi], the bounds need not be
// attained).
type BlockBounder[T Number] interface {
	Blocks() int
	BlockBounds(b int) (first, rows int, lo, hi T)
}

// DecodeSpanner reports the work a read takes. DecodeSpan(from, to), for
// 0 <= from < to <= Len, returns the rows [lo, hi) the decoder decodes —
// or inflates — to deliver rows [from, to) from a fresh cursor:
// [from, to) for layouts whose Skip jumps straight to any row (plain,
// bit-packed), widened to block boundaries by block encodings, [0, Len)
// for a body inflated whole. Readers that account for decode work (read
// amplification in the time-series layer) use it through DecodeSpan.
type DecodeSpanner interface {
	DecodeSpan(from, to int) (lo, hi int)
}

// DecodeSpan returns d's answer to DecodeSpan, or [0, to) for a decoder
// that does not say: its Skip is taken to decode every row it passes.
func DecodeSpan(d Decoder, from, to int) (lo, hi int) {
	if s, ok := d.(DecodeSpanner); ok {
		return s.DecodeSpan(from, to)
	}
	return 0, to
}

// BinaryBounder is the binary counterpart of Bounder.
type BinaryBounder interface {
	BinaryBounds() (min, max []byte, ok bool)
}

// Filterer evaluates a predicate on the encoded form. Filter tests the next n
// values (starting at Pos) and clears bit i of sel for every value i that
// fails; values whose bit is already clear may be skipped. The cursor ends n
// values further on. Null values fail every predicate.
type Filterer[T Number] interface {
	Filter(p *Pred[T], n int, sel Bitmap) error
}

// BinaryFilterer is the binary counterpart of Filterer.
type BinaryFilterer interface {
	FilterBinary(p *BytesPred, n int, sel Bitmap) error
}

// Gatherer reads values at a sorted, strictly increasing set of row indexes
// (relative to the node's first value) without moving the cursor.
type Gatherer[T Fixed] interface {
	Gather(rows []int32, dst []T) error
}

// RangeSummer is implemented by integer decoders that add up ranges of
// their values without materializing them (BlockFOR, FixedBitWidth: their
// bit-packed slots are summed by the bitpack kernels). SumRanges(from,
// ends, out), for 0 <= from <= ends[0] <= ends[1] <= ... <= Len, sets
// out[i] to the sum modulo 2^64 of the widened values (sign-extended for
// signed types) of rows [ends[i-1], ends[i]), ends[-1] being from, without
// moving the cursor; other ends are an error. Delta gathers rows this way:
// a row is its block's first value plus the sum of the differences before
// it in the block, so only the differences up to a wanted row are touched,
// none is stored, and one call serves all the wanted rows of a block.
type RangeSummer interface {
	SumRanges(from int, ends []int32, out []uint64) error
}

// BinaryGatherer is the binary counterpart of Gatherer: it appends
// len(rows) values to dst.
type BinaryGatherer interface {
	GatherBinary(rows []int32, dst *Bytes) error
}

// DiffReader is implemented by integer decoders that store each row as its
// difference from the row before (Delta), so that a parent which turns the
// values into something else (ALP's floats) can fold the running sum into
// its own pass over them instead of reading them twice. ReadDiffs moves
// the cursor over len(dst) rows as Read does, and hands the rows to
// finish one run at a time, a run lying inside one block: finish(out, src,
// base) must set out[i] to base + src[0] + ... + src[i] (wrapping), or to
// anything the parent makes of that sum, and return the last sum. out is
// the run's part of dst; src holds the run's differences (a run that
// starts a block begins with the block's first value and base 0) and
// lies in dst's memory at out's position or after it, so finish may
// write out[i] once it has read src[0..i]. Runs come in row order.
type DiffReader[T Integer] interface {
	ReadDiffs(dst []T, finish func(out, src []T, base T) T) error
}

// Periodic is implemented by decoders whose values repeat with a period
// that the node's structure states (LagDelta whose differences are all
// zero): when Period returns p > 0, row i holds the same value as row i-p
// for every row of the node. A parent that turns the values into others
// row by row (ALP's floats) may then turn one period and copy it onward,
// at the speed of a memory copy; the child's Skip is then cheap too.
// Period returns 0 when the node has no such period.
type Periodic interface {
	Period() int
}

// SkipCounter is implemented by decoders whose Filter can settle whole
// blocks (or the whole node) from headers without decoding them: BlockFOR
// and Delta block bounds, a dictionary whose alphabet has no or only
// matching entries. Skipped returns how many blocks Filter settled that way
// since the decoder was opened; readers report it as encoding-level pruning.
type SkipCounter interface {
	Skipped() int
}

// Walker exposes a node's children for inspection (encoding trees, sizes).
type Walker interface {
	Children() []ChildNode
}

// ChildNode names one nested node.
type ChildNode struct {
	Role string // "ids", "alphabet", "lengths", "values", "validity", ...
	Node []byte
}
