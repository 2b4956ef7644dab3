package read

import (
	"context"
	"fmt"
	"sort"

	"strata/encoding"
)

// Report describes a file's layout for people and tools: rows, stripes and,
// per column, bytes and the encoding trees its chunks use.
type Report struct {
	Rows    int64          `json:"rows"`
	Bytes   int64          `json:"bytes"`
	Stripes int            `json:"stripes"`
	Columns []ColumnReport `json:"columns"`
}

// ColumnReport is one top-level column of a Report.
type ColumnReport struct {
	Name  string `json:"name"`
	Type  string `json:"type"`
	Bytes int64  `json:"bytes"`
	// Encodings maps an encoding kind to the bytes its nodes occupy.
	Encodings map[string]int64 `json:"encodings"`
	Chunks    int              `json:"chunks"`
	Trees     []TreeCount      `json:"trees"`
}

// TreeCount is an encoding tree and the number of chunks that use it.
type TreeCount struct {
	Tree   string `json:"tree"`
	Chunks int    `json:"chunks"`
}

// Inspect walks every chunk of the file and reports its layout.
func (f *File) Inspect() (*Report, error) {
	r := &Report{Rows: f.NumRows(), Stripes: f.f.NumStripes()}
	for c := 0; c < f.arrow.NumFields(); c++ {
		fld := f.arrow.Field(c)
		cr := ColumnReport{Name: fld.Name, Type: fld.Type.String(), Encodings: map[string]int64{}}
		trees := map[string]int{}
		for s := 0; s < f.f.NumStripes(); s++ {
			io, err := f.newStripeIO(context.Background(), s)
			if err != nil {
				return nil, err
			}
			if err := f.needColumn(io, c); err != nil {
				return nil, err
			}
			if err := io.fetch(); err != nil {
				return nil, err
			}
			for _, id := range f.sch.ColumnStreams(c) {
				chunks := io.stream(id).Chunks
				for i, ch := range chunks {
					cr.Bytes += ch.Size
					p, err := io.payload(id, i)
					if err != nil {
						return nil, err
					}
					sizes := map[encoding.Kind]float64{}
					t, err := f.walk(p, 0, sizes)
					if err != nil {
						return nil, fmt.Errorf("read: stripe %d, stream %d, chunk %d: %w", s, id, i, err)
					}
					// Framing bytes are attributed to the root kind.
					sizes[t.Kind] += float64(int(ch.Size) - len(p))
					for k, v := range sizes {
						cr.Encodings[k.String()] += int64(v + 0.5)
					}
					trees[t.String()]++
					cr.Chunks++
				}
			}
		}
		for t, n := range trees {
			cr.Trees = append(cr.Trees, TreeCount{Tree: t, Chunks: n})
		}
		sort.Slice(cr.Trees, func(i, j int) bool { return cr.Trees[i].Chunks > cr.Trees[j].Chunks })
		r.Columns = append(r.Columns, cr)
	}
	return r, nil
}

// walk attributes the bytes of a node to the kinds in its tree: a node's own
// bytes are its size less its children's. Inside a zstd body, sizes are
// scaled to the compressed size.
func (f *File) walk(node []byte, depth int, sizes map[encoding.Kind]float64) (*encoding.Tree, error) {
	d, err := encoding.OpenAt(node, depth, f.dec)
	if err != nil {
		return nil, err
	}
	// OpenAt validated the prefix; read the flags and, for a zstd body, its
	// inflated size from it rather than inflating the body a second time.
	t := &encoding.Tree{Kind: d.Kind(), Zstd: node[2]&encoding.FlagZstd != 0}
	sub := map[encoding.Kind]float64{}
	// Children and own bytes are measured in the inflated body; a zstd
	// node's share is scaled back to its stored size below.
	rawSize := float64(len(node))
	if t.Zstd {
		_, rest, err := encoding.Uvarint(node[3:], "rows")
		if err != nil {
			return nil, err
		}
		raw, _, err := encoding.Uvarint(rest, "body size")
		if err != nil {
			return nil, err
		}
		rawSize = float64(raw)
	}
	own := rawSize
	if w, ok := d.(encoding.Walker); ok {
		for _, ch := range w.Children() {
			ct, err := f.walk(ch.Node, depth+1, sub)
			if err != nil {
				return nil, err
			}
			t.Children = append(t.Children, ct)
			own -= float64(len(ch.Node))
		}
	}
	if own < 0 {
		own = 0
	}
	sub[t.Kind] += own
	scale := 1.0
	if t.Zstd && rawSize > 0 {
		scale = float64(len(node)) / rawSize
	}
	for k, v := range sub {
		sizes[k] += v * scale
	}
	return t, nil
}
