package node

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Helpers shared by the integer encodings. They work on *widened* values
// (FORMAT.md, "Block encodings", notation): a value of integer type T as 64
// bits, sign-extended for signed types and zero-extended for unsigned ones,
// with wrapping arithmetic; a widened value goes back to T by keeping its
// low size(T) bytes.

// isWide reports whether w is the widening of some value of integer type t
// (300 is not a uint8, 2^63 is not an int32).
func isWide(t Type, w uint64) bool { return narrow(t, w) == w }

// narrow converts a 64-bit value to t by keeping its low size(t) bytes and
// returns the widening of the result: T(w) in the document's notation.
func narrow(t Type, w uint64) uint64 {
	if t.Signed() {
		return uint64(SignExtend(w, t))
	}
	return w & mask(t)
}

// lessWide reports whether widened a < widened b in t's own order (signed
// or unsigned).
func lessWide(t Type, a, b uint64) bool {
	if t.Signed() {
		return int64(a) < int64(b)
	}
	return a < b
}

// maxWide is the widening of t's largest value.
func maxWide(t Type) uint64 {
	if t.Signed() {
		return mask(t) >> 1
	}
	return mask(t)
}

// wide returns value i of integer sequence v as a widened value.
func wide(v *Values, i int) uint64 {
	if v.Type.Signed() {
		return uint64(v.Int[i])
	}
	return v.Uint[i]
}

// setWide stores widened value w (already a valid widening) at index i.
func setWide(v *Values, i int, w uint64) {
	if v.Type.Signed() {
		v.Int[i] = int64(w)
	} else {
		v.Uint[i] = w
	}
}

// readVarint reads a zigzag-encoded signed LEB128 varint (Go's
// binary.AppendVarint) and returns it as a wrapping 64-bit pattern.
func readVarint(b []byte, what string) (uint64, []byte, error) {
	u, rest, err := Uvarint(b)
	if err != nil {
		return 0, nil, fmt.Errorf("%s: %w", what, err)
	}
	return uint64(unzigzag(u)), rest, nil
}

// readUvarint reads an unsigned LEB128 varint with context for errors.
func readUvarint(b []byte, what string) (uint64, []byte, error) {
	u, rest, err := Uvarint(b)
	if err != nil {
		return 0, nil, fmt.Errorf("%s: %w", what, err)
	}
	return u, rest, nil
}

// readTvarint reads a typed varint (a varint for signed types, a uvarint
// for unsigned ones) and checks that it is the widening of a t.
func readTvarint(t Type, b []byte, what string) (uint64, []byte, error) {
	var w uint64
	var rest []byte
	var err error
	if t.Signed() {
		w, rest, err = readVarint(b, what)
	} else {
		w, rest, err = readUvarint(b, what)
	}
	if err != nil {
		return 0, nil, err
	}
	if !isWide(t, w) {
		return 0, nil, fmt.Errorf("%s %#x is not a %v: %w", what, w, t, ErrCorrupt)
	}
	return w, rest, nil
}

// unzigzag maps 0, 1, 2, 3 … back to 0, −1, 1, −2 ….
func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

// readFixed reads a little-endian value of size bytes (1, 2, 4 or 8),
// zero-extended.
func readFixed(b []byte, size int) uint64 {
	switch size {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(binary.LittleEndian.Uint16(b))
	case 4:
		return uint64(binary.LittleEndian.Uint32(b))
	}
	return binary.LittleEndian.Uint64(b)
}

// readFixedValue reads one value of fixed-width type t (size(t) bytes,
// little endian; floats as IEEE bits; bool as one byte that must be 0 or 1)
// into index i of v, returning the rest of b.
func readFixedValue(t Type, b []byte, v *Values, i int, what string) ([]byte, error) {
	size := t.Width()
	if len(b) < size {
		return nil, fmt.Errorf("%s needs %d bytes, %d left: %w", what, size, len(b), ErrCorrupt)
	}
	bits := readFixed(b, size)
	if t == Bool && bits > 1 {
		return nil, fmt.Errorf("%s: bool byte %#x: %w", what, bits, ErrCorrupt)
	}
	v.SetBits(i, bits)
	return b[size:], nil
}

// readValue reads one value of type t as stored in a body (Constant,
// MainlyConstant's common value): fixed types as readFixedValue, binary as
// `len: uvarint | len bytes`. It returns the rest of b.
func readValue(t Type, b []byte, v *Values, i int, what string) ([]byte, error) {
	if t != Binary {
		return readFixedValue(t, b, v, i, what)
	}
	n, rest, err := Count(b, len(b), what+" length")
	if err != nil {
		return nil, err
	}
	if n > len(rest) {
		return nil, fmt.Errorf("%s of %d bytes, %d left: %w", what, n, len(rest), ErrCorrupt)
	}
	v.Bin[i] = rest[:n:n]
	return rest[n:], nil
}

// peekChild reads a child node's type and row count from its prefix
// without inflating or decoding it.
func peekChild(child []byte, what string) (Type, int, error) {
	if len(child) < 4 {
		return 0, 0, fmt.Errorf("%s: node of %d bytes: %w", what, len(child), ErrCorrupt)
	}
	rows, _, err := Count(child[3:], MaxRows, what+" rows")
	if err != nil {
		return 0, 0, err
	}
	return Type(child[1]), rows, nil
}

// readChild reads the child `uvarint length | node` at the front of b,
// checks its type (want) and row count (in [minRows, maxRows]) from its
// prefix before decoding anything, decodes it, and returns its values and
// the rest of b. Checking first keeps a hostile child from allocating more
// than its parent allows.
func readChild(b []byte, want Type, minRows, maxRows int, r Resolver, what string) (Values, []byte, error) {
	child, rest, err := Child(b, what)
	if err != nil {
		return Values{}, nil, err
	}
	t, rows, err := peekChild(child, what)
	if err != nil {
		return Values{}, nil, err
	}
	if t != want {
		return Values{}, nil, fmt.Errorf("%s of type %v, want %v: %w", what, t, want, ErrCorrupt)
	}
	if rows < minRows || rows > maxRows {
		if minRows == maxRows {
			return Values{}, nil, fmt.Errorf("%s of %d rows, want %d: %w", what, rows, minRows, ErrCorrupt)
		}
		return Values{}, nil, fmt.Errorf("%s of %d rows, want %d to %d: %w", what, rows, minRows, maxRows, ErrCorrupt)
	}
	v, err := DecodeChild(child, want, rows, r, what)
	if err != nil {
		return Values{}, nil, err
	}
	return v, rest, nil
}

// noTrailing reports trailing bytes after the last field of a body.
func noTrailing(b []byte, what string) error {
	if len(b) != 0 {
		return fmt.Errorf("%d trailing bytes after %s: %w", len(b), what, ErrCorrupt)
	}
	return nil
}

// needInteger rejects a node type that is not one of the eight integer
// types (the document calls other types unsupported for these kinds).
func needInteger(h Header) error {
	if !h.Type.Integer() {
		return fmt.Errorf("type %v is not an integer type: %w", h.Type, ErrUnsupported)
	}
	return nil
}

// notZstd rejects the zstd flag on a composite node (FORMAT.md, "Composite
// encodings": composite nodes are never zstd-compressed themselves).
func notZstd(h Header) error {
	if h.Flags&1 != 0 {
		return fmt.Errorf("composite node with a zstd body: %w", ErrCorrupt)
	}
	return nil
}

// floatLess orders float bit patterns as a Dictionary alphabet does
// (FORMAT.md, "Dictionary"): non-NaN values numerically with −0 before +0,
// then every NaN by its bit pattern as an unsigned integer. a and b are the
// values (float32 widened exactly to float64, which keeps their order);
// rawA and rawB are their own bit patterns, which order NaNs.
func floatLess(a, b float64, rawA, rawB uint64) bool {
	na, nb := math.IsNaN(a), math.IsNaN(b)
	switch {
	case na && nb:
		return rawA < rawB
	case na:
		return false
	case nb:
		return true
	}
	if a == 0 && b == 0 {
		return math.Signbit(a) && !math.Signbit(b)
	}
	return a < b
}
