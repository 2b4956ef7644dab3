package write

import (
	"fmt"

	"strata/encoding"
	"strata/shred"
)

// Stripe-scoped shared dictionaries. With byte-sized chunks a column whose
// alphabet is large (thousands of county names, city names, codes) would
// repeat that alphabet in every chunk, and the alphabet's bytes would keep
// its chunks small. The writer therefore builds, per stripe and values
// stream, the sorted alphabet of all the stream's values when they are few
// enough, and offers selection a SharedDictionary reference (ids into that
// alphabet) beside every other encoding. When at least two chunks choose
// it, the alphabet is stored once, as a definition chunk of no rows in
// front of the stream's chunks (chunk 0, which the references name).

// maxSharedDistinct bounds a shared alphabet; beyond it ids need more than
// 16 bits and per-chunk encodings are as good.
const maxSharedDistinct = 1 << 16

// maxSharedShare is the share of distinct values above which a stream
// gets no shared alphabet. Its ids would be nearly a permutation, over 10
// bits a row at 2 Ki rows, on top of an alphabet nearly as long as the
// stream, and its chunks see no repeats to lose. Such streams are never
// offered an alphabet (that needs at most half distinct), so this bounds
// what tryShared weighs: on the 16 real sets, 37 held-out ones and
// lineitem, 19 streams above it were weighed and none kept (the most
// distinct one kept: 0.887), and skipping them cut the write time of
// sp500_2000 by 40 %, of unicode by 15 % and of movies by 12 %.
const maxSharedShare = 0.9

// minSharedUses is the number of chunks that must choose the shared
// alphabet for it to be stored: for one chunk its own Dictionary is as
// small.
const minSharedUses = 2

// sharedFor builds the shared alphabet of a values stream for this stripe,
// or returns nil when the stream has more than maxSharedDistinct distinct
// values, more than maxSharedShare of its values distinct, or is too short
// to be cut into several chunks. offer says how the alphabet is used:
//
//   - offer (the sample shows at most half its values distinct, and so
//     does the stream): every chunk's selection is offered a reference to
//     it beside its own encodings, the alphabet counted as free (it is
//     small beside the stream), and it is stored when at least
//     minSharedUses chunks chose it (finishShared);
//   - otherwise most values are distinct within any chunk, so no chunk's
//     own dictionary can see the repeats, and a reference would look free
//     to a chunk only because the large alphabet is not counted. The
//     chunks are encoded without it and then the whole stream is weighed
//     both ways (tryShared).
func (w *Writer) sharedFor(s *shred.Stream, floor int) (sh encoding.SharedAlphabet, offer bool) {
	var build func(any, int, int) encoding.SharedAlphabet
	for _, c := range w.policy.Registry.Codecs() {
		if c.BuildShared != nil && c.Types.Has(s.Type) {
			build = c.BuildShared
		}
	}
	if build == nil || w.opts.NoShared || s.Type == encoding.Bool || s.Len < 2*floor {
		return nil, false
	}
	vals := s.Values
	if s.Valid != nil {
		vals = compact(sliceValues(vals, 0, s.Len), s.Valid)
	} else {
		vals = sliceValues(vals, 0, s.Len)
	}
	n := encoding.LenOf(vals)
	if n < 2*floor {
		return nil, false
	}
	// a sample with more than half its values distinct rules out an
	// alphabet of at most half the values
	sample := encoding.Sample(vals, 16, 64)
	st := encoding.ComputeStats(sample)
	offer = st.DistinctExact && st.Distinct*2 <= st.N
	sh = build(vals, 0, min(maxSharedDistinct, int(maxSharedShare*float64(n))))
	if sh == nil {
		return nil, false
	}
	return sh, offer && sh.Len()*2 <= n
}

// tryShared weighs storing a stream of mostly distinct values (sharedFor)
// as references to its stripe's shared alphabet against the chunks res
// holds, encoded without it, and switches to the references when their
// cost is lower: the definition's bytes and decode time (paid once per
// stripe) plus each chunk's reference node (its ids), against the chunks'
// own bytes and decode times, weighed as selection weighs candidates
// (encoding.Optimize). Both sides are real encodes, not estimates from a
// sample: a sorted alphabet often compresses far better than the same
// values in row order (sorted numbers delta-code, sorted text shares
// prefixes), which no quick estimate sees. The chunk boundaries,
// statistics and bloom hashes stay as they are.
//
// The references are encoded before the definition, which is selected
// only once the test that needs it comes (the projection after an eighth
// of the rows, or the end): a definition costs a full selection over the
// alphabet, most of a rejected trial's time, while references whose ids
// alone cost as much as the chunks (a mostly distinct column split into
// chunks, where every id is nearly as wide as its value) are rejected
// without it. Since every cost is positive the decision is the one taken
// with the definition first: a sum that passes the stream's cost without
// the definition passes it with it.
func (w *Writer) tryShared(s *shred.Stream, enc *chunkEncoder, sh encoding.SharedAlphabet, res *streamResult) error {
	if len(res.chunks) == 0 {
		return nil // nothing the definition could pay for
	}
	wt := w.policy.Optimize.Weight()
	plain := 0.0
	for _, c := range res.chunks {
		plain += float64(len(c.node)) + wt*c.time
	}
	var def []byte
	defCost := -1.0 // not selected yet
	definition := func() error {
		d, dt, err := sh.Definition(w.policy)
		if err != nil {
			return err
		}
		def, defCost = d, float64(len(d))+wt*dt.Time()
		return nil
	}
	p := *w.policy
	p.Shared = sh
	bare := &encoding.Tree{Kind: encoding.KindSharedDictionary}
	// encodeRef encodes a chunk as a reference whose tree starts from
	// force (bare: its ids' encoding selected).
	encodeRef := func(vals any, valid []bool, force *encoding.Tree) ([]byte, *encoding.Tree, error) {
		if hasNull(valid) {
			p.Force = &encoding.Tree{Kind: encoding.KindNullable, Children: []*encoding.Tree{nil, force}}
			return enc.nullable(&p, nil, compact(vals, valid), valid)
		}
		p.Force = force
		return p.Encode(nil, vals)
	}
	// The references replay the tree selected for an earlier chunk, as a
	// stream's own chunks do (chunkEncoder): selected again every
	// reselectEvery chunks, or when a replayed chunk drifted, keeping the
	// smaller. On flights_3m and
	// oui, where the references win, this took a third off weighing
	// them, with the same bytes.
	var replay *encoding.Tree
	var replayBPV float64
	replayed := 0
	nodes := make([][]byte, len(res.chunks))
	total := 0
	for _, c := range res.chunks {
		total += c.rows
	}
	// refs and done are the references' cost and the chunks' own cost so
	// far, over rows rows
	refs, done, rows := 0.0, 0.0, 0
	for i, c := range res.chunks {
		vals := sliceValues(s.Values, c.lo, c.lo+c.rows)
		var valid []bool
		if s.Valid != nil {
			valid = s.Valid[c.lo : c.lo+c.rows]
		}
		force, replaying := bare, replay != nil && replayed < reselectEvery
		if replaying {
			force = replay
		}
		node, t, err := encodeRef(vals, valid, force)
		if err != nil {
			return fmt.Errorf("chunk %d against the shared alphabet: %w", i, err)
		}
		if !usesShared(t) {
			return nil // the forced reference did not fit: keep the chunks
		}
		bpv := float64(len(node)) / float64(max(c.rows, 1))
		if replaying {
			replayed++
			if drifted(bpv, replayBPV) {
				alt, altTree, err := encodeRef(vals, valid, bare)
				if err != nil {
					return fmt.Errorf("chunk %d against the shared alphabet: %w", i, err)
				}
				if usesShared(altTree) {
					replay, replayBPV, replayed = refTree(altTree), float64(len(alt))/float64(max(c.rows, 1)), 0
					if len(alt) < len(node) {
						node, t = alt, altTree
					}
				}
			}
		} else {
			replay, replayBPV, replayed = refTree(t), bpv, 0
		}
		rc := float64(len(node)) + wt*t.Time()
		nodes[i] = node
		refs, done, rows = refs+rc, done+float64(len(c.node))+wt*c.time, rows+c.rows
		if refs+max(defCost, 0) >= plain {
			return nil
		}
		// Once an eighth of the rows is done, the rest is projected from
		// the chunks done, references against their own encodings: a
		// stream whose ids cost about what its values do (random keys,
		// dates) stops here instead of encoding every chunk twice.
		if rows*8 < total && i+1 < len(res.chunks) {
			continue
		}
		if defCost < 0 {
			if err := definition(); err != nil {
				return err
			}
			if defCost+refs >= plain {
				return nil
			}
		}
		if done > 0 && defCost+refs+refs/done*(plain-done) >= plain {
			return nil
		}
	}
	for i := range res.chunks {
		res.chunks[i].node, res.chunks[i].shared = nodes[i], true
	}
	res.chunks = append([]encodedChunk{{node: def}}, res.chunks...)
	return nil
}

// refTree returns the SharedDictionary tree of a reference chunk's tree
// (its root, or the values child of a Nullable root).
func refTree(t *encoding.Tree) *encoding.Tree {
	if t.Kind == encoding.KindNullable && len(t.Children) == 2 {
		return t.Children[1]
	}
	return t
}

// hasNull reports whether a validity slice marks any row null.
func hasNull(valid []bool) bool {
	for _, v := range valid {
		if !v {
			return true
		}
	}
	return false
}

// usesShared reports whether a chunk's tree refers to the shared alphabet
// (selection offers it only for a column's own values, but any node of
// the tree would need the definition).
func usesShared(t *encoding.Tree) bool {
	if t == nil {
		return false
	}
	if t.Kind == encoding.KindSharedDictionary {
		return true
	}
	for _, c := range t.Children {
		if usesShared(c) {
			return true
		}
	}
	return false
}

// tableCodec returns the codec whose stripe-scoped table the chunks of a
// binary stream may share (Codec.BuildTable: SharedFSST), nil when there
// is none or the stream may not use one.
func (w *Writer) tableCodec(s *shred.Stream) *encoding.Codec {
	if w.opts.NoShared || s.Type != encoding.Binary {
		return nil
	}
	var cd *encoding.Codec
	for _, c := range w.policy.Registry.Codecs() {
		if c.BuildTable != nil && c.Types.Has(s.Type) && (w.policy.Allow == nil || w.policy.Allow[c.Kind]) {
			cd = c
		}
	}
	return cd
}

// shareTable stores a binary stream's shared table of this stripe
// (Codec.BuildTable: SharedFSST for FSST's symbol tables) as a definition
// chunk of no rows in front of the stream's chunks, when enough chunks
// refer to it and they save more than the definition costs. Chunks refer
// to it in two ways: those whose selection weighed a reference against
// its own choice, or replayed such a reference (chunkEncoder), already
// do; and each chunk that selection encoded as the replaced kind (FSST)
// becomes a reference here when that node is smaller than its own. A
// reference decodes with the same kernel as the node it replaces (its
// table parsed once per stripe instead of once per chunk). The table is
// learned once from the stream's values. When it is not kept, the chunks
// that referred to it are selected again without it. Chunks under a
// Nullable root keep their own tables.
func (w *Writer) shareTable(s *shred.Stream, enc *chunkEncoder, res *streamResult) error {
	cd := w.tableCodec(s)
	if cd == nil {
		return nil
	}
	if len(res.chunks) == 0 || res.chunks[0].rows == 0 {
		return nil // a stream with a definition chunk already (SharedDictionary), or empty
	}
	var idx, refs []int
	for i, c := range res.chunks {
		switch {
		case len(c.node) == 0:
		case encoding.Kind(c.node[0]) == cd.Replaces:
			idx = append(idx, i)
		case encoding.Kind(c.node[0]) == cd.Kind:
			refs = append(refs, i)
		}
	}
	if len(idx)+len(refs) < minSharedUses {
		return w.dropTable(s, enc, res, refs)
	}
	tab := enc.table
	if tab == nil {
		all, ok := sliceValues(s.Values, 0, s.Len).(encoding.Bytes)
		if !ok {
			return fmt.Errorf("shared %v table: values of %T", cd.Kind, s.Values)
		}
		tab = cd.BuildTable(&all)
	}
	def := tab.Definition()
	saved, uses := enc.tableSaved-float64(len(def)), len(refs)
	nodes := make([][]byte, len(idx))
	for j, i := range idx {
		c := res.chunks[i]
		vals := sliceValues(s.Values, c.lo, c.lo+c.rows).(encoding.Bytes)
		node, _, err := tab.EncodeReference(w.policy, nil, &vals, 0, c.tree)
		if err != nil {
			return fmt.Errorf("chunk %d against the shared %v table: %w", i, cd.Kind, err)
		}
		if len(node) < len(c.node) {
			nodes[j] = node
			saved += float64(len(c.node) - len(node))
			uses++
		}
	}
	if uses < minSharedUses || saved <= 0 {
		return w.dropTable(s, enc, res, refs)
	}
	for j, i := range idx {
		if nodes[j] != nil {
			res.chunks[i].node = nodes[j]
		}
	}
	res.chunks = append([]encodedChunk{{node: def}}, res.chunks...)
	return nil
}

// dropTable selects the chunks refs of a stream again without its shared
// table, which is not stored: they referred to it while it was weighed.
func (w *Writer) dropTable(s *shred.Stream, enc *chunkEncoder, res *streamResult, refs []int) error {
	if len(refs) == 0 {
		return nil
	}
	enc.tableOK, enc.table = false, nil
	p := *w.policy
	p.Force, p.Shared = nil, nil
	for _, i := range refs {
		c := &res.chunks[i]
		node, tree, err := p.Encode(nil, sliceValues(s.Values, c.lo, c.lo+c.rows))
		if err != nil {
			return fmt.Errorf("chunk %d without the shared table: %w", i, err)
		}
		c.node, c.tree, c.time = node, tree, tree.Time()
	}
	if enc.tableRef(enc.tree) {
		enc.tree = nil // the next stripe selects afresh
	}
	return nil
}
