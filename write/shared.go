package write

import (
	"strata/encoding"
	"strata/shred"
)

// Stripe-scoped shared dictionaries. With byte-sized chunks a column whose
// alphabet is large (thousands of county names, city names, codes) would
// repeat that alphabet in every chunk, and the alphabet's bytes would keep
// its chunks small. The writer therefore builds, per stripe and values
// stream, the sorted alphabet of all the stream's values when they are few
// enough, and offers selection a SharedDictionary reference (ids into that
// alphabet) beside every other encoding. When at least two chunks choose
// it, the alphabet is stored once, as a definition chunk of no rows in
// front of the stream's chunks (chunk 0, which the references name).

// maxSharedDistinct bounds a shared alphabet; beyond it ids need more than
// 16 bits and per-chunk encodings are as good.
const maxSharedDistinct = 1 << 16

// minSharedUses is the number of chunks that must choose the shared
// alphabet for it to be stored: for one chunk its own Dictionary is as
// small.
const minSharedUses = 2

// sharedFor builds the shared alphabet of a values stream for this stripe,
// or returns nil when the stream does not look like it has few distinct
// values or is too short to be cut into several chunks.
func (w *Writer) sharedFor(s *shred.Stream, floor int) encoding.SharedAlphabet {
	var build func(any, int, int) encoding.SharedAlphabet
	for _, c := range w.policy.Registry.Codecs() {
		if c.BuildShared != nil && c.Types.Has(s.Type) {
			build = c.BuildShared
		}
	}
	if build == nil || w.opts.NoShared || s.Type == encoding.Bool || s.Len < 2*floor {
		return nil
	}
	vals := s.Values
	if s.Valid != nil {
		vals = compact(sliceValues(vals, 0, s.Len), s.Valid)
	} else {
		vals = sliceValues(vals, 0, s.Len)
	}
	n := encoding.LenOf(vals)
	if n < 2*floor {
		return nil
	}
	// a sample with more than half its values distinct rules out an
	// alphabet of at most half the values
	sample := encoding.Sample(vals, 16, 64)
	if st := encoding.ComputeStats(sample); !st.DistinctExact || st.Distinct*2 > st.N {
		return nil
	}
	return build(vals, 0, min(maxSharedDistinct, n/2))
}

// usesShared reports whether a chunk's tree refers to the shared alphabet
// (selection offers it only for a column's own values, but any node of
// the tree would need the definition).
func usesShared(t *encoding.Tree) bool {
	if t == nil {
		return false
	}
	if t.Kind == encoding.KindSharedDictionary {
		return true
	}
	for _, c := range t.Children {
		if usesShared(c) {
			return true
		}
	}
	return false
}
