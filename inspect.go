package strata

import (
	"encoding/json"

	"strata/encoding"
)

// Report describes a file's layout for people and tools (strata inspect):
// rows, stripes, the schema and, per column, bytes, the encoding trees its
// chunks use and the statistics of every stripe and chunk. Its JSON form is
// that of `strata inspect --json`.
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
	Nulls  int64  `json:"nulls"`
	Min    string `json:"min,omitempty"`
	Max    string `json:"max,omitempty"`
}

// Inspect reports where the file's bytes are: per column, per encoding,
// per stripe and per chunk. It reads the chunk headers of the whole file.
func (f *File) Inspect() (*Report, error) {
	if err := f.open("strata: Inspect"); err != nil {
		return nil, err
	}
	r, err := f.r.Inspect()
	if err != nil {
		return nil, err
	}
	// The reader's report has the same JSON form; converting through it
	// keeps this type independent of the reader's.
	b, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	var out Report
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Layouts captures what the writer of the file chose for each leaf column,
// keyed by the column's path: the encoding tree of its values and the
// bytes per row it took. Passed as WriteOptions.Layouts to the writer of a
// later file of the same table, they let it replay those trees instead of
// searching for each column's encoding again, which is most of a write's
// time on small tables; a chunk whose replay grows a tenth past the
// layout's size is selected afresh. Columns whose chunks refer to data
// outside themselves (a stripe's shared alphabet, another column) have no
// layout and are selected as usual.
func (f *File) Layouts() (map[string]encoding.Layout, error) {
	if err := f.open("strata: Layouts"); err != nil {
		return nil, err
	}
	return f.r.Layouts()
}
