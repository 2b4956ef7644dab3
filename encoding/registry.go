package encoding

import "fmt"

// Codec binds a Kind to its implementation. Each encoding package exports a
// Codec value; the package encoding/all assembles them into a Registry.
type Codec struct {
	Kind Kind
	// Open returns a decoder for a parsed node.
	Open func(h *Header, opts *Options) (Decoder, error)
	// Encoder encodes sequences; nil for decode-only encodings.
	Encoder Encoder
	// ReadFactor weighs the encoded size by the relative cost of decoding
	// (1.0 for plain data); selection minimizes size × ReadFactor.
	ReadFactor float64
	// Leaf is true for encodings that never nest child nodes; only leaves
	// may be chosen at the policy's maximum depth.
	Leaf bool
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

// FixedSizer is implemented by encoders whose nodes hold a part that does
// not grow with the number of values (FSST's symbol table). When selection
// estimates a long sequence from a sample's trial node, it scales only the
// rest of the node by the sequence's length.
type FixedSizer interface {
	// FixedSize returns how many bytes of the trial node (prefix included)
	// are fixed.
	FixedSize(node []byte) int
}
