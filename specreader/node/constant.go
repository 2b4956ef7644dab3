package node

import "fmt"

// Constant (kind 1, FORMAT.md "Constant"): n ≥ 1 identical values, the body
// holding the value once: size(T) bytes little endian for fixed types
// (floats as IEEE bits), one byte 0 or 1 for bool, `len: uvarint | len
// bytes` for binary, where len must equal the bytes left.

func init() { register(1, decodeConstant) }

// decodeConstant decodes a Constant node: the one stored value, repeated
// rows times.
func decodeConstant(h Header, _ Resolver) (Values, error) {
	if h.Rows < 1 {
		return Values{}, fmt.Errorf("constant node of %d rows: %w", h.Rows, ErrCorrupt)
	}
	one := Make(h.Type, 1)
	rest, err := readValue(h.Type, h.Body, &one, 0, "constant value")
	if err != nil {
		return Values{}, err
	}
	if err := noTrailing(rest, "the constant value"); err != nil {
		return Values{}, err
	}
	v := Make(h.Type, h.Rows)
	for i := 0; i < h.Rows; i++ {
		copyValue(&v, i, &one, 0)
	}
	return v, nil
}

// copyValue sets dst[i] to src[j]; both have the same type. Binary values
// share their bytes.
func copyValue(dst *Values, i int, src *Values, j int) {
	if dst.Type == Binary {
		dst.Bin[i] = src.Bin[j]
		return
	}
	switch {
	case dst.Type.Signed():
		dst.Int[i] = src.Int[j]
	case dst.Type.Unsigned():
		dst.Uint[i] = src.Uint[j]
	case dst.Type == Bool:
		dst.Bool[i] = src.Bool[j]
	case dst.Type == Float32:
		dst.F32[i] = src.F32[j]
	case dst.Type == Float64:
		dst.F64[i] = src.F64[j]
	}
}
