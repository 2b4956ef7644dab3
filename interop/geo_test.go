package interop

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// TestWKBTypeMetadata checks that every Parquet annotation survives the
// extension's serialization exactly (set and unset CRS and algorithm
// told apart), that the serialized form carries GeoArrow's members with
// Parquet's defaults written out, and how another GeoArrow producer's
// metadata is read.
func TestWKBTypeMetadata(t *testing.T) {
	wkb := arrow.GetExtensionType(WKBExtensionName)
	if _, ok := wkb.(*WKBType); !ok {
		t.Fatalf("registered %s is %T", WKBExtensionName, wkb)
	}
	cases := []struct {
		geo       ParquetGeo
		crs, edge string // GeoArrow's members
		logical   schema.LogicalType
	}{
		{ParquetGeo{}, "OGC:CRS84", "", schema.GeometryLogicalType{}},
		{ParquetGeo{CRS: "srid:5070"}, "srid:5070", "", schema.GeometryLogicalType{Crs: "srid:5070"}},
		{ParquetGeo{Geography: true}, "OGC:CRS84", "spherical", schema.GeographyLogicalType{}},
		{ParquetGeo{Geography: true, Algorithm: "spherical"}, "OGC:CRS84", "spherical", schema.GeographyLogicalType{Algorithm: "spherical"}},
		{ParquetGeo{Geography: true, CRS: "OGC:CRS84", Algorithm: "vincenty"}, "OGC:CRS84", "vincenty", schema.GeographyLogicalType{Crs: "OGC:CRS84", Algorithm: "vincenty"}},
	}
	for _, c := range cases {
		typ, err := NewWKBType(arrow.BinaryTypes.Binary, c.geo)
		if err != nil {
			t.Fatal(err)
		}
		if !typ.ParquetLogicalType().Equals(c.logical) {
			t.Errorf("%+v: logical type %v, want %v", c.geo, typ.ParquetLogicalType(), c.logical)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(typ.Serialize()), &m); err != nil {
			t.Fatal(err)
		}
		if m["crs"] != c.crs || (c.edge != "" && m["edges"] != c.edge) || (c.edge == "" && m["edges"] != nil) {
			t.Errorf("%+v: GeoArrow members crs=%v edges=%v, want %q %q", c.geo, m["crs"], m["edges"], c.crs, c.edge)
		}
		back, err := wkb.Deserialize(arrow.BinaryTypes.Binary, typ.Serialize())
		if err != nil {
			t.Fatal(err)
		}
		if !arrow.TypeEqual(back, typ) || back.(*WKBType).Geo() != c.geo {
			t.Errorf("%+v: deserialized as %+v", c.geo, back.(*WKBType).Geo())
		}
		// what arrow-go asks the registered type on reading the annotation
		read, err := wkb.(*WKBType).ArrowTypeFromParquet(c.logical, arrow.BinaryTypes.Binary)
		if err != nil || read.(*WKBType).Geo() != c.geo {
			t.Errorf("%v read as %+v (%v), want %+v", c.logical, read, err, c.geo)
		}
	}
	if typ, err := wkb.(*WKBType).ArrowTypeFromParquet(schema.StringLogicalType{}, arrow.BinaryTypes.Binary); typ != nil || err != nil {
		t.Errorf("a STRING column claimed: %v, %v", typ, err)
	}

	// metadata of another GeoArrow producer (no "parquet" member)
	foreign := []struct {
		meta string
		want ParquetGeo
	}{
		{"", ParquetGeo{}},
		{"{}", ParquetGeo{}},
		{`{"crs":"EPSG:4326"}`, ParquetGeo{CRS: "EPSG:4326"}},
		{`{"crs":"EPSG:4326","edges":"planar"}`, ParquetGeo{CRS: "EPSG:4326"}},
		{`{"edges":"spherical"}`, ParquetGeo{Geography: true, Algorithm: "spherical"}},
	}
	for _, c := range foreign {
		got, err := wkb.Deserialize(arrow.BinaryTypes.LargeBinary, c.meta)
		if err != nil {
			t.Fatalf("%q: %v", c.meta, err)
		}
		if got.(*WKBType).Geo() != c.want {
			t.Errorf("%q: read as %+v, want %+v", c.meta, got.(*WKBType).Geo(), c.want)
		}
	}
	for _, bad := range []string{`{"crs":`, `[1]`, `{"parquet":{"algorithm":"vincenty"}}`} {
		if _, err := wkb.Deserialize(arrow.BinaryTypes.Binary, bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if _, err := wkb.Deserialize(arrow.BinaryTypes.String, "{}"); err == nil {
		t.Error("string storage accepted")
	}
}

// TestWKBParquetExport writes a WKB column built in Go to Parquet and
// checks the annotation and the values in the file arrow-go reads back.
func TestWKBParquetExport(t *testing.T) {
	geo := ParquetGeo{Geography: true, CRS: "srid:4326", Algorithm: "vincenty"}
	typ, err := NewWKBType(arrow.BinaryTypes.Binary, geo)
	if err != nil {
		t.Fatal(err)
	}
	// POINT(1 2) and POINT(3 4) in little-endian WKB, and a null
	point := func(x, y float64) []byte {
		b := []byte{1, 1, 0, 0, 0} // little-endian, type 1 (point)
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
		return binary.LittleEndian.AppendUint64(b, math.Float64bits(y))
	}
	want := [][]byte{point(1, 2), nil, point(3, 4)}
	sb := array.NewBinaryBuilder(memory.DefaultAllocator, arrow.BinaryTypes.Binary)
	for _, v := range want {
		if v == nil {
			sb.AppendNull()
		} else {
			sb.Append(v)
		}
	}
	storage := sb.NewArray()
	defer storage.Release()
	col := array.NewExtensionArrayWithStorage(typ, storage)
	defer col.Release()
	sch := arrow.NewSchema([]arrow.Field{{Name: "shape", Type: typ, Nullable: true}}, nil)
	rec := array.NewRecord(sch, []arrow.Array{col}, int64(len(want)))
	defer rec.Release()

	path := filepath.Join(t.TempDir(), "geo.parquet")
	writeFile(t, path, rec)
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	lt := pf.MetaData().Schema.Column(0).LogicalType()
	pf.Close()
	if !lt.Equals(schema.GeographyLogicalType{Crs: "srid:4326", Algorithm: "vincenty"}) {
		t.Fatalf("written with logical type %v", lt)
	}
	r, err := Open(path, ReadOptions{KeepTypes: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got, ok := r.Schema().Field(0).Type.(*WKBType); !ok || got.Geo() != geo {
		t.Fatalf("read back as %s", r.Schema().Field(0).Type)
	}
	back, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	defer back.Release()
	vals := back.Column(0).(array.ExtensionArray).Storage().(*array.Binary)
	if vals.Len() != len(want) {
		t.Fatalf("%d values, want %d", vals.Len(), len(want))
	}
	for i, w := range want {
		if (w == nil) != vals.IsNull(i) || (w != nil && string(vals.Value(i)) != string(w)) {
			t.Errorf("value %d: %x (null %v), want %x", i, vals.Value(i), vals.IsNull(i), w)
		}
	}
}

// writeFile writes rec to path, in the format of its extension.
func writeFile(t *testing.T, path string, rec arrow.Record) {
	t.Helper()
	s, err := Create(path, rec.Schema(), WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// FuzzWKBDeserialize feeds the extension arbitrary metadata, as an Arrow
// IPC file may carry: an error or a type, never a panic; and a type it
// accepts serializes to metadata that reads back as the same type.
func FuzzWKBDeserialize(f *testing.F) {
	f.Add(`{"crs":"OGC:CRS84","edges":"spherical","parquet":{"geography":true}}`)
	f.Add(`{"crs":"EPSG:4326"}`)
	f.Add(`{"parquet":{"algorithm":"vincenty"}}`)
	f.Add(``)
	f.Fuzz(func(t *testing.T, meta string) {
		var w WKBType
		typ, err := w.Deserialize(arrow.BinaryTypes.Binary, meta)
		if err != nil {
			return
		}
		back, err := w.Deserialize(arrow.BinaryTypes.Binary, typ.Serialize())
		if err != nil || !arrow.TypeEqual(back, typ) {
			t.Fatalf("%q read as %v, its serialization %q as %v (%v)", meta, typ, typ.Serialize(), back, err)
		}
		_ = typ.(*WKBType).ParquetLogicalType()
	})
}
