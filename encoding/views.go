package encoding

// Views: optional capabilities that expose a decoder's compressed form, so
// callers (aggregates, group-by, filters) can work on runs or dictionary ids
// instead of materialized values. They are defined here, not in the
// encoding packages that implement them, so readers find them by type
// assertion without importing any concrete encoding: a new encoding offers
// a view by implementing the interface.

// RunReader exposes a node of fixed-width values as runs of equal values,
// so an aggregate needs one step per run instead of per row:
// sum = Σ lengths[i]·values[i], count = Σ lengths[i], min/max over values.
// RLE decoders implement it.
type RunReader[T Fixed] interface {
	// Runs returns every run of the node: values[i] repeated lengths[i]
	// times, in row order. The slices belong to the decoder; do not modify.
	Runs() (lengths []uint32, values []T)
	// AppendRuns consumes the next n rows from the cursor and appends their
	// runs to lengths and values, the first and last clipped to the span.
	AppendRuns(lengths []uint32, values []T, n int) ([]uint32, []T, error)
}

// BinaryRunReader is RunReader for binary values.
type BinaryRunReader interface {
	// BinaryRuns returns every run: value i of values repeated lengths[i]
	// times. Both belong to the decoder; do not modify.
	BinaryRuns() (lengths []uint32, values *Bytes)
}

// IDReader is the id-level access shared by every dictionary view: the raw
// ids let callers count, group or filter per alphabet entry.
type IDReader interface {
	// AlphabetLen is the number of alphabet entries D; every valid id is < D.
	AlphabetLen() int
	// ReadIDs decodes the next len(dst) ids and advances the cursor. An id
	// outside the alphabet is reported as ErrCorrupt.
	ReadIDs(dst []uint32) error
	// GatherIDs decodes the ids at rows (sorted, strictly increasing)
	// without moving the cursor. An id outside the alphabet is reported as
	// ErrCorrupt.
	GatherIDs(rows []int32, dst []uint32) error
}

// Dictionary exposes a node of numeric values as a sorted alphabet and one
// id per row. Dictionary decoders implement it.
type Dictionary[T Number] interface {
	IDReader
	// Alphabet returns the decoded alphabet in ascending order (floats:
	// numeric order with -0 before +0, then NaNs by bit pattern). It belongs
	// to the decoder; do not modify.
	Alphabet() []T
	// MatchingIDs converts p into the set of matching ids: every id in
	// [lo, hi) when set is nil, else exactly the ids whose bit is set.
	MatchingIDs(p *Pred[T]) (lo, hi uint32, set Bitmap)
}

// BinaryDictionary is Dictionary for binary values.
type BinaryDictionary interface {
	IDReader
	// BinaryAlphabet returns the decoded alphabet in ascending byte order.
	// It belongs to the decoder; do not modify.
	BinaryAlphabet() *Bytes
	// MatchingBinaryIDs is MatchingIDs for binary predicates.
	MatchingBinaryIDs(p *BytesPred) (lo, hi uint32, set Bitmap)
}
