package node

import (
	"bytes"
	"fmt"
	"math"
)

// Dictionary (kind 8, FORMAT.md "Dictionary"): every type but bool:
//
//	alphabetLen: uvarint | alphabet node (T, D rows) |
//	idsLen: uvarint | ids node (uint32, rows rows)
//
// The alphabet is strictly increasing (integers numerically, floats
// numerically with −0 before +0 and then NaNs by bit pattern, binary
// bytewise); D ≤ rows, D = 0 exactly when rows = 0; every id < D.

func init() { register(8, decodeDictionary) }

// decodeDictionary decodes a Dictionary node, checking the alphabet is
// strictly increasing and every id is in range.
func decodeDictionary(h Header, r Resolver) (Values, error) {
	if err := notZstd(h); err != nil {
		return Values{}, err
	}
	if h.Type == Bool {
		return Values{}, fmt.Errorf("dictionary of bool: %w", ErrUnsupported)
	}
	n := h.Rows
	minD := 0
	if n > 0 {
		minD = 1
	}
	alpha, b, err := readChild(h.Body, h.Type, minD, n, r, "alphabet child")
	if err != nil {
		return Values{}, err
	}
	for i := 1; i < alpha.Len; i++ {
		if !alphabetLess(&alpha, i-1, i) {
			return Values{}, fmt.Errorf("alphabet entries %d and %d not strictly increasing: %w", i-1, i, ErrCorrupt)
		}
	}
	ids, b, err := readChild(b, Uint32, n, n, r, "ids child")
	if err != nil {
		return Values{}, err
	}
	if err := noTrailing(b, "the ids child"); err != nil {
		return Values{}, err
	}
	v := Make(h.Type, n)
	for i, id := range ids.Uint {
		if id >= uint64(alpha.Len) {
			return Values{}, fmt.Errorf("row %d: id %d of an alphabet of %d: %w", i, id, alpha.Len, ErrCorrupt)
		}
		copyValue(&v, i, &alpha, int(id))
	}
	return v, nil
}

// alphabetLess reports whether alphabet entry i sorts before entry j in
// the dictionary order of its type.
func alphabetLess(a *Values, i, j int) bool {
	switch {
	case a.Type.Signed():
		return a.Int[i] < a.Int[j]
	case a.Type.Unsigned():
		return a.Uint[i] < a.Uint[j]
	case a.Type == Float32:
		x, y := a.F32[i], a.F32[j]
		return floatLess(float64(x), float64(y), uint64(math.Float32bits(x)), uint64(math.Float32bits(y)))
	case a.Type == Float64:
		x, y := a.F64[i], a.F64[j]
		return floatLess(x, y, math.Float64bits(x), math.Float64bits(y))
	case a.Type == Binary:
		return bytes.Compare(a.Bin[i], a.Bin[j]) < 0
	}
	return false
}
