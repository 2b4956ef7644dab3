// Package sparsebool implements the SparseBool encoding: a bool sequence in
// which one value is rare is stored as that value plus the positions of its
// rows, a uint32 child sequence chosen by the selection policy.
//
// Body layout:
//
//	sparse:u8 (0 = false, 1 = true) | positionsLen:uvarint | positions node (uint32, K rows)
//
// Positions are strictly increasing and below the node's row count; every
// other row holds !sparse.
package sparsebool

import (
	"fmt"
	"sort"

	"strata/encoding"
	"strata/encoding/internal/cascade"
)

// Codec registers SparseBool.
var Codec = &encoding.Codec{
	Kind:    encoding.KindSparseBool,
	Types:   encoding.TypesOf(encoding.Bool),
	Open:    open,
	Decode:  encoding.Cost{PerValue: 0.666}, // strata calibrate (docs/benchmarks.md)
	Encoder: encoder{},
}

// Sparse is implemented by SparseBool decoders: the number of true values is
// len(positions) when value is true, rows−len(positions) otherwise.
type Sparse interface {
	// SparseRows returns the rare value and its rows (strictly increasing).
	// The slice belongs to the decoder; do not modify.
	SparseRows() (value bool, positions []uint32)
	// CountTrue consumes the next n rows and returns how many are true,
	// without materializing them.
	CountTrue(n int) (int, error)
}

type decoder struct {
	rows   int
	sparse bool
	at     []uint32
	node   []byte
	pos    int
	k      int // first position at or after pos
}

func open(h encoding.Header, opts *encoding.Options) (encoding.Decoder, error) {
	if h.Type != encoding.Bool {
		return nil, encoding.Corruptf("sparse bool node of type %v", h.Type)
	}
	if len(h.Body) < 1 {
		return nil, encoding.Corruptf("missing sparse value byte")
	}
	if h.Body[0] > 1 {
		return nil, encoding.Corruptf("sparse value byte %d", h.Body[0])
	}
	pn, rest, err := encoding.Child(h.Body[1:], "positions")
	if err != nil {
		return nil, err
	}
	if len(rest) != 0 {
		return nil, encoding.Corruptf("%d trailing bytes after positions", len(rest))
	}
	pd, err := cascade.OpenFixed[uint32](pn, h.Depth+1, opts, -1, "positions")
	if err != nil {
		return nil, err
	}
	if pd.Len() > h.Rows {
		return nil, encoding.Corruptf("%d sparse positions for %d rows", pd.Len(), h.Rows)
	}
	at, err := cascade.ReadAll(pd, opts, "positions")
	if err != nil {
		return nil, err
	}
	if err := cascade.CheckPositions(at, h.Rows, "positions"); err != nil {
		return nil, err
	}
	return &decoder{rows: h.Rows, sparse: h.Body[0] == 1, at: at, node: pn}, nil
}

func (d *decoder) Kind() encoding.Kind { return encoding.KindSparseBool }
func (d *decoder) Type() encoding.Type { return encoding.Bool }
func (d *decoder) Len() int            { return d.rows }
func (d *decoder) Pos() int            { return d.pos }
func (d *decoder) Reset()              { d.pos, d.k = 0, 0 }

// Children implements encoding.Walker.
func (d *decoder) Children() []encoding.ChildNode {
	return []encoding.ChildNode{{Role: "positions", Node: d.node}}
}

func (d *decoder) seek(from, row int) int {
	at := d.at
	for i := 0; i < 4 && from < len(at); i++ {
		if int(at[from]) >= row {
			return from
		}
		from++
	}
	if from >= len(at) {
		return len(at)
	}
	return from + sort.Search(len(at)-from, func(i int) bool { return int(at[from+i]) >= row })
}

// Skip moves past n rows.
func (d *decoder) Skip(n int) error {
	if err := cascade.CheckRead(encoding.KindSparseBool, d.pos, n, d.rows); err != nil {
		return err
	}
	d.pos += n
	d.k = d.seek(d.k, d.pos)
	return nil
}

// Read fills dst with the common value and sets the sparse rows.
func (d *decoder) Read(dst []bool) error {
	if err := cascade.CheckRead(encoding.KindSparseBool, d.pos, len(dst), d.rows); err != nil {
		return err
	}
	if d.sparse {
		clear(dst)
	} else {
		cascade.Fill(dst, true)
	}
	end := uint32(d.pos + len(dst))
	k := d.k
	for k < len(d.at) && d.at[k] < end {
		dst[int(d.at[k])-d.pos] = d.sparse
		k++
	}
	d.pos += len(dst)
	d.k = k
	return nil
}

// Gather merges rows with the sparse positions.
func (d *decoder) Gather(rows []int32, dst []bool) error {
	if err := cascade.CheckGather(encoding.KindSparseBool, rows, len(dst), d.rows); err != nil {
		return err
	}
	k := 0
	for i, row := range rows {
		k = d.seek(k, int(row))
		dst[i] = (k < len(d.at) && d.at[k] == uint32(row)) == d.sparse
	}
	return nil
}

// SparseRows implements Sparse.
func (d *decoder) SparseRows() (bool, []uint32) { return d.sparse, d.at }

// CountTrue implements Sparse.
func (d *decoder) CountTrue(n int) (int, error) {
	k := d.k
	if err := d.Skip(n); err != nil {
		return 0, err
	}
	c := d.k - k
	if d.sparse {
		return c, nil
	}
	return n - c, nil
}

// encoder writes SparseBool.
type encoder struct{}

// Fit accepts bool sequences whose minority value is under 10% of the rows.
func (encoder) Fit(st *encoding.Stats) bool {
	return st.Type == encoding.Bool && st.N >= 1 && min(st.Trues, st.N-st.Trues)*10 < st.N
}

// Estimate needs a trial: the positions child is selected recursively.
func (encoder) Estimate(*encoding.Stats) (int, bool) { return 0, false }

// Encode stores the minority value (true on a tie) and its positions.
func (encoder) Encode(dst []byte, vals any, st *encoding.Stats, ctx *encoding.Ctx) ([]byte, error) {
	v, ok := vals.([]bool)
	if !ok {
		return dst, fmt.Errorf("sparsebool: cannot encode %T", vals)
	}
	trues := 0
	for _, b := range v {
		if b {
			trues++
		}
	}
	sparse := trues <= len(v)-trues
	at := make([]uint32, 0, min(trues, len(v)-trues))
	for i, b := range v {
		if b == sparse {
			at = append(at, uint32(i))
		}
	}
	if sparse {
		dst = append(dst, 1)
	} else {
		dst = append(dst, 0)
	}
	dst, err := ctx.EncodeChild(dst, at)
	if err != nil {
		return dst, fmt.Errorf("positions: %w", err)
	}
	return dst, nil
}
