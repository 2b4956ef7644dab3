package specreader

import (
	"bytes"
	"fmt"
	"math"
	"math/big"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"

	"strata"
)

// arrowValue converts row i of an Arrow array to the Go representation
// the reader uses (assemble.go), so both sides compare with equal.
func arrowValue(a arrow.Array, i int) any {
	if a.IsNull(i) {
		return nil
	}
	switch c := a.(type) {
	case *array.Null:
		return nil
	case *array.Boolean:
		return c.Value(i)
	case *array.Int8:
		return int64(c.Value(i))
	case *array.Int16:
		return int64(c.Value(i))
	case *array.Int32:
		return int64(c.Value(i))
	case *array.Int64:
		return c.Value(i)
	case *array.Uint8:
		return uint64(c.Value(i))
	case *array.Uint16:
		return uint64(c.Value(i))
	case *array.Uint32:
		return uint64(c.Value(i))
	case *array.Uint64:
		return c.Value(i)
	case *array.Float32:
		return c.Value(i)
	case *array.Float64:
		return c.Value(i)
	case *array.String:
		return c.Value(i)
	case *array.LargeString:
		return c.Value(i)
	case *array.StringView:
		return c.Value(i)
	case *array.Binary:
		return append([]byte{}, c.Value(i)...)
	case *array.LargeBinary:
		return append([]byte{}, c.Value(i)...)
	case *array.BinaryView:
		return append([]byte{}, c.Value(i)...)
	case *array.Date32:
		return time.Unix(int64(c.Value(i))*86400, 0).UTC()
	case *array.Timestamp:
		u := c.DataType().(*arrow.TimestampType).Unit
		x, n := int64(c.Value(i)), unitNanos[u]
		return time.Unix(x/(1e9/n), (x%(1e9/n))*n).UTC()
	case *array.Time32:
		u := c.DataType().(*arrow.Time32Type).Unit
		return time.Duration(int64(c.Value(i)) * unitNanos[u])
	case *array.Time64:
		u := c.DataType().(*arrow.Time64Type).Unit
		return time.Duration(int64(c.Value(i)) * unitNanos[u])
	case *array.Duration:
		u := c.DataType().(*arrow.DurationType).Unit
		return time.Duration(int64(c.Value(i)) * unitNanos[u])
	case *array.Decimal32:
		return Decimal{Unscaled: big.NewInt(int64(c.Value(i))), Scale: int(c.DataType().(*arrow.Decimal32Type).Scale)}
	case *array.Decimal64:
		return Decimal{Unscaled: big.NewInt(int64(c.Value(i))), Scale: int(c.DataType().(*arrow.Decimal64Type).Scale)}
	case *array.Decimal128:
		return Decimal{Unscaled: c.Value(i).BigInt(), Scale: int(c.DataType().(*arrow.Decimal128Type).Scale)}
	case *array.Dictionary:
		return arrowValue(c.Dictionary(), c.GetValueIndex(i))
	case *array.Struct:
		st := c.DataType().(*arrow.StructType)
		m := map[string]any{}
		for j := 0; j < c.NumField(); j++ {
			m[st.Field(j).Name] = arrowValue(c.Field(j), i)
		}
		return m
	case *array.Map:
		lo, hi := c.ValueOffsets(i)
		keys, items := c.Keys(), c.Items()
		out := make([]KV, 0, hi-lo)
		for j := int(lo); j < int(hi); j++ {
			out = append(out, KV{arrowValue(keys, j), arrowValue(items, j)})
		}
		return out
	case array.ListLike:
		lo, hi := c.ValueOffsets(i)
		out := make([]any, 0, hi-lo)
		for j := int(lo); j < int(hi); j++ {
			out = append(out, arrowValue(c.ListValues(), j))
		}
		return out
	}
	return fmt.Sprintf("unsupported arrow type %v", a.DataType())
}

// equal compares two row values; floats by bits (NaN payloads included,
// but any NaN matches any NaN), maps and FlatMaps also in sorted key order.
func equal(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case float32:
		y, ok := b.(float32)
		return ok && (math.Float32bits(x) == math.Float32bits(y) || (x != x && y != y))
	case float64:
		y, ok := b.(float64)
		return ok && (math.Float64bits(x) == math.Float64bits(y) || (x != x && y != y))
	case time.Time:
		y, ok := b.(time.Time)
		return ok && x.Equal(y)
	case Decimal:
		y, ok := b.(Decimal)
		return ok && x.Scale == y.Scale && x.Unscaled.Cmp(y.Unscaled) == 0
	case []byte:
		y, ok := b.([]byte)
		return ok && bytes.Equal(x, y)
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !equal(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case []KV:
		y, ok := b.([]KV)
		if !ok || len(x) != len(y) {
			return false
		}
		if kvEqual(x, y) {
			return true
		}
		return kvEqual(sortKV(x), sortKV(y))
	}
	return a == b
}

func kvEqual(x, y []KV) bool {
	for i := range x {
		if !equal(x[i].K, y[i].K) || !equal(x[i].V, y[i].V) {
			return false
		}
	}
	return true
}

func sortKV(x []KV) []KV {
	s := append([]KV{}, x...)
	sort.SliceStable(s, func(i, j int) bool { return fmt.Sprint(s[i].K) < fmt.Sprint(s[j].K) })
	return s
}

// show formats a value for a failure message, shortened.
func show(v any) string {
	s := fmt.Sprintf("%#v", v)
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// readArrow reads every record of an Arrow IPC file (or stream).
func readArrow(t *testing.T, path string) (*arrow.Schema, []arrow.Record) {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	if fr, err := ipc.NewFileReader(fh); err == nil {
		var recs []arrow.Record
		for i := 0; i < fr.NumRecords(); i++ {
			rec, err := fr.Record(i)
			if err != nil {
				t.Fatalf("%s: record %d: %v", path, i, err)
			}
			rec.Retain()
			recs = append(recs, rec)
		}
		return fr.Schema(), recs
	}
	if _, err := fh.Seek(0, 0); err != nil {
		t.Fatal(err)
	}
	sr, err := ipc.NewReader(fh)
	if err != nil {
		t.Fatalf("%s: neither an Arrow file nor a stream: %v", path, err)
	}
	var recs []arrow.Record
	for sr.Next() {
		rec := sr.Record()
		rec.Retain()
		recs = append(recs, rec)
	}
	if err := sr.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return sr.Schema(), recs
}

// compareTable compares the reader's columns with Arrow records, value by
// value, and reports at most a few mismatches per column.
func compareTable(t *testing.T, name string, cols []Column, sch *arrow.Schema, recs []arrow.Record) {
	t.Helper()
	if len(cols) != sch.NumFields() {
		t.Errorf("%s: %d columns, arrow has %d", name, len(cols), sch.NumFields())
		return
	}
	for j, c := range cols {
		if c.Name != sch.Field(j).Name {
			t.Errorf("%s: column %d named %q, arrow %q", name, j, c.Name, sch.Field(j).Name)
		}
		row, bad := 0, 0
		for _, rec := range recs {
			arr := rec.Column(j)
			for i := 0; i < arr.Len(); i++ {
				if row >= len(c.Values) {
					t.Errorf("%s column %q: reader has %d rows, arrow more", name, c.Name, len(c.Values))
					return
				}
				want := arrowValue(arr, i)
				if !equal(c.Values[row], want) {
					bad++
					if bad <= 3 {
						t.Errorf("%s column %q row %d:\n got  %s\n want %s", name, c.Name, row, show(c.Values[row]), show(want))
					}
				}
				row++
			}
		}
		if row != len(c.Values) {
			t.Errorf("%s column %q: reader has %d rows, arrow %d", name, c.Name, len(c.Values), row)
		}
		if bad > 3 {
			t.Errorf("%s column %q: %d mismatching rows in all", name, c.Name, bad)
		}
	}
}

// kinds accumulates the kind tallies of every file the tests read.
var kinds = struct {
	sync.Mutex
	t KindTally
}{t: KindTally{Root: map[uint8]int{}, NullValues: map[uint8]int{}, NullValidity: map[uint8]int{}}}

func addKinds(k KindTally) {
	kinds.Lock()
	defer kinds.Unlock()
	for id, n := range k.Root {
		kinds.t.Root[id] += n
	}
	for id, n := range k.NullValues {
		kinds.t.NullValues[id] += n
	}
	for id, n := range k.NullValidity {
		kinds.t.NullValidity[id] += n
	}
	kinds.t.DefinitionRef += k.DefinitionRef
	kinds.t.ReferenceRef += k.ReferenceRef
	kinds.t.AbsentStreams += k.AbsentStreams
	kinds.t.EmptyStreams += k.EmptyStreams
}

var kindNames = map[uint8]string{1: "Constant", 2: "Trivial", 3: "FixedBitWidth", 4: "BlockFOR", 5: "Varint", 6: "Delta", 7: "RLE",
	8: "Dictionary", 9: "MainlyConstant", 10: "SparseBool", 11: "Nullable", 12: "FSST", 13: "ALP", 14: "ALP-RD", 15: "FrontCoding",
	16: "DigitText", 17: "SharedDictionary", 18: "Correlated", 19: "DeltaOfDelta", 20: "Chimp", 21: "SharedFSST", 22: "LagDelta",
	23: "NumText", 24: "Scaled", 25: "HexText", 26: "FieldText"}

func formatTally(m map[uint8]int) string {
	var ids []int
	for id := range m {
		ids = append(ids, int(id))
	}
	sort.Ints(ids)
	var b strings.Builder
	for _, id := range ids {
		fmt.Fprintf(&b, " %s(%d)=%d", kindNames[uint8(id)], id, m[uint8(id)])
	}
	return b.String()
}

// TestMain runs the tests, then prints the kinds the whole run decoded:
// the lead wants to know which kinds the corpus reaches.
func TestMain(m *testing.M) {
	code := m.Run()
	kinds.Lock()
	fmt.Printf("root kinds:%s\n", formatTally(kinds.t.Root))
	fmt.Printf("Nullable values child kinds:%s\n", formatTally(kinds.t.NullValues))
	fmt.Printf("Nullable validity child kinds:%s\n", formatTally(kinds.t.NullValidity))
	fmt.Printf("definition chunk look-ups %d, Correlated reference look-ups %d, streams absent from a stripe %d, streams with no chunks %d\n",
		kinds.t.DefinitionRef, kinds.t.ReferenceRef, kinds.t.AbsentStreams, kinds.t.EmptyStreams)
	var missing []string
	for id := uint8(1); id <= 26; id++ {
		if kinds.t.Root[id]+kinds.t.NullValues[id]+kinds.t.NullValidity[id] == 0 {
			missing = append(missing, kindNames[id])
		}
	}
	fmt.Printf("kinds never seen at a root or Nullable child: %s\n", strings.Join(missing, ", "))
	kinds.Unlock()
	os.Exit(code)
}

// writeStrata writes recs with the Go writer (the oracle) and returns the
// file's bytes.
func writeStrata(t *testing.T, sch *arrow.Schema, recs []arrow.Record, opts *strata.WriteOptions) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := strata.NewWriter(&buf, sch, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
