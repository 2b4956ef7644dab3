package interop_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/schema"

	"strata/interop"
)

// mapRowsText renders map column i of recs a row at a time: "null" for a
// null map, else the entries in order as {k=v,...} with "<null>" for a
// null value.
func mapRowsText(t *testing.T, recs []arrow.Record, i int) []string {
	t.Helper()
	var out []string
	for _, r := range recs {
		m, ok := r.Column(i).(*array.Map)
		if !ok {
			t.Fatalf("column %d is %s, want a map", i, r.Column(i).DataType())
		}
		keys, items := m.Keys(), m.Items()
		for row := 0; row < m.Len(); row++ {
			if m.IsNull(row) {
				out = append(out, "null")
				continue
			}
			start, end := m.ValueOffsets(row)
			var b strings.Builder
			b.WriteByte('{')
			for j := start; j < end; j++ {
				if j > start {
					b.WriteByte(',')
				}
				if keys.IsNull(int(j)) {
					t.Fatalf("row %d: a null key in a map", row)
				}
				fmt.Fprintf(&b, "%s=%s", keys.ValueStr(int(j)), items.ValueStr(int(j)))
			}
			b.WriteByte('}')
			out = append(out, b.String())
		}
	}
	return out
}

// checkExportedMap exports recs to Parquet, reads the file back with
// arrow-go alone and checks that column col is a spec-valid MAP (key
// REQUIRED) holding want.
func checkExportedMap(t *testing.T, sch *arrow.Schema, recs []arrow.Record, col int, want []string) {
	t.Helper()
	pq := filepath.Join(t.TempDir(), "export.parquet")
	if err := exportFile(pq, sch, recs); err != nil {
		t.Fatal(err)
	}
	back, _, err := readWithArrowGo(pq)
	if err != nil {
		t.Fatalf("arrow-go reading the export: %v", err)
	}
	defer release(back)
	if err := sameStrings(mapRowsText(t, back, col), want); err != nil {
		t.Errorf("export, column %q: %v", sch.Field(col).Name, err)
	}
	pf, err := file.OpenParquetFile(pq, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	g, ok := pf.MetaData().Schema.Root().Field(col).(*schema.GroupNode)
	if !ok || !g.LogicalType().Equals(schema.MapLogicalType{}) {
		t.Fatalf("export: column %d is not a MAP group", col)
	}
	key := g.Field(0).(*schema.GroupNode).Field(0)
	if key.RepetitionType() != parquet.Repetitions.Required {
		t.Errorf("export: map key %s is %s, want required", key.Name(), key.RepetitionType())
	}
}

// TestParquetIncorrectMapSchema imports incorrect_map_schema.parquet,
// written by Presto/Athena: one row of a MAP whose key is OPTIONAL,
// which the Parquet format forbids and arrow-go refuses. Its
// parquet-testing README gives the value, {"name": "report", "parent":
// "another"}; the order of the entries is the file's, which arrow-go's
// low-level column reader (which does not mind the schema) shows. The
// export is a valid MAP that arrow-go reads to the same entries.
func TestParquetIncorrectMapSchema(t *testing.T) {
	src := filepath.Join(parquetTesting(t), "data", "incorrect_map_schema.parquet")
	if _, _, err := readWithArrowGo(src); err == nil {
		t.Log("arrow-go now reads the file itself: ownTest and this test may go")
	}
	st := filepath.Join(t.TempDir(), "t.strata")
	got, sch := importScanned(t, src, st, testRead)
	wantType := arrow.MapOf(arrow.BinaryTypes.String, arrow.BinaryTypes.String)
	if sch.NumFields() != 1 || sch.Field(0).Name != "my_map" || !arrow.TypeEqual(sch.Field(0).Type, wantType) {
		t.Fatalf("schema %s, want my_map: %s", sch, wantType)
	}
	want := []string{"{parent=another,name=report}"}
	if err := sameStrings(rawStrings(t, src), []string{"parent", "name", "another", "report"}); err != nil {
		t.Errorf("the file's key and value columns: %v", err)
	}
	if err := sameStrings(mapRowsText(t, got, 0), want); err != nil {
		t.Errorf("import: %v", err)
	}
	checkExportedMap(t, sch, got, 0, want)
}

// rawStrings reads the leaf BYTE_ARRAY columns of the first row group of
// path with arrow-go's low-level reader, a column after another.
func rawStrings(t *testing.T, path string) []string {
	t.Helper()
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	rg := pf.RowGroup(0)
	var out []string
	for i := 0; i < rg.NumColumns(); i++ {
		cr, err := rg.Column(i)
		if err != nil {
			t.Fatal(err)
		}
		br, ok := cr.(*file.ByteArrayColumnChunkReader)
		if !ok {
			t.Fatalf("column %d is not BYTE_ARRAY", i)
		}
		vals := make([]parquet.ByteArray, 16)
		def, rep := make([]int16, 16), make([]int16, 16)
		_, n, err := br.ReadBatch(16, vals, def, rep)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vals[:n] {
			out = append(out, string(v))
		}
	}
	return out
}

// writeOptionalKeyMaps writes, with arrow-go's low-level writer and a
// schema built by hand, rows of two maps whose keys are OPTIONAL:
//
//	optional group m1 (MAP) { repeated group key_value { optional binary key (STRING); optional int64 value; } }
//	required group m2 (MAP) { repeated group key_value { optional binary key (STRING); required int64 value; } }
//	required int64 id;
//
// with the definition and repetition levels the Parquet format gives
// them. It returns the rows as mapRowsText renders them. nullKeyRow >= 0
// gives that row of m1 an entry with a null key.
func writeOptionalKeyMaps(t *testing.T, path string, rows, nullKeyRow int, version parquet.DataPageVersion) (m1, m2 []string) {
	t.Helper()
	must := func(n schema.Node, err error) schema.Node {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	str := schema.StringLogicalType{}
	mapGroup := func(name string, rep, valueRep parquet.Repetition) schema.Node {
		kv := must(schema.NewGroupNode("key_value", parquet.Repetitions.Repeated, schema.FieldList{
			must(schema.NewPrimitiveNodeLogical("key", parquet.Repetitions.Optional, str, parquet.Types.ByteArray, -1, -1)),
			must(schema.NewPrimitiveNode("value", valueRep, parquet.Types.Int64, -1, -1)),
		}, -1))
		return must(schema.NewGroupNodeLogical(name, rep, schema.FieldList{kv}, schema.MapLogicalType{}, -1))
	}
	root := must(schema.NewGroupNode("schema", parquet.Repetitions.Required, schema.FieldList{
		mapGroup("m1", parquet.Repetitions.Optional, parquet.Repetitions.Optional),
		mapGroup("m2", parquet.Repetitions.Required, parquet.Repetitions.Required),
		must(schema.NewPrimitiveNode("id", parquet.Repetitions.Required, parquet.Types.Int64, -1, -1)),
	}, -1)).(*schema.GroupNode)

	// column: values, definition levels, repetition levels
	type column struct {
		keys      []parquet.ByteArray
		vals      []int64
		def, rep  []int16
		vdef      []int16
		keyValues int
	}
	var c1, c2 column
	var ids []int64
	for i := range rows {
		ids = append(ids, int64(i))
		// m1: levels 0 null map, 1 empty, 2 null key or null value, 3 present
		switch {
		case i%5 == 0:
			c1.def, c1.vdef, c1.rep = append(c1.def, 0), append(c1.vdef, 0), append(c1.rep, 0)
			m1 = append(m1, "null")
		case i%5 == 1:
			c1.def, c1.vdef, c1.rep = append(c1.def, 1), append(c1.vdef, 1), append(c1.rep, 0)
			m1 = append(m1, "{}")
		default:
			n := i%7 + 1
			if i%50 == 2 {
				n = 300 // many entries
			}
			var b strings.Builder
			b.WriteByte('{')
			for j := range n {
				rep := int16(1)
				if j == 0 {
					rep = 0
				} else {
					b.WriteByte(',')
				}
				c1.rep = append(c1.rep, rep)
				k := fmt.Sprintf("k%d.%d", i, j)
				if i == nullKeyRow && j == n-1 {
					c1.def = append(c1.def, 2) // the entry is there, its key null
				} else {
					c1.def = append(c1.def, 3)
					c1.keys = append(c1.keys, parquet.ByteArray(k))
				}
				if j%3 == 1 {
					c1.vdef = append(c1.vdef, 2)
					fmt.Fprintf(&b, "%s=(null)", k)
				} else {
					c1.vdef = append(c1.vdef, 3)
					v := int64(i)*1000 + int64(j)
					c1.vals = append(c1.vals, v)
					fmt.Fprintf(&b, "%s=%d", k, v)
				}
			}
			b.WriteByte('}')
			m1 = append(m1, b.String())
		}
		// m2: levels 0 empty, 1 entry with a null key, 2 key present;
		// the required value has 0 empty, 1 present
		if i%4 == 0 {
			c2.def, c2.vdef, c2.rep = append(c2.def, 0), append(c2.vdef, 0), append(c2.rep, 0)
			m2 = append(m2, "{}")
			continue
		}
		var b strings.Builder
		b.WriteByte('{')
		for j := range i%3 + 1 {
			rep := int16(1)
			if j == 0 {
				rep = 0
			} else {
				b.WriteByte(',')
			}
			k := fmt.Sprintf("x%d", j)
			v := int64(-i - j)
			c2.rep, c2.def, c2.vdef = append(c2.rep, rep), append(c2.def, 2), append(c2.vdef, 1)
			c2.keys, c2.vals = append(c2.keys, parquet.ByteArray(k)), append(c2.vals, v)
			fmt.Fprintf(&b, "%s=%d", k, v)
		}
		b.WriteByte('}')
		m2 = append(m2, b.String())
	}

	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	props := parquet.NewWriterProperties(parquet.WithDataPageSize(4<<10), parquet.WithDataPageVersion(version))
	w := file.NewParquetWriter(f, root, file.WithWriterProps(props))
	rg := w.AppendRowGroup()
	for _, c := range []column{c1, c2} {
		cw, err := rg.NextColumn()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cw.(*file.ByteArrayColumnChunkWriter).WriteBatch(c.keys, c.def, c.rep); err != nil {
			t.Fatal(err)
		}
		if cw, err = rg.NextColumn(); err != nil {
			t.Fatal(err)
		}
		if _, err := cw.(*file.Int64ColumnChunkWriter).WriteBatch(c.vals, c.vdef, c.rep); err != nil {
			t.Fatal(err)
		}
	}
	cw, err := rg.NextColumn()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cw.(*file.Int64ColumnChunkWriter).WriteBatch(ids, nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := rg.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return m1, m2
}

// TestParquetOptionalMapKeys writes maps with optional keys (no key
// null) over several pages and batches, with null, empty and large
// maps, with both data page versions, and checks that import reads every
// entry as written, as maps with non-null keys, and that the export is a
// valid MAP arrow-go reads to the same entries. A file with one null key
// must fail, naming the null key.
func TestParquetOptionalMapKeys(t *testing.T) {
	const rows = 2600 // over two batches of testRead
	for _, version := range []parquet.DataPageVersion{parquet.DataPageV1, parquet.DataPageV2} {
		t.Run(fmt.Sprintf("page-v%d", version+1), func(t *testing.T) {
			dir := t.TempDir()
			src := filepath.Join(dir, "maps.parquet")
			want1, want2 := writeOptionalKeyMaps(t, src, rows, -1, version)
			if _, _, err := readWithArrowGo(src); err == nil || !strings.Contains(err.Error(), "MAP keys must be required") {
				t.Errorf("arrow-go on the file: %v, want its refusal of optional keys", err)
			}
			st := filepath.Join(dir, "t.strata")
			got, sch := importScanned(t, src, st, testRead)
			if n := countBatches(t, src); n != 3 {
				t.Errorf("import read %d batches, want 3", n)
			}
			want := []arrow.Field{
				{Name: "m1", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64), Nullable: true},
				{Name: "m2", Type: arrow.MapOfFields(arrow.Field{Name: "key", Type: arrow.BinaryTypes.String},
					arrow.Field{Name: "value", Type: arrow.PrimitiveTypes.Int64})},
				{Name: "id", Type: arrow.PrimitiveTypes.Int64},
			}
			if sch.NumFields() != len(want) {
				t.Fatalf("schema %s", sch)
			}
			for i, f := range want {
				g := sch.Field(i)
				if g.Name != f.Name || g.Nullable != f.Nullable || !arrow.TypeEqual(g.Type, f.Type) {
					t.Errorf("field %d: %s %s nullable %v, want %s %s nullable %v", i, g.Name, g.Type, g.Nullable, f.Name, f.Type, f.Nullable)
				}
			}
			if err := sameStrings(mapRowsText(t, got, 0), want1); err != nil {
				t.Errorf("import, m1: %v", err)
			}
			if err := sameStrings(mapRowsText(t, got, 1), want2); err != nil {
				t.Errorf("import, m2: %v", err)
			}
			ids := columnValues(got, 2)
			for i := range rows {
				if ids[i] != fmt.Sprint(i) {
					t.Fatalf("id %d: %s", i, ids[i])
				}
			}
			checkExportedMap(t, sch, got, 0, want1)
			checkExportedMap(t, sch, got, 1, want2)

			bad := filepath.Join(dir, "nullkey.parquet")
			writeOptionalKeyMaps(t, bad, rows, 2417, version) // in the third batch
			err := importFile(bad, filepath.Join(dir, "bad.strata"), testRead)
			if !errors.Is(err, interop.ErrNullMapKey) || !strings.Contains(err.Error(), `"m1"`) {
				t.Errorf("import of a null key: %v, want ErrNullMapKey naming m1", err)
			}
		})
	}
}

// countBatches counts the batches interop reads from src with testRead.
func countBatches(t *testing.T, src string) int {
	t.Helper()
	r, err := interop.Open(src, testRead)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	recs, err := drain(r.Next)
	defer release(recs)
	if err != nil {
		t.Fatal(err)
	}
	return len(recs)
}
