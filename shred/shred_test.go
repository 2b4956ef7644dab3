package shred

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/encoding"
	"strata/schema"
)

var flatMeta = arrow.NewMetadata([]string{FlatMapMetadataKey}, []string{"true"})

// randField returns a random field; depth bounds nesting.
func randField(rng *rand.Rand, name string, depth int) arrow.Field {
	f := arrow.Field{Name: name, Nullable: rng.IntN(3) != 0}
	leaves := []arrow.DataType{
		arrow.FixedWidthTypes.Boolean, arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16,
		arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Uint8,
		arrow.PrimitiveTypes.Uint16, arrow.PrimitiveTypes.Uint32, arrow.PrimitiveTypes.Uint64,
		arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Float64, arrow.BinaryTypes.String,
		arrow.BinaryTypes.Binary, arrow.FixedWidthTypes.Date32,
		&arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"},
		&arrow.TimestampType{Unit: arrow.Nanosecond},
		&arrow.Decimal128Type{Precision: 12, Scale: 2}, &arrow.Decimal128Type{Precision: 30, Scale: 4},
	}
	if depth <= 0 || rng.IntN(3) == 0 {
		f.Type = leaves[rng.IntN(len(leaves))]
		return f
	}
	switch rng.IntN(5) {
	case 0, 1:
		var fs []arrow.Field
		for i := range 1 + rng.IntN(3) {
			fs = append(fs, randField(rng, fmt.Sprintf("%s_%d", name, i), depth-1))
		}
		f.Type = arrow.StructOf(fs...)
	case 2:
		f.Type = arrow.ListOfField(randField(rng, "item", depth-1))
	case 3:
		key := arrow.Field{Name: "key", Type: arrow.BinaryTypes.String}
		if rng.IntN(2) == 0 {
			key.Type = arrow.PrimitiveTypes.Int32
		}
		f.Type = arrow.MapOfFields(key, randField(rng, "value", depth-1))
	case 4: // flatmap
		key := arrow.Field{Name: "key", Type: arrow.BinaryTypes.String}
		if rng.IntN(2) == 0 {
			key.Type = arrow.PrimitiveTypes.Int64
		}
		f.Type = arrow.MapOfFields(key, randField(rng, "value", depth-1))
		f.Metadata = flatMeta
	}
	return f
}

// appendRandom appends one random value (or a null when nullable).
func appendRandom(rng *rand.Rand, b array.Builder, f arrow.Field) {
	if f.Nullable && rng.IntN(5) == 0 {
		b.AppendNull() // a struct appends nulls to its children too
		return
	}
	switch bb := b.(type) {
	case *array.BooleanBuilder:
		bb.Append(rng.IntN(2) == 0)
	case *array.Int8Builder:
		bb.Append(int8(rng.Uint32()))
	case *array.Int16Builder:
		bb.Append(int16(rng.Uint32()))
	case *array.Int32Builder:
		bb.Append(int32(rng.IntN(20)) - 5)
	case *array.Int64Builder:
		bb.Append(int64(rng.Uint64()))
	case *array.Uint8Builder:
		bb.Append(uint8(rng.Uint32()))
	case *array.Uint16Builder:
		bb.Append(uint16(rng.Uint32()))
	case *array.Uint32Builder:
		bb.Append(rng.Uint32())
	case *array.Uint64Builder:
		bb.Append(rng.Uint64())
	case *array.Float32Builder:
		vals := []float32{float32(math.NaN()), float32(math.Inf(1)), 0, -1.5, rng.Float32()}
		bb.Append(vals[rng.IntN(len(vals))])
	case *array.Float64Builder:
		vals := []float64{math.NaN(), math.Inf(-1), math.Copysign(0, -1), 2.25, rng.Float64()}
		bb.Append(vals[rng.IntN(len(vals))])
	case *array.StringBuilder:
		bb.Append(strconv.Itoa(rng.IntN(1000))[:rng.IntN(2)])
	case *array.BinaryBuilder:
		v := make([]byte, rng.IntN(5))
		for i := range v {
			v[i] = byte(rng.Uint32())
		}
		bb.Append(v)
	case *array.Date32Builder:
		bb.Append(arrow.Date32(rng.IntN(40000) - 20000))
	case *array.TimestampBuilder:
		bb.Append(arrow.Timestamp(rng.Int64()))
	case *array.Decimal128Builder:
		p := f.Type.(*arrow.Decimal128Type).Precision
		lo := rng.Int64N(1e15) - 5e14
		if p <= 18 {
			bb.Append(decimal128.FromI64(lo))
		} else {
			bb.Append(decimal128.New(int64(rng.Uint64())>>20, rng.Uint64()))
		}
	case *array.StructBuilder:
		bb.Append(true)
		for i, cf := range f.Type.(*arrow.StructType).Fields() {
			appendRandom(rng, bb.FieldBuilder(i), cf)
		}
	case *array.MapBuilder:
		mt := f.Type.(*arrow.MapType)
		bb.Append(true)
		n := rng.IntN(4)
		keys := rng.Perm(6)[:n]
		for _, k := range keys {
			switch kb := bb.KeyBuilder().(type) {
			case *array.StringBuilder:
				kb.Append("k" + strconv.Itoa(k))
			case *array.Int32Builder:
				kb.Append(int32(k) - 2)
			case *array.Int64Builder:
				kb.Append(int64(k)*1000 - 2000)
			}
			appendRandom(rng, bb.ItemBuilder(), mt.ItemField())
		}
	case *array.ListBuilder:
		bb.Append(true)
		for range rng.IntN(4) {
			appendRandom(rng, bb.ValueBuilder(), f.Type.(*arrow.ListType).ElemField())
		}
	default:
		panic(fmt.Sprintf("no generator for %T", b))
	}
}

func randRecord(rng *rand.Rand, mem memory.Allocator, as *arrow.Schema, rows int) arrow.RecordBatch {
	cols := make([]arrow.Array, len(as.Fields()))
	for i, f := range as.Fields() {
		b := array.NewBuilder(mem, f.Type)
		for range rows {
			appendRandom(rng, b, f)
		}
		cols[i] = b.NewArray()
		b.Release()
	}
	rec := array.NewRecordBatch(as, cols, int64(rows))
	for _, c := range cols {
		c.Release()
	}
	return rec
}

// equalAt compares value i of a with value j of b logically: nulls match,
// children of nulls are ignored, NaNs equal, FlatMap entries compared as
// sets. flat marks a FlatMap field.
func equalAt(t arrow.DataType, flat bool, a arrow.Array, i int, b arrow.Array, j int) error {
	if a.IsNull(i) != b.IsNull(j) {
		return fmt.Errorf("null %v vs %v", a.IsNull(i), b.IsNull(j))
	}
	if a.IsNull(i) {
		return nil
	}
	switch t := t.(type) {
	case *arrow.StructType:
		sa, sb := a.(*array.Struct), b.(*array.Struct)
		for k, f := range t.Fields() {
			if err := equalAt(f.Type, isFlatMapField(f), sa.Field(k), i, sb.Field(k), j); err != nil {
				return fmt.Errorf("%s: %w", f.Name, err)
			}
		}
		return nil
	case *arrow.ListType, *arrow.MapType:
		la, lb := a.(array.ListLike), b.(array.ListLike)
		alo, ahi := la.ValueOffsets(i)
		blo, bhi := lb.ValueOffsets(j)
		if ahi-alo != bhi-blo {
			return fmt.Errorf("length %d vs %d", ahi-alo, bhi-blo)
		}
		if lt, ok := t.(*arrow.ListType); ok {
			for k := range ahi - alo {
				if err := equalAt(lt.Elem(), isFlatMapField(lt.ElemField()), la.ListValues(), int(alo+k), lb.ListValues(), int(blo+k)); err != nil {
					return fmt.Errorf("[%d]: %w", k, err)
				}
			}
			return nil
		}
		mt := t.(*arrow.MapType)
		ea, eb := la.ListValues().(*array.Struct), lb.ListValues().(*array.Struct)
		ia := entryOrder(ea.Field(0), int(alo), int(ahi), flat)
		ib := entryOrder(eb.Field(0), int(blo), int(bhi), flat)
		for k := range ia {
			if err := equalAt(mt.KeyType(), false, ea.Field(0), ia[k], eb.Field(0), ib[k]); err != nil {
				return fmt.Errorf("key %d: %w", k, err)
			}
			if err := equalAt(mt.ItemType(), isFlatMapField(mt.ItemField()), ea.Field(1), ia[k], eb.Field(1), ib[k]); err != nil {
				return fmt.Errorf("value %d: %w", k, err)
			}
		}
		return nil
	}
	va, vb := scalarOf(a, i), scalarOf(b, j)
	if !bytes.Equal(va, vb) {
		return fmt.Errorf("value %x vs %x (%s)", va, vb, t)
	}
	return nil
}

// entryOrder returns the entry indices [lo, hi), sorted by key for FlatMaps
// (whose entry order is not preserved).
func entryOrder(keys arrow.Array, lo, hi int, flat bool) []int {
	idx := make([]int, 0, hi-lo)
	for k := lo; k < hi; k++ {
		idx = append(idx, k)
	}
	if flat {
		slices.SortFunc(idx, func(x, y int) int { return bytes.Compare(scalarOf(keys, x), scalarOf(keys, y)) })
	}
	return idx
}

// scalarOf returns the bytes of a primitive value (canonical per type).
func scalarOf(a arrow.Array, i int) []byte {
	switch a := a.(type) {
	case *array.Boolean:
		if a.Value(i) {
			return []byte{1}
		}
		return []byte{0}
	case *array.Decimal128:
		v := a.Value(i)
		return fmt.Appendf(nil, "%d:%d", v.HighBits(), v.LowBits())
	case *array.Decimal64:
		v := decimal128.FromI64(int64(a.Value(i)))
		return fmt.Appendf(nil, "%d:%d", v.HighBits(), v.LowBits())
	case *array.Decimal32:
		v := decimal128.FromI64(int64(a.Value(i)))
		return fmt.Appendf(nil, "%d:%d", v.HighBits(), v.LowBits())
	}
	if get, err := bytesGetter(a); err == nil {
		return get(i)
	}
	fw := a.DataType().(arrow.FixedWidthDataType)
	w := fw.BitWidth() / 8
	d := a.Data()
	return d.Buffers()[1].Bytes()[(d.Offset()+i)*w : (d.Offset()+i+1)*w]
}

func equalColumn(t *testing.T, f arrow.Field, want, got arrow.Array) {
	t.Helper()
	if want.Len() != got.Len() {
		t.Fatalf("%s: %d rows, want %d", f.Name, got.Len(), want.Len())
	}
	for i := range want.Len() {
		if err := equalAt(f.Type, isFlatMapField(f), want, i, got, i); err != nil {
			t.Fatalf("%s row %d: %v\nwant %v\ngot  %v", f.Name, i, err, want, got)
		}
	}
}

func streamMap(sts []Stream) map[int]*Stream {
	m := make(map[int]*Stream, len(sts))
	for i := range sts {
		m[sts[i].ID] = &sts[i]
	}
	return m
}

// assembleAll assembles every column and checks every stream is consumed exactly.
func assembleAll(t *testing.T, s *schema.Schema, sts []Stream, mem memory.Allocator) []arrow.Array {
	t.Helper()
	m := streamMap(sts)
	out := make([]arrow.Array, s.NumColumns())
	for c := range s.NumColumns() {
		as := &assembler{s: s, streams: m, pos: map[int]int{}, mem: mem}
		rows, ok := as.inferRows(s.Column(c))
		if !ok {
			t.Fatalf("column %d: cannot infer rows", c)
		}
		d, err := as.build(s.Column(c), rows)
		if err != nil {
			t.Fatalf("column %d: %v", c, err)
		}
		out[c] = array.MakeFromData(d)
		d.Release()
		for _, id := range s.ColumnStreams(c) {
			if as.pos[id] != m[id].Len {
				info := s.Stream(id)
				t.Fatalf("stream %d (%s of %s): consumed %d of %d", id, info.Role, info.Node.Path(), as.pos[id], m[id].Len)
			}
		}
	}
	return out
}

func checkStreams(t *testing.T, s *schema.Schema, sts []Stream) {
	t.Helper()
	if len(sts) != s.NumStreams() {
		t.Fatalf("%d streams, schema has %d", len(sts), s.NumStreams())
	}
	for id, st := range sts {
		info := s.Stream(id)
		if st.ID != id || st.Type != info.Type || encoding.TypeOf(st.Values) != info.Type || encoding.LenOf(st.Values) != st.Len {
			t.Fatalf("stream %d: %+v vs %+v", id, st, info)
		}
		if st.Valid != nil && (len(st.Valid) != st.Len || info.Role != schema.RoleValues || !info.Node.Nullable) {
			t.Fatalf("stream %d (%s of %s): bad validity", id, info.Role, info.Node.Path())
		}
	}
}

func TestRoundTripRandom(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for seed := range uint64(120) {
		rng := rand.New(rand.NewPCG(seed, 7))
		var fields []arrow.Field
		for i := range 1 + rng.IntN(4) {
			fields = append(fields, randField(rng, fmt.Sprintf("c%d", i), 3))
		}
		as := arrow.NewSchema(fields, nil)
		rows := []int{0, 1, 2, 7, 40, 200}[seed%6]
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			roundTrip(t, rng, mem, as, rows)
		})
	}
}

func roundTrip(t *testing.T, rng *rand.Rand, mem memory.Allocator, as *arrow.Schema, rows int) {
	s, err := SchemaFromArrow(as)
	if err != nil {
		t.Fatal(err)
	}
	if got := ToArrow(s); !got.Equal(as) {
		t.Fatalf("ToArrow(SchemaFromArrow) = %v, want %v", got, as)
	}
	sh := NewShredder(s)
	// A first stripe, then Reset, so buffers are reused.
	junk := randRecord(rng, mem, as, 5)
	if err := sh.Append(junk); err != nil {
		t.Fatal(err)
	}
	junk.Release()
	sh.Reset()
	rec := randRecord(rng, mem, as, rows)
	defer rec.Release()
	// Append in up to three slices to exercise array offsets.
	cut1, cut2 := rng.IntN(rows+1), rng.IntN(rows+1)
	if cut1 > cut2 {
		cut1, cut2 = cut2, cut1
	}
	for _, r := range [][2]int{{0, cut1}, {cut1, cut2}, {cut2, rows}} {
		part := rec.NewSlice(int64(r[0]), int64(r[1]))
		err := sh.Append(part)
		part.Release()
		if err != nil {
			t.Fatal(err)
		}
	}
	sts := sh.Streams()
	checkStreams(t, s, sts)
	if rows > 0 && sh.RawSize() <= 0 && s.NumStreams() > 0 {
		t.Fatalf("RawSize %d", sh.RawSize())
	}
	// The schema with discovered keys survives serialization.
	s2, err := schema.Unmarshal(s.Marshal())
	if err != nil {
		t.Fatal(err)
	}
	if s2.String() != s.String() {
		t.Fatalf("schema round trip:\n%s\nvs\n%s", s2, s)
	}
	for _, sc := range []*schema.Schema{s, s2} {
		cols := assembleAll(t, sc, sts, mem)
		for c, got := range cols {
			equalColumn(t, as.Field(c), rec.Column(c), got)
			got.Release()
		}
	}
	// The public entry point agrees.
	for c := range s.NumColumns() {
		got, err := Assemble(s, c, streamMap(sts), mem)
		if err != nil {
			if rows == 0 && s.Column(c).Kind == schema.FlatMap && !s.Column(c).Nullable {
				continue // no row-aligned stream to infer from
			}
			t.Fatal(err)
		}
		equalColumn(t, as.Field(c), rec.Column(c), got)
		got.Release()
	}
}

func TestAlternativeArrowTypes(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ls := array.NewLargeStringBuilder(mem)
	ls.AppendValues([]string{"a", "", "ccc"}, []bool{true, false, true})
	lsa := ls.NewArray()
	ls.Release()
	defer lsa.Release()
	db := array.NewBuilder(mem, &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}).(*array.BinaryDictionaryBuilder)
	db.AppendString("x")
	db.AppendNull()
	db.AppendString("x")
	da := db.NewArray()
	db.Release()
	defer da.Release()
	d64 := array.NewBuilder(mem, &arrow.Decimal64Type{Precision: 10, Scale: 1}).(*array.Decimal64Builder)
	d64.Append(-5)
	d64.Append(7)
	d64.AppendNull()
	d64a := d64.NewArray()
	d64.Release()
	defer d64a.Release()
	ll := array.NewLargeListBuilder(mem, arrow.PrimitiveTypes.Int16)
	ll.Append(true)
	ll.ValueBuilder().(*array.Int16Builder).AppendValues([]int16{1, 2}, nil)
	ll.AppendNull()
	ll.Append(true)
	lla := ll.NewArray()
	ll.Release()
	defer lla.Release()
	sv := array.NewStringViewBuilder(mem)
	sv.AppendValues([]string{"a long string beyond twelve bytes", "s", ""}, nil)
	sva := sv.NewArray()
	sv.Release()
	defer sva.Release()

	as := arrow.NewSchema([]arrow.Field{
		{Name: "ls", Type: lsa.DataType(), Nullable: true},
		{Name: "dict", Type: da.DataType(), Nullable: true},
		{Name: "d64", Type: d64a.DataType(), Nullable: true},
		{Name: "ll", Type: lla.DataType(), Nullable: true},
		{Name: "sv", Type: sva.DataType()},
	}, nil)
	rec := array.NewRecordBatch(as, []arrow.Array{lsa, da, d64a, lla, sva}, 3)
	defer rec.Release()
	s, err := SchemaFromArrow(as)
	if err != nil {
		t.Fatal(err)
	}
	sh := NewShredder(s)
	if err := sh.Append(rec); err != nil {
		t.Fatal(err)
	}
	sts := sh.Streams()
	checkStreams(t, s, sts)
	for c := range s.NumColumns() {
		got, err := Assemble(s, c, streamMap(sts), mem)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			if err := equalAt(got.DataType(), false, rec.Column(c), i, got, i); err != nil {
				t.Fatalf("column %d row %d: %v", c, i, err)
			}
		}
		got.Release()
	}
}

// fixedSchema is struct s{a: struct{b int32?, c string}?, l: list<struct{x int64?}>?}, f: flatmap<string, int32?>?
func fixedSchema(t *testing.T) *arrow.Schema {
	t.Helper()
	return arrow.NewSchema([]arrow.Field{
		{Name: "s", Nullable: true, Type: arrow.StructOf(
			arrow.Field{Name: "a", Nullable: true, Type: arrow.StructOf(
				arrow.Field{Name: "b", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
				arrow.Field{Name: "c", Type: arrow.BinaryTypes.String},
			)},
			arrow.Field{Name: "l", Nullable: true, Type: arrow.ListOfField(arrow.Field{Name: "item", Type: arrow.StructOf(
				arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
			)})},
		)},
		{Name: "f", Nullable: true, Metadata: flatMeta, Type: arrow.MapOfFields(
			arrow.Field{Name: "key", Type: arrow.BinaryTypes.String},
			arrow.Field{Name: "value", Type: arrow.PrimitiveTypes.Int32, Nullable: true})},
	}, nil)
}

func TestPathsAndNodes(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	as := fixedSchema(t)
	s, err := SchemaFromArrow(as)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	rec := randRecord(rng, mem, as, 300)
	defer rec.Release()
	sh := NewShredder(s)
	if err := sh.Append(rec); err != nil {
		t.Fatal(err)
	}
	m := streamMap(sh.Streams())
	orig := rec.Column(0).(*array.Struct)

	// A struct-only path: the leaf is row aligned, nulls include ancestors'.
	b, _ := s.Find("s.a.b")
	leaf, err := AssembleNode(s, b, -1, m, mem)
	if err != nil {
		t.Fatal(err)
	}
	oa := orig.Field(0).(*array.Struct)
	ob := oa.Field(0).(*array.Int32)
	for i := range rec.NumRows() {
		r := int(i)
		wantNull := orig.IsNull(r) || oa.IsNull(r) || ob.IsNull(r)
		if leaf.IsNull(r) != wantNull || (!wantNull && leaf.(*array.Int32).Value(r) != ob.Value(r)) {
			t.Fatalf("row %d: leaf null=%v, want %v", r, leaf.IsNull(r), wantNull)
		}
	}
	leaf.Release()

	// A projected path through a list: only s.l.x survives, with only the
	// streams PathStreams names.
	x, _ := s.Find("s.l.element.x")
	sub := map[int]*Stream{}
	for _, id := range s.PathStreams(x) {
		sub[id] = m[id]
	}
	got, err := AssemblePath(s, "s.l.element.x", sub, mem)
	if err != nil {
		t.Fatal(err)
	}
	pt, _ := ProjectedType(s, "s.l.element.x")
	if !arrow.TypeEqual(got.DataType(), pt) || got.DataType().String() != "struct<l: list<item: struct<x: int64 nullable>> nullable>" {
		t.Fatalf("projected type %s", got.DataType())
	}
	ol := orig.Field(1)
	gs := got.(*array.Struct)
	for i := range int(rec.NumRows()) {
		if orig.IsNull(i) != gs.IsNull(i) {
			t.Fatalf("row %d: null mismatch", i)
		}
		if orig.IsNull(i) {
			continue
		}
		if err := equalAt(ol.DataType(), false, ol, i, gs.Field(0), i); err != nil {
			t.Fatalf("row %d: %v", i, err)
		}
	}
	got.Release()

	// One FlatMap key: a map holding only that key.
	for _, c := range s.Column(1).Children {
		got, err := AssemblePath(s, "f."+c.Name, m, mem)
		if err != nil {
			t.Fatal(err)
		}
		om, gm := rec.Column(1).(*array.Map), got.(*array.Map)
		for i := range int(rec.NumRows()) {
			want, has := "", false
			if om.IsValid(i) {
				lo, hi := om.ValueOffsets(i)
				for j := lo; j < hi; j++ {
					if om.Keys().(*array.String).Value(int(j)) == c.Name {
						has = true
						want = om.Items().ValueStr(int(j))
					}
				}
			}
			lo, hi := gm.ValueOffsets(i)
			if gm.IsNull(i) != om.IsNull(i) || (hi-lo == 1) != has || (has && gm.Items().ValueStr(int(lo)) != want) {
				t.Fatalf("key %s row %d: got %v", c.Name, i, gm)
			}
		}
		got.Release()
	}
}

func TestFlatMapKeyDiscovery(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	as := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int32}, fixedSchema(t).Field(1)}, nil)
	s, err := SchemaFromArrow(as)
	if err != nil {
		t.Fatal(err)
	}
	mk := func(keys ...[]string) arrow.RecordBatch {
		ib := array.NewInt32Builder(mem)
		mb := array.NewMapBuilderWithType(mem, as.Field(1).Type.(*arrow.MapType))
		for i, ks := range keys {
			ib.Append(int32(i))
			if ks == nil {
				mb.AppendNull()
				continue
			}
			mb.Append(true)
			for _, k := range ks {
				mb.KeyBuilder().(*array.StringBuilder).Append(k)
				mb.ItemBuilder().(*array.Int32Builder).Append(int32(len(k)))
			}
		}
		a, b := ib.NewArray(), mb.NewArray()
		defer a.Release()
		defer b.Release()
		ib.Release()
		mb.Release()
		return array.NewRecordBatch(as, []arrow.Array{a, b}, int64(len(keys)))
	}
	sh := NewShredder(s)
	r1 := mk([]string{"a"}, nil, []string{})
	defer r1.Release()
	if err := sh.Append(r1); err != nil {
		t.Fatal(err)
	}
	idsBefore := s.NumStreams()
	r2 := mk([]string{"bb", "a"}, []string{"ccc"})
	defer r2.Release()
	if err := sh.Append(r2); err != nil {
		t.Fatal(err)
	}
	if s.NumStreams() != idsBefore+4 {
		t.Fatalf("streams %d -> %d, want +4 (2 keys × inmap+values)", idsBefore, s.NumStreams())
	}
	sts := sh.Streams()
	checkStreams(t, s, sts)
	bb, _ := s.Find("f.bb")
	if got := sts[bb.StreamID(schema.RoleInMap)].Values.([]bool); !slices.Equal(got, []bool{false, false, false, true, false}) {
		t.Fatalf("inmap of bb = %v", got)
	}
	// A duplicate key fails and leaves the streams as they were.
	before := fmt.Sprint(sh.Streams())
	bad := mk([]string{"zz", "zz"})
	defer bad.Release()
	if err := sh.Append(bad); err == nil {
		t.Fatal("duplicate key accepted")
	}
	sts = sh.Streams()
	zz, _ := s.Find("f.zz")
	if zz == nil || sts[zz.StreamID(schema.RoleInMap)].Len != 5 || sts[zz.StreamID(schema.RoleValues)].Len != 0 {
		t.Fatalf("rollback of a new key: %+v", sts[zz.StreamID(schema.RoleInMap)])
	}
	sts = sts[:len(sts)-2]
	if after := fmt.Sprint(sts); after != before {
		t.Fatalf("rollback:\n%s\n%s", before, after)
	}
	// Assembly where the new keys' streams are absent (an older stripe).
	m := streamMap(sh.Streams())
	for _, n := range s.Column(1).Children[1:] {
		for _, id := range n.SubtreeStreams() {
			delete(m, id)
		}
	}
	got, err := Assemble(s, 1, m, mem)
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != `[{["a"] [1]} (null) {[] []} {["a"] [1]} {[] []}]` {
		t.Fatalf("got %v", got)
	}
	got.Release()
}

func TestErrors(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	as := fixedSchema(t)
	s, err := SchemaFromArrow(as)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	rec := randRecord(rng, mem, as, 50)
	defer rec.Release()
	sh := NewShredder(s)
	if err := sh.Append(rec); err != nil {
		t.Fatal(err)
	}
	// Truncated or mistyped streams give ErrCorrupt, never a panic.
	for id := range s.NumStreams() {
		for _, mutate := range []func(st *Stream){
			func(st *Stream) { st.Len /= 2 },
			func(st *Stream) { st.Values = []float64{}; st.Type = encoding.Float64 },
			func(st *Stream) {
				if u, ok := st.Values.([]uint32); ok {
					st.Values = slices.Repeat([]uint32{math.MaxUint32}, len(u))
				}
			},
		} {
			m := streamMap(sh.Streams())
			mutate(m[id])
			for c := range s.NumColumns() {
				a, err := Assemble(s, c, m, mem)
				if err != nil && !errors.Is(err, encoding.ErrCorrupt) {
					t.Fatalf("stream %d: %v", id, err)
				}
				if a != nil {
					a.Release()
				}
			}
		}
	}
	// Mismatched records are refused.
	other := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.PrimitiveTypes.Int8}, as.Field(1)}, nil)
	bad := randRecord(rng, mem, other, 3)
	defer bad.Release()
	if err := sh.Append(bad); err == nil {
		t.Fatal("mismatched record accepted")
	}
	if _, err := SchemaFromArrow(arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.FixedWidthTypes.Float16}}, nil)); !errors.Is(err, encoding.ErrUnsupported) {
		t.Fatalf("float16: %v", err)
	}
}

func TestFlatMapOption(t *testing.T) {
	as := arrow.NewSchema([]arrow.Field{{Name: "m", Type: arrow.MapOf(arrow.PrimitiveTypes.Uint16, arrow.BinaryTypes.String)}}, nil)
	s, err := SchemaFromArrowWith(as, FromArrowOptions{FlatMap: []string{"m"}})
	if err != nil {
		t.Fatal(err)
	}
	if n := s.Column(0); n.Kind != schema.FlatMap || n.KeyKind != schema.Uint16 {
		t.Fatalf("got %s", s)
	}
	if _, err := SchemaFromArrowWith(as, FromArrowOptions{FlatMap: []string{"nope"}}); err == nil {
		t.Fatal("unknown FlatMap path accepted")
	}
	_ = cmp.Compare(1, 2)
}
