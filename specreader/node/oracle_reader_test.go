package node_test

import (
	"fmt"
	"strata/specreader/node"

	"strata/encoding"
	"strata/encoding/all"
)

// goReaderDecode runs Strata's own decoder (black box, public API) over a
// whole node and reports its error: where the second reader rejects a
// hand-made node, this tells whether the Go reader does too, so the gaps
// list can say which checks the document leaves to the reader.
func goReaderDecode(n []byte) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("Go reader panicked: %v", r)
		}
	}()
	opts := all.Options()
	d, err := encoding.Open(n, opts)
	if err != nil {
		return err
	}
	m := d.Len()
	switch d.Type() {
	case encoding.Type(1):
		return readAll[bool](n, m, opts)
	case encoding.Type(2):
		return readAll[int8](n, m, opts)
	case encoding.Type(3):
		return readAll[int16](n, m, opts)
	case encoding.Type(4):
		return readAll[int32](n, m, opts)
	case encoding.Type(5):
		return readAll[int64](n, m, opts)
	case encoding.Type(6):
		return readAll[uint8](n, m, opts)
	case encoding.Type(7):
		return readAll[uint16](n, m, opts)
	case encoding.Type(8):
		return readAll[uint32](n, m, opts)
	case encoding.Type(9):
		return readAll[uint64](n, m, opts)
	case encoding.Type(10):
		return readAll[float32](n, m, opts)
	case encoding.Type(11):
		return readAll[float64](n, m, opts)
	case encoding.Type(12):
		r, err := encoding.OpenBinary(n, 0, opts)
		if err != nil {
			return err
		}
		var b encoding.Bytes
		return r.ReadBinary(&b, m)
	}
	return fmt.Errorf("type %v", d.Type())
}

func readAll[T encoding.Fixed](n []byte, m int, opts *encoding.Options) error {
	r, err := encoding.OpenTyped[T](n, 0, opts)
	if err != nil {
		return err
	}
	dst := make([]T, m)
	if nr, ok := r.(encoding.NullableReader[T]); ok {
		return nr.ReadNullable(dst, make([]bool, m))
	}
	return r.Read(dst)
}

// goValues decodes a node with the Go reader into Values.
func goValues(n []byte) (node.Values, error) {
	opts := all.Options()
	d, err := encoding.Open(n, opts)
	if err != nil {
		return node.Values{}, err
	}
	m := d.Len()
	t := node.Type(d.Type())
	v := node.Make(t, m)
	var valid []bool
	switch t {
	case node.Binary:
		r, err := encoding.OpenBinary(n, 0, opts)
		if err != nil {
			return node.Values{}, err
		}
		var b encoding.Bytes
		b.Offsets = []int32{0}
		if nr, ok := r.(encoding.NullableBinaryReader); ok {
			valid = make([]bool, m)
			if err := nr.ReadBinaryNullable(&b, valid, m); err != nil {
				return node.Values{}, err
			}
		} else if err := r.ReadBinary(&b, m); err != nil {
			return node.Values{}, err
		}
		for i := 0; i < m; i++ {
			v.Bin[i] = b.Data[b.Offsets[i]:b.Offsets[i+1]]
		}
	default:
		var err error
		valid, err = goFixed(n, &v, opts)
		if err != nil {
			return node.Values{}, err
		}
	}
	v.Valid = valid
	return v, nil
}

func goFixed(n []byte, v *node.Values, opts *encoding.Options) ([]bool, error) {
	switch v.Type {
	case node.Bool:
		return goRead(n, v, opts, func(x bool, i int) { v.Bool[i] = x })
	case node.Int8:
		return goRead(n, v, opts, func(x int8, i int) { v.Int[i] = int64(x) })
	case node.Int16:
		return goRead(n, v, opts, func(x int16, i int) { v.Int[i] = int64(x) })
	case node.Int32:
		return goRead(n, v, opts, func(x int32, i int) { v.Int[i] = int64(x) })
	case node.Int64:
		return goRead(n, v, opts, func(x int64, i int) { v.Int[i] = x })
	case node.Uint8:
		return goRead(n, v, opts, func(x uint8, i int) { v.Uint[i] = uint64(x) })
	case node.Uint16:
		return goRead(n, v, opts, func(x uint16, i int) { v.Uint[i] = uint64(x) })
	case node.Uint32:
		return goRead(n, v, opts, func(x uint32, i int) { v.Uint[i] = uint64(x) })
	case node.Uint64:
		return goRead(n, v, opts, func(x uint64, i int) { v.Uint[i] = x })
	case node.Float32:
		return goRead(n, v, opts, func(x float32, i int) { v.F32[i] = x })
	case node.Float64:
		return goRead(n, v, opts, func(x float64, i int) { v.F64[i] = x })
	}
	return nil, fmt.Errorf("type %v", v.Type)
}

func goRead[T encoding.Fixed](n []byte, v *node.Values, opts *encoding.Options, set func(T, int)) ([]bool, error) {
	r, err := encoding.OpenTyped[T](n, 0, opts)
	if err != nil {
		return nil, err
	}
	dst := make([]T, v.Len)
	var valid []bool
	if nr, ok := r.(encoding.NullableReader[T]); ok {
		valid = make([]bool, v.Len)
		err = nr.ReadNullable(dst, valid)
	} else {
		err = r.Read(dst)
	}
	if err != nil {
		return nil, err
	}
	for i, x := range dst {
		set(x, i)
	}
	return valid, nil
}
