package write

import (
	"fmt"

	"strata/encoding"
)

// chunkEncoder encodes the chunks of one stream. It runs full selection on
// the first chunk and then replays the captured tree (Nimble's
// capture/replay), re-selecting periodically or when the replayed layout
// grows noticeably worse, so most chunks skip the trial encodes.
type chunkEncoder struct {
	policy   *encoding.Policy
	tree     *encoding.Tree
	bpv      float64 // bytes per value when tree was selected
	replayed int
	// bpvEst is the bytes per value of the stream's last chunk, which
	// sizes its next chunk (kept across stripes).
	bpvEst float64
	// layout: fixed and yield come from Options.Layouts, and the stream
	// is offered no shared alphabet but the one its layout refers to;
	// alphabet is the tree the layout stored that alphabet with.
	layout   bool
	alphabet *encoding.Tree
	// shared is the stripe's shared alphabet of the stream (a
	// *dict.Shared), nil when it has none; last is the tree of the node
	// encode returned last.
	shared encoding.SharedAlphabet
	last   *encoding.Tree
	// trialNode is the node of the sizer's trial encode of the stream's
	// first trialN values (tree trialTree), until the first chunk takes it.
	trialNode []byte
	trialTree *encoding.Tree
	trialN    int
	// corr plans the stream's Correlated chunks in this stripe (nil: none);
	// corrTree is the tree of its last Correlated chunk, replayed.
	corr     *corrPlan
	corrTree *encoding.Tree
	// fixed, when set, is the tree every chunk starts from (Options.Force);
	// it is never replaced by a captured one.
	fixed *encoding.Tree
	yield float64 // bytes per value above which fixed yields to selection
	// table is the stripe's shared table of a binary stream (a codec's
	// BuildTable: SharedFSST's symbol table), learned from all of the
	// stream's values in the stripe (tableVals) when a chunk first
	// chooses the kind it replaces (tableCodec.Replaces) while tableOK
	// allows it: a values stream of more than one chunk with no shared
	// alphabet, layout, forced tree or correlation. Selected chunks then
	// weigh a reference to the table against what selection chose, as
	// selection weighs candidates (weighTable), and a captured reference
	// tree is replayed as a reference, without learning a table for the
	// chunk. tableSaved is what the references saved over the chunks' own
	// nodes so far, in selection's cost, and tablePerRow the saving per
	// row of the last weighed reference, which replayed references are
	// credited with (shareTable keeps the table only when the savings pay
	// for its definition).
	tableCodec  *encoding.Codec
	tableVals   func() *encoding.Bytes
	tableOK     bool
	table       encoding.ChunkTable
	tableSaved  float64
	tablePerRow float64
	// nullable encodes a node with validity; injected to keep this file
	// independent of the nullable package's location.
	nullable func(p *encoding.Policy, dst []byte, vals any, valid []bool) ([]byte, *encoding.Tree, error)
}

// reselectEvery bounds how many chunks may replay one captured tree.
const reselectEvery = 16

// drifted reports whether a chunk encoded with a replayed tree, at bpv
// bytes a value, came out noticeably larger than the chunk the tree was
// selected on (at bytes a value): then it is selected again.
func drifted(bpv, at float64) bool { return bpv > at*1.1+0.01 }

func (c *chunkEncoder) encode(dst []byte, vals any, valid []bool) ([]byte, error) {
	n := encoding.LenOf(vals)
	if valid != nil {
		n = len(valid)
	}
	hasNulls := hasNull(valid)
	p := *c.policy
	p.Shared = c.shared
	if c.fixed != nil {
		p.Force = c.fixed
		var out []byte
		var tree *encoding.Tree
		var err error
		if hasNulls {
			// the forced tree describes the non-null values under Nullable
			p.Force = &encoding.Tree{Kind: encoding.KindNullable, Children: []*encoding.Tree{nil, c.fixed}}
			out, tree, err = c.nullable(&p, dst, compact(vals, valid), valid)
		} else {
			out, tree, err = p.Encode(dst, vals)
		}
		c.last = tree
		if err != nil || c.yield <= 0 || n == 0 || float64(len(out)-len(dst)) <= c.yield*float64(n) {
			return out, err
		}
		start := len(dst)
		forced := len(out) - start
		p.Force = nil
		var alt []byte
		var altTree *encoding.Tree
		if hasNulls {
			alt, altTree, err = c.nullable(&p, nil, compact(vals, valid), valid)
		} else {
			alt, altTree, err = p.Encode(nil, vals)
		}
		if err == nil && len(alt) < forced {
			out = append(out[:start], alt...)
			c.last = altTree
		}
		return out, nil
	}
	replay := c.tree != nil && c.replayed < reselectEvery
	// A captured reference to the stripe's table is replayed as one. A
	// chunk that cannot refer to it (nulls: references sit at a chunk's
	// root), or the stripe's first, which learns the table, replays the
	// encoding it stands for (and the first weighs the table, below).
	ref := replay && c.tableRef(c.tree)
	if ref && (hasNulls || !c.tableOK || c.table == nil) {
		ref = false
		p.Force = c.ownTree(c.tree)
	} else if replay {
		p.Force = c.tree
	} else {
		p.Force = nil
	}
	start := len(dst)
	var (
		out  []byte
		tree *encoding.Tree
		err  error
	)
	switch {
	case ref:
		out, tree, err = c.reference(dst, vals, c.tree)
	case hasNulls:
		out, tree, err = c.nullable(&p, dst, compact(vals, valid), valid)
	default:
		out, tree, err = p.Encode(dst, vals)
	}
	if err != nil {
		return dst[:start], err
	}
	weighed := !replay || (!ref && tree.Kind == c.replaces())
	if weighed {
		// a selection, or a replay of the kind the table replaces: weigh
		// a reference to the table
		if out, tree, err = c.weighTable(out, start, tree, vals, hasNulls); err != nil {
			return dst[:start], err
		}
	}
	c.last = tree
	size := float64(len(out) - start)
	if n == 0 {
		return out, nil
	}
	bpv := size / float64(n)
	if replay {
		c.replayed++
		credit := 0.0
		if ref {
			credit = c.tablePerRow * float64(n)
			c.tableSaved += credit
		}
		if drifted(bpv, c.bpv) {
			// The data drifted away from the captured layout; select again
			// for this chunk and keep whichever is smaller.
			p.Force = nil
			var alt []byte
			var altTree *encoding.Tree
			if hasNulls {
				alt, altTree, err = c.nullable(&p, nil, compact(vals, valid), valid)
			} else {
				alt, altTree, err = p.Encode(nil, vals)
			}
			if err == nil {
				alt, altTree, err = c.weighTable(alt, 0, altTree, vals, hasNulls)
			}
			if err != nil {
				return dst[:start], err
			}
			c.tree, c.bpv, c.replayed = altTree, float64(len(alt))/float64(n), 0
			if len(alt) < len(out)-start {
				c.tableSaved -= credit // the replayed reference is not kept
				out = append(out[:start], alt...)
				c.last = altTree
			}
		} else if weighed && c.tableRef(tree) != c.tableRef(c.tree) {
			c.tree, c.bpv, c.replayed = tree, bpv, 0 // the weighing chose the other form: replay it
		}
		return out, nil
	}
	c.tree, c.bpv, c.replayed = tree, bpv, 0
	return out, nil
}

// replaces is the kind the stream's shared table stands in for (FSST), or
// KindInvalid when the stream may not use one.
func (c *chunkEncoder) replaces() encoding.Kind {
	if !c.tableOK || c.tableCodec == nil {
		return encoding.KindInvalid
	}
	return c.tableCodec.Replaces
}

// weighTable weighs a reference to the stripe's shared table against the
// node out[start:] of tree that the chunk's values vals were encoded to,
// by selection's cost (bytes and decode time weighed by Optimize), and
// returns the cheaper. The table is learned when a chunk first chooses
// the kind it replaces; until then, and for chunks with nulls, out is
// returned as it is.
func (c *chunkEncoder) weighTable(out []byte, start int, tree *encoding.Tree, vals any, hasNulls bool) ([]byte, *encoding.Tree, error) {
	if hasNulls || c.replaces() == encoding.KindInvalid || (c.table == nil && tree.Kind != c.tableCodec.Replaces) {
		return out, tree, nil
	}
	var replaced *encoding.Tree
	if tree.Kind == c.tableCodec.Replaces {
		replaced = tree
	}
	node, rt, err := c.reference(nil, vals, replaced)
	if err != nil {
		return out, tree, err
	}
	wt := c.policy.Optimize.Weight()
	own := float64(len(out)-start) + wt*tree.Time()
	cost := float64(len(node)) + wt*rt.Time()
	if cost >= own {
		c.tablePerRow = 0
		return out, tree, nil
	}
	c.tableSaved += own - cost
	c.tablePerRow = (own - cost) / float64(max(encoding.LenOf(vals), 1))
	return append(out[:start], node...), rt, nil
}

// reference appends to dst the chunk's values vals as a reference to the
// stripe's shared table (learned on first use), replaying the children of
// force when it is not nil.
func (c *chunkEncoder) reference(dst []byte, vals any, force *encoding.Tree) ([]byte, *encoding.Tree, error) {
	if c.table == nil {
		c.table = c.tableCodec.BuildTable(c.tableVals())
	}
	b, ok := encoding.BinaryValues(vals)
	if !ok {
		return dst, nil, fmt.Errorf("shared %v table: values of %T", c.tableCodec.Kind, vals)
	}
	q := *c.policy
	q.Force, q.Shared = nil, nil
	return c.table.EncodeReference(&q, dst, b, 0, force)
}

// tableRef reports whether t is rooted at a reference to a stripe's
// shared table (SharedFSST).
func (c *chunkEncoder) tableRef(t *encoding.Tree) bool {
	if t == nil {
		return false
	}
	cd := c.policy.Registry.Codec(t.Kind)
	return cd != nil && cd.BuildTable != nil
}

// ownTree returns the tree a reference to a stripe's shared table stands
// for: the kind it replaces (FSST), with the same children.
func (c *chunkEncoder) ownTree(t *encoding.Tree) *encoding.Tree {
	if !c.tableRef(t) {
		return t
	}
	return &encoding.Tree{Kind: c.policy.Registry.Codec(t.Kind).Replaces, Zstd: t.Zstd, Children: t.Children}
}

// compact returns the values at valid positions.
func compact(vals any, valid []bool) any {
	switch v := vals.(type) {
	case []bool:
		return compactSlice(v, valid)
	case []int8:
		return compactSlice(v, valid)
	case []int16:
		return compactSlice(v, valid)
	case []int32:
		return compactSlice(v, valid)
	case []int64:
		return compactSlice(v, valid)
	case []uint8:
		return compactSlice(v, valid)
	case []uint16:
		return compactSlice(v, valid)
	case []uint32:
		return compactSlice(v, valid)
	case []uint64:
		return compactSlice(v, valid)
	case []float32:
		return compactSlice(v, valid)
	case []float64:
		return compactSlice(v, valid)
	case *encoding.Bytes:
		return compactBytes(v, valid)
	case encoding.Bytes:
		return compactBytes(&v, valid)
	}
	panic(fmt.Sprintf("write: compact of %T", vals))
}

func compactSlice[T any](v []T, valid []bool) []T {
	out := make([]T, 0, len(v))
	for i, ok := range valid {
		if ok {
			out = append(out, v[i])
		}
	}
	return out
}

func compactBytes(b *encoding.Bytes, valid []bool) encoding.Bytes {
	// sized first: grown by appends, the copy cost a growth and a clear of
	// fresh memory every doubling
	n, size := 0, int32(0)
	for i, ok := range valid {
		if ok {
			n++
			size += b.Offsets[i+1] - b.Offsets[i]
		}
	}
	out := encoding.Bytes{Offsets: make([]int32, 1, n+1), Data: make([]byte, 0, size)}
	for i, ok := range valid {
		if ok {
			out.Data = append(out.Data, b.Value(i)...)
			out.Offsets = append(out.Offsets, int32(len(out.Data)))
		}
	}
	return out
}

// sliceValues returns values [i, j) of a stream buffer without copying.
func sliceValues(vals any, i, j int) any {
	switch v := vals.(type) {
	case []bool:
		return v[i:j]
	case []int8:
		return v[i:j]
	case []int16:
		return v[i:j]
	case []int32:
		return v[i:j]
	case []int64:
		return v[i:j]
	case []uint8:
		return v[i:j]
	case []uint16:
		return v[i:j]
	case []uint32:
		return v[i:j]
	case []uint64:
		return v[i:j]
	case []float32:
		return v[i:j]
	case []float64:
		return v[i:j]
	case *encoding.Bytes:
		return v.Slice(i, j)
	case encoding.Bytes:
		return v.Slice(i, j)
	}
	panic(fmt.Sprintf("write: slice of %T", vals))
}
