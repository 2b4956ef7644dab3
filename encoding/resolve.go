package encoding

// SharedAlphabet is a stripe-scoped alphabet a writer built for one stream
// (Codec.BuildShared), which Policy.Shared hands to the encoder.
type SharedAlphabet interface {
	// Len is the number of distinct values.
	Len() int
	// Definition returns the node that defines the alphabet, to be stored
	// as a chunk of no rows of the stream (its children selected by p, or
	// replaying p.Force: the alphabet child's tree),
	// and the tree of the alphabet child (whose Time is the cost of
	// decoding the alphabet, paid once per stripe by a reader).
	Definition(p *Policy) ([]byte, *Tree, error)
}

// ChunkTable is a stripe-scoped table that the chunks of one stream share
// (Codec.BuildTable), on the writing side.
type ChunkTable interface {
	// Definition returns the node that defines the table, to be stored as
	// a chunk of no rows of the stream.
	Definition() []byte
	// EncodeReference appends to dst a node of vals that refers to the
	// table, defined by chunk `chunk` of the stream; p selects its
	// children. replaced, when not nil, is the tree of the node the
	// reference is to replace: children with the same role replay its
	// subtrees instead of being selected again (the writer encodes every
	// such chunk a second time, and selection was most of that cost). It
	// returns the node's tree.
	EncodeReference(p *Policy, dst []byte, vals *Bytes, chunk int, replaced *Tree) ([]byte, *Tree, error)
}

// Resolver is the hook through which a chunk's decoders reach data stored
// outside the chunk's own node, in the same stripe. A reader opening a
// chunk sets one in Options.Resolver, bound to that chunk's stripe, stream
// and rows; decoders of SharedDictionary and Correlated nodes call it when
// they open. Everything a resolver returns is checked again by the caller:
// a resolver only locates bytes.
type Resolver interface {
	// Shared returns the object built from the payload of chunk `chunk` of
	// the same stream in the same stripe (a shared alphabet's definition).
	// build turns the payload into the object; the resolver calls it once
	// per stripe and stream and caches the result, so an alphabet is
	// decoded, and a predicate turned into id ranges, once per stripe
	// rather than once per chunk. It fails when the chunk does not exist,
	// is the chunk being opened, or holds rows.
	Shared(chunk int, build func(payload []byte) (any, error)) (any, error)
	// Reference returns a decoder, positioned at its first row, of the
	// rows of stream `stream` of the same stripe that the chunk covers:
	// as many rows as the chunk holds, from the same row of the stripe. It
	// fails when the stream does not exist, is the chunk's own stream, has
	// another row domain or physical type typ, or when the referenced rows
	// are themselves stored relative to another stream (references do not
	// chain, so they cannot form cycles).
	Reference(stream int, typ Type) (Decoder, error)
}
