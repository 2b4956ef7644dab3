package specreader

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/timeseries"
	"strata/write"
)

// openTS opens a file and reads and verifies its series index.
func openTS(t *testing.T, data []byte) (*File, *TimeSeries, TSReport) {
	t.Helper()
	f, err := Open(data)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	ts, err := f.ReadTimeSeries()
	if err != nil {
		t.Fatalf("index: %v", err)
	}
	rep, err := f.VerifyTimeSeries(ts)
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	return f, ts, rep
}

// TestTSGolden parses the index of every time-series golden file and
// checks it against the decoded columns.
func TestTSGolden(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("..", "timeseries", "testdata", "golden", "*.strata"))
	if len(paths) == 0 {
		t.Fatal("no time-series golden files")
	}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			_, ts, rep := openTS(t, data)
			m := ts.Model
			t.Logf("model: keys %v time %d meas %v series %d rows %d units %d t[%d,%d] chunk %d/%d bs %d height %d unitpages %d statpages %d bloom %d/%d pages %d",
				m.Keys, m.Time, m.Measurements, m.Series, m.Rows, m.Units, m.TMin, m.TMax, m.ChunkRows, m.MinChunkRows, m.BlockSize, m.Height,
				len(m.UnitPages), len(m.StatPages), m.BloomBlocks, m.BloomPerPage, len(m.BloomPages))
			t.Logf("report: %+v inner %d leaves %d", rep, ts.InnerPages, ts.LeafPages)
		})
	}
}

// tsRow is one generated row of a time-series table.
type tsRow struct {
	key  []any // string, int64 or uint64 per key column
	time int64
	f64  *float64
	i32  *int32
	str  *string
	b    bool
	u16  *uint16
	f32  *float32
}

// tsCase is one table the oracle writes.
type tsCase struct {
	name     string
	keys     []arrow.DataType // String, Int32, Int64 or Uint64
	timeType arrow.DataType   // Int64 or a Timestamp
	lengths  []int            // rows per series
	shuffle  bool             // rows arrive in random order (the writer sorts)
	revKeys  bool             // the model lists the key columns in reverse schema order
	batch    int
	opts     timeseries.WriterOptions
}

// genRows generates the rows of c: series s has lengths[s] rows with a
// key derived from s, times at a regular step with gaps and repeats, and
// measurements with nulls (some series have none of a measurement).
func genRows(c tsCase, rng *rand.Rand) []tsRow {
	var rows []tsRow
	for s, n := range c.lengths {
		key := make([]any, len(c.keys))
		for q, kt := range c.keys {
			// The first component repeats over neighbouring series, so
			// prefixes are shared; the last one makes the key unique.
			v := s
			if q == 0 && len(c.keys) > 1 {
				v = s / 3
			}
			switch kt.ID() {
			case arrow.STRING:
				key[q] = fmt.Sprintf("host_%0*d", 2+v%3, v)
			case arrow.INT32:
				key[q] = int64(v*37 - 400)
			case arrow.INT64:
				key[q] = int64(v*1000003) - 1<<40
			case arrow.UINT64:
				key[q] = uint64(v)*0x0123456789 + 1<<63
			}
		}
		t := int64(1_600_000_000_000) + int64(s)*13 - int64(rng.Intn(100))
		for i := 0; i < n; i++ {
			switch {
			case i > 0 && i%11 == 0:
				// repeated time
			case i%17 == 16:
				t += 1000 + int64(rng.Intn(50)) // a gap
			default:
				t += 10
			}
			r := tsRow{key: key, time: t, b: (i+s)%3 == 0}
			if i%5 != 2 && s%4 != 1 {
				v := float64(i)*1.5 - float64(s) + rng.Float64()
				r.f64 = &v
			}
			if i%7 != 3 {
				v := int32(rng.Intn(2000) - 1000)
				r.i32 = &v
			}
			if i%3 != 1 && s%5 != 2 {
				v := fmt.Sprintf("v%d", rng.Intn(50))
				r.str = &v
			}
			if i%4 != 0 || n == 1 {
				v := uint16(rng.Intn(65536))
				r.u16 = &v
			}
			if s%6 != 3 {
				v := float32(rng.NormFloat64())
				r.f32 = &v
			}
			rows = append(rows, r)
		}
	}
	return rows
}

// canonKey is the canonical form of a generated key (FORMAT.md,
// "Table model and layout rules").
func canonKey(k []any) [][]byte {
	out := make([][]byte, len(k))
	for i, v := range k {
		switch x := v.(type) {
		case string:
			out[i] = []byte(x)
		case int64:
			out[i] = CanonicalInt(x)
		case uint64:
			out[i] = CanonicalUint(x)
		}
	}
	return out
}

// tsSchema is the Arrow schema of c.
func tsSchema(c tsCase) *arrow.Schema {
	var fs []arrow.Field
	for q, kt := range c.keys {
		fs = append(fs, arrow.Field{Name: fmt.Sprintf("k%d", q), Type: kt})
	}
	fs = append(fs,
		arrow.Field{Name: "time", Type: c.timeType},
		arrow.Field{Name: "f64", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		arrow.Field{Name: "i32", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		arrow.Field{Name: "str", Type: arrow.BinaryTypes.String, Nullable: true},
		arrow.Field{Name: "b", Type: arrow.FixedWidthTypes.Boolean},
		arrow.Field{Name: "u16", Type: arrow.PrimitiveTypes.Uint16, Nullable: true},
		arrow.Field{Name: "f32", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
	)
	return arrow.NewSchema(fs, nil)
}

// tsRecords builds record batches of rows.
func tsRecords(c tsCase, sch *arrow.Schema, rows []tsRow) []arrow.Record {
	mem := memory.NewGoAllocator()
	var recs []arrow.Record
	nk := len(c.keys)
	for lo := 0; lo < len(rows); lo += c.batch {
		rb := array.NewRecordBuilder(mem, sch)
		for _, r := range rows[lo:min(len(rows), lo+c.batch)] {
			for q, kt := range c.keys {
				switch kt.ID() {
				case arrow.STRING:
					rb.Field(q).(*array.StringBuilder).Append(r.key[q].(string))
				case arrow.INT32:
					rb.Field(q).(*array.Int32Builder).Append(int32(r.key[q].(int64)))
				case arrow.INT64:
					rb.Field(q).(*array.Int64Builder).Append(r.key[q].(int64))
				case arrow.UINT64:
					rb.Field(q).(*array.Uint64Builder).Append(r.key[q].(uint64))
				}
			}
			switch b := rb.Field(nk).(type) {
			case *array.Int64Builder:
				b.Append(r.time)
			case *array.TimestampBuilder:
				b.Append(arrow.Timestamp(r.time))
			}
			appendOpt(rb.Field(nk+1).(*array.Float64Builder), r.f64)
			appendOpt(rb.Field(nk+2).(*array.Int32Builder), r.i32)
			appendOpt(rb.Field(nk+3).(*array.StringBuilder), r.str)
			rb.Field(nk + 4).(*array.BooleanBuilder).Append(r.b)
			appendOpt(rb.Field(nk+5).(*array.Uint16Builder), r.u16)
			appendOpt(rb.Field(nk+6).(*array.Float32Builder), r.f32)
		}
		recs = append(recs, rb.NewRecord())
		rb.Release()
	}
	return recs
}

// appendOpt appends *v or a null.
func appendOpt[T any, B interface {
	Append(T)
	AppendNull()
}](b B, v *T) {
	if v == nil {
		b.AppendNull()
	} else {
		b.Append(*v)
	}
}

// expSeries is what the index must say of one series, computed from the
// generated rows.
type expSeries struct {
	key        [][]byte
	text       []string
	first      int
	rows       int
	tmin, tmax int64
	last       []TSLast // f64, i32, str, b, u16, f32
}

// expected sorts the rows as the chapter says the writer does (by key, then
// time, ties in input order) and derives every series.
func expected(rows []tsRow, rev bool) ([]tsRow, []expSeries) {
	sorted := make([]tsRow, len(rows))
	for i, r := range rows {
		sorted[i] = r
		if rev {
			k := make([]any, len(r.key))
			for q := range k {
				k[q] = r.key[len(k)-1-q]
			}
			sorted[i].key = k
		}
	}
	sort.SliceStable(sorted, func(i, j int) bool {
		if c := compareKeys(canonKey(sorted[i].key), canonKey(sorted[j].key)); c != 0 {
			return c < 0
		}
		return sorted[i].time < sorted[j].time
	})
	var out []expSeries
	for i := 0; i < len(sorted); {
		k := canonKey(sorted[i].key)
		j := i
		for j < len(sorted) && compareKeys(canonKey(sorted[j].key), k) == 0 {
			j++
		}
		e := expSeries{key: k, first: i, rows: j - i, tmin: sorted[i].time, tmax: sorted[j-1].time, last: make([]TSLast, 6)}
		for _, v := range sorted[i].key {
			e.text = append(e.text, fmt.Sprint(v))
		}
		for r := i; r < j; r++ {
			x := sorted[r]
			set := func(q int, ok bool, v any) {
				if ok {
					e.last[q] = TSLast{Has: true, Time: x.time, Value: v}
				}
			}
			if x.f64 != nil {
				set(0, true, *x.f64)
			}
			if x.i32 != nil {
				set(1, true, int64(*x.i32))
			}
			if x.str != nil {
				set(2, true, []byte(*x.str))
			}
			set(3, true, x.b)
			if x.u16 != nil {
				set(4, true, uint64(*x.u16))
			}
			if x.f32 != nil {
				set(5, true, float64(*x.f32))
			}
		}
		out = append(out, e)
		i = j
	}
	return sorted, out
}

// lengths returns n series lengths cycling through a list that covers
// series of one row, shorter than a block, between minChunkRows and
// chunkRows, and several chunks long.
func lengths(n int, base []int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = base[i%len(base)]
	}
	return out
}

// TestTSOracle writes generated tables with the Go time-series writer and
// checks the index value by value: against the decoded columns
// (VerifyTimeSeries), against the generated rows, and against what the Go
// time-series reader reports through its public API.
func TestTSOracle(t *testing.T) {
	ms := arrow.FixedWidthTypes.Timestamp_ms
	us := arrow.FixedWidthTypes.Timestamp_us
	cases := []tsCase{
		{name: "no-keys-int64", timeType: arrow.PrimitiveTypes.Int64, lengths: []int{1500}, batch: 400,
			opts: timeseries.WriterOptions{ChunkRows: 256, MinChunkRows: 32, BlockSize: 32}},
		{name: "string-key-ms", keys: []arrow.DataType{arrow.BinaryTypes.String}, timeType: ms,
			lengths: lengths(40, []int{1, 3, 7, 20, 31, 32, 64, 65, 300, 1000, 2}), shuffle: true, batch: 777,
			opts: timeseries.WriterOptions{ChunkRows: 64, MinChunkRows: 32, BlockSize: 16, PageBytes: 512}},
		{name: "int-string-keys-us-many", keys: []arrow.DataType{arrow.PrimitiveTypes.Int32, arrow.BinaryTypes.String}, timeType: us,
			lengths: lengths(700, []int{1, 2, 5, 9, 40, 3, 130}), shuffle: true, batch: 5000,
			opts: timeseries.WriterOptions{ChunkRows: 128, MinChunkRows: 16, BlockSize: 8, PageBytes: 256}},
		{name: "uint-int-keys-sorted-stripes", keys: []arrow.DataType{arrow.PrimitiveTypes.Uint64, arrow.PrimitiveTypes.Int64}, timeType: arrow.PrimitiveTypes.Int64,
			lengths: lengths(90, []int{4000, 17, 1, 600, 33}), batch: 1000,
			opts: timeseries.WriterOptions{Sorted: true, ChunkRows: 1000, MinChunkRows: 100, PageBytes: 300, Table: write.Options{StripeBytes: 256 << 10, StripeGroup: 2}}},
		{name: "reversed-keys-binary-chunks", keys: []arrow.DataType{arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64}, timeType: ms, revKeys: true,
			lengths: lengths(50, []int{3, 90, 7, 400}), shuffle: true, batch: 300,
			opts: timeseries.WriterOptions{ChunkRows: 128, MinChunkRows: 20, BlockSize: 16, PageBytes: 400, Table: write.Options{ChunkBytes: 64}}},
		{name: "defaults", keys: []arrow.DataType{arrow.BinaryTypes.String}, timeType: us,
			lengths: lengths(30, []int{10000, 500, 1, 1200, 9000}), shuffle: true, batch: 8192},
	}
	for ci, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewSource(int64(ci + 1)))
			rows := genRows(c, rng)
			if c.shuffle {
				rng.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
			}
			_, exp := expected(rows, c.revKeys)
			sch := tsSchema(c)
			recs := tsRecords(c, sch, rows)
			var keyNames []string
			for q := range c.keys {
				keyNames = append(keyNames, fmt.Sprintf("k%d", q))
			}
			if c.revKeys {
				slices.Reverse(keyNames)
			}
			path := filepath.Join(t.TempDir(), "ts.strata")
			w, err := timeseries.Create(path, sch, timeseries.Model{Keys: keyNames, Time: "time"}, &c.opts)
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
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			f, ts, rep := openTS(t, data)
			m := ts.Model
			t.Logf("%d bytes, %d stripes; model series %d rows %d units %d chunk %d/%d bs %d height %d pages unit %d stat %d bloom %d (%d blocks); dir inner %d leaves %d",
				len(data), len(f.Stripes), m.Series, m.Rows, m.Units, m.ChunkRows, m.MinChunkRows, m.BlockSize, m.Height, len(m.UnitPages), len(m.StatPages), len(m.BloomPages), m.BloomBlocks, ts.InnerPages, ts.LeafPages)
			t.Logf("report: %+v", rep)

			// The index against the generated rows.
			if len(ts.Series) != len(exp) || m.Rows != uint64(len(rows)) {
				t.Fatalf("index: %d series %d rows, generated %d series %d rows", len(ts.Series), m.Rows, len(exp), len(rows))
			}
			tmin, tmax := exp[0].tmin, exp[0].tmax
			for i, e := range exp {
				s := ts.Series[i]
				if compareKeys(s.Key, e.key) != 0 || s.FirstRow != uint64(e.first) || s.Rows != uint64(e.rows) || s.TMin != e.tmin || s.TMax != e.tmax {
					t.Fatalf("series %d: index key %q rows [%d,+%d) t[%d,%d], generated %q [%d,+%d) t[%d,%d]", i, s.Key, s.FirstRow, s.Rows, s.TMin, s.TMax, e.key, e.first, e.rows, e.tmin, e.tmax)
				}
				for q := range e.last {
					g, x := s.Last[q], e.last[q]
					if g.Has != x.Has || g.Has && (g.Time != x.Time || !sameValue(g.Value, x.Value)) {
						t.Fatalf("series %d measurement %d: last %+v, generated %+v", i, q, g, x)
					}
				}
				tmin, tmax = min(tmin, e.tmin), max(tmax, e.tmax)
			}
			if m.TMin != tmin || m.TMax != tmax {
				t.Errorf("model time [%d,%d], generated [%d,%d]", m.TMin, m.TMax, tmin, tmax)
			}
			if c.opts.ChunkRows != 0 && (m.ChunkRows != uint64(c.opts.ChunkRows) || m.MinChunkRows != uint64(c.opts.MinChunkRows)) {
				t.Errorf("model chunk rows %d/%d, written with %d/%d", m.ChunkRows, m.MinChunkRows, c.opts.ChunkRows, c.opts.MinChunkRows)
			}
			if want := c.opts.BlockSize; want != 0 && rep.BlockSizes[want] != sumTally(rep.BlockSizes) {
				t.Errorf("time chunk block sizes %v, written with %d", rep.BlockSizes, want)
			}
			// The B-tree descent finds every series by key and by ordinal,
			// reading one page per level below the root.
			for i, s := range ts.Series {
				for _, byOrd := range []bool{false, true} {
					got, ok, reads, err := ts.Find(f, s.Key, uint64(i), byOrd)
					if err != nil || !ok || reads != m.Height || got.Ordinal != s.Ordinal || got.FirstRow != s.FirstRow {
						t.Fatalf("find series %d (by ordinal %v): %+v %v %d reads, %v", i, byOrd, got, ok, reads, err)
					}
				}
				// A key just after this one (its last component extended)
				// is absent.
				if len(s.Key) > 0 {
					k := append([][]byte(nil), s.Key...)
					k[len(k)-1] = append(append([]byte(nil), k[len(k)-1]...), 0)
					if _, ok, _, err := ts.Find(f, k, 0, false); ok || err != nil {
						t.Fatalf("find absent key %q: %v %v", k, ok, err)
					}
				}
			}
			// Absent keys: the bloom filter must reject most of them.
			rejected := 0
			for i := 0; i < 1000; i++ {
				k := canonKey([]any{fmt.Sprintf("absent-%d", i)})
				if !ts.MayContain(k) {
					rejected++
				}
			}
			if ts.Bloom != nil {
				t.Logf("bloom rejects %d of 1000 absent one-component keys", rejected)
			}

			// The index against the Go reader's public API.
			g, err := timeseries.Open(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			ix := g.Index()
			if g.NumSeries() != len(ts.Series) || g.NumRows() != int64(m.Rows) || ix.Units != int(m.Units) || ix.Height != m.Height ||
				ix.UnitPages != len(m.UnitPages) || ix.StatPages != len(m.StatPages) || ix.BloomBlocks != int(m.BloomBlocks) ||
				ix.ChunkRows != int(m.ChunkRows) || ix.MinChunkRows != int(m.MinChunkRows) || ix.BlockSize != int(m.BlockSize) {
				t.Errorf("Go reader: %d series %d rows index %+v; this reader: model %+v", g.NumSeries(), g.NumRows(), ix, m)
			}
			if lo, hi := g.TimeRange(); lo != m.TMin || hi != m.TMax {
				t.Errorf("Go reader time range [%d,%d], model [%d,%d]", lo, hi, m.TMin, m.TMax)
			}
			sel, err := g.Select(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(sel) != len(ts.Series) {
				t.Fatalf("Go reader selects %d series, the index has %d", len(sel), len(ts.Series))
			}
			last, _, err := g.Last(context.Background(), nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if int(last.NumRows()) != len(ts.Series) {
				t.Fatalf("Go reader Last: %d rows for %d series", last.NumRows(), len(ts.Series))
			}
			for q, name := range []string{"f64", "i32", "str", "b", "u16", "f32"} {
				idx := last.Schema().FieldIndices(name)
				if len(idx) != 1 {
					t.Fatalf("Go reader Last has no column %q: %v", name, last.Schema())
				}
				col := last.Column(idx[0])
				for i := range ts.Series {
					x := ts.Series[i].Last[q]
					var v any
					if !col.IsNull(i) {
						switch a := col.(type) {
						case *array.Float64:
							v = a.Value(i)
						case *array.Float32:
							v = float64(a.Value(i))
						case *array.Int32:
							v = int64(a.Value(i))
						case *array.Uint16:
							v = uint64(a.Value(i))
						case *array.String:
							v = []byte(a.Value(i))
						case *array.Boolean:
							v = a.Value(i)
						}
					}
					if x.Has != (v != nil) || x.Has && !sameValue(x.Value, v) {
						t.Fatalf("series %d %s: this reader's last value %+v, Go reader's %v", i, name, x, v)
					}
				}
			}
			for i, s := range sel {
				x := ts.Series[i]
				if s.Ordinal != i || s.FirstRow != int64(x.FirstRow) || s.Rows != int64(x.Rows) || s.MinTime != x.TMin || s.MaxTime != x.TMax || strings.Join(s.Key, "\x00") != strings.Join(exp[i].text, "\x00") {
					t.Fatalf("Go reader series %d: %+v; this reader %+v (key text %q)", i, s, x, exp[i].text)
				}
			}
		})
	}
}

func sumTally(m map[int]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// writeTS writes c with the Go time-series writer and returns the bytes.
func writeTS(t *testing.T, c tsCase, seed int64) []byte {
	t.Helper()
	rng := rand.New(rand.NewSource(seed))
	rows := genRows(c, rng)
	if c.shuffle {
		rng.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
	}
	sch := tsSchema(c)
	var keyNames []string
	for q := range c.keys {
		keyNames = append(keyNames, fmt.Sprintf("k%d", q))
	}
	var buf bytes.Buffer
	w, err := timeseries.NewWriter(&buf, sch, timeseries.Model{Keys: keyNames, Time: "time"}, &c.opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range tsRecords(c, sch, rows) {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestTSMutate changes bytes of ts.model and of ts.index pages (framing
// checksums recomputed, so the page parsers see the change): the reader
// must never panic, and a change to a directory, unit or statistics page
// must be caught by ReadTimeSeries or VerifyTimeSeries.
func TestTSMutate(t *testing.T) {
	c := tsCase{keys: []arrow.DataType{arrow.PrimitiveTypes.Int32, arrow.BinaryTypes.String}, timeType: arrow.PrimitiveTypes.Int64,
		lengths: lengths(60, []int{1, 2, 5, 9, 40, 3, 130}), batch: 1000,
		opts: timeseries.WriterOptions{ChunkRows: 64, MinChunkRows: 16, BlockSize: 8, PageBytes: 256, BloomFPP: 0.3}}
	data := writeTS(t, c, 7)
	f, _, _ := openTS(t, data)
	model, _, err := f.Section("ts.model")
	if err != nil {
		t.Fatal(err)
	}
	var index []byte
	for _, s := range f.Sections {
		if s.Name == "ts.index" {
			index = data[s.Ref.Offset : s.Ref.Offset+s.Ref.Size]
		}
	}
	check := func(m, ix []byte) error {
		return guard(func() error {
			ts, err := f.ParseTimeSeries(m, ix)
			if err != nil {
				return err
			}
			_, err = f.VerifyTimeSeries(ts)
			return err
		})
	}
	rng := rand.New(rand.NewSource(1))
	accepted := 0
	for i := 0; i < 2000; i++ {
		m := append([]byte(nil), model...)
		mutate(rng, m)
		err := check(m, index)
		if err != nil && strings.HasPrefix(err.Error(), "panic") {
			t.Fatalf("ts.model mutation %d: %v", i, err)
		}
		if err == nil && !bytes.Equal(m, model) {
			accepted++
			if accepted <= 5 {
				ts2, _ := f.ParseTimeSeries(m, index)
				t.Logf("accepted ts.model mutation: %+v", diffModel(ts2.Model, ts2Model(t, f, model, index)))
			}
		}
	}
	t.Logf("ts.model: %d of 2000 mutations accepted", accepted)
	for i := 0; i < len(model); i++ {
		if err := check(model[:i], index); err == nil {
			t.Errorf("ts.model truncated to %d bytes: no error", i)
		}
	}

	// The pages of ts.index, found by walking its framing.
	type frame struct{ off, size int }
	var frames []frame
	for off := 0; off < len(index); {
		n := int(binary.LittleEndian.Uint32(index[off:]))
		frames = append(frames, frame{off, 9 + n})
		off += 9 + n
	}
	undetected := map[byte]int{}
	tried := map[byte]int{}
	for i := 0; i < 4000; i++ {
		fr := frames[rng.Intn(len(frames))]
		ix := append([]byte(nil), index...)
		if ix[fr.off+4] != 0 {
			continue // a zstd page: mutating its frame tests zstd, not the index
		}
		payload := ix[fr.off+9 : fr.off+fr.size]
		kind := payload[0]
		mutate(rng, payload[1:])
		binary.LittleEndian.PutUint32(ix[fr.off+5:], sum32(payload))
		if bytes.Equal(ix, index) {
			continue
		}
		tried[kind]++
		err := check(model, ix)
		if err != nil && strings.HasPrefix(err.Error(), "panic") {
			t.Fatalf("ts.index mutation %d: %v", i, err)
		}
		if err == nil {
			undetected[kind]++
		}
	}
	// Pages stored with zstd: the mutated payload goes, uncompressed, to
	// the end of the index and the model (re-encoded) points at it.
	f2, ts, _ := openTS(t, data)
	if !bytes.Equal(encodeModel(ts.Model), model) {
		t.Fatalf("ts.model does not re-encode to its own bytes")
	}
	for i := 0; i < 1500; i++ {
		m := ts.Model
		m.UnitPages = append([]TSPageRef(nil), m.UnitPages...)
		m.StatPages = append([]TSPageRef(nil), m.StatPages...)
		refs := m.UnitPages
		if i%2 == 1 {
			refs = m.StatPages
		}
		q := rng.Intn(len(refs))
		fr := index[refs[q].Off : refs[q].Off+refs[q].Size]
		payload, err := unstore(fr[9:], fr[4], 1<<20, 0)
		if err != nil {
			t.Fatal(err)
		}
		orig := payload
		payload = append([]byte(nil), payload...)
		mutate(rng, payload[1:])
		if bytes.Equal(orig, payload) {
			continue
		}
		ix := append([]byte(nil), index...)
		refs[q].Off, refs[q].Size = uint64(len(ix)), uint64(9+len(payload))
		ix = binary.LittleEndian.AppendUint32(ix, uint32(len(payload)))
		ix = append(ix, 0)
		ix = binary.LittleEndian.AppendUint32(ix, sum32(payload))
		ix = append(ix, payload...)
		err = guard(func() error {
			ts, err := f2.ParseTimeSeries(encodeModel(m), ix)
			if err != nil {
				return err
			}
			_, err = f2.VerifyTimeSeries(ts)
			return err
		})
		if err != nil && strings.HasPrefix(err.Error(), "panic") {
			t.Fatalf("page mutation %d: %v", i, err)
		}
		tried[payload[0]]++
		if err == nil {
			undetected[payload[0]]++
			for k := range payload {
				if payload[k] != orig[k] {
					t.Logf("undetected: page kind %d (%d bytes) byte %d: %#x -> %#x", payload[0], len(payload), k, orig[k], payload[k])
				}
			}
		}
	}
	t.Logf("ts.index: %d pages; mutations tried per page kind %v, undetected %v", len(frames), tried, undetected)
	for k, n := range undetected {
		if k != tsBloom {
			t.Errorf("%d mutations of page kind %d went undetected", n, k)
		}
	}
}

// encodeModel writes a TSModel back in the ts.model layout (the test uses
// it to point the model at rewritten pages).
func encodeModel(m TSModel) []byte {
	b := []byte{m.Version}
	b = binary.AppendUvarint(b, uint64(len(m.Roles)))
	b = append(b, m.Roles...)
	b = binary.AppendUvarint(b, uint64(len(m.Keys)))
	for _, k := range m.Keys {
		b = binary.AppendUvarint(b, uint64(k))
	}
	for _, v := range []uint64{m.Series, m.Rows, m.Units} {
		b = binary.AppendUvarint(b, v)
	}
	b = binary.AppendVarint(b, m.TMin)
	b = binary.AppendVarint(b, m.TMax)
	for _, v := range []uint64{m.ChunkRows, m.MinChunkRows, m.BlockSize, uint64(m.Height), uint64(len(m.Root))} {
		b = binary.AppendUvarint(b, v)
	}
	b = append(b, m.Root...)
	for _, refs := range [][]TSPageRef{m.UnitPages, m.StatPages} {
		b = binary.AppendUvarint(b, uint64(len(refs)))
		prev := uint64(0)
		for _, r := range refs {
			b = binary.AppendUvarint(b, r.First-prev)
			b = binary.AppendUvarint(b, r.Off)
			b = binary.AppendUvarint(b, r.Size)
			prev = r.First
		}
	}
	b = binary.AppendUvarint(b, m.BloomBlocks)
	b = binary.AppendUvarint(b, m.BloomPerPage)
	b = binary.AppendUvarint(b, uint64(len(m.BloomPages)))
	for _, r := range m.BloomPages {
		b = binary.AppendUvarint(b, r.Off)
		b = binary.AppendUvarint(b, r.Size)
	}
	return b
}

// TestTSEdgeCases writes small tables at the edges of the chapter (keys
// and times of other types, nulls in keys, NaN and signed zeros, sums
// that lose precision, an empty table) and checks what the index holds;
// gaps/timeseries.md records the outcomes.
func TestTSEdgeCases(t *testing.T) {
	mem := memory.NewGoAllocator()
	type outcome struct {
		writeErr, verifyErr error
		ts                  *TimeSeries
	}
	got := map[string]outcome{}
	try := func(name string, fs []arrow.Field, keys []string, fill func(rb *array.RecordBuilder)) {
		sch := arrow.NewSchema(fs, nil)
		rb := array.NewRecordBuilder(mem, sch)
		fill(rb)
		rec := rb.NewRecord()
		var buf bytes.Buffer
		w, err := timeseries.NewWriter(&buf, sch, timeseries.Model{Keys: keys, Time: "time"}, nil)
		if err == nil {
			err = w.Write(rec)
			if err == nil {
				err = w.Close()
			}
		}
		if err != nil {
			t.Logf("%s: writer: %v", name, err)
			got[name] = outcome{writeErr: err}
			return
		}
		f, err := Open(buf.Bytes())
		if err != nil {
			t.Fatalf("%s: open %v", name, err)
		}
		ts, err := f.ReadTimeSeries()
		if err != nil {
			t.Fatalf("%s: index %v", name, err)
		}
		rep, err := f.VerifyTimeSeries(ts)
		got[name] = outcome{verifyErr: err, ts: ts}
		var ks [][][]byte
		for _, s := range ts.Series {
			ks = append(ks, s.Key)
		}
		t.Logf("%s: verify %v; series %d keys %q; stats %+v; model %+v", name, err, len(ts.Series), ks, ts.Stats, ts.Model)
		_ = rep
	}
	defer func() {
		for _, n := range []string{"float-key", "bool-key", "date-key", "int32-time", "nullable-time-with-null", "decimal-date-measurements", "list-measurement"} {
			if got[n].writeErr == nil {
				t.Errorf("%s: the writer accepted it", n)
			}
		}
		for _, n := range []string{"date-time-duration-measurements", "nan-and-zeros", "nan-last", "zeros", "big-int-sum", "no-rows", "full-time-span"} {
			if o := got[n]; o.writeErr != nil || o.verifyErr != nil {
				t.Errorf("%s: %+v", n, o)
			}
		}
		nan := math.Float64bits(math.NaN())
		if st := got["nan-and-zeros"].ts.Stats[0][0]; st.Count != 4 || st.MinBits != nan || st.MaxBits != nan || st.SumBits != nan {
			t.Errorf("NaN statistics %+v", st)
		}
		if st := got["zeros"].ts.Stats[0][0]; st.MinBits != 1<<63 || st.MaxBits != 0 {
			t.Errorf("signed zero statistics %+v", st)
		}
		if st := got["big-int-sum"].ts.Stats[0][0]; st.SumBits != 0 {
			t.Errorf("integer sum %g, want 0 (float64 running sum in row order)", math.Float64frombits(st.SumBits))
		}
		// Null keys: the writer refuses the record (before aec0bf6 it
		// filed the row under the Arrow slot beneath the null, a writer
		// bug, gaps/timeseries.md C); a file holding one would not verify.
		for _, n := range []string{"nullable-key-with-null", "null-and-empty-key", "null-int-key"} {
			if o := got[n]; o.writeErr == nil && o.verifyErr == nil {
				t.Errorf("%s: null key verified", n)
			} else {
				t.Logf("%s: %v %v", n, o.writeErr, o.verifyErr)
			}
		}
	}()
	tm := arrow.Field{Name: "time", Type: arrow.PrimitiveTypes.Int64}
	try("nullable-key-with-null", []arrow.Field{{Name: "k", Type: arrow.BinaryTypes.String, Nullable: true}, tm}, []string{"k"}, func(rb *array.RecordBuilder) {
		rb.Field(0).(*array.StringBuilder).AppendValues([]string{"a", ""}, []bool{true, false})
		rb.Field(1).(*array.Int64Builder).AppendValues([]int64{1, 2}, nil)
	})
	try("float-key", []arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Float64}, tm}, []string{"k"}, func(rb *array.RecordBuilder) {
		rb.Field(0).(*array.Float64Builder).AppendValues([]float64{1.5, -2}, nil)
		rb.Field(1).(*array.Int64Builder).AppendValues([]int64{1, 2}, nil)
	})
	try("bool-key", []arrow.Field{{Name: "k", Type: arrow.FixedWidthTypes.Boolean}, tm}, []string{"k"}, func(rb *array.RecordBuilder) {
		rb.Field(0).(*array.BooleanBuilder).AppendValues([]bool{true, false}, nil)
		rb.Field(1).(*array.Int64Builder).AppendValues([]int64{1, 2}, nil)
	})
	try("date-key", []arrow.Field{{Name: "k", Type: arrow.FixedWidthTypes.Date32}, tm}, []string{"k"}, func(rb *array.RecordBuilder) {
		rb.Field(0).(*array.Date32Builder).AppendValues([]arrow.Date32{-5, 3}, nil)
		rb.Field(1).(*array.Int64Builder).AppendValues([]int64{1, 2}, nil)
	})
	try("int32-time", []arrow.Field{{Name: "time", Type: arrow.PrimitiveTypes.Int32}}, nil, func(rb *array.RecordBuilder) {
		rb.Field(0).(*array.Int32Builder).AppendValues([]int32{1, 2}, nil)
	})
	try("nullable-time-with-null", []arrow.Field{{Name: "time", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil, func(rb *array.RecordBuilder) {
		rb.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 2}, []bool{true, false})
	})
	try("nan-and-zeros", []arrow.Field{tm, {Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true}}, nil, func(rb *array.RecordBuilder) {
		rb.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 2, 3, 4}, nil)
		rb.Field(1).(*array.Float64Builder).AppendValues([]float64{0, math.NaN(), math.Copysign(0, -1), 5}, nil)
	})
	try("null-and-empty-key", []arrow.Field{{Name: "k", Type: arrow.BinaryTypes.String, Nullable: true}, tm}, []string{"k"}, func(rb *array.RecordBuilder) {
		rb.Field(0).(*array.StringBuilder).AppendValues([]string{"", "", "b"}, []bool{true, false, false})
		rb.Field(1).(*array.Int64Builder).AppendValues([]int64{1, 2, 3}, nil)
	})
	try("null-int-key", []arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true}, tm}, []string{"k"}, func(rb *array.RecordBuilder) {
		rb.Field(0).(*array.Int64Builder).AppendValues([]int64{0, 0, math.MinInt64}, []bool{true, false, true})
		rb.Field(1).(*array.Int64Builder).AppendValues([]int64{1, 2, 3}, nil)
	})
	try("zeros", []arrow.Field{tm, {Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true}}, nil, func(rb *array.RecordBuilder) {
		rb.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 2, 3}, nil)
		rb.Field(1).(*array.Float64Builder).AppendValues([]float64{0, math.Copysign(0, -1), 0}, nil)
	})
	try("nan-last", []arrow.Field{tm, {Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true}}, nil, func(rb *array.RecordBuilder) {
		rb.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 2}, nil)
		rb.Field(1).(*array.Float64Builder).AppendValues([]float64{math.NaN(), math.NaN()}, nil)
	})
	try("decimal-date-measurements", []arrow.Field{tm, {Name: "d", Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}, Nullable: true}, {Name: "dt", Type: arrow.FixedWidthTypes.Date32, Nullable: true}}, nil, func(rb *array.RecordBuilder) {
		rb.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 2}, nil)
		rb.Field(1).(*array.Decimal128Builder).AppendValues([]decimal128.Num{decimal128.FromI64(123), decimal128.FromI64(-7)}, nil)
		rb.Field(2).(*array.Date32Builder).AppendValues([]arrow.Date32{10, 20}, nil)
	})
	try("date-time-duration-measurements", []arrow.Field{tm, {Name: "dt", Type: arrow.FixedWidthTypes.Date32, Nullable: true}, {Name: "tod", Type: arrow.FixedWidthTypes.Time64us, Nullable: true}, {Name: "dur", Type: arrow.FixedWidthTypes.Duration_ms, Nullable: true}, {Name: "bin", Type: arrow.BinaryTypes.Binary, Nullable: true}}, nil, func(rb *array.RecordBuilder) {
		rb.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 2, 3}, nil)
		rb.Field(1).(*array.Date32Builder).AppendValues([]arrow.Date32{10, -20, 0}, []bool{true, true, false})
		rb.Field(2).(*array.Time64Builder).AppendValues([]arrow.Time64{5, 6, 7}, []bool{false, true, true})
		rb.Field(3).(*array.DurationBuilder).AppendValues([]arrow.Duration{-5, 6, 7}, nil)
		rb.Field(4).(*array.BinaryBuilder).AppendValues([][]byte{{1}, {2, 0}, nil}, []bool{true, true, false})
	})
	try("big-int-sum", []arrow.Field{tm, {Name: "i", Type: arrow.PrimitiveTypes.Int64}}, nil, func(rb *array.RecordBuilder) {
		rb.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 2, 3}, nil)
		rb.Field(1).(*array.Int64Builder).AppendValues([]int64{1 << 60, 1, -(1 << 60)}, nil)
	})
	// times at both ends of int64: series and unit spans past
	// math.MaxInt64, and a last value 2^64 − 2 before the last time
	try("full-time-span", []arrow.Field{{Name: "k", Type: arrow.BinaryTypes.String}, tm, {Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true}}, []string{"k"}, func(rb *array.RecordBuilder) {
		rb.Field(0).(*array.StringBuilder).AppendValues([]string{"a", "a"}, nil)
		rb.Field(1).(*array.Int64Builder).AppendValues([]int64{math.MinInt64, math.MaxInt64 - 1}, nil)
		rb.Field(2).(*array.Float64Builder).AppendValues([]float64{1, 0}, []bool{true, false})
	})
	try("no-rows", []arrow.Field{{Name: "k", Type: arrow.BinaryTypes.String}, tm}, []string{"k"}, func(rb *array.RecordBuilder) {})
	try("list-measurement", []arrow.Field{tm, {Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64)}}, nil, func(rb *array.RecordBuilder) {
		rb.Field(0).(*array.Int64Builder).AppendValues([]int64{1}, nil)
		lb := rb.Field(1).(*array.ListBuilder)
		lb.Append(true)
		lb.ValueBuilder().(*array.Int64Builder).Append(3)
	})
}

func ts2Model(t *testing.T, f *File, model, index []byte) TSModel {
	ts, err := f.ParseTimeSeries(model, index)
	if err != nil {
		t.Fatal(err)
	}
	return ts.Model
}

// diffModel names the fields of two models that differ.
func diffModel(a, b TSModel) []string {
	var out []string
	add := func(name string, x, y any) {
		if fmt.Sprint(x) != fmt.Sprint(y) {
			out = append(out, fmt.Sprintf("%s %v→%v", name, y, x))
		}
	}
	add("chunkRows", a.ChunkRows, b.ChunkRows)
	add("minChunkRows", a.MinChunkRows, b.MinChunkRows)
	add("blockSize", a.BlockSize, b.BlockSize)
	add("bloomPerPage", a.BloomPerPage, b.BloomPerPage)
	add("bloomBlocks", a.BloomBlocks, b.BloomBlocks)
	add("tmin", a.TMin, b.TMin)
	add("tmax", a.TMax, b.TMax)
	add("unitPages", a.UnitPages, b.UnitPages)
	add("statPages", a.StatPages, b.StatPages)
	add("bloomPages", a.BloomPages, b.BloomPages)
	add("root", a.Root, b.Root)
	return out
}

// TestTSModelRules breaks, one at a time, each rule the chapter says a
// reader checks in ts.model, and a few this reader adds, and expects an
// error for each.
func TestTSModelRules(t *testing.T) {
	c := tsCase{keys: []arrow.DataType{arrow.BinaryTypes.String}, timeType: arrow.PrimitiveTypes.Int64,
		lengths: lengths(30, []int{1, 5, 40, 200}), batch: 1000,
		opts: timeseries.WriterOptions{ChunkRows: 64, MinChunkRows: 16, PageBytes: 256, BloomFPP: 0.2}}
	data := writeTS(t, c, 3)
	f, ts, _ := openTS(t, data)
	var index []byte
	for _, s := range f.Sections {
		if s.Name == "ts.index" {
			index = data[s.Ref.Offset : s.Ref.Offset+s.Ref.Size]
		}
	}
	if len(ts.Model.UnitPages) < 2 || len(ts.Model.BloomPages) < 1 || ts.Model.Height < 1 {
		t.Fatalf("the file is too small to break every rule: %+v", ts.Model)
	}
	rules := map[string]func(m *TSModel){
		"version 3":                  func(m *TSModel) { m.Version = 3 },
		"version 1 over version 2":   func(m *TSModel) { m.Version = 1 }, // statistics records longer than version 1's
		"no time role":               func(m *TSModel) { m.Roles[m.Time] = RoleMeasurement },
		"two time roles":             func(m *TSModel) { m.Roles[m.Measurements[0]] = RoleTime },
		"role 3":                     func(m *TSModel) { m.Roles[m.Measurements[0]] = 3 },
		"key not listed":             func(m *TSModel) { m.Keys = nil },
		"key listed twice":           func(m *TSModel) { m.Keys = append(m.Keys, m.Keys[0]) },
		"measurement listed as key":  func(m *TSModel) { m.Keys = []int{m.Measurements[0]} },
		"rows differ":                func(m *TSModel) { m.Rows++ },
		"units without unit pages":   func(m *TSModel) { m.UnitPages = nil },
		"units without stat pages":   func(m *TSModel) { m.StatPages = nil },
		"bloom page missing":         func(m *TSModel) { m.BloomPages = nil },
		"bloom per page zero":        func(m *TSModel) { m.BloomPerPage = 0 },
		"series without root":        func(m *TSModel) { m.Root = nil },
		"first unit page not at 0":   func(m *TSModel) { m.UnitPages[0].First = 1 },
		"unit page firsts repeat":    func(m *TSModel) { m.UnitPages[1].First = m.UnitPages[0].First },
		"unit page beyond units":     func(m *TSModel) { m.UnitPages[1].First = m.Units },
		"series count":               func(m *TSModel) { m.Series-- },
		"unit count":                 func(m *TSModel) { m.Units++ },
		"height":                     func(m *TSModel) { m.Height++ },
		"tmin":                       func(m *TSModel) { m.TMin-- },
		"tmax":                       func(m *TSModel) { m.TMax++ },
		"unit page off":              func(m *TSModel) { m.UnitPages[0].Off++ },
		"stat page size":             func(m *TSModel) { m.StatPages[0].Size-- },
		"bloom page off beyond":      func(m *TSModel) { m.BloomPages[0].Off = uint64(len(index)) },
		"root kind":                  func(m *TSModel) { m.Root = append([]byte{tsLeaf}, m.Root[1:]...) },
		"chunk rows below the units": func(m *TSModel) { m.ChunkRows = 10 },
	}
	for name, breakIt := range rules {
		m := ts.Model
		m.Roles = append([]uint8(nil), m.Roles...)
		m.Keys = append([]int(nil), m.Keys...)
		m.UnitPages = append([]TSPageRef(nil), m.UnitPages...)
		m.StatPages = append([]TSPageRef(nil), m.StatPages...)
		m.BloomPages = append([]TSPageRef(nil), m.BloomPages...)
		breakIt(&m)
		err := guard(func() error {
			ts, err := f.ParseTimeSeries(encodeModel(m), index)
			if err != nil {
				return err
			}
			_, err = f.VerifyTimeSeries(ts)
			return err
		})
		if err == nil || strings.HasPrefix(err.Error(), "panic") {
			t.Errorf("%s: %v", name, err)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
	// The untouched model re-encodes and reads.
	if _, err := f.ParseTimeSeries(encodeModel(ts.Model), index); err != nil {
		t.Fatal(err)
	}
}
