package read

import (
	"context"
	"fmt"

	"strata/encoding"
	"strata/encoding/all"
	"strata/schema"
)

// Layouts captures what the writer of the file chose for each leaf
// column, keyed by the column's path ("a", "s.b"): the encoding tree of
// the column's values in its largest chunk of the first stripe, and the
// bytes per row of that chunk. A writer given them (write.Options.Layouts)
// replays the trees instead of searching.
// A column whose largest chunk refers to its stripe's shared alphabet
// (SharedDictionary) gets the reference's tree and, as Alphabet, that of
// the alphabet's definition; one stored as a difference from another
// column (Correlated) has no layout, and a writer selects it afresh. A Nullable root gives the tree of its non-null values,
// which is what a writer replays under its own null layer.
func (f *File) Layouts() (map[string]encoding.Layout, error) {
	out := map[string]encoding.Layout{}
	reg := all.Registry()
	if f.f.NumStripes() == 0 {
		return out, nil
	}
	ctx := context.Background()
	io, err := f.newStripeIO(ctx, 0)
	if err != nil {
		return nil, err
	}
	// Only the chunk each values stream is captured from, and a shared
	// alphabet's definition (chunk 0, of no rows), are read: one
	// coalesced fetch, not the whole stripe.
	type pick struct{ id, best int }
	var picks []pick
	for c := 0; c < f.arrow.NumFields(); c++ {
		for _, id := range f.sch.ColumnStreams(c) {
			if f.sch.Stream(id).Role != schema.RoleValues {
				continue
			}
			chunks := io.stream(id).Chunks
			best := -1
			for i, ch := range chunks {
				if ch.Rows > 0 && (best < 0 || ch.Rows > chunks[best].Rows) {
					best = i
				}
			}
			if best < 0 {
				continue
			}
			if err := io.need(id, best); err != nil {
				return nil, err
			}
			if best > 0 && chunks[0].Rows == 0 {
				if err := io.need(id, 0); err != nil {
					return nil, err
				}
			}
			picks = append(picks, pick{id, best})
		}
	}
	if err := io.fetch(); err != nil {
		return nil, err
	}
	for _, pk := range picks {
		id, best := pk.id, pk.best
		si := f.sch.Stream(id)
		chunks := io.stream(id).Chunks
		p, err := io.payload(id, best)
		if err != nil {
			return nil, err
		}
		t, err := encoding.Capture(p, io.chunkOptions(id, best, true))
		if err != nil {
			return nil, fmt.Errorf("read: layout of %q: %w", si.Node.Path(), err)
		}
		if t.Kind == encoding.KindNullable && len(t.Children) == 2 {
			t = t.Children[1]
		}
		l := encoding.Layout{BytesPerRow: float64(len(p)) / float64(chunks[best].Rows)}
		if t.Kind == encoding.KindSharedDictionary {
			l.Tree, l.Alphabet, err = sharedLayout(io, id, t, reg)
			if err != nil {
				return nil, fmt.Errorf("read: layout of %q: %w", si.Node.Path(), err)
			}
		} else if rt, ok := replayTree(t, reg); ok {
			l.Tree = rt
		}
		if l.Tree != nil {
			out[si.Node.Path()] = l
		}
	}
	return out, nil
}

// sharedLayout returns the layout of a stream whose chunk t refers to its
// stripe's shared alphabet: the reference's tree, and the tree of the
// alphabet in the stream's definition chunk (its first chunk, of no rows).
// Both are nil when either cannot be replayed.
func sharedLayout(io *stripeIO, id int, t *encoding.Tree, reg *encoding.Registry) (ref, alpha *encoding.Tree, err error) {
	if len(t.Children) != 1 {
		return nil, nil, nil
	}
	ids, ok := replayTree(t.Children[0], reg)
	if !ok {
		return nil, nil, nil
	}
	chunks := io.stream(id).Chunks
	if len(chunks) == 0 || chunks[0].Rows != 0 {
		return nil, nil, nil
	}
	p, err := io.payload(id, 0)
	if err != nil {
		return nil, nil, err
	}
	def, err := encoding.Capture(p, io.chunkOptions(id, 0, true))
	if err != nil {
		return nil, nil, err
	}
	if def.Kind != encoding.KindSharedDictionary || len(def.Children) != 1 {
		return nil, nil, nil
	}
	if alpha, ok = replayTree(def.Children[0], reg); !ok {
		return nil, nil, nil
	}
	return &encoding.Tree{Kind: t.Kind, Children: []*encoding.Tree{ids}}, alpha, nil
}

// replayTree returns the tree selection chose for a captured one, which
// a writer can replay on a column's values alone. A node encoded against
// a stripe's shared table after selection (SharedFSST) stands for the
// encoding it replaced (FSST, whose children it has), which the writer
// will weigh against the table again. A node that refers to data outside
// its chunk by selection's own choice (a SharedDictionary reference, a
// Correlated difference from another column) has no such form: ok is
// false.
func replayTree(t *encoding.Tree, reg *encoding.Registry) (*encoding.Tree, bool) {
	if t == nil {
		return nil, false
	}
	cd := reg.Codec(t.Kind)
	if cd == nil {
		return nil, false
	}
	kind := t.Kind
	if cd.BuildTable != nil && cd.Replaces != encoding.KindInvalid {
		kind = cd.Replaces
		if cd = reg.Codec(kind); cd == nil {
			return nil, false
		}
	}
	if cd.Encoder == nil || cd.NeedsShared || cd.EncodeRelative != nil || cd.BuildTable != nil {
		return nil, false
	}
	// zstd is offered on every node that may take it, not only where the
	// captured file kept it: a leaf too short for a frame to pay in one
	// file may be long enough in the next, and a writer keeps a frame only
	// where it pays (encoding.Optimize).
	out := &encoding.Tree{Kind: kind, Zstd: cd.Zstd}
	for _, c := range t.Children {
		rc, ok := replayTree(c, reg)
		if !ok {
			return nil, false
		}
		out.Children = append(out.Children, rc)
	}
	return out, true
}
