// Package node decodes Strata's encoded nodes (docs/FORMAT.md, "Encoded
// nodes" and the encoding chapters) into plain Go slices. It is part of a
// second reader written from the format document alone: it imports no
// package of the Strata module, so where it and the Go reader agree on the
// same files, the document said enough.
//
// Decoders are registered per kind id (register); each decodes its node
// whole, checks what the document says a reader must check, and returns
// ErrCorrupt or ErrUnsupported wrapped with context otherwise.
package node

import (
	"errors"
	"fmt"

	"github.com/klauspost/compress/zstd"
)

// Errors a decoder wraps.
var (
	ErrCorrupt     = errors.New("corrupt node")
	ErrUnsupported = errors.New("unsupported")
)

// Type is a physical type id (FORMAT.md, "Encoded nodes").
type Type uint8

// Physical types.
const (
	Bool    Type = 1
	Int8    Type = 2
	Int16   Type = 3
	Int32   Type = 4
	Int64   Type = 5
	Uint8   Type = 6
	Uint16  Type = 7
	Uint32  Type = 8
	Uint64  Type = 9
	Float32 Type = 10
	Float64 Type = 11
	Binary  Type = 12
)

// Valid reports whether t is a defined type id.
func (t Type) Valid() bool { return t >= Bool && t <= Binary }

// Signed reports whether t is a signed integer type.
func (t Type) Signed() bool { return t >= Int8 && t <= Int64 }

// Unsigned reports whether t is an unsigned integer type.
func (t Type) Unsigned() bool { return t >= Uint8 && t <= Uint64 }

// Integer reports whether t is an integer type.
func (t Type) Integer() bool { return t.Signed() || t.Unsigned() }

// Width is the byte width of a fixed-width type (1 for bool, 0 for binary).
func (t Type) Width() int {
	switch t {
	case Bool, Int8, Uint8:
		return 1
	case Int16, Uint16:
		return 2
	case Int32, Uint32, Float32:
		return 4
	case Int64, Uint64, Float64:
		return 8
	}
	return 0
}

func (t Type) String() string {
	names := [...]string{"invalid", "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64", "binary"}
	if int(t) < len(names) {
		return names[t]
	}
	return fmt.Sprintf("type(%d)", t)
}

// Values is a decoded sequence of Len values of one physical type. Exactly
// one slice is set, by Type: Bool; Int for the signed types (sign-extended
// to 64 bits); Uint for the unsigned ones (zero-extended); F32; F64; Bin
// for binary. Valid is set only by Nullable (false: the row is null, and
// its slot in the value slice holds the zero value).
type Values struct {
	Type  Type
	Len   int
	Bool  []bool
	Int   []int64
	Uint  []uint64
	F32   []float32
	F64   []float64
	Bin   [][]byte
	Valid []bool
}

// Make returns Values of type t with n zero values.
func Make(t Type, n int) Values {
	v := Values{Type: t, Len: n}
	switch {
	case t == Bool:
		v.Bool = make([]bool, n)
	case t.Signed():
		v.Int = make([]int64, n)
	case t.Unsigned():
		v.Uint = make([]uint64, n)
	case t == Float32:
		v.F32 = make([]float32, n)
	case t == Float64:
		v.F64 = make([]float64, n)
	case t == Binary:
		v.Bin = make([][]byte, n)
	}
	return v
}

// Bits returns value i of an integer, float or bool sequence as its bit
// pattern in the type's width, zero-extended (int8 -1 is 0xff): the
// unsigned view that bit-level encodings work in.
func (v *Values) Bits(i int) uint64 {
	switch {
	case v.Type == Bool:
		if v.Bool[i] {
			return 1
		}
		return 0
	case v.Type.Signed():
		return uint64(v.Int[i]) & mask(v.Type)
	case v.Type.Unsigned():
		return v.Uint[i]
	case v.Type == Float32:
		return uint64(f32bits(v.F32[i]))
	case v.Type == Float64:
		return f64bits(v.F64[i])
	}
	return 0
}

// SetBits sets value i from a bit pattern in the type's width (the inverse
// of Bits; higher bits are ignored).
func (v *Values) SetBits(i int, b uint64) {
	switch {
	case v.Type == Bool:
		v.Bool[i] = b&1 != 0
	case v.Type.Signed():
		v.Int[i] = SignExtend(b, v.Type)
	case v.Type.Unsigned():
		v.Uint[i] = b & mask(v.Type)
	case v.Type == Float32:
		v.F32[i] = f32frombits(uint32(b))
	case v.Type == Float64:
		v.F64[i] = f64frombits(b)
	}
}

// mask is the all-ones pattern of t's width.
func mask(t Type) uint64 {
	w := t.Width() * 8
	if w >= 64 {
		return ^uint64(0)
	}
	return 1<<w - 1
}

// Mask is the all-ones pattern of an integer type's width.
func Mask(t Type) uint64 { return mask(t) }

// SignExtend interprets the low bits of b (t's width) as a signed value.
func SignExtend(b uint64, t Type) int64 {
	w := uint(t.Width() * 8)
	if w >= 64 {
		return int64(b)
	}
	return int64(b<<(64-w)) >> (64 - w)
}

// Header is a parsed node prefix. Body is the node's body, already
// inflated when the node's zstd flag is set.
type Header struct {
	Kind  uint8
	Type  Type
	Flags uint8
	Rows  int
	Body  []byte
}

// Limits a decoder applies before allocating from declared sizes.
const (
	MaxRows   = 1 << 28
	MaxRawLen = 1 << 30
)

// Uvarint reads an unsigned LEB128 varint of at most 10 bytes from b,
// returning the value and the rest of b.
func Uvarint(b []byte) (uint64, []byte, error) {
	var x uint64
	var s uint
	for i := 0; i < len(b) && i < 10; i++ {
		c := b[i]
		if i == 9 && c > 1 {
			return 0, nil, fmt.Errorf("varint overflows 64 bits: %w", ErrCorrupt)
		}
		x |= uint64(c&0x7f) << s
		if c < 0x80 {
			return x, b[i+1:], nil
		}
		s += 7
	}
	return 0, nil, fmt.Errorf("varint runs past its buffer: %w", ErrCorrupt)
}

// Count reads a uvarint used as a count or length and checks it against
// limit.
func Count(b []byte, limit int, what string) (int, []byte, error) {
	v, rest, err := Uvarint(b)
	if err != nil {
		return 0, nil, fmt.Errorf("%s: %w", what, err)
	}
	if v > uint64(limit) {
		return 0, nil, fmt.Errorf("%s %d over its bound %d: %w", what, v, limit, ErrCorrupt)
	}
	return int(v), rest, nil
}

var zdec, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(MaxRawLen))

// MaxRatio bounds how far a zstd frame may inflate: a declared raw size
// above MaxRatio times the frame's size (plus 64) is corrupt, so a few
// hostile bytes cannot make a reader allocate a gigabyte.
const MaxRatio = 1 << 15

// MaxDepth is the deepest node a reader accepts: a chunk's root is at
// depth 0 and a child one deeper than its parent.
const MaxDepth = 8

// Inflate decompresses one zstd frame that must produce exactly rawLen
// bytes.
func Inflate(frame []byte, rawLen int) ([]byte, error) {
	if uint64(rawLen) > uint64(len(frame))*MaxRatio+64 {
		return nil, fmt.Errorf("zstd frame of %d bytes declares %d: %w", len(frame), rawLen, ErrCorrupt)
	}
	out, err := zdec.DecodeAll(frame, make([]byte, 0, rawLen))
	if err != nil {
		return nil, fmt.Errorf("zstd: %v: %w", err, ErrCorrupt)
	}
	if len(out) != rawLen {
		return nil, fmt.Errorf("zstd frame inflates to %d bytes, want %d: %w", len(out), rawLen, ErrCorrupt)
	}
	return out, nil
}

// ParseHeader parses a node's prefix and inflates its body if needed.
func ParseHeader(node []byte) (Header, error) {
	if len(node) < 4 {
		return Header{}, fmt.Errorf("node of %d bytes: %w", len(node), ErrCorrupt)
	}
	h := Header{Kind: node[0], Type: Type(node[1]), Flags: node[2]}
	if !h.Type.Valid() {
		return Header{}, fmt.Errorf("node type %d: %w", node[1], ErrCorrupt)
	}
	if h.Flags&^1 != 0 {
		return Header{}, fmt.Errorf("node flags %#x: %w", h.Flags, ErrUnsupported)
	}
	rows, rest, err := Count(node[3:], MaxRows, "node rows")
	if err != nil {
		return Header{}, err
	}
	h.Rows = rows
	if h.Flags&1 != 0 {
		raw, frame, err := Count(rest, MaxRawLen, "node rawLen")
		if err != nil {
			return Header{}, err
		}
		if rest, err = Inflate(frame, raw); err != nil {
			return Header{}, fmt.Errorf("node body: %w", err)
		}
	}
	h.Body = rest
	return h, nil
}

// Child reads one child, stored as `uvarint length | node`, from b and
// returns the child's node bytes and the rest of b.
func Child(b []byte, what string) ([]byte, []byte, error) {
	n, rest, err := Count(b, len(b), what+" length")
	if err != nil {
		return nil, nil, err
	}
	if n > len(rest) {
		return nil, nil, fmt.Errorf("%s of %d bytes, %d left: %w", what, n, len(rest), ErrCorrupt)
	}
	return rest[:n], rest[n:], nil
}

// Resolver reaches data outside a node, in the same stripe: the stripe-level
// encodings (SharedDictionary, Correlated, SharedFSST) use it. The
// container reader supplies one bound to the chunk being decoded.
type Resolver interface {
	// Chunk returns the payload (root node) of chunk index i of the same
	// stream and stripe as the chunk being decoded, and that chunk's row
	// count from the group table. i must not be the chunk being decoded.
	Chunk(i int) (payload []byte, rows int, err error)
	// Reference returns the values of stream id `stream` of the same stripe
	// for the rows of the chunk being decoded (the chunk's first row in its
	// stream, from the group table, and n rows from there), null rows as
	// zero values with Valid set.
	Reference(stream int, n int) (Values, error)
}

// Decoder decodes the node whose header is h. r is never nil: it carries
// the node's depth, and reaches the stripe only when the caller of Decode
// gave a Resolver (HasResolver); a decoder hands it to its children.
type Decoder func(h Header, r Resolver) (Values, error)

var decoders [256]Decoder

// register installs the decoder of a kind id; each encoding's file calls it
// from init.
func register(kind uint8, d Decoder) {
	if decoders[kind] != nil {
		panic(fmt.Sprintf("node: kind %d registered twice", kind))
	}
	decoders[kind] = d
}

// Decode decodes a node into its values. A decoder passes the Resolver it
// was given to its children's Decode or DecodeChild: it carries the depth
// of the node being decoded (depthResolver), so a chain of nested nodes
// ends at MaxDepth instead of exhausting the stack.
func Decode(node []byte, r Resolver) (Values, error) {
	depth := 0
	if d, ok := r.(*depthResolver); ok {
		depth, r = d.depth+1, d.inner
	}
	if depth > MaxDepth {
		return Values{}, fmt.Errorf("encoding tree deeper than %d: %w", MaxDepth, ErrUnsupported)
	}
	h, err := ParseHeader(node)
	if err != nil {
		return Values{}, err
	}
	return decodeHeader(h, &depthResolver{inner: r, depth: depth})
}

// depthResolver is the Resolver a decoder receives: the caller's (nil when
// there is none) and the depth of the node being decoded.
type depthResolver struct {
	inner Resolver
	depth int
}

// errNoResolver is returned by a stripe-level kind decoded without a
// resolver (a node decoded on its own, outside a file).
var errNoResolver = fmt.Errorf("node refers outside itself and no stripe is at hand: %w", ErrUnsupported)

func (d *depthResolver) Chunk(i int) ([]byte, int, error) {
	if d.inner == nil {
		return nil, 0, errNoResolver
	}
	return d.inner.Chunk(i)
}

func (d *depthResolver) Reference(stream, n int) (Values, error) {
	if d.inner == nil {
		return Values{}, errNoResolver
	}
	return d.inner.Reference(stream, n)
}

// Depth returns the depth of the node a decoder was handed r for (0 for a
// chunk's root): stripe-level kinds, which may only be roots, check it.
func Depth(r Resolver) int {
	if d, ok := r.(*depthResolver); ok {
		return d.depth
	}
	return 0
}

// HasResolver reports whether r reaches a stripe (decoders get a non-nil
// Resolver either way).
func HasResolver(r Resolver) bool {
	if d, ok := r.(*depthResolver); ok {
		return d.inner != nil
	}
	return r != nil
}

func decodeHeader(h Header, r Resolver) (Values, error) {
	d := decoders[h.Kind]
	if d == nil {
		return Values{}, fmt.Errorf("node kind %d: %w", h.Kind, ErrUnsupported)
	}
	v, err := d(h, r)
	if err != nil {
		return Values{}, fmt.Errorf("kind %d <%v>: %w", h.Kind, h.Type, err)
	}
	if v.Len != h.Rows || v.Type != h.Type {
		return Values{}, fmt.Errorf("kind %d decoded %d %v values, header says %d %v: %w", h.Kind, v.Len, v.Type, h.Rows, h.Type, ErrCorrupt)
	}
	return v, nil
}

// DecodeChild decodes a child node and checks its type and row count.
func DecodeChild(child []byte, want Type, rows int, r Resolver, what string) (Values, error) {
	v, err := Decode(child, r)
	if err != nil {
		return Values{}, fmt.Errorf("%s: %w", what, err)
	}
	if v.Type != want || (rows >= 0 && v.Len != rows) {
		return Values{}, fmt.Errorf("%s: %d %v values, want %d %v: %w", what, v.Len, v.Type, rows, want, ErrCorrupt)
	}
	return v, nil
}

// Kinds returns the kind ids with a registered decoder.
func Kinds() []uint8 {
	var ks []uint8
	for k, d := range decoders {
		if d != nil {
			ks = append(ks, uint8(k))
		}
	}
	return ks
}
