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
	if replay {
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
	if hasNulls {
		out, tree, err = c.nullable(&p, dst, compact(vals, valid), valid)
	} else {
		out, tree, err = p.Encode(dst, vals)
	}
	if err != nil {
		return dst[:start], err
	}
	c.last = tree
	size := float64(len(out) - start)
	if n == 0 {
		return out, nil
	}
	bpv := size / float64(n)
	if replay {
		c.replayed++
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
			if err != nil {
				return dst[:start], err
			}
			c.tree, c.bpv, c.replayed = altTree, float64(len(alt))/float64(n), 0
			if len(alt) < len(out)-start {
				out = append(out[:start], alt...)
				c.last = altTree
			}
		}
		return out, nil
	}
	c.tree, c.bpv, c.replayed = tree, bpv, 0
	return out, nil
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
	var out encoding.Bytes
	out.Offsets = make([]int32, 1, len(valid)+1)
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
