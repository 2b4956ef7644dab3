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
// the column's values in its largest replayable chunk of the first stripe,
// and the bytes per row of that chunk. A writer given them (write.Options.Layouts)
// replays the trees instead of searching.
// A chunk with a node that needs more than its own values to decode (a
// reference to its stripe's shared alphabet or table, a Correlated
// difference from another column) is not replayable; a column with no
// other chunk in the first stripe has no layout, and a writer selects it
// afresh. A Nullable root gives the tree of its non-null values,
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
	for c := 0; c < f.arrow.NumFields(); c++ {
		if err := f.needColumn(io, c); err != nil {
			return nil, err
		}
	}
	if err := io.fetch(); err != nil {
		return nil, err
	}
	for c := 0; c < f.arrow.NumFields(); c++ {
		for _, id := range f.sch.ColumnStreams(c) {
			si := f.sch.Stream(id)
			if si.Role != schema.RoleValues {
				continue
			}
			var best encoding.Layout
			var bestRows int64
			for i, ch := range io.stream(id).Chunks {
				if ch.Rows <= bestRows {
					continue
				}
				p, err := io.payload(id, i)
				if err != nil {
					return nil, err
				}
				t, err := encoding.Capture(p, io.chunkOptions(id, i, true))
				if err != nil {
					return nil, fmt.Errorf("read: layout of %q, chunk %d: %w", si.Node.Path(), i, err)
				}
				if t.Kind == encoding.KindNullable && len(t.Children) == 2 {
					t = t.Children[1]
				}
				if replayable(t, reg) {
					best, bestRows = encoding.Layout{Tree: t, BytesPerRow: float64(len(p)) / float64(ch.Rows)}, ch.Rows
				}
			}
			if best.Tree != nil {
				out[si.Node.Path()] = best
			}
		}
	}
	return out, nil
}

// replayable reports whether selection could have built every node of a
// tree from a column's values alone: no node refers to data outside its
// chunk (a stripe's shared alphabet or table, another column).
func replayable(t *encoding.Tree, reg *encoding.Registry) bool {
	if t == nil {
		return false
	}
	cd := reg.Codec(t.Kind)
	if cd == nil || cd.Encoder == nil || cd.NeedsShared || cd.EncodeRelative != nil || cd.BuildTable != nil {
		return false
	}
	for _, c := range t.Children {
		if !replayable(c, reg) {
			return false
		}
	}
	return true
}
