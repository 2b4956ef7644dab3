package encodingtest

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"

	"strata/encoding"
	"strata/encoding/nullable"
)

// FuzzOptions are tight decode limits for fuzz targets, so a hostile node
// declaring huge counts fails fast instead of allocating gigabytes.
func FuzzOptions(reg *encoding.Registry) *encoding.Options {
	return &encoding.Options{Registry: reg, MaxRows: 1 << 20, MaxBytes: 1 << 26, MaxDepth: 6}
}

// exerciseRows bounds how many rows Exercise checks through every path;
// a longer node is only read up to it.
const exerciseRows = 1 << 16

// Exercise runs every read path of an arbitrary node. It returns nil, an
// error wrapping ErrCorrupt, ErrLimit or ErrUnsupported (the node was
// refused), or any other error when a decoder broke its contract: read
// paths that disagree on the values (a *Mismatch), binary output that is
// not well formed, an error that wraps no sentinel. It must never panic.
// The values of one full read are the reference the other paths must agree
// with; header-level answers (Bounds, Filter) are exercised but not
// compared, since a hostile header may promise bounds its values break.
func Exercise(node []byte, opts *encoding.Options) error {
	d, err := encoding.Open(node, opts)
	if err != nil {
		return err
	}
	n := d.Len()
	if n > exerciseRows {
		return readPrefix(d, exerciseRows)
	}
	want, valid, err := readAll(d, n)
	if err != nil {
		return err
	}
	return checkDecoder(newChecker(uint64(len(node)), true), d, want, valid)
}

// IsRefusal reports whether err is nil or wraps one of the sentinels a
// decoder refuses bad input with.
func IsRefusal(err error) bool {
	return err == nil || errors.Is(err, encoding.ErrCorrupt) || errors.Is(err, encoding.ErrLimit) ||
		errors.Is(err, encoding.ErrUnsupported)
}

// readAll reads n values and their validity (nil when none is null); the
// values are a []T or Bytes.
func readAll(d encoding.Decoder, n int) (any, []bool, error) {
	valid := make([]bool, n)
	var vals any
	var err error
	switch d.Type() {
	case encoding.Bool:
		vals, err = readFixed[bool](d, valid)
	case encoding.Int8:
		vals, err = readFixed[int8](d, valid)
	case encoding.Int16:
		vals, err = readFixed[int16](d, valid)
	case encoding.Int32:
		vals, err = readFixed[int32](d, valid)
	case encoding.Int64:
		vals, err = readFixed[int64](d, valid)
	case encoding.Uint8:
		vals, err = readFixed[uint8](d, valid)
	case encoding.Uint16:
		vals, err = readFixed[uint16](d, valid)
	case encoding.Uint32:
		vals, err = readFixed[uint32](d, valid)
	case encoding.Uint64:
		vals, err = readFixed[uint64](d, valid)
	case encoding.Float32:
		vals, err = readFixed[float32](d, valid)
	case encoding.Float64:
		vals, err = readFixed[float64](d, valid)
	case encoding.Binary:
		r, ok := d.(encoding.BinaryReader)
		if !ok {
			return nil, nil, mismatchf("%v decoder of binary values is not a BinaryReader", d.Kind())
		}
		var b encoding.Bytes
		if err := encoding.ReadBinaryNullable(r, &b, valid, n); err != nil {
			return nil, nil, err
		}
		if err := WellFormed(&b, n); err != nil {
			return nil, nil, err
		}
		vals = b
	default:
		return nil, nil, mismatchf("decoder of unknown type %v", d.Type())
	}
	if err != nil {
		return nil, nil, err
	}
	for _, v := range valid {
		if !v {
			return vals, valid, nil
		}
	}
	return vals, nil, nil
}

func readFixed[T encoding.Fixed](d encoding.Decoder, valid []bool) ([]T, error) {
	r, ok := d.(encoding.Reader[T])
	if !ok {
		return nil, mismatchf("%v decoder of %v values is not a Reader", d.Kind(), d.Type())
	}
	out := make([]T, len(valid))
	if err := encoding.ReadNullable(r, out, valid); err != nil {
		return nil, err
	}
	return out, nil
}

// readPrefix reads the first n values of a long node, then one in the
// middle of them.
func readPrefix(d encoding.Decoder, n int) error {
	if _, _, err := readAll(d, n); err != nil {
		return err
	}
	d.Reset()
	if err := d.Skip(n / 2); err != nil {
		return err
	}
	_, _, err := readAll(d, 1)
	return err
}

// FuzzDecode is the decode fuzz target of codec c: arbitrary nodes, seeded
// with nodes c wrote for every type and several shapes, go through
// Exercise, which may refuse them with a sentinel error but must not panic,
// hang, allocate beyond FuzzOptions or return values that differ between
// read paths. Seeds an encoding adds with f.Add before calling it are kept.
func FuzzDecode(f *testing.F, c *encoding.Codec) {
	s := newSuite(c)
	for _, node := range s.seeds() {
		f.Add(node)
	}
	opts := FuzzOptions(s.reg)
	f.Fuzz(func(t *testing.T, node []byte) {
		if err := Exercise(node, opts); !IsRefusal(err) {
			t.Fatal(err)
		}
		if err := recycledAgrees(node, opts); err != nil {
			t.Fatal(err)
		}
	})
}

// recycledAgrees opens node again as a point lookup does, its buffers
// holding what an earlier decoder left (Options.Alloc), and returns an
// error unless both opens refuse it or both accept it and read the same
// values and validity.
func recycledAgrees(node []byte, opts *encoding.Options) error {
	o := *opts
	o.Alloc = dirtyAlloc
	a, errA := encoding.Open(node, opts)
	b, errB := encoding.Open(node, &o)
	if (errA == nil) != (errB == nil) {
		return fmt.Errorf("open with recycled memory: %v; with fresh memory: %v", errB, errA)
	}
	if errA != nil || a.Len() > exerciseRows {
		return nil
	}
	if a.Len() != b.Len() {
		return mismatchf("%d rows with recycled memory, %d with fresh", b.Len(), a.Len())
	}
	va, validA, errA := readAll(a, a.Len())
	vb, validB, errB := readAll(b, b.Len())
	if (errA == nil) != (errB == nil) {
		return fmt.Errorf("read with recycled memory: %v; with fresh memory: %v", errB, errA)
	}
	if errA != nil {
		return nil
	}
	if !slices.Equal(validA, validB) || !sameValues(va, vb) {
		return mismatchf("%v node reads other values with recycled memory", a.Kind())
	}
	return nil
}

// sameValues reports whether two reads hold the same values, bit for bit.
func sameValues(a, b any) bool {
	x, ok := a.(encoding.Bytes)
	if !ok {
		return bytes.Equal(valueBytes(a), valueBytes(b))
	}
	y, ok := b.(encoding.Bytes)
	if !ok || x.Len() != y.Len() {
		return false
	}
	for i := 0; i < x.Len(); i++ {
		if !bytes.Equal(x.Value(i), y.Value(i)) {
			return false
		}
	}
	return true
}

// seedShapes are the shapes fuzz seeds are drawn from.
var seedShapes = []Shape{ShapeLowCard, ShapeSortedRepeats, ShapeRandom, ShapeExtremes, ShapeMainlyConstant, ShapeDecimal}

// seedShapesFor returns the seed shapes of typ: seedShapes, and TextShapes
// after them for Binary.
func seedShapesFor(typ encoding.Type) []Shape {
	if typ == encoding.Binary {
		return append(slices.Clip(seedShapes), TextShapes...)
	}
	return seedShapes
}

// longSeedRows is the row count of the long fuzz seeds: past two batches
// of the 1,024 rows most decoders read at a time, so state a decoder
// carries from one batch to the next (slot positions, block cursors,
// running sums) is reached without the fuzzer having to grow every
// child's row count in step.
const longSeedRows = 2*1024 + 53

// seeds returns small nodes of c for every type and seed shape, plain and
// as the values of a Nullable node, and long nodes of longSeedRows rows:
// one shape per type, and for Binary every text shape (the text codecs
// fit only their own).
func (s *suite) seeds() [][]byte {
	var out [][]byte
	for ti, typ := range s.types() {
		if s.c.Encoder != nil {
			long := []Shape{seedShapes[ti%len(seedShapes)]}
			if typ == encoding.Binary {
				long = append(long, TextShapes...)
			}
			for _, shape := range long {
				vals := Values(typ, shape, longSeedRows, seedOf(typ, shape, longSeedRows))
				if node, _, err := s.p.EncodeWith(nil, vals, s.c.Kind); err == nil {
					out = append(out, node)
				}
			}
		}
		for i, shape := range seedShapesFor(typ) {
			vals := Values(typ, shape, 100+50*i, seedOf(typ, shape, i))
			if s.c.Encoder != nil {
				if node, _, err := s.p.EncodeWith(nil, vals, s.c.Kind); err == nil {
					out = append(out, node)
				}
			}
			if i%3 == 0 {
				valid := Validity(RandomNulls, encoding.LenOf(vals)*3/2, 1)
				vals = Values(typ, shape, count(valid), 2)
				p := *s.p
				p.Force = &encoding.Tree{Kind: encoding.KindNullable, Children: []*encoding.Tree{nil, {Kind: s.c.Kind}}}
				if node, _, err := nullable.Encode(&p, nil, vals, valid); err == nil {
					out = append(out, node)
				}
			}
		}
	}
	return out
}

// FuzzRoundTrip is the round-trip fuzz target of codec c: the fuzzer's
// bytes become values of one of c's types (sel modulo their number;
// little-endian for fixed widths, length-prefixed for binary, then put in
// the text form the rest of sel names) and, when nulls is not empty, a
// validity pattern (its bits, repeated); c encodes them at the root (or
// as the present values of a Nullable node) and every read path must
// return them. An encoder may refuse values its Fit declines.
func FuzzRoundTrip(f *testing.F, c *encoding.Codec) {
	s := newSuite(c)
	types := s.types()
	for i, typ := range types {
		for j, shape := range seedShapesFor(typ) {
			vals := Values(typ, shape, 24+8*j, seedOf(typ, shape, j))
			var nulls []byte
			if j%2 == 1 || c.Encoder == nil {
				nulls = []byte{0x6d}
			}
			f.Add(uint8(i), nulls, valueBytes(vals))
			if typ == encoding.Binary {
				// The same bytes in the other text forms.
				f.Add(uint8(i+len(types)*formSorted), nulls, valueBytes(vals))
				f.Add(uint8(i+len(types)*formDigits), nulls, valueBytes(vals))
				f.Add(uint8(i+len(types)*formNumbers), nulls, valueBytes(vals))
			}
		}
	}
	f.Fuzz(func(t *testing.T, sel uint8, nulls, data []byte) {
		typ := types[int(sel)%len(types)]
		vals := valuesOf(typ, data)
		if typ == encoding.Binary {
			vals = textForm(vals.(encoding.Bytes), int(sel)/len(types)%numForms)
		}
		if len(nulls) == 0 && c.Encoder != nil {
			s.check(t, vals)
			return
		}
		vals, valid := withNulls(vals, nulls)
		var force *encoding.Tree
		if c.Encoder != nil {
			force = &encoding.Tree{Kind: c.Kind}
		}
		s.checkNullable(t, vals, valid, force)
	})
}

// Text forms of fuzzed binary values: as the fuzzer wrote them, sorted
// (neighbours share prefixes, Stats.Sorted), digit strings (every byte
// mapped to a digit, values cut to encoding.MaxDigits, Stats.Digits), or
// signed numbers (each value's first 8 bytes read as a little-endian
// integer of their width, sign-extended, printed canonically; with
// grouping commas when the first value's first byte is odd, as decimal
// fractions of up to eight digits and ten fraction digits when its second
// bit is set instead, Stats.Numbers).
// Arbitrary bytes almost never take the forms text encodings exist for.
const (
	formRaw = iota
	formSorted
	formDigits
	formNumbers
	numForms
)

// textForm returns b in the given text form.
func textForm(b encoding.Bytes, form int) encoding.Bytes {
	if form == formRaw {
		return b
	}
	vals := make([][]byte, b.Len())
	for i := range vals {
		vals[i] = b.Value(i)
	}
	if form == formSorted {
		slices.SortFunc(vals, bytes.Compare)
	}
	grouped := len(vals) > 0 && len(vals[0]) > 0 && vals[0][0]&1 == 1
	decimal := !grouped && len(vals) > 0 && len(vals[0]) > 0 && vals[0][0]&2 == 2
	var out encoding.Bytes
	out.Offsets = append(out.Offsets, 0)
	for _, v := range vals {
		if form == formDigits {
			d := make([]byte, min(len(v), encoding.MaxDigits))
			for k := range d {
				d[k] = '0' + v[k]%10
			}
			v = d
		}
		if form == formNumbers {
			var x uint64
			w := min(len(v), 8)
			for k := w - 1; k >= 0; k-- {
				x = x<<8 | uint64(v[k])
			}
			if w > 0 && w < 8 {
				shift := 64 - 8*w
				x = uint64(int64(x<<shift) >> shift)
			}
			if decimal {
				sc := 0
				if len(v) > 0 {
					sc = int(v[len(v)-1] % 11)
				}
				v = encoding.AppendDecimal(nil, int64(x)%100_000_000, sc)
			} else {
				v = encoding.AppendNumber(nil, int64(x), grouped)
			}
		}
		out.Append(v)
	}
	return out
}

// maxFuzzRows bounds the rows of a round-trip fuzz case.
const maxFuzzRows = 1 << 14

// valueBytes is the inverse of valuesOf.
func valueBytes(vals any) []byte {
	var out []byte
	switch v := vals.(type) {
	case []bool:
		for _, x := range v {
			b := byte(0)
			if x {
				b = 1
			}
			out = append(out, b)
		}
	case []int8:
		for _, x := range v {
			out = append(out, byte(x))
		}
	case []uint8:
		out = append(out, v...)
	case []int16:
		for _, x := range v {
			out = binary.LittleEndian.AppendUint16(out, uint16(x))
		}
	case []uint16:
		for _, x := range v {
			out = binary.LittleEndian.AppendUint16(out, x)
		}
	case []int32:
		for _, x := range v {
			out = binary.LittleEndian.AppendUint32(out, uint32(x))
		}
	case []uint32:
		for _, x := range v {
			out = binary.LittleEndian.AppendUint32(out, x)
		}
	case []float32:
		for _, x := range v {
			out = binary.LittleEndian.AppendUint32(out, math.Float32bits(x))
		}
	case []int64:
		for _, x := range v {
			out = binary.LittleEndian.AppendUint64(out, uint64(x))
		}
	case []uint64:
		for _, x := range v {
			out = binary.LittleEndian.AppendUint64(out, x)
		}
	case []float64:
		for _, x := range v {
			out = binary.LittleEndian.AppendUint64(out, math.Float64bits(x))
		}
	case encoding.Bytes:
		for i := 0; i < v.Len(); i++ {
			x := v.Value(i)
			x = x[:min(len(x), 255)]
			out = append(out, byte(len(x)))
			out = append(out, x...)
		}
	}
	return out
}

// valuesOf turns fuzzer bytes into values of typ.
func valuesOf(typ encoding.Type, data []byte) any {
	if typ == encoding.Binary {
		var b encoding.Bytes
		b.Offsets = append(b.Offsets, 0)
		for len(data) > 0 && b.Len() < maxFuzzRows {
			l := min(int(data[0]), len(data)-1)
			b.Append(data[1 : 1+l])
			data = data[1+l:]
		}
		return b
	}
	size := typ.Size()
	n := min(len(data)/size, maxFuzzRows)
	u := func(i int) uint64 {
		var x uint64
		for k := size - 1; k >= 0; k-- {
			x = x<<8 | uint64(data[i*size+k])
		}
		return x
	}
	switch typ {
	case encoding.Bool:
		return fill(n, func(i int) bool { return data[i]&1 == 1 })
	case encoding.Int8:
		return fill(n, func(i int) int8 { return int8(u(i)) })
	case encoding.Int16:
		return fill(n, func(i int) int16 { return int16(u(i)) })
	case encoding.Int32:
		return fill(n, func(i int) int32 { return int32(u(i)) })
	case encoding.Int64:
		return fill(n, func(i int) int64 { return int64(u(i)) })
	case encoding.Uint8:
		return fill(n, func(i int) uint8 { return uint8(u(i)) })
	case encoding.Uint16:
		return fill(n, func(i int) uint16 { return uint16(u(i)) })
	case encoding.Uint32:
		return fill(n, func(i int) uint32 { return uint32(u(i)) })
	case encoding.Uint64:
		return fill(n, func(i int) uint64 { return u(i) })
	case encoding.Float32:
		return fill(n, func(i int) float32 { return math.Float32frombits(uint32(u(i))) })
	case encoding.Float64:
		return fill(n, func(i int) float64 { return math.Float64frombits(u(i)) })
	}
	return nil
}

func fill[T any](n int, f func(int) T) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = f(i)
	}
	return out
}

// withNulls spreads vals over rows whose validity repeats the bits of
// nulls (all valid when nulls is empty), keeping at most maxFuzzRows rows;
// it returns the values that fit and the validity.
func withNulls(vals any, nulls []byte) (any, []bool) {
	m := encoding.LenOf(vals)
	bit := func(i int) bool {
		if len(nulls) == 0 {
			return true
		}
		i %= 8 * len(nulls)
		return nulls[i/8]>>(i%8)&1 == 1
	}
	valid := []bool{}
	present := 0
	for i := 0; i < maxFuzzRows && (present < m || i < 8*len(nulls)); i++ {
		v := bit(i)
		if v && present == m {
			break
		}
		valid = append(valid, v)
		if v {
			present++
		}
	}
	return truncate(vals, present), valid
}

// truncate returns the first n values.
func truncate(vals any, n int) any {
	switch v := vals.(type) {
	case []bool:
		return v[:n]
	case []int8:
		return v[:n]
	case []int16:
		return v[:n]
	case []int32:
		return v[:n]
	case []int64:
		return v[:n]
	case []uint8:
		return v[:n]
	case []uint16:
		return v[:n]
	case []uint32:
		return v[:n]
	case []uint64:
		return v[:n]
	case []float32:
		return v[:n]
	case []float64:
		return v[:n]
	case encoding.Bytes:
		return v.Slice(0, n)
	}
	return vals
}
