package node

// Helpers shared by the float, text and stripe-level kinds (FSST, ALP,
// ALP-RD, FrontCoding, DigitText, SharedDictionary, Correlated, Chimp,
// SharedFSST, NumText, HexText, FieldText). They carry an "ft" prefix so that they never clash
// with the integer kinds' helpers written beside them in this package.

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"math/bits"
)

// ftBitlen is FORMAT.md's bitlen(x): the number of bits needed to write x,
// 0 for 0.
func ftBitlen(x uint64) int { return bits.Len64(x) }

// ftStreamBytes is the byte size ⌈count·width/8⌉ of a bit-packed stream
// (FORMAT.md, "Bit-packed streams"); count ≤ MaxRows and width ≤ 64 keep
// the product far inside int64.
func ftStreamBytes(count, width int) int { return (count*width + 7) / 8 }

// ftGet reads the width w (0 ≤ w ≤ 64) field starting at stream bit pos of
// an LSB-first bitstream: stream bit k is bit k mod 8 of byte ⌊k/8⌋. The
// caller has checked that pos+w bits lie within b.
func ftGet(b []byte, pos int, w int) uint64 {
	if w == 0 {
		return 0
	}
	i := pos >> 3
	shift := uint(pos & 7)
	v := uint64(b[i]) >> shift
	got := 8 - shift
	i++
	for got < uint(w) {
		v |= uint64(b[i]) << got
		got += 8
		i++
	}
	if w < 64 {
		v &= 1<<uint(w) - 1
	}
	return v
}

// ftBitReader reads consecutive fields of a bitstream (Chimp's block
// streams), refusing to read past its end.
type ftBitReader struct {
	b   []byte
	pos int // next stream bit
}

// read returns the next w bits (w ≤ 64), or false when the stream ends
// before them.
func (r *ftBitReader) read(w int) (uint64, bool) {
	if w < 0 || w > 64 || r.pos+w > len(r.b)*8 {
		return 0, false
	}
	v := ftGet(r.b, r.pos, w)
	r.pos += w
	return v, true
}

// ftUnpack decodes count values of width w from the bit-packed stream that
// starts b, returning them and the rest of b after the stream's
// ⌈count·w/8⌉ bytes. The stream's size is checked before allocating.
func ftUnpack(b []byte, count, w int, what string) ([]uint64, []byte, error) {
	size := ftStreamBytes(count, w)
	if size > len(b) {
		return nil, nil, fmt.Errorf("%s: %d values of %d bits need %d bytes, %d left: %w", what, count, w, size, len(b), ErrCorrupt)
	}
	out := make([]uint64, count)
	for i := range out {
		out[i] = ftGet(b, i*w, w)
	}
	return out, b[size:], nil
}

// ftLimitRows and ftLimitRaw bound the row count and zstd rawLen of every
// child this part's kinds decode, checked from the child's prefix before
// the child allocates anything. They are MaxRows and MaxRawLen (which
// ParseHeader enforces anyway) except in tests: the fuzz target lowers
// them so that a few bytes claiming a huge Constant child (a legal
// expansion up to the decode limits) or a huge rawLen (which Inflate
// allocates before it inflates) do not exhaust the fuzzing workers'
// memory.
var ftLimitRows, ftLimitRaw = MaxRows, MaxRawLen

// ftPeek checks a child's rows and rawLen against ftLimitRows and
// ftLimitRaw without parsing the rest of it (ParseHeader reports whatever
// else is wrong with the prefix).
func ftPeek(child []byte, what string) error {
	if len(child) < 4 {
		return nil
	}
	n, rest, err := Uvarint(child[3:])
	if err != nil {
		return nil
	}
	if n > uint64(ftLimitRows) {
		return fmt.Errorf("%s of %d rows over the limit %d: %w", what, n, ftLimitRows, ErrCorrupt)
	}
	if child[2]&1 != 0 {
		if raw, _, err := Uvarint(rest); err == nil && raw > uint64(ftLimitRaw) {
			return fmt.Errorf("%s of %d inflated bytes over the limit %d: %w", what, raw, ftLimitRaw, ErrCorrupt)
		}
	}
	return nil
}

// ftChild reads one `uvarint length | node` child from body and decodes it
// as rows values (rows < 0: any count) of type want. r is the resolver the
// parent was handed: the child gets the parent's depth (so node.MaxDepth
// bounds nesting through these kinds too) but no stripe, since only a
// chunk's root, or a Nullable root's values, reaches outside the chunk. A
// child that decodes with a validity (a Nullable child, which FORMAT.md
// neither allows nor forbids) is read as its values, null rows as zero
// values, as the Go reader does (gaps/floattext.md).
func ftChild(body []byte, want Type, rows int, r Resolver, what string) (Values, []byte, error) {
	child, rest, err := Child(body, what)
	if err != nil {
		return Values{}, nil, err
	}
	if err := ftPeek(child, what); err != nil {
		return Values{}, nil, err
	}
	v, err := DecodeChild(child, want, rows, ftNoStripe(r), what)
	if err != nil {
		return Values{}, nil, err
	}
	return v, rest, nil
}

// ftNoStripe is the resolver a child of these kinds is decoded with: r's
// depth, no stripe.
func ftNoStripe(r Resolver) Resolver { return &depthResolver{depth: Depth(r)} }

// ftNoTrailing reports trailing bytes after a node's last field as corrupt.
func ftNoTrailing(rest []byte, what string) error {
	if len(rest) != 0 {
		return fmt.Errorf("%d trailing bytes after %s: %w", len(rest), what, ErrCorrupt)
	}
	return nil
}

// ftByte reads one byte of a body.
func ftByte(b []byte, what string) (byte, []byte, error) {
	if len(b) < 1 {
		return 0, nil, fmt.Errorf("%s: body ends: %w", what, ErrCorrupt)
	}
	return b[0], b[1:], nil
}

// ftFixed reads a little-endian fixed-width field of size bytes (≤ 8).
func ftFixed(b []byte, size int, what string) (uint64, []byte, error) {
	if len(b) < size {
		return 0, nil, fmt.Errorf("%s: %d bytes needed, %d left: %w", what, size, len(b), ErrCorrupt)
	}
	var v uint64
	for i := size - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v, b[size:], nil
}

// ftFloatType checks that a float encoding's node is float32 or float64
// (FORMAT.md, "Float encodings": any other type is unsupported).
func ftFloatType(t Type) error {
	if t != Float32 && t != Float64 {
		return fmt.Errorf("float encoding of %v values: %w", t, ErrUnsupported)
	}
	return nil
}

// ftBinaryType checks that a text encoding's node is binary. FORMAT.md says
// "Binary only" without naming the error; like the float chapter's "any
// other type is unsupported" (and like the Go reader), another type is
// unsupported.
func ftBinaryType(t Type, kind string) error {
	if t != Binary {
		return fmt.Errorf("%s of %v values (binary only): %w", kind, t, ErrUnsupported)
	}
	return nil
}

// ftBounds is a float node's bounds header (FORMAT.md, "Float encodings").
// A reader checks only what the document lists (the flag, no NaN bound,
// lo ≤ hi); that the bounds are the values' exact minimum and maximum is
// not a stated check and the Go reader does not verify it
// (gaps/floattext.md), so neither does this one.
type ftBounds struct {
	known  bool   // flag 1
	lo, hi uint64 // IEEE 754 bits in the node's width
}

// ftIsNaN reports whether bits are a NaN of type t (float32 or float64).
func ftIsNaN(b uint64, t Type) bool {
	if t == Float32 {
		f := math.Float32frombits(uint32(b))
		return f != f
	}
	return math.IsNaN(math.Float64frombits(b))
}

// ftFloat widens the bits of a float32 or float64 to a float64 for
// comparisons (exact: every float32 is a float64).
func ftFloat(b uint64, t Type) float64 {
	if t == Float32 {
		return float64(math.Float32frombits(uint32(b)))
	}
	return math.Float64frombits(b)
}

// ftParseBounds reads the bounds header: flag 0 (unknown) or 1 followed by
// lo and hi; another flag, a NaN bound or lo > hi is corrupt.
func ftParseBounds(b []byte, t Type) (ftBounds, []byte, error) {
	flag, rest, err := ftByte(b, "bounds flag")
	if err != nil {
		return ftBounds{}, nil, err
	}
	switch flag {
	case 0:
		return ftBounds{}, rest, nil
	case 1:
	default:
		return ftBounds{}, nil, fmt.Errorf("bounds flag %d: %w", flag, ErrCorrupt)
	}
	size := t.Width()
	bd := ftBounds{known: true}
	if bd.lo, rest, err = ftFixed(rest, size, "bounds lo"); err != nil {
		return ftBounds{}, nil, err
	}
	if bd.hi, rest, err = ftFixed(rest, size, "bounds hi"); err != nil {
		return ftBounds{}, nil, err
	}
	if ftIsNaN(bd.lo, t) || ftIsNaN(bd.hi, t) {
		return ftBounds{}, nil, fmt.Errorf("NaN bound: %w", ErrCorrupt)
	}
	if ftFloat(bd.lo, t) > ftFloat(bd.hi, t) {
		return ftBounds{}, nil, fmt.Errorf("bounds lo %v above hi %v: %w", ftFloat(bd.lo, t), ftFloat(bd.hi, t), ErrCorrupt)
	}
	return bd, rest, nil
}

// ftPow10 holds the exact float64 powers of ten 10^0 .. 10^22 (every one is
// representable exactly; ALP needs up to 10^18).
var ftPow10 = [...]float64{
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
}

// ftDictCompare orders two values of a sequence of type t as Dictionary's
// alphabet order does (FORMAT.md, Dictionary): integers numerically;
// floats numerically over non-NaN values with -0 before +0, then every NaN
// by its bit pattern as an unsigned integer; binary bytewise.
func ftDictCompare(v *Values, i, j int) int {
	switch {
	case v.Type.Signed():
		return cmp.Compare(v.Int[i], v.Int[j])
	case v.Type.Unsigned():
		return cmp.Compare(v.Uint[i], v.Uint[j])
	case v.Type == Float32 || v.Type == Float64:
		a, b := v.Bits(i), v.Bits(j)
		an, bn := ftIsNaN(a, v.Type), ftIsNaN(b, v.Type)
		switch {
		case an && bn:
			return cmp.Compare(a, b)
		case an:
			return 1
		case bn:
			return -1
		}
		return cmp.Compare(ftTotalKey(a, v.Type), ftTotalKey(b, v.Type))
	case v.Type == Binary:
		return bytes.Compare(v.Bin[i], v.Bin[j])
	}
	return 0
}

// ftTotalKey maps a non-NaN float's bits to an unsigned key whose order is
// the numeric order with -0 immediately before +0.
func ftTotalKey(b uint64, t Type) uint64 {
	sign := uint64(1) << 63
	if t == Float32 {
		sign = 1 << 31
	}
	if b&sign != 0 {
		return ^b & (sign<<1 - 1)
	}
	return b | sign
}

// ftCheckPositions checks exception positions: strictly increasing and each
// below n (FORMAT.md, ALP and ALP-RD).
func ftCheckPositions(pos []uint64, n int, what string) error {
	for j, p := range pos {
		if p >= uint64(n) {
			return fmt.Errorf("%s %d: row %d of %d: %w", what, j, p, n, ErrCorrupt)
		}
		if j > 0 && p <= pos[j-1] {
			return fmt.Errorf("%s %d: row %d after %d, not increasing: %w", what, j, p, pos[j-1], ErrCorrupt)
		}
	}
	return nil
}
