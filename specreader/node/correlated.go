package node

import "fmt"

// Correlated (kind 18, FORMAT.md "Stripe-level encodings"): an integer
// column stored as its signed difference from another stream of the same
// stripe, row by row.

const kindCorrelated = 18

func init() { register(kindCorrelated, decodeCorrelated) }

// ftSignedOf is the signed integer type of t's width (int8 for int8 and
// uint8, …, int64 for int64 and uint64): the type of Correlated's diff.
func ftSignedOf(t Type) Type {
	switch t.Width() {
	case 1:
		return Int8
	case 2:
		return Int16
	case 4:
		return Int32
	}
	return Int64
}

// decodeCorrelated decodes `refStream | diff child: S, rows rows` and adds
// the reference stream's rows, which r supplies: row i is
// ref[i] + T(diff[i]) wrapping, a null reference row counting as 0. The
// node must be a chunk's root (depth 0). The checks that need the
// container (stream domains, distinct streams, no chained references) are
// the resolver's; the type and row count of what it returns are checked
// here.
func decodeCorrelated(h Header, r Resolver) (Values, error) {
	if !h.Type.Integer() {
		return Values{}, fmt.Errorf("correlated of %v values (integers only): %w", h.Type, ErrUnsupported)
	}
	if d := Depth(r); d != 0 {
		return Values{}, fmt.Errorf("correlated node at depth %d, not a chunk's root: %w", d, ErrCorrupt)
	}
	ref, rest, err := Count(h.Body, 1<<31-1, "correlated refStream")
	if err != nil {
		return Values{}, err
	}
	diff, rest, err := ftChild(rest, ftSignedOf(h.Type), h.Rows, r, "correlated diff")
	if err != nil {
		return Values{}, err
	}
	if err := ftNoTrailing(rest, "correlated diff"); err != nil {
		return Values{}, err
	}
	if !HasResolver(r) {
		return Values{}, fmt.Errorf("correlated reference stream %d: %w", ref, errNoResolver)
	}
	base, err := r.Reference(ref, h.Rows)
	if err != nil {
		return Values{}, fmt.Errorf("correlated reference stream %d: %w", ref, err)
	}
	if base.Type != h.Type || base.Len != h.Rows {
		return Values{}, fmt.Errorf("correlated reference stream %d gives %d %v values, want %d %v: %w", ref, base.Len, base.Type, h.Rows, h.Type, ErrCorrupt)
	}
	v := Make(h.Type, h.Rows)
	for i := 0; i < h.Rows; i++ {
		var b uint64
		if base.Valid == nil || base.Valid[i] {
			b = base.Bits(i)
		}
		v.SetBits(i, b+uint64(diff.Int[i]))
	}
	return v, nil
}
