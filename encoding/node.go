package encoding

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Node flag bits.
const (
	// FlagZstd marks a body stored as a zstd frame; rawLen precedes it.
	FlagZstd  uint8 = 1 << 0
	flagKnown       = FlagZstd
)

// Header is a parsed node prefix.
type Header struct {
	Kind  Kind
	Type  Type
	Flags uint8
	Rows  int
	// Body is the encoding-specific payload, already decompressed.
	Body []byte
	// Size is the number of bytes the whole node occupies in its buffer.
	Size int
	// Depth is the nesting depth of the node, 0 for a root.
	Depth int
}

// AppendHeader appends a node prefix for an uncompressed body.
func AppendHeader(dst []byte, k Kind, t Type, rows int) []byte {
	dst = append(dst, byte(k), byte(t), 0)
	return binary.AppendUvarint(dst, uint64(rows))
}

// AppendChild appends child as a length-prefixed nested node.
func AppendChild(dst, child []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(child)))
	return append(dst, child...)
}

// Uvarint reads a uvarint from buf, returning it and the rest of buf.
// what names the field for the error message.
func Uvarint(buf []byte, what string) (uint64, []byte, error) {
	// Most fields of a node are below 128: one byte, without the loop.
	if len(buf) > 0 && buf[0] < 0x80 {
		return uint64(buf[0]), buf[1:], nil
	}
	return uvarint(buf, what)
}

func uvarint(buf []byte, what string) (uint64, []byte, error) {
	v, n := binary.Uvarint(buf)
	if n <= 0 {
		return 0, buf, Corruptf("%s: bad uvarint", what)
	}
	return v, buf[n:], nil
}

// Length reads a uvarint that counts bytes or values and checks it is at most max.
func Length(buf []byte, max int, what string) (int, []byte, error) {
	if len(buf) > 0 && buf[0] < 0x80 && int(buf[0]) <= max {
		return int(buf[0]), buf[1:], nil
	}
	return length(buf, max, what)
}

func length(buf []byte, max int, what string) (int, []byte, error) {
	v, rest, err := uvarint(buf, what)
	if err != nil {
		return 0, buf, err
	}
	if v > uint64(max) {
		return 0, buf, Corruptf("%s: %d exceeds %d", what, v, max)
	}
	return int(v), rest, nil
}

// Child splits a length-prefixed child node off the front of buf. (It
// reads the length itself rather than through Length, so that naming the
// field for an error costs nothing when there is none: decoders call it
// for every node they open.)
func Child(buf []byte, what string) (child, rest []byte, err error) {
	v, k := binary.Uvarint(buf)
	if k <= 0 {
		return nil, buf, Corruptf("%s length: bad uvarint", what)
	}
	if v > uint64(len(buf)) {
		return nil, buf, Corruptf("%s length: %d exceeds %d", what, v, len(buf))
	}
	n, rest := int(v), buf[k:]
	if n > len(rest) {
		return nil, buf, Corruptf("%s: length %d beyond %d remaining bytes", what, n, len(rest))
	}
	return rest[:n], rest[n:], nil
}

// ParseHeader parses the node prefix of node, decompressing the body if
// needed, and checks the declared sizes against opts.
func ParseHeader(node []byte, depth int, opts *Options) (Header, error) {
	opts = opts.orDefault()
	if depth > opts.MaxDepth {
		return Header{}, Limitf("encoding tree deeper than %d", opts.MaxDepth)
	}
	if len(node) < 4 {
		return Header{}, Corruptf("node of %d bytes is shorter than its prefix", len(node))
	}
	h := Header{Kind: Kind(node[0]), Type: Type(node[1]), Flags: node[2], Depth: depth, Size: len(node)}
	if !h.Type.Valid() {
		return Header{}, Corruptf("%v node: unknown physical type %d", h.Kind, node[1])
	}
	if h.Flags&^flagKnown != 0 {
		return Header{}, Unsupportedf("%v node: unknown flags %#x", h.Kind, h.Flags)
	}
	rows, rest, err := Uvarint(node[3:], "node rows")
	if err != nil {
		return Header{}, err
	}
	if rows > uint64(opts.MaxRows) {
		return Header{}, Limitf("%v node declares %d rows, limit %d", h.Kind, rows, opts.MaxRows)
	}
	h.Rows = int(rows)
	if h.Flags&FlagZstd != 0 {
		raw, rest2, err := Uvarint(rest, "compressed body size")
		if err != nil {
			return Header{}, err
		}
		if raw > uint64(opts.MaxBytes) {
			return Header{}, Limitf("%v node: body of %d bytes, limit %d", h.Kind, raw, opts.MaxBytes)
		}
		body, err := decompressInto(rest2, int(raw), opts.Alloc)
		if err != nil {
			return Header{}, fmt.Errorf("%v node: %w", h.Kind, err)
		}
		if opts.Allocated != nil {
			*opts.Allocated += int64(cap(body))
		}
		h.Body = body
	} else {
		h.Body = rest
	}
	return h, nil
}

// Options bound what a decoder may allocate and choose the registry that maps
// kinds to implementations.
type Options struct {
	Registry *Registry
	// MaxRows bounds the row count any node may declare.
	MaxRows int
	// MaxBytes bounds any single allocation a decoder makes from declared sizes.
	MaxBytes int
	// MaxDepth bounds the nesting of encoding trees.
	MaxDepth int
	// Resolver, set by a file reader for one chunk, gives the chunk's
	// decoders what its nodes refer to outside themselves (a stripe's
	// shared alphabet, a reference column). Nodes that refer outside
	// themselves fail to open without one.
	Resolver Resolver
	// Allocated, when set, is increased by the bytes every allocation
	// checked by CheckAlloc and every inflated zstd body would take: what
	// opening a node allocated from its declared sizes. A reader sets it
	// for one open at a time, to account the memory of the decoders it
	// keeps (allocations made later by reads are not counted).
	Allocated *int64
	// Alloc, when set, provides the buffers opening fills, n bytes (a
	// bound a checked size sets): inflated zstd bodies and the offsets of
	// binary values (Trivial, FSST, FrontCoding). A reader that recycles
	// the memory of decoders it drops hands out its own buffers, whose
	// bytes are whatever they held; nil allocates fresh ones.
	Alloc func(int) []byte
}

// Default decode limits.
const (
	DefaultMaxRows  = 1 << 28
	DefaultMaxBytes = 1<<31 - 1 // the largest int on 32-bit platforms too
	DefaultMaxDepth = 8
)

func (o *Options) orDefault() *Options {
	if o != nil && o.MaxRows > 0 && o.MaxBytes > 0 && o.MaxDepth > 0 {
		return o
	}
	c := Options{}
	if o != nil {
		c = *o
	}
	if c.MaxRows <= 0 {
		c.MaxRows = DefaultMaxRows
	}
	if c.MaxBytes <= 0 {
		c.MaxBytes = DefaultMaxBytes
	}
	if c.MaxDepth <= 0 {
		c.MaxDepth = DefaultMaxDepth
	}
	return &c
}

// CheckAlloc returns an ErrLimit error if allocating n elements of size bytes
// each would exceed opts.MaxBytes.
func (o *Options) CheckAlloc(n, size int, what string) error {
	o = o.orDefault()
	if n < 0 || (size > 0 && n > o.MaxBytes/size) {
		return Limitf("%s: %d × %d bytes", what, n, size)
	}
	if o.Allocated != nil {
		*o.Allocated += int64(n) * int64(size)
	}
	return nil
}

// Open parses a root node and returns its decoder.
func Open(node []byte, opts *Options) (Decoder, error) {
	return OpenAt(node, 0, opts)
}

// OpenAt parses a node at the given nesting depth and returns its decoder.
// Encodings open their children with OpenAt(child, h.Depth+1, opts).
func OpenAt(node []byte, depth int, opts *Options) (Decoder, error) {
	opts = opts.orDefault()
	if opts.Registry == nil {
		return nil, fmt.Errorf("encoding: no registry in options")
	}
	h, err := ParseHeader(node, depth, opts)
	if err != nil {
		return nil, err
	}
	c := opts.Registry.Codec(h.Kind)
	if c == nil || c.Open == nil {
		return nil, Unsupportedf("unknown encoding kind %d", uint8(h.Kind))
	}
	d, err := c.Open(h, opts)
	if err != nil {
		return nil, fmt.Errorf("%v<%v>: %w", h.Kind, h.Type, err)
	}
	return d, nil
}

// OpenTyped opens a node whose values must be of Go type T.
func OpenTyped[T Fixed](node []byte, depth int, opts *Options) (Reader[T], error) {
	d, err := OpenAt(node, depth, opts)
	if err != nil {
		return nil, err
	}
	r, ok := d.(Reader[T])
	if !ok {
		return nil, Corruptf("%v node holds %v, want %v", d.Kind(), d.Type(), TypeFor[T]())
	}
	return r, nil
}

// OpenBinary opens a node whose values must be binary.
func OpenBinary(node []byte, depth int, opts *Options) (BinaryReader, error) {
	d, err := OpenAt(node, depth, opts)
	if err != nil {
		return nil, err
	}
	r, ok := d.(BinaryReader)
	if !ok {
		return nil, Corruptf("%v node holds %v, want binary", d.Kind(), d.Type())
	}
	return r, nil
}

// CheckRows returns an error if a child holds a different row count than expected.
func CheckRows(d Decoder, want int, what string) error {
	if d.Len() != want {
		return Corruptf("%s holds %d rows, want %d", what, d.Len(), want)
	}
	return nil
}

// Float bit helpers shared by encodings that must keep floats bit-exact.
func f32bits(v float32) uint32 { return math.Float32bits(v) }
func f64bits(v float64) uint64 { return math.Float64bits(v) }
