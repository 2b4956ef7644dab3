package specreader

import (
	"fmt"

	"strata/specreader/node"
)

// Kind ids of the stripe-level encodings and of Nullable (FORMAT.md,
// "Encoded nodes").
const (
	kindNullable   = 11
	kindCorrelated = 18
)

// maxStreamRows bounds the entries of one stream of one stripe that this
// reader materialises.
const maxStreamRows = 1 << 31

// KindTally counts, over everything a File decoded, the kinds of chunk
// roots and of the two children of Nullable roots (the only children whose
// position the container layer knows without parsing an encoding's body).
type KindTally struct {
	Root          map[uint8]int // kind of every chunk's root node
	NullValues    map[uint8]int // kind of the values child of a Nullable root
	NullValidity  map[uint8]int // kind of the validity child of a Nullable root
	DefinitionRef int           // Resolver.Chunk calls (SharedDictionary/SharedFSST references)
	ReferenceRef  int           // Resolver.Reference calls (Correlated)
	// Streams looked up that a stripe does not record (id ≥ its stream
	// count) or records with no chunks.
	AbsentStreams, EmptyStreams int
}

// stripeState caches what has been decoded of one stripe: each stream's
// values and the streams being decoded (to reject reference cycles).
type stripeState struct {
	s       int
	table   *stripeTable
	decoded map[int]node.Values
	busy    map[int]bool
}

// streamValues decodes every chunk of stream id of stripe st and returns
// their concatenation; Valid is always set (true where no Nullable root
// said otherwise). present is false when the stream is absent from the
// stripe (id beyond the stripe's stream count) or has no chunks.
func (f *File) streamValues(st *stripeState, id int) (node.Values, bool, error) {
	if v, ok := st.decoded[id]; ok {
		return v, true, nil
	}
	if id >= len(st.table.Streams) {
		f.Kinds.AbsentStreams++
		return node.Values{}, false, nil
	}
	if len(st.table.Streams[id].Chunks) == 0 {
		f.Kinds.EmptyStreams++
		return node.Values{}, false, nil
	}
	if st.busy[id] {
		return node.Values{}, false, fmt.Errorf("stripe %d stream %d: reference cycle: %w", st.s, id, ErrCorrupt)
	}
	st.busy[id] = true
	defer delete(st.busy, id)
	tab := st.table.Streams[id]
	want := f.Schema.Types[id]
	if tab.Rows > maxStreamRows {
		return node.Values{}, false, fmt.Errorf("stripe %d stream %d: %d rows: %w", st.s, id, tab.Rows, ErrLimit)
	}
	out := node.Values{Type: want}
	for c, e := range tab.Chunks {
		payload, err := f.chunkPayload(st.s, id, c, e)
		if err != nil {
			return node.Values{}, false, err
		}
		f.tally(payload)
		res := &resolver{f: f, st: st, stream: id, chunk: c, entry: e}
		v, err := node.Decode(payload, res)
		if err != nil {
			return node.Values{}, false, fmt.Errorf("stripe %d stream %d chunk %d: %w", st.s, id, c, err)
		}
		if v.Type != want {
			return node.Values{}, false, fmt.Errorf("stripe %d stream %d chunk %d: node type %v, the schema says %v: %w", st.s, id, c, v.Type, want, ErrCorrupt)
		}
		if uint64(v.Len) != e.Rows {
			return node.Values{}, false, fmt.Errorf("stripe %d stream %d chunk %d: node holds %d rows, the group table %d: %w", st.s, id, c, v.Len, e.Rows, ErrCorrupt)
		}
		if !shapeOK(v) {
			return node.Values{}, false, fmt.Errorf("stripe %d stream %d chunk %d: decoder returned slices that disagree with its %d rows: %w", st.s, id, c, v.Len, ErrCorrupt)
		}
		appendValues(&out, v)
	}
	st.decoded[id] = out
	return out, true, nil
}

// shapeOK checks that the slice of v's type (and Valid, when set) holds
// exactly v.Len entries, so that assembly can index it without panicking
// whatever a decoder returned.
func shapeOK(v node.Values) bool {
	n := -1
	switch {
	case v.Type == node.Bool:
		n = len(v.Bool)
	case v.Type.Signed():
		n = len(v.Int)
	case v.Type.Unsigned():
		n = len(v.Uint)
	case v.Type == node.Float32:
		n = len(v.F32)
	case v.Type == node.Float64:
		n = len(v.F64)
	case v.Type == node.Binary:
		n = len(v.Bin)
	}
	return n == v.Len && (v.Valid == nil || len(v.Valid) == v.Len)
}

// appendValues appends v to out, materialising Valid.
func appendValues(out *node.Values, v node.Values) {
	out.Bool = append(out.Bool, v.Bool...)
	out.Int = append(out.Int, v.Int...)
	out.Uint = append(out.Uint, v.Uint...)
	out.F32 = append(out.F32, v.F32...)
	out.F64 = append(out.F64, v.F64...)
	out.Bin = append(out.Bin, v.Bin...)
	if v.Valid != nil {
		out.Valid = append(out.Valid, v.Valid...)
	} else {
		for i := 0; i < v.Len; i++ {
			out.Valid = append(out.Valid, true)
		}
	}
	out.Len += v.Len
}

// slice returns entries [lo, hi) of v.
func slice(v node.Values, lo, hi int) node.Values {
	o := node.Values{Type: v.Type, Len: hi - lo}
	switch {
	case v.Bool != nil:
		o.Bool = v.Bool[lo:hi]
	case v.Int != nil:
		o.Int = v.Int[lo:hi]
	case v.Uint != nil:
		o.Uint = v.Uint[lo:hi]
	case v.F32 != nil:
		o.F32 = v.F32[lo:hi]
	case v.F64 != nil:
		o.F64 = v.F64[lo:hi]
	case v.Bin != nil:
		o.Bin = v.Bin[lo:hi]
	}
	if v.Valid != nil {
		o.Valid = v.Valid[lo:hi]
	}
	return o
}

// tally records the root kind of a chunk payload and, for a Nullable root,
// its children's kinds.
func (f *File) tally(payload []byte) {
	if f.Kinds.Root == nil {
		f.Kinds.Root, f.Kinds.NullValues, f.Kinds.NullValidity = map[uint8]int{}, map[uint8]int{}, map[uint8]int{}
	}
	h, err := node.ParseHeader(payload)
	if err != nil {
		return
	}
	f.Kinds.Root[h.Kind]++
	if h.Kind != kindNullable {
		return
	}
	validity, rest, err := node.Child(h.Body, "validity")
	if err != nil || len(validity) == 0 {
		return
	}
	f.Kinds.NullValidity[validity[0]]++
	values, _, err := node.Child(rest, "values")
	if err != nil || len(values) == 0 {
		return
	}
	f.Kinds.NullValues[values[0]]++
}

// resolver implements node.Resolver for one chunk (FORMAT.md,
// "Stripe-level encodings" and "How the parts fit").
type resolver struct {
	f      *File
	st     *stripeState
	stream int
	chunk  int
	entry  chunkEntry
}

// Chunk returns the payload and group-table row count of another chunk of
// the same stream and stripe (a SharedDictionary or SharedFSST definition).
func (r *resolver) Chunk(i int) ([]byte, int, error) {
	r.f.Kinds.DefinitionRef++
	chunks := r.st.table.Streams[r.stream].Chunks
	if i < 0 || i >= len(chunks) {
		return nil, 0, fmt.Errorf("stripe %d stream %d chunk %d refers to chunk %d of %d: %w", r.st.s, r.stream, r.chunk, i, len(chunks), ErrCorrupt)
	}
	if i == r.chunk {
		return nil, 0, fmt.Errorf("stripe %d stream %d chunk %d refers to itself: %w", r.st.s, r.stream, r.chunk, ErrCorrupt)
	}
	p, err := r.f.chunkPayload(r.st.s, r.stream, i, chunks[i])
	if err != nil {
		return nil, 0, err
	}
	return p, int(chunks[i].Rows), nil
}

// Reference returns the values of stream `stream` of the same stripe for
// the rows of this chunk (a Correlated node's reference).
func (r *resolver) Reference(stream int, n int) (node.Values, error) {
	r.f.Kinds.ReferenceRef++
	ctx := fmt.Sprintf("stripe %d stream %d chunk %d: reference stream %d", r.st.s, r.stream, r.chunk, stream)
	if stream == r.stream {
		return node.Values{}, fmt.Errorf("%s is its own: %w", ctx, ErrCorrupt)
	}
	if stream < 0 || stream >= len(r.st.table.Streams) || stream >= len(r.f.Schema.Types) {
		return node.Values{}, fmt.Errorf("%s is missing: %w", ctx, ErrCorrupt)
	}
	if r.f.Schema.Types[stream] != r.f.Schema.Types[r.stream] {
		return node.Values{}, fmt.Errorf("%s has type %v, not %v: %w", ctx, r.f.Schema.Types[stream], r.f.Schema.Types[r.stream], ErrCorrupt)
	}
	if !r.f.rowAligned[stream] || !r.f.rowAligned[r.stream] {
		return node.Values{}, fmt.Errorf("%s or its user is not one entry per stripe row: %w", ctx, ErrCorrupt)
	}
	ref := r.st.table.Streams[stream]
	own := r.st.table.Streams[r.stream]
	if ref.Rows != own.Rows {
		return node.Values{}, fmt.Errorf("%s holds %d rows, the stream %d: %w", ctx, ref.Rows, own.Rows, ErrCorrupt)
	}
	lo, hi := r.entry.FirstRow, r.entry.FirstRow+uint64(n)
	if n < 0 || hi > ref.Rows {
		return node.Values{}, fmt.Errorf("%s: rows [%d, %d) beyond its %d: %w", ctx, lo, hi, ref.Rows, ErrCorrupt)
	}
	// The covered chunks must not be Correlated themselves.
	for c, e := range ref.Chunks {
		if e.FirstRow+e.Rows <= lo || e.FirstRow >= hi {
			continue
		}
		p, err := r.f.chunkPayload(r.st.s, stream, c, e)
		if err != nil {
			return node.Values{}, fmt.Errorf("%s: %w", ctx, err)
		}
		if len(p) > 0 && p[0] == kindCorrelated {
			return node.Values{}, fmt.Errorf("%s: its chunk %d is Correlated too: %w", ctx, c, ErrCorrupt)
		}
	}
	v, ok, err := r.f.streamValues(r.st, stream)
	if err != nil {
		return node.Values{}, fmt.Errorf("%s: %w", ctx, err)
	}
	if !ok {
		return node.Values{}, fmt.Errorf("%s is empty in this stripe: %w", ctx, ErrCorrupt)
	}
	return slice(v, int(lo), int(hi)), nil
}
