package specreader

import (
	"fmt"
	"math/big"
	"strconv"
	"time"

	"strata/specreader/node"
)

// Go representation of row values (the brief leaves it to the reader):
//
//	null (any kind, and every value of kind null)   nil
//	bool                                           bool
//	int8 … int64                                   int64
//	uint8 … uint64                                 uint64
//	float32, float64                               float32, float64
//	string                                         string
//	binary                                         []byte
//	date                                           time.Time, UTC midnight
//	timestamp                                      time.Time in UTC (the zone is in Node.TimeZone)
//	time (of day), duration                        time.Duration (error if it overflows)
//	decimal                                        Decimal
//	struct                                         map[string]any, one entry per field
//	list                                           []any
//	map                                            []KV in stored order
//	flatmap                                        []KV in the schema's key order; keys
//	                                               string, int64 or uint64 by key kind

// KV is one entry of a map or FlatMap value.
type KV struct {
	K, V any
}

// Decimal is a decimal value: Unscaled × 10^-Scale.
type Decimal struct {
	Unscaled *big.Int
	Scale    int
}

func (d Decimal) String() string { return d.Unscaled.String() + "e-" + strconv.Itoa(d.Scale) }

// Column is one top-level field read whole.
type Column struct {
	Name   string
	Node   *Node
	Values []any
}

// ReadAll reads every top-level column of every stripe.
func (f *File) ReadAll() ([]Column, error) {
	cols := make([]Column, len(f.Schema.Root.Fields))
	for i, n := range f.Schema.Root.Fields {
		cols[i] = Column{Name: n.Name, Node: n}
	}
	for s := range f.Stripes {
		st, err := f.stripe(s)
		if err != nil {
			return nil, err
		}
		if f.Stripes[s].Rows > maxStreamRows {
			return nil, fmt.Errorf("stripe %d: %d rows: %w", s, f.Stripes[s].Rows, ErrLimit)
		}
		rows := int(f.Stripes[s].Rows)
		for i, n := range f.Schema.Root.Fields {
			vs, err := f.assemble(st, n, rows)
			if err != nil {
				return nil, fmt.Errorf("stripe %d column %q: %w", s, n.Name, err)
			}
			cols[i].Values = append(cols[i].Values, vs...)
		}
	}
	return cols, nil
}

// stripe prepares the decoding state of stripe s.
func (f *File) stripe(s int) (*stripeState, error) {
	t, err := f.table(s)
	if err != nil {
		return nil, err
	}
	return &stripeState{s: s, table: t, decoded: map[int]node.Values{}, busy: map[int]bool{}}, nil
}

// stream returns the entries of stream id in stripe st, which must number
// exactly want (FORMAT.md, Schema §2: every stream of a node has one entry
// per slot of the node). An absent or chunkless stream is accepted only
// when want is 0.
func (f *File) stream(st *stripeState, id, want int, what string) (node.Values, error) {
	v, ok, err := f.streamValues(st, id)
	if err != nil {
		return node.Values{}, err
	}
	if !ok {
		if want == 0 {
			return node.Make(f.Schema.Types[id], 0), nil
		}
		return node.Values{}, fmt.Errorf("%s stream %d is absent from the stripe but %d slots need it: %w", what, id, want, ErrCorrupt)
	}
	if v.Len != want {
		return node.Values{}, fmt.Errorf("%s stream %d holds %d entries, the node has %d slots: %w", what, id, v.Len, want, ErrCorrupt)
	}
	return v, nil
}

// presence returns the nulls stream of n as one bool per slot (all true
// when n has no nulls stream). A null entry of the nulls stream itself
// (a Nullable-encoded bool) counts as absent.
func (f *File) presence(st *stripeState, n *Node, slots int) ([]bool, error) {
	p := make([]bool, slots)
	if n.Nulls < 0 {
		for i := range p {
			p[i] = true
		}
		return p, nil
	}
	v, err := f.stream(st, n.Nulls, slots, "nulls")
	if err != nil {
		return nil, err
	}
	for i := range p {
		p[i] = v.Bool[i] && v.Valid[i]
	}
	return p, nil
}

// assemble returns the values of n's slots in stripe st.
func (f *File) assemble(st *stripeState, n *Node, slots int) ([]any, error) {
	out := make([]any, slots)
	switch {
	case n.Kind.leaf():
		v, err := f.stream(st, n.Values, slots, "values")
		if err != nil {
			return nil, err
		}
		for i := range out {
			if !v.Valid[i] || n.Kind == KNull {
				continue
			}
			x, err := leafValue(n, &v, i)
			if err != nil {
				return nil, fmt.Errorf("%q slot %d: %w", n.Name, i, err)
			}
			out[i] = x
		}
	case n.Kind == KStruct:
		present, err := f.presence(st, n, slots)
		if err != nil {
			return nil, fmt.Errorf("struct %q: %w", n.Name, err)
		}
		fields := make([][]any, len(n.Fields))
		for j, c := range n.Fields {
			if fields[j], err = f.assemble(st, c, slots); err != nil {
				return nil, fmt.Errorf("struct %q: %w", n.Name, err)
			}
		}
		for i := range out {
			if !present[i] {
				continue
			}
			m := make(map[string]any, len(n.Fields))
			for j, c := range n.Fields {
				m[c.Name] = fields[j][i]
			}
			out[i] = m
		}
	case n.Kind == KList || n.Kind == KMap:
		present, err := f.presence(st, n, slots)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", n.Name, err)
		}
		lens, err := f.stream(st, n.Lengths, slots, "lengths")
		if err != nil {
			return nil, fmt.Errorf("%q: %w", n.Name, err)
		}
		total := uint64(0)
		for i := 0; i < slots; i++ {
			if !lens.Valid[i] {
				lens.Uint[i] = 0
			}
			if !present[i] && lens.Uint[i] != 0 {
				return nil, fmt.Errorf("%q slot %d is null with length %d: %w", n.Name, i, lens.Uint[i], ErrCorrupt)
			}
			total += lens.Uint[i]
		}
		if total > maxStreamRows {
			return nil, fmt.Errorf("%q: %d entries: %w", n.Name, total, ErrLimit)
		}
		if n.Kind == KList {
			elems, err := f.assemble(st, n.Elem, int(total))
			if err != nil {
				return nil, fmt.Errorf("list %q: %w", n.Name, err)
			}
			pos := 0
			for i := range out {
				l := int(lens.Uint[i])
				if present[i] {
					out[i] = append([]any{}, elems[pos:pos+l]...)
				}
				pos += l
			}
		} else {
			keys, err := f.assemble(st, n.Key, int(total))
			if err != nil {
				return nil, fmt.Errorf("map %q key: %w", n.Name, err)
			}
			vals, err := f.assemble(st, n.Val, int(total))
			if err != nil {
				return nil, fmt.Errorf("map %q value: %w", n.Name, err)
			}
			pos := 0
			for i := range out {
				l := int(lens.Uint[i])
				if present[i] {
					m := make([]KV, l)
					for j := range m {
						m[j] = KV{keys[pos+j], vals[pos+j]}
					}
					out[i] = m
				}
				pos += l
			}
		}
	case n.Kind == KFlatMap:
		present, err := f.presence(st, n, slots)
		if err != nil {
			return nil, fmt.Errorf("flatmap %q: %w", n.Name, err)
		}
		for i := range out {
			if present[i] {
				out[i] = []KV{}
			}
		}
		for _, k := range n.Keys {
			key, err := keyValue(n.KeyKind, k.Name)
			if err != nil {
				return nil, fmt.Errorf("flatmap %q: %w", n.Name, err)
			}
			in, ok, err := f.streamValues(st, k.InMap)
			if err != nil {
				return nil, fmt.Errorf("flatmap %q key %q: %w", n.Name, k.Name, err)
			}
			if !ok {
				continue // key absent from the stripe: absent from every slot
			}
			if in.Len != slots {
				return nil, fmt.Errorf("flatmap %q key %q: inmap holds %d entries, the map %d slots: %w", n.Name, k.Name, in.Len, slots, ErrCorrupt)
			}
			cnt := 0
			for i := 0; i < slots; i++ {
				if in.Bool[i] && in.Valid[i] {
					if !present[i] {
						return nil, fmt.Errorf("flatmap %q key %q present in null slot %d: %w", n.Name, k.Name, i, ErrCorrupt)
					}
					cnt++
				}
			}
			vals, err := f.assemble(st, k, cnt)
			if err != nil {
				return nil, fmt.Errorf("flatmap %q key %q: %w", n.Name, k.Name, err)
			}
			pos := 0
			for i := 0; i < slots; i++ {
				if in.Bool[i] && in.Valid[i] {
					out[i] = append(out[i].([]KV), KV{key, vals[pos]})
					pos++
				}
			}
		}
	default:
		return nil, fmt.Errorf("node %q of kind %d: %w", n.Name, n.Kind, ErrUnsupported)
	}
	return out, nil
}

// keyValue converts a FlatMap key name to its Go value.
func keyValue(k Kind, name string) (any, error) {
	switch {
	case k == KString:
		return name, nil
	case k >= KUint8 && k <= KUint64:
		v, err := strconv.ParseUint(name, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("key %q: %w", name, ErrCorrupt)
		}
		return v, nil
	default:
		v, err := strconv.ParseInt(name, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("key %q: %w", name, ErrCorrupt)
		}
		return v, nil
	}
}

// unitNanos is the length of a time unit in nanoseconds.
var unitNanos = [4]int64{1e9, 1e6, 1e3, 1}

// leafValue converts entry i of a values stream to the Go value of n's kind.
func leafValue(n *Node, v *node.Values, i int) (any, error) {
	switch n.Kind {
	case KBool:
		return v.Bool[i], nil
	case KInt8, KInt16, KInt32, KInt64:
		return v.Int[i], nil
	case KUint8, KUint16, KUint32, KUint64:
		return v.Uint[i], nil
	case KFloat32:
		return v.F32[i], nil
	case KFloat64:
		return v.F64[i], nil
	case KString:
		return string(v.Bin[i]), nil
	case KBinary:
		return append([]byte{}, v.Bin[i]...), nil
	case KDate:
		return time.Unix(v.Int[i]*86400, 0).UTC(), nil
	case KTimestamp:
		x, u := v.Int[i], unitNanos[n.Unit]
		sec, rem := x/(1e9/u), x%(1e9/u)
		return time.Unix(sec, rem*u).UTC(), nil
	case KTime, KDuration:
		x, u := v.Int[i], unitNanos[n.Unit]
		if u != 1 && (x > (1<<63-1)/u || x < -(1<<63-1)/u) {
			return nil, fmt.Errorf("%d units of %dns overflow time.Duration: %w", x, u, ErrLimit)
		}
		return time.Duration(x * u), nil
	case KDecimal:
		if n.Precision <= 18 {
			return Decimal{Unscaled: big.NewInt(v.Int[i]), Scale: n.Scale}, nil
		}
		b := v.Bin[i]
		if len(b) != 16 {
			return nil, fmt.Errorf("wide decimal of %d bytes, not 16: %w", len(b), ErrCorrupt)
		}
		return Decimal{Unscaled: int128(b), Scale: n.Scale}, nil
	}
	return nil, fmt.Errorf("leaf kind %d: %w", n.Kind, ErrUnsupported)
}

// int128 reads 16 bytes of little-endian two's complement.
func int128(b []byte) *big.Int {
	be := make([]byte, 16)
	for j := range be {
		be[j] = b[15-j]
	}
	x := new(big.Int).SetBytes(be)
	if b[15]&0x80 != 0 {
		x.Sub(x, new(big.Int).Lsh(big.NewInt(1), 128))
	}
	return x
}
