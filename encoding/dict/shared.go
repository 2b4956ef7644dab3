package dict

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/zeebo/xxh3"

	"strata/encoding"
	"strata/encoding/internal/cascade"
)

// SharedDictionary (kind 17) stores one alphabet per stripe and stream
// instead of one per chunk. A node of this kind takes one of two forms:
//
//	definition: form=0:u8 | alphabetLen:uvarint | alphabet node (T, D rows)   node rows = 0
//	reference:  form=1:u8 | chunk:uvarint | idsLen:uvarint | ids node (uint32, rows)
//
// A definition is the payload of a chunk of 0 rows, written by the Go
// writer as the stream's first chunk in the stripe. A reference encodes each
// row as the id of its value in the alphabet defined by chunk `chunk` of
// the same stream and stripe; it sits where the stream's own values would
// (a chunk's root, or the values child of a Nullable root). The alphabet
// obeys Dictionary's rules (strictly increasing, floats bit-exact), with
// 1 ≤ D and no bound by the reference's rows.
//
// Readers resolve the definition through encoding.Options.Resolver, which
// decodes it once per stripe; every chunk of the stripe then shares the
// decoded alphabet, and a predicate becomes an id interval (or id set) once
// per stripe: the shared alphabet remembers the last predicate it matched.

// SharedCodec registers SharedDictionary. Selection offers it only when the
// writer has built a shared alphabet for the stream (Policy.Shared).
var SharedCodec = &encoding.Codec{
	Kind:        encoding.KindSharedDictionary,
	Types:       encoding.AllTypes &^ encoding.TypesOf(encoding.Bool),
	Open:        openShared,
	Encoder:     sharedEncoder{},
	Decode:      encoding.Cost{PerValue: 1.13, PerString: 9.48, PerByte: 0.126, FixedString: 2.09, FixedByte: 0.126}, // strata calibrate (docs/benchmarks.md; Fixed*: 2026-12-02)
	RootOnly:    true,
	NeedsShared: true,
	BuildShared: func(vals any, chunk, maxDistinct int) encoding.SharedAlphabet {
		if s := NewShared(vals, chunk, maxDistinct); s != nil {
			return s
		}
		return nil
	},
}

// Node forms of SharedDictionary.
const (
	formDefinition = 0
	formReference  = 1
)

// Shared is a stripe's shared alphabet on the writing side: the sorted
// distinct values of a stream and a table from value to id.
type Shared struct {
	typ   encoding.Type
	chunk int
	alpha any // []T or encoding.Bytes, sorted as Dictionary sorts
	d     int
	t     *table   // value key → provisional id + 1
	rank  []uint32 // provisional id → id in alpha
	uniq  encoding.Bytes
	// short: every binary value of the stream is at most maxShortKey
	// bytes long, and the table's keys are the values themselves
	// (shortKey), not hashes to confirm.
	short bool
	// oneLen: binary entries all have one length (set with alpha), which
	// the encoder reports to selection (Ctx.FixedLength)
	oneLen bool

	// alpha and rank are filled by order, run once on first use: the
	// writer builds an alphabet for most values streams but uses few of
	// them (a stream cut as one chunk never keeps an offered one), and
	// sorting was most of a build.
	orderOnce sync.Once
	order     func()
}

// sorted fills alpha and rank, once.
func (s *Shared) sorted() {
	s.orderOnce.Do(func() {
		s.order()
		s.order = nil
	})
}

// NewShared builds the shared alphabet of vals (a stream's non-null
// values), to be defined by chunk `chunk` of the stream. It returns nil for
// bool values or when vals hold more than maxDistinct distinct values.
func NewShared(vals any, chunk, maxDistinct int) *Shared {
	switch v := vals.(type) {
	case []int8:
		return newSharedNum(v, chunk, maxDistinct, func(x int8) uint64 { return uint64(x) })
	case []int16:
		return newSharedNum(v, chunk, maxDistinct, func(x int16) uint64 { return uint64(x) })
	case []int32:
		return newSharedNum(v, chunk, maxDistinct, func(x int32) uint64 { return uint64(x) })
	case []int64:
		return newSharedNum(v, chunk, maxDistinct, func(x int64) uint64 { return uint64(x) })
	case []uint8:
		return newSharedNum(v, chunk, maxDistinct, func(x uint8) uint64 { return uint64(x) })
	case []uint16:
		return newSharedNum(v, chunk, maxDistinct, func(x uint16) uint64 { return uint64(x) })
	case []uint32:
		return newSharedNum(v, chunk, maxDistinct, func(x uint32) uint64 { return uint64(x) })
	case []uint64:
		return newSharedNum(v, chunk, maxDistinct, func(x uint64) uint64 { return x })
	case []float32:
		return newSharedNum(v, chunk, maxDistinct, func(x float32) uint64 { return uint64(math.Float32bits(x)) })
	case []float64:
		return newSharedNum(v, chunk, maxDistinct, math.Float64bits)
	case encoding.Bytes:
		return newSharedBinary(&v, chunk, maxDistinct)
	case *encoding.Bytes:
		return newSharedBinary(v, chunk, maxDistinct)
	}
	return nil
}

func newSharedNum[T encoding.Number](v []T, chunk, maxDistinct int, key func(T) uint64) *Shared {
	t := newTable(min(len(v), 1024))
	mask := len(t.keys) - 1
	var uniq []T
	for _, x := range v {
		k := key(x)
		h := t.slot(k)
		for {
			id := t.ids[h]
			if id == 0 {
				if len(uniq) == maxDistinct {
					return nil
				}
				uniq = append(uniq, x)
				t.keys[h], t.ids[h] = k, uint32(len(uniq))
				t.n++
				if 2*t.n > len(t.keys) {
					t.grow()
					mask = len(t.keys) - 1
				}
				break
			}
			if t.keys[h] == k {
				break
			}
			h = (h + 1) & mask
		}
	}
	if len(uniq) == 0 {
		return nil
	}
	s := &Shared{typ: encoding.TypeFor[T](), chunk: chunk, d: len(uniq), t: t}
	s.order = func() { s.alpha, s.rank = sortNum(uniq) }
	return s
}

func newSharedBinary(b *encoding.Bytes, chunk, maxDistinct int) *Shared {
	n := b.Len()
	t := newTable(min(n, 1024))
	mask := len(t.keys) - 1
	uniq := encoding.Bytes{Offsets: []int32{0}}
	short := allShort(b)
	for i := 0; i < n; i++ {
		x := b.Value(i)
		var k uint64
		if short {
			k = shortKey(x)
		} else {
			k = xxh3.Hash(x)
		}
		h := t.slot(k)
		for {
			id := t.ids[h]
			if id == 0 {
				if uniq.Len() == maxDistinct {
					return nil
				}
				uniq.Append(x)
				t.keys[h], t.ids[h] = k, uint32(uniq.Len())
				t.n++
				if 2*t.n > len(t.keys) {
					t.grow()
					mask = len(t.keys) - 1
				}
				break
			}
			if t.keys[h] == k && (short || bytes.Equal(uniq.Value(int(id-1)), x)) {
				break
			}
			h = (h + 1) & mask
		}
	}
	d := uniq.Len()
	if d == 0 {
		return nil
	}
	s := &Shared{typ: encoding.Binary, chunk: chunk, d: d, t: t, uniq: uniq, short: short}
	s.order = func() {
		order := orderBinary(&s.uniq)
		alpha := encoding.Bytes{Offsets: make([]int32, 1, d+1), Data: make([]byte, 0, len(s.uniq.Data))}
		rank := make([]uint32, d)
		for r, p := range order {
			alpha.Append(s.uniq.Value(int(p)))
			rank[p] = uint32(r)
		}
		s.alpha, s.rank = alpha, rank
		s.oneLen = oneLength(&alpha)
	}
	return s
}

// Len returns the number of alphabet entries.
func (s *Shared) Len() int { return s.d }

// Type returns the physical type of the alphabet.
func (s *Shared) Type() encoding.Type { return s.typ }

// Definition returns the definition node of the alphabet, its alphabet
// child selected by p (which should not carry the alphabet itself as
// Policy.Shared; it is ignored if it does), or replaying p.Force, and the
// alphabet child's tree.
func (s *Shared) Definition(p *encoding.Policy) ([]byte, *encoding.Tree, error) {
	s.sorted()
	q := *p
	q.Shared, q.Force = nil, nil
	node := encoding.AppendHeader(nil, encoding.KindSharedDictionary, s.typ, 0)
	node = append(node, formDefinition)
	an, t, err := q.EncodeSequence(nil, s.alpha, 1, encoding.KindSharedDictionary, p.Force)
	if err != nil {
		return nil, nil, fmt.Errorf("shared dictionary alphabet: %w", err)
	}
	return encoding.AppendChild(node, an), t, nil
}

// ids maps vals to their ids in the alphabet; a value outside it is an
// error (selection then skips SharedDictionary for the sequence).
func (s *Shared) ids(vals any) ([]uint32, error) {
	s.sorted()
	switch v := vals.(type) {
	case []int8:
		return sharedIDs(s, v, func(x int8) uint64 { return uint64(x) })
	case []int16:
		return sharedIDs(s, v, func(x int16) uint64 { return uint64(x) })
	case []int32:
		return sharedIDs(s, v, func(x int32) uint64 { return uint64(x) })
	case []int64:
		return sharedIDs(s, v, func(x int64) uint64 { return uint64(x) })
	case []uint8:
		return sharedIDs(s, v, func(x uint8) uint64 { return uint64(x) })
	case []uint16:
		return sharedIDs(s, v, func(x uint16) uint64 { return uint64(x) })
	case []uint32:
		return sharedIDs(s, v, func(x uint32) uint64 { return uint64(x) })
	case []uint64:
		return sharedIDs(s, v, func(x uint64) uint64 { return x })
	case []float32:
		return sharedIDs(s, v, func(x float32) uint64 { return uint64(math.Float32bits(x)) })
	case []float64:
		return sharedIDs(s, v, math.Float64bits)
	case encoding.Bytes:
		return s.binaryIDs(&v)
	case *encoding.Bytes:
		return s.binaryIDs(v)
	}
	return nil, fmt.Errorf("shared dictionary: cannot encode %T", vals)
}

var errNotInAlphabet = fmt.Errorf("shared dictionary: value outside the stripe's alphabet")

func sharedIDs[T encoding.Number](s *Shared, v []T, key func(T) uint64) ([]uint32, error) {
	if _, ok := s.alpha.([]T); !ok {
		return nil, fmt.Errorf("shared dictionary of %v cannot encode %v", s.typ, encoding.TypeFor[T]())
	}
	out := make([]uint32, len(v))
	t := s.t
	mask := len(t.keys) - 1
	for i, x := range v {
		k := key(x)
		h := t.slot(k)
		for {
			id := t.ids[h]
			if id == 0 {
				return nil, errNotInAlphabet
			}
			if t.keys[h] == k {
				out[i] = s.rank[id-1]
				break
			}
			h = (h + 1) & mask
		}
	}
	return out, nil
}

func (s *Shared) binaryIDs(b *encoding.Bytes) ([]uint32, error) {
	if s.typ != encoding.Binary {
		return nil, fmt.Errorf("shared dictionary of %v cannot encode binary", s.typ)
	}
	n := b.Len()
	out := make([]uint32, n)
	t := s.t
	mask := len(t.keys) - 1
	for i := 0; i < n; i++ {
		x := b.Value(i)
		var k uint64
		if s.short {
			if len(x) > maxShortKey {
				return nil, errNotInAlphabet
			}
			k = shortKey(x)
		} else {
			k = xxh3.Hash(x)
		}
		h := t.slot(k)
		for {
			id := t.ids[h]
			if id == 0 {
				return nil, errNotInAlphabet
			}
			if t.keys[h] == k && (s.short || bytes.Equal(s.uniq.Value(int(id-1)), x)) {
				out[i] = s.rank[id-1]
				break
			}
			h = (h + 1) & mask
		}
	}
	return out, nil
}

// sharedEncoder writes reference nodes against Policy.Shared.
type sharedEncoder struct{}

// Fit accepts every non-bool sequence; whether its values lie in the
// stripe's alphabet is only known when encoding.
func (sharedEncoder) Fit(st *encoding.Stats) bool {
	return st.Type.Valid() && st.Type != encoding.Bool && st.N >= 1
}

// Estimate needs a trial: the ids child is selected recursively.
func (sharedEncoder) Estimate(*encoding.Stats) (int, bool) { return 0, false }

// ScaleSample implements encoding.SampleScaler. A reference holds a fixed
// prefix (the node's, its form and the definition's chunk) and its ids,
// which grow with the row count, unless the whole sequence holds one
// value: then the ids are one value too (Constant) and nothing grows.
// Scaling the whole node made a reference for a column of one repeated
// string look several times the size of a Constant chunk of it, where it
// is a quarter.
func (sharedEncoder) ScaleSample(node []byte, sample, full *encoding.Stats) int {
	rows := float64(full.N) / float64(max(sample.N, 1))
	h, err := encoding.ParseHeader(node, 0, nil)
	if err != nil || len(h.Body) < 1 {
		return int(float64(len(node)) * rows)
	}
	_, n := binary.Uvarint(h.Body[1:])
	if n <= 0 {
		return int(float64(len(node)) * rows)
	}
	ids := len(h.Body) - 1 - n
	fixed := len(node) - ids
	if full.DistinctExact && full.Distinct == 1 {
		return len(node)
	}
	return fixed + int(float64(ids)*rows)
}

func (sharedEncoder) Encode(dst []byte, vals any, st *encoding.Stats, ctx *encoding.Ctx) ([]byte, error) {
	s, ok := ctx.Shared().(*Shared)
	if !ok || s == nil {
		return dst, fmt.Errorf("shared dictionary: no shared alphabet for this stream")
	}
	if s.typ != st.Type {
		return dst, fmt.Errorf("shared dictionary of %v cannot encode %v", s.typ, st.Type)
	}
	idv, err := s.ids(vals)
	if err != nil {
		return dst, err
	}
	if s.oneLen {
		ctx.FixedLength()
	}
	dst = append(dst, formReference)
	dst = binary.AppendUvarint(dst, uint64(s.chunk))
	dst, err = ctx.EncodeChild(dst, idv)
	if err != nil {
		return dst, fmt.Errorf("ids: %w", err)
	}
	return dst, nil
}

// sharedAlpha is a decoded shared alphabet, built once per stripe and
// stream by the resolver and shared, read-only, by the decoders of every
// chunk that refers to it. It remembers the last predicate it turned into
// ids, so a filter does that once per stripe.
type sharedAlpha struct {
	typ encoding.Type
	d   int
	num any      // *numDict[T] holding alpha and nn, no ids
	bin *binDict // alpha, lens and padding, no ids

	mu   sync.Mutex
	memo any // a copy of the last predicate: *encoding.Pred[T] or *encoding.BytesPred
	lo   uint32
	hi   uint32
	set  encoding.Bitmap
}

// buildShared decodes a definition payload (a whole chunk node).
func buildShared(payload []byte, opts *encoding.Options) (any, error) {
	h, err := encoding.ParseHeader(payload, 0, opts)
	if err != nil {
		return nil, fmt.Errorf("shared dictionary definition: %w", err)
	}
	if h.Kind != encoding.KindSharedDictionary || len(h.Body) == 0 || h.Body[0] != formDefinition {
		return nil, encoding.Corruptf("shared dictionary: the referenced chunk holds a %v node, not a definition", h.Kind)
	}
	an, err := definitionBody(h)
	if err != nil {
		return nil, err
	}
	sa := &sharedAlpha{typ: h.Type}
	c := core{typ: h.Type, depth: 1, opts: opts}
	switch h.Type {
	case encoding.Int8:
		sa.num, sa.d, err = sharedNumAlphabet[int8](c, an, opts)
	case encoding.Int16:
		sa.num, sa.d, err = sharedNumAlphabet[int16](c, an, opts)
	case encoding.Int32:
		sa.num, sa.d, err = sharedNumAlphabet[int32](c, an, opts)
	case encoding.Int64:
		sa.num, sa.d, err = sharedNumAlphabet[int64](c, an, opts)
	case encoding.Uint8:
		sa.num, sa.d, err = sharedNumAlphabet[uint8](c, an, opts)
	case encoding.Uint16:
		sa.num, sa.d, err = sharedNumAlphabet[uint16](c, an, opts)
	case encoding.Uint32:
		sa.num, sa.d, err = sharedNumAlphabet[uint32](c, an, opts)
	case encoding.Uint64:
		sa.num, sa.d, err = sharedNumAlphabet[uint64](c, an, opts)
	case encoding.Float32:
		sa.num, sa.d, err = sharedNumAlphabet[float32](c, an, opts)
	case encoding.Float64:
		sa.num, sa.d, err = sharedNumAlphabet[float64](c, an, opts)
	case encoding.Binary:
		var alpha encoding.Bytes
		alpha, err = readBinaryAlphabet(an, 1, opts, -1)
		if err == nil {
			c.d = alpha.Len()
			sa.bin = &binDict{core: c, alpha: alpha}
			sa.bin.padAlphabet()
			sa.d = c.d
		}
	default:
		return nil, encoding.Unsupportedf("shared dictionary of %v", h.Type)
	}
	if err != nil {
		return nil, fmt.Errorf("shared dictionary definition: %w", err)
	}
	if sa.d == 0 {
		return nil, encoding.Corruptf("shared dictionary definition: empty alphabet")
	}
	return sa, nil
}

// definitionBody splits a definition's alphabet child off its body.
func definitionBody(h encoding.Header) ([]byte, error) {
	if h.Rows != 0 {
		return nil, encoding.Corruptf("shared dictionary definition declares %d rows, want 0", h.Rows)
	}
	an, rest, err := encoding.Child(h.Body[1:], "alphabet")
	if err != nil {
		return nil, err
	}
	if len(rest) != 0 {
		return nil, encoding.Corruptf("%d trailing bytes after the shared alphabet", len(rest))
	}
	return an, nil
}

func sharedNumAlphabet[T encoding.Number](c core, an []byte, opts *encoding.Options) (any, int, error) {
	alpha, nn, err := readNumAlphabet[T](an, 1, opts, -1)
	if err != nil {
		return nil, 0, err
	}
	c.d = len(alpha)
	return &numDict[T]{core: c, alpha: alpha, nn: nn}, len(alpha), nil
}

func openShared(h encoding.Header, opts *encoding.Options) (encoding.Decoder, error) {
	if len(h.Body) == 0 {
		return nil, encoding.Corruptf("shared dictionary: empty body")
	}
	switch h.Body[0] {
	case formDefinition:
		an, err := definitionBody(h)
		if err != nil {
			return nil, err
		}
		return openDefinition(h.Type, an)
	case formReference:
	default:
		return nil, encoding.Unsupportedf("shared dictionary: node form %d", h.Body[0])
	}
	chunk, rest, err := encoding.Uvarint(h.Body[1:], "shared dictionary chunk")
	if err != nil {
		return nil, err
	}
	in, rest, err := encoding.Child(rest, "ids")
	if err != nil {
		return nil, err
	}
	if len(rest) != 0 {
		return nil, encoding.Corruptf("%d trailing bytes after ids", len(rest))
	}
	if opts == nil || opts.Resolver == nil {
		return nil, encoding.Unsupportedf("shared dictionary: the node refers to chunk %d of its stream; open it through a file reader, which resolves references", chunk)
	}
	if chunk > math.MaxInt32 {
		return nil, encoding.Corruptf("shared dictionary: chunk %d", chunk)
	}
	obj, err := opts.Resolver.Shared(int(chunk), func(p []byte) (any, error) { return buildShared(p, opts) })
	if err != nil {
		return nil, fmt.Errorf("shared dictionary: %w", err)
	}
	sa, ok := obj.(*sharedAlpha)
	if !ok {
		return nil, encoding.Corruptf("shared dictionary: chunk %d does not hold a shared alphabet", chunk)
	}
	if sa.typ != h.Type {
		return nil, encoding.Corruptf("shared dictionary: alphabet of %v for a %v node", sa.typ, h.Type)
	}
	depth := h.Depth + 1
	ids, err := cascade.OpenFixed[uint32](in, depth, opts, h.Rows, "ids")
	if err != nil {
		return nil, err
	}
	c := core{typ: h.Type, rows: h.Rows, d: sa.d, nodes: [2][]byte{nil, in}, ids: ids, opts: opts, depth: depth}
	switch h.Type {
	case encoding.Int8:
		return refNum[int8](sa, c), nil
	case encoding.Int16:
		return refNum[int16](sa, c), nil
	case encoding.Int32:
		return refNum[int32](sa, c), nil
	case encoding.Int64:
		return refNum[int64](sa, c), nil
	case encoding.Uint8:
		return refNum[uint8](sa, c), nil
	case encoding.Uint16:
		return refNum[uint16](sa, c), nil
	case encoding.Uint32:
		return refNum[uint32](sa, c), nil
	case encoding.Uint64:
		return refNum[uint64](sa, c), nil
	case encoding.Float32:
		return refNum[float32](sa, c), nil
	case encoding.Float64:
		return refNum[float64](sa, c), nil
	case encoding.Binary:
		d := *sa.bin
		d.core = c
		d.bm = nil
		return &sharedBin{binDict: &d, sh: sa}, nil
	}
	return nil, encoding.Unsupportedf("shared dictionary of %v", h.Type)
}

// refNum returns a reference decoder sharing sa's alphabet.
func refNum[T encoding.Number](sa *sharedAlpha, c core) *sharedNum[T] {
	p := sa.num.(*numDict[T])
	return &sharedNum[T]{numDict: &numDict[T]{core: c, alpha: p.alpha, nn: p.nn}, sh: sa}
}

// sharedNum decodes a reference node of numeric values: a Dictionary
// decoder whose alphabet is the stripe's.
type sharedNum[T encoding.Number] struct {
	*numDict[T]
	sh *sharedAlpha
}

func (d *sharedNum[T]) Kind() encoding.Kind { return encoding.KindSharedDictionary }

// Children implements encoding.Walker: the alphabet is not the node's.
func (d *sharedNum[T]) Children() []encoding.ChildNode {
	return []encoding.ChildNode{{Role: "ids", Node: d.nodes[1]}}
}

// MatchingIDs is the Dictionary method, computed once per predicate for
// the whole stripe.
func (d *sharedNum[T]) MatchingIDs(p *encoding.Pred[T]) (lo, hi uint32, set encoding.Bitmap) {
	sh := d.sh
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if m, ok := sh.memo.(*encoding.Pred[T]); ok && samePred(m, p) {
		return sh.lo, sh.hi, sh.set
	}
	lo, hi, set = d.numDict.MatchingIDs(p)
	c := *p
	c.Set = slices.Clone(p.Set)
	sh.memo, sh.lo, sh.hi, sh.set = &c, lo, hi, slices.Clone(set)
	return sh.lo, sh.hi, sh.set
}

// Filter evaluates p on the shared alphabet (once per stripe), then scans
// the chunk's ids.
func (d *sharedNum[T]) Filter(p *encoding.Pred[T], n int, sel encoding.Bitmap) error {
	lo, hi, bm := d.MatchingIDs(p)
	return d.filterIDs(lo, hi, bm, n, sel)
}

// samePred reports whether two predicates are equal value by value (a NaN
// operand never is, which only costs a recomputation).
func samePred[T encoding.Number](a, b *encoding.Pred[T]) bool {
	return a.Op == b.Op && a.A == b.A && a.B == b.B && slices.Equal(a.Set, b.Set)
}

// sharedBin is sharedNum for binary values.
type sharedBin struct {
	*binDict
	sh *sharedAlpha
}

func (d *sharedBin) Kind() encoding.Kind { return encoding.KindSharedDictionary }

// Children implements encoding.Walker.
func (d *sharedBin) Children() []encoding.ChildNode {
	return []encoding.ChildNode{{Role: "ids", Node: d.nodes[1]}}
}

// MatchingBinaryIDs is the BinaryDictionary method, computed once per
// predicate for the whole stripe.
func (d *sharedBin) MatchingBinaryIDs(p *encoding.BytesPred) (lo, hi uint32, set encoding.Bitmap) {
	sh := d.sh
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if m, ok := sh.memo.(*encoding.BytesPred); ok && sameBytesPred(m, p) {
		return sh.lo, sh.hi, sh.set
	}
	lo, hi, set = d.binDict.MatchingBinaryIDs(p)
	c := &encoding.BytesPred{Op: p.Op, A: bytes.Clone(p.A), B: bytes.Clone(p.B)}
	for _, x := range p.Set {
		c.Set = append(c.Set, bytes.Clone(x))
	}
	sh.memo, sh.lo, sh.hi, sh.set = c, lo, hi, slices.Clone(set)
	return sh.lo, sh.hi, sh.set
}

// FilterBinary evaluates p on the shared alphabet, then scans ids.
func (d *sharedBin) FilterBinary(p *encoding.BytesPred, n int, sel encoding.Bitmap) error {
	lo, hi, bm := d.MatchingBinaryIDs(p)
	return d.filterIDs(lo, hi, bm, n, sel)
}

func sameBytesPred(a, b *encoding.BytesPred) bool {
	if a.Op != b.Op || !bytes.Equal(a.A, b.A) || !bytes.Equal(a.B, b.B) || len(a.Set) != len(b.Set) {
		return false
	}
	for i := range a.Set {
		if !bytes.Equal(a.Set[i], b.Set[i]) {
			return false
		}
	}
	return true
}

// openDefinition returns the decoder of a definition chunk: a node of no
// rows, whose only content is its alphabet child (reported by Children).
func openDefinition(t encoding.Type, an []byte) (encoding.Decoder, error) {
	base := definition{typ: t, alphabet: an}
	switch t {
	case encoding.Int8:
		return &defNum[int8]{base}, nil
	case encoding.Int16:
		return &defNum[int16]{base}, nil
	case encoding.Int32:
		return &defNum[int32]{base}, nil
	case encoding.Int64:
		return &defNum[int64]{base}, nil
	case encoding.Uint8:
		return &defNum[uint8]{base}, nil
	case encoding.Uint16:
		return &defNum[uint16]{base}, nil
	case encoding.Uint32:
		return &defNum[uint32]{base}, nil
	case encoding.Uint64:
		return &defNum[uint64]{base}, nil
	case encoding.Float32:
		return &defNum[float32]{base}, nil
	case encoding.Float64:
		return &defNum[float64]{base}, nil
	case encoding.Binary:
		return &defBin{base}, nil
	}
	return nil, encoding.Unsupportedf("shared dictionary of %v", t)
}

type definition struct {
	typ      encoding.Type
	alphabet []byte
}

func (d *definition) Kind() encoding.Kind { return encoding.KindSharedDictionary }
func (d *definition) Type() encoding.Type { return d.typ }
func (d *definition) Len() int            { return 0 }
func (d *definition) Pos() int            { return 0 }
func (d *definition) Reset()              {}

func (d *definition) Skip(n int) error {
	return cascade.CheckRead(encoding.KindSharedDictionary, 0, n, 0)
}

// Children implements encoding.Walker.
func (d *definition) Children() []encoding.ChildNode {
	return []encoding.ChildNode{{Role: "alphabet", Node: d.alphabet}}
}

type defNum[T encoding.Number] struct{ definition }

func (d *defNum[T]) Read(dst []T) error {
	return cascade.CheckRead(encoding.KindSharedDictionary, 0, len(dst), 0)
}

func (d *defNum[T]) Gather(rows []int32, dst []T) error {
	return cascade.CheckGather(encoding.KindSharedDictionary, rows, len(dst), 0)
}

type defBin struct{ definition }

func (d *defBin) ReadBinary(dst *encoding.Bytes, n int) error {
	return cascade.CheckRead(encoding.KindSharedDictionary, 0, n, 0)
}

func (d *defBin) GatherBinary(rows []int32, dst *encoding.Bytes) error {
	return cascade.CheckGather(encoding.KindSharedDictionary, rows, len(rows), 0)
}

// maxShortKey is the longest binary value shortKey represents.
const maxShortKey = 7

// shortKey is a binary value of at most maxShortKey bytes as a table key:
// its bytes and its length, so that two values have the same key exactly
// when they are equal. Codes, flags and abbreviations (airports, states,
// ship modes) need neither a hash nor a comparison of their bytes. The
// loops choose between it and xxh3 themselves: a helper doing the choice
// does not inline and cost a build of short values a fifth more time.
func shortKey(x []byte) uint64 {
	k := uint64(len(x)) << 56
	for i, c := range x {
		k |= uint64(c) << (8 * i)
	}
	return k
}

// allShort reports whether every value of b is at most maxShortKey bytes.
func allShort(b *encoding.Bytes) bool {
	for i := 1; i < len(b.Offsets); i++ {
		if b.Offsets[i]-b.Offsets[i-1] > maxShortKey {
			return false
		}
	}
	return true
}

// WholeTrial: as Dictionary's.
func (sharedEncoder) WholeTrial(st *encoding.Stats, sampleLen int) bool { return st.Runs <= sampleLen }
