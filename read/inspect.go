package read

import (
	"context"
	"fmt"
	"sort"
	"unicode/utf8"

	"strata/encoding"
	"strata/schema"
	"strata/stats"
)

// Report describes a file's layout for people and tools: rows, stripes,
// the schema and, per column, bytes, the encoding trees its chunks use and
// the statistics of every stripe and chunk.
type Report struct {
	Rows    int64          `json:"rows"`
	Bytes   int64          `json:"bytes"`
	Stripes int            `json:"stripes"`
	Schema  []SchemaLine   `json:"schema"`
	Columns []ColumnReport `json:"columns"`
}

// SchemaLine is one node of the schema, listed depth first.
type SchemaLine struct {
	Path     string `json:"path"`
	Depth    int    `json:"depth"`
	Type     string `json:"type"`
	Nullable bool   `json:"nullable"`
}

// ChunkReport is one chunk of one of a column's streams.
type ChunkReport struct {
	Stripe int    `json:"stripe"`
	Stream int    `json:"stream"`
	Role   string `json:"role"` // values, nulls, lengths or inmap
	Path   string `json:"path"` // the schema node the stream belongs to
	Chunk  int    `json:"chunk"`
	Rows   int64  `json:"rows"`
	Bytes  int64  `json:"bytes"`
	Tree   string `json:"tree"`
	// Statistics of a values chunk, formatted in the column's logical
	// type; empty where the chunk has none.
	Nulls int64  `json:"nulls"`
	Min   string `json:"min,omitempty"`
	Max   string `json:"max,omitempty"`
}

// StripeColumn is a column's share of one stripe.
type StripeColumn struct {
	Stripe int    `json:"stripe"`
	Rows   int64  `json:"rows"`
	Bytes  int64  `json:"bytes"`
	Chunks int    `json:"chunks"`
	Nulls  int64  `json:"nulls"`
	Min    string `json:"min,omitempty"`
	Max    string `json:"max,omitempty"`
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
	// PerStripe and ChunkList break the column down by stripe and chunk.
	PerStripe []StripeColumn `json:"stripes"`
	ChunkList []ChunkReport  `json:"chunk_list"`
}

// TreeCount is an encoding tree and the number of chunks that use it.
type TreeCount struct {
	Tree   string `json:"tree"`
	Chunks int    `json:"chunks"`
}

// Inspect walks every chunk of the file and reports its layout.
func (f *File) Inspect() (*Report, error) {
	ctx := context.Background()
	r := &Report{Rows: f.NumRows(), Stripes: f.f.NumStripes()}
	for _, n := range f.sch.Root.Children {
		r.Schema = appendSchema(r.Schema, n, "", 0)
	}
	for c := 0; c < f.arrow.NumFields(); c++ {
		fld := f.arrow.Field(c)
		cr := ColumnReport{Name: fld.Name, Type: fld.Type.String(), Encodings: map[string]int64{}}
		trees := map[string]int{}
		for s := 0; s < f.f.NumStripes(); s++ {
			io, err := f.newStripeIO(ctx, s)
			if err != nil {
				return nil, err
			}
			sc := StripeColumn{Stripe: s, Rows: f.f.Stripe(s).Rows}
			if cs, ok, err := f.stripeColumnStats(s, f.valuesStream(c)); err != nil {
				return nil, err
			} else if ok {
				sc.Nulls = cs.Nulls
				sc.Min, sc.Max = f.formatBounds(f.valuesStream(c), &cs)
			}
			if err := f.needColumn(io, c); err != nil {
				return nil, err
			}
			if err := io.fetch(); err != nil {
				return nil, err
			}
			for _, id := range f.sch.ColumnStreams(c) {
				si := f.sch.Stream(id)
				chunks := io.stream(id).Chunks
				sc.Chunks += len(chunks)
				for i, ch := range chunks {
					cr.Bytes += ch.Size
					sc.Bytes += ch.Size
					p, err := io.payload(id, i)
					if err != nil {
						return nil, err
					}
					sizes := map[encoding.Kind]float64{}
					t, err := f.walk(p, 0, sizes, io.chunkOptions(id, i, true))
					if err != nil {
						return nil, inStripe(s, chunkWhere(id, i), err)
					}
					// Framing bytes are attributed to the root kind.
					sizes[t.Kind] += float64(int(ch.Size) - len(p))
					for k, v := range sizes {
						cr.Encodings[k.String()] += int64(v + 0.5)
					}
					trees[t.String()]++
					cr.Chunks++
					chr := ChunkReport{Stripe: s, Stream: id, Role: string(si.Role), Path: si.Node.Path(), Chunk: i,
						Rows: ch.Rows, Bytes: ch.Size, Tree: t.String()}
					if si.Role == schema.RoleValues && len(ch.Stats) > 0 {
						if cs, _, err := stats.DecodeColumnStats(ch.Stats); err == nil {
							chr.Nulls = cs.Nulls
							chr.Min, chr.Max = f.formatBounds(id, &cs)
						}
					}
					cr.ChunkList = append(cr.ChunkList, chr)
				}
			}
			cr.PerStripe = append(cr.PerStripe, sc)
		}
		for t, n := range trees {
			cr.Trees = append(cr.Trees, TreeCount{Tree: t, Chunks: n})
		}
		sort.Slice(cr.Trees, func(i, j int) bool {
			if cr.Trees[i].Chunks != cr.Trees[j].Chunks {
				return cr.Trees[i].Chunks > cr.Trees[j].Chunks
			}
			return cr.Trees[i].Tree < cr.Trees[j].Tree
		})
		r.Columns = append(r.Columns, cr)
	}
	return r, nil
}

// valuesStream returns the values stream of a top-level leaf column, or -1
// for a nested column (whose statistics live on its leaves).
func (f *File) valuesStream(col int) int {
	n := f.sch.Column(col)
	if len(n.Children) > 0 || n.Kind == schema.FlatMap {
		return -1
	}
	return n.StreamID(schema.RoleValues)
}

// formatBounds renders the min and max of chunk or stripe statistics in the
// logical type of the stream's column (dates as dates, decimals with their
// scale, text as text). A decimal of more than 18 digits has none: its
// values are stored as 16 little-endian bytes whose statistics are the
// least and greatest in byte order, which is not the numbers' order
// (1.00 to 24.00 give 18.00 and 23.00), so neither would be the least or
// greatest number, whether shown as bytes or as a decimal.
func (f *File) formatBounds(stream int, cs *stats.ColumnStats) (lo, hi string) {
	if stream < 0 || !cs.HasMinMax {
		return "", ""
	}
	n := f.sch.Stream(stream).Node
	if n.Kind == schema.Decimal && n.Precision > schema.MaxDecimal64Precision {
		return "", ""
	}
	return formatStat(n, cs.Min), formatStat(n, cs.Max)
}

func formatStat(n *schema.Node, v stats.Value) string {
	switch v.Type {
	case encoding.Binary:
		b := v.Bytes()
		if utf8.Valid(b) && n.Kind == schema.String {
			return string(b)
		}
		return fmt.Sprintf("%x", b)
	case encoding.Int8, encoding.Int16, encoding.Int32, encoding.Int64:
		return formatLogical(n, v.Int(), v.String())
	case encoding.Float32, encoding.Float64:
		if v.Float() == 0 {
			// a zero bound is widened to the sign that holds for both
			// zeros (-0 as a minimum); shown as the number it is
			return "0"
		}
	}
	return v.String()
}

// appendSchema lists n and its descendants depth first.
func appendSchema(dst []SchemaLine, n *schema.Node, prefix string, depth int) []SchemaLine {
	path := n.Name
	if prefix != "" {
		path = prefix + "." + n.Name
	}
	typ := n.TypeString()
	if len(n.Children) > 0 {
		typ = n.Kind.String() // its children follow on lines of their own
	}
	dst = append(dst, SchemaLine{Path: path, Depth: depth, Type: typ, Nullable: n.Nullable})
	for _, c := range n.Children {
		dst = appendSchema(dst, c, path, depth+1)
	}
	return dst
}

// walk attributes the bytes of a node to the kinds in its tree: a node's own
// bytes are its size less its children's. Inside a zstd body, sizes are
// scaled to the compressed size.
func (f *File) walk(node []byte, depth int, sizes map[encoding.Kind]float64, opts *encoding.Options) (*encoding.Tree, error) {
	d, err := encoding.OpenAt(node, depth, opts)
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
			ct, err := f.walk(ch.Node, depth+1, sub, opts)
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
