package encoding

import "fmt"

// Codec binds a Kind to its implementation and declares the traits the
// selection policy and the shared test suite go by. Each encoding package
// exports a Codec value; the package encoding/all assembles them into a
// Registry. Nothing outside an encoding's package tests its kind: whatever
// selection or a reader must know about an encoding is a field here or an
// interface its decoders implement (views.go, cursor.go).
type Codec struct {
	Kind Kind
	// Open returns a decoder for a parsed node.
	Open func(h Header, opts *Options) (Decoder, error)
	// Encoder encodes sequences; nil for encodings selection never chooses
	// (Nullable, which the writer builds around a column's present values).
	Encoder Encoder
	// Types is the set of physical types the encoding stores (zero: any).
	// Selection offers the encoding only for these, and the shared test
	// suite (encodingtest) tests every one of them.
	Types TypeSet
	// Decode is what decoding a node of this kind costs on its own, its
	// children not counted, as measured by strata calibrate (package
	// encoding/calibrate). Selection weighs it against bytes as
	// Policy.Optimize says.
	Decode Cost

	// Where the encoding may sit in a cascade. MaxDepth is Policy.MaxDepth.
	//
	// Leaf is true for encodings that never nest child nodes; LeafFor, when
	// set, says so per type (Trivial nests a lengths child for binary values
	// only). Below MaxDepth any encoding may be chosen; at MaxDepth and
	// deeper only leaves, and at exactly MaxDepth also the Fallback, whose
	// children must then be leaves. Fallback marks the encoding that stores
	// any sequence of its types (Trivial), so every sequence has an
	// encoding at the bottom of a cascade.
	Leaf     bool
	LeafFor  func(t Type) bool
	Fallback bool
	// RootOnly encodings are offered only for a column's own values: a root
	// node, or a child of a Wrapper root (FSST, whose symbol table pays off
	// on whole columns, not on alphabets or exception lists). Wrapper marks
	// an encoding whose children are the column's own values (Nullable:
	// validity and present values).
	RootOnly bool
	Wrapper  bool

	// What selection must provide or do.
	//
	// NeedsDistinct: Fit or Encode read Stats.Distinct, DistinctExact,
	// ModeIndex or ModeCount, so a replayed tree rooted at this encoding
	// must count distinct values (the costliest statistic; other replays
	// skip it).
	NeedsDistinct bool
	// NeedsShared: the encoder encodes against the stripe-scoped alphabet
	// the writer sets in Policy.Shared (SharedDictionary), so selection
	// offers it, and replays it, only when the policy carries one.
	// BuildShared builds that alphabet from a stream's values of a stripe
	// (nil when they hold more than maxDistinct distinct values), to be
	// defined by chunk `chunk` of the stream.
	NeedsShared bool
	BuildShared func(vals any, chunk, maxDistinct int) SharedAlphabet
	// EncodeRelative, for an encoding that stores a column relative to
	// another column of the stripe (Correlated), appends the node of vals
	// against ref (the reference's values for the same rows, nulls as 0,
	// from stream refStream) to dst, replaying force when non-nil. Writers
	// build such nodes themselves; selection never offers them.
	EncodeRelative func(p *Policy, dst []byte, vals, ref any, refStream int, force *Tree) ([]byte, *Tree, error)
	// BuildTable, for an encoding whose nodes share a table the writer
	// stores once per stripe and stream (SharedFSST), learns that table
	// from a stream's values of a stripe; the writer then re-encodes the
	// chunks selection encoded as kind Replaces (FSST) against it where
	// that is smaller. Selection never offers such an encoding.
	BuildTable func(vals *Bytes) ChunkTable
	Replaces   Kind
	// Zstd: the policy's zstd post-pass may compress the node's body (kept
	// where it pays, see Optimize). Plain and bit-packed layouts benefit;
	// encodings that nest children leave compression to their leaves.
	Zstd bool
}

// Cost is what decoding a node costs on its own, in nanoseconds: PerValue
// for every row of a fixed-width type (integers, floats, booleans: their
// width hardly matters), and for binary values PerString for every value
// and PerByte for every byte of the values. strata calibrate fits these
// separately on fixed-width and binary nodes. PerException is paid for
// every value an encoder reports as an exception (Ctx.Exceptions): a value
// the bulk decode does not produce and that is patched in afterwards (ALP's
// non-decimal values); strata calibrate fits it beside PerValue for
// encodings that report exceptions, so that a node of clean data is not
// charged the cost of one made of exceptions.
//
// FixedString and FixedByte replace PerString and PerByte for a binary
// node whose encoder reports that every value it produces has one length
// (Ctx.FixedLength): a dictionary of such values writes each with one
// store and its offsets by arithmetic, several times faster than values of
// mixed lengths. strata calibrate fits them on equal-length values; zero
// (an encoding that does not report it) leaves PerString and PerByte.
type Cost struct {
	PerValue, PerString, PerByte float64
	PerException                 float64
	FixedString, FixedByte       float64
	// Alt, when set, is the cost of the codec's second form, for a codec
	// whose nodes come in two forms that decode at clearly different
	// speeds (NumText's decimal fractions beside its integers). An
	// encoder writing that form reports it (Ctx.AltForm).
	Alt *Cost
}

// Time returns the cost of decoding rows values of type t, bytes bytes in
// all for binary values.
func (c Cost) Time(t Type, rows, bytes int) float64 {
	if t == Binary {
		return c.PerString*float64(rows) + c.PerByte*float64(bytes)
	}
	return c.PerValue * float64(rows)
}

// FixedTime is Time for binary values of one length, where the codec
// declares a cost for them.
func (c Cost) FixedTime(rows, bytes int) (float64, bool) {
	if c.FixedString == 0 && c.FixedByte == 0 {
		return 0, false
	}
	return c.FixedString*float64(rows) + c.FixedByte*float64(bytes), true
}

// ZstdCost is what inflating a zstd body costs, in nanoseconds: PerFrame
// once (entropy tables and frame setup) and PerByte per inflated byte.
type ZstdCost struct {
	PerFrame, PerByte float64
}

// IsLeaf reports whether nodes of type t never nest children.
func (c *Codec) IsLeaf(t Type) bool { return c.Leaf || (c.LeafFor != nil && c.LeafFor(t)) }

// TypeSet is a set of physical types.
type TypeSet uint16

// Common type sets.
const (
	IntegerTypes TypeSet = 1<<Int8 | 1<<Int16 | 1<<Int32 | 1<<Int64 | 1<<Uint8 | 1<<Uint16 | 1<<Uint32 | 1<<Uint64
	FloatTypes   TypeSet = 1<<Float32 | 1<<Float64
	NumericTypes         = IntegerTypes | FloatTypes
	FixedTypes           = NumericTypes | 1<<Bool
	AllTypes             = FixedTypes | 1<<Binary
)

// TypesOf returns the set of the given types.
func TypesOf(ts ...Type) TypeSet {
	var s TypeSet
	for _, t := range ts {
		s |= 1 << t
	}
	return s
}

// Has reports whether t is in s. The empty set stands for every type.
func (s TypeSet) Has(t Type) bool { return s == 0 || (t.Valid() && s&(1<<t) != 0) }

// List returns the types of s in type order (every valid type for the empty set).
func (s TypeSet) List() []Type {
	var out []Type
	for t := Bool; t <= Binary; t++ {
		if s.Has(t) {
			out = append(out, t)
		}
	}
	return out
}

// Registry maps kind ids to codecs.
type Registry struct {
	codecs [256]*Codec
	list   []*Codec
}

// NewRegistry builds a registry; it panics on a duplicate kind, a programming error.
func NewRegistry(cs ...*Codec) *Registry {
	r := &Registry{}
	for _, c := range cs {
		if r.codecs[c.Kind] != nil {
			panic(fmt.Sprintf("encoding: kind %v registered twice", c.Kind))
		}
		r.codecs[c.Kind] = c
		r.list = append(r.list, c)
	}
	return r
}

// Codec returns the codec of kind k, or nil.
func (r *Registry) Codec(k Kind) *Codec { return r.codecs[k] }

// Codecs returns every registered codec in registration order.
func (r *Registry) Codecs() []*Codec { return r.list }

// Encoder writes one encoding. Implementations are stateless and safe for
// concurrent use.
type Encoder interface {
	// Fit reports whether this encoding can represent a sequence with these
	// statistics at all, and is worth trying. Selection never tries an
	// encoding whose Fit is false.
	Fit(st *Stats) bool
	// Estimate returns the body size in bytes the encoding would produce,
	// computed from statistics alone, with ok false when only a trial encode
	// can tell (for example because children must be selected).
	Estimate(st *Stats) (size int, ok bool)
	// Encode appends the node body for vals (a []T or Bytes matching st.Type)
	// to dst. Child sequences are encoded through ctx.
	Encode(dst []byte, vals any, st *Stats, ctx *Ctx) ([]byte, error)
}
