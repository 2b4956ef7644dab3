package strata_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata"
	"strata/encoding"
	"strata/encoding/all"
	"strata/format"
	"strata/iox"
)

// review58FSSTFile writes rows of text in one chunk of FSST (code lengths
// bit-packed, so a lookup of a few rows sums them in place) and returns
// the file and the values.
func review58FSSTFile(t *testing.T, rows int) ([]byte, []string) {
	t.Helper()
	words := strings.Fields("furiously carefully quickly blithely regular final ironic pending express " +
		"packages deposits accounts requests theodolites instructions sleep haggle nag cajole among")
	r := rand.New(rand.NewPCG(58, 1))
	text := make([]string, rows)
	for i := range text {
		var sb strings.Builder
		for j := 0; j < 2+r.IntN(5); j++ {
			if j > 0 {
				sb.WriteByte(' ')
			}
			sb.WriteString(words[r.IntN(len(words))])
		}
		text[i] = sb.String()
	}
	sch := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "t", Type: arrow.BinaryTypes.String}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	for i, s := range text {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.StringBuilder).Append(s)
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	w, err := strata.NewWriter(&buf, sch, &strata.WriteOptions{NoZstd: true, Parallel: 1,
		Force: map[string]*encoding.Tree{"t": {Kind: encoding.KindFSST, Children: []*encoding.Tree{{Kind: encoding.KindFixedBitWidth}}}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), text
}

// review58DanglingEscape returns a copy of data whose FSST chunk has value
// k end with a dangling escape (its last code made an escape, the lengths
// unchanged), the chunk's checksum made anew so that the decoder sees it.
// It returns the row it changed.
func review58DanglingEscape(t *testing.T, data []byte, near int) ([]byte, int) {
	t.Helper()
	ff, err := format.Open(context.Background(), iox.Bytes(data), format.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	streams, err := ff.Streams(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range streams {
		if len(s.Chunks) != 1 {
			continue
		}
		ci := s.Chunks[0]
		raw := data[ci.Offset : ci.Offset+ci.Size]
		if format.Compression(raw[4]) != format.CompressionNone {
			continue
		}
		payload := raw[format.ChunkHeaderSize:]
		h, err := encoding.ParseHeader(payload, 0, all.Options())
		if err != nil || h.Kind != encoding.KindFSST {
			continue
		}
		body := h.Body
		syms := 8
		for l, c := range body[:8] {
			syms += int(c) * (l + 1)
		}
		_, k := binary.Uvarint(body[syms:]) // raw length
		rest := body[syms+k:]
		clen, k2 := binary.Uvarint(rest)
		child := rest[k2 : k2+int(clen)]
		codes := rest[k2+int(clen):]
		d, err := encoding.Open(child, all.Options())
		if err != nil {
			t.Fatal(err)
		}
		lens := make([]uint32, d.Len())
		if err := d.(encoding.Reader[uint32]).Read(lens); err != nil {
			t.Fatal(err)
		}
		off := 0
		for v, l := range lens {
			end := off + int(l)
			if v >= near && l >= 2 && codes[end-1] != 0xff && codes[end-2] != 0xff {
				bad := bytes.Clone(data)
				at := int(ci.Offset) + len(raw) - len(codes) + end - 1
				bad[at] = 0xff
				p := bad[ci.Offset+format.ChunkHeaderSize : ci.Offset+ci.Size]
				binary.LittleEndian.PutUint32(bad[ci.Offset+5:], format.Checksum32(p))
				return bad, v
			}
			off = end
		}
	}
	t.Fatal("no FSST chunk to corrupt")
	return nil, 0
}

// TestReview58FSSTDanglingEscapeEveryPath: since bf291ca an FSST node's
// whole-node checks wait for the first read that needs them, and a lookup
// of a few rows checks only what it returns. A file whose FSST value ends
// with a dangling escape (checksum made anew) must never return a wrong
// value by any path, in any order of queries on one File: a lookup of the
// bad row, a lookup of many rows, scans, filters and aggregates over the
// column fail; a lookup of a few good rows returns their values or fails.
func TestReview58FSSTDanglingEscapeEveryPath(t *testing.T) {
	const rows = 3000
	data, text := review58FSSTFile(t, rows)
	bad, k := review58DanglingEscape(t, data, rows/2)
	good := []int64{0, int64(k - 1), int64(k + 1), rows - 1}
	many := make([]int64, 0, 40)
	for i := int64(0); i < 40; i++ {
		if i*61 != int64(k) {
			many = append(many, i*61)
		}
	}
	take := func(f *strata.File, rows []int64) error {
		rec, err := f.Take(rows, []string{"t"})
		if err != nil {
			return err
		}
		defer rec.Release()
		col := rec.Column(0).(*array.String)
		for i, r := range rows {
			if col.Value(i) != text[r] {
				t.Errorf("row %d reads %q, want %q", r, col.Value(i), text[r])
			}
		}
		return nil
	}
	scan := func(f *strata.File, filter strata.Filter) error {
		sc, err := f.Scan(strata.ScanOptions{Columns: []string{"id", "t"}, Filter: filter})
		if err != nil {
			return err
		}
		defer sc.Close()
		for {
			rec, err := sc.Next()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
			ids, col := rec.Column(0).(*array.Int64), rec.Column(1).(*array.String)
			for i := range col.Len() {
				if col.Value(i) != text[ids.Value(i)] {
					t.Errorf("scan: row %d reads %q, want %q", ids.Value(i), col.Value(i), text[ids.Value(i)])
				}
			}
			rec.Release()
		}
	}
	// (min and max of the whole column come from the chunk's statistics;
	// over some rows they read the values)
	agg := func(f *strata.File) error {
		res, _, err := f.Aggregate(strata.AggregateOptions{Aggs: []strata.Agg{strata.Min("t"), strata.Max("t")},
			Filter: strata.Col("id").Ge(int64(1))})
		if err != nil {
			return err
		}
		lo, hi := text[1], text[1]
		for _, s := range text[1:] {
			lo, hi = min(lo, s), max(hi, s)
		}
		if res[0].String() != lo || res[1].String() != hi {
			t.Errorf("min, max: %v %v, want %q %q", res[0], res[1], lo, hi)
		}
		return nil
	}
	type step struct {
		name    string
		run     func(f *strata.File) error
		mayPass bool // a lookup of a few good rows
	}
	steps := []step{
		{"take bad row", func(f *strata.File) error { return take(f, []int64{int64(k)}) }, false},
		{"take good rows", func(f *strata.File) error { return take(f, good) }, true},
		{"take bad among few", func(f *strata.File) error { return take(f, []int64{int64(k - 1), int64(k)}) }, false},
		{"take many", func(f *strata.File) error { return take(f, many) }, false},
		{"scan", func(f *strata.File) error { return scan(f, strata.Filter{}) }, false},
		{"filter", func(f *strata.File) error { return scan(f, strata.Col("t").Eq("quickly sleep")) }, false},
		{"prefix filter", func(f *strata.File) error { return scan(f, strata.Col("t").Ge("q")) }, false},
		{"aggregate", agg, false},
	}
	// every step first, and every step after and before a lookup of a few
	// rows (which checks only what it returns) on one File
	orders := [][]int{}
	for i := range steps {
		orders = append(orders, []int{i})
		for _, j := range []int{0, 1} {
			if i != j {
				orders = append(orders, []int{i, j}, []int{j, i})
			}
		}
	}
	for _, order := range orders {
		f, err := strata.OpenSource(iox.Bytes(bad))
		if err != nil {
			t.Fatal(err)
		}
		for _, i := range order {
			s := steps[i]
			err := s.run(f)
			if err == nil && !s.mayPass {
				t.Errorf("order %v: %s of a node with a dangling escape (row %d) succeeded", order, s.name, k)
			}
			if err != nil && !errors.Is(err, encoding.ErrCorrupt) {
				t.Errorf("order %v: %s: %v, want ErrCorrupt", order, s.name, err)
			}
		}
		f.Close()
	}
	// the file before the change reads whole
	f, err := strata.OpenSource(iox.Bytes(data))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, s := range steps {
		if err := s.run(f); err != nil {
			t.Errorf("intact file: %s: %v", s.name, err)
		}
	}
}

// TestReview58FSSTConcurrentLookups: goroutines share one File whose FSST
// decoders build their offsets lazily (bf291ca) while they sit in the
// decoder cache: lookups of a few rows (summed in place), of many rows
// (which build the offsets), filtered scans and cache drops, in any
// interleaving, return the written values (run with -race).
func TestReview58FSSTConcurrentLookups(t *testing.T) {
	const rows = 3000
	data, text := review58FSSTFile(t, rows)
	f, err := strata.OpenSource(iox.Bytes(data), strata.OpenOptions{Parallelism: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	errs := make(chan error, 4)
	for w := range 4 {
		go func() {
			r := rand.New(rand.NewPCG(uint64(w), 58))
			for round := range 30 {
				n := 1 + r.IntN(3)
				if round%5 == 4 {
					n = 20 + r.IntN(40)
				}
				req := make([]int64, n)
				for i := range req {
					req[i] = r.Int64N(rows)
				}
				rec, err := f.Take(req, []string{"t"})
				if err != nil {
					errs <- err
					return
				}
				col := rec.Column(0).(*array.String)
				for i, row := range req {
					if col.Value(i) != text[row] {
						errs <- errors.New("row " + col.Value(i) + " != " + text[row])
						rec.Release()
						return
					}
				}
				rec.Release()
				switch {
				case w == 0 && round%7 == 3:
					f.DropCaches()
				case w == 1 && round%6 == 2:
					lo := r.Int64N(rows - 100)
					sc, err := f.Scan(strata.ScanOptions{Columns: []string{"id", "t"},
						Filter: strata.And(strata.Col("id").Between(lo, lo+99), strata.Col("t").Ge("p"))})
					if err != nil {
						errs <- err
						return
					}
					for {
						rec, err := sc.Next()
						if err == io.EOF {
							break
						}
						if err != nil {
							errs <- err
							return
						}
						ids, col := rec.Column(0).(*array.Int64), rec.Column(1).(*array.String)
						for i := range col.Len() {
							if col.Value(i) != text[ids.Value(i)] || col.Value(i) < "p" {
								errs <- errors.New("scan: " + col.Value(i))
							}
						}
						rec.Release()
					}
					sc.Close()
				}
			}
			errs <- nil
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// TestReview58FSSTLookupOfNullsAfterValues: lookups of present rows, then
// of null rows only, in a nullable FSST column on one File. A Nullable
// decoder gathering only null rows gathers no row of its FSST values,
// which panicked once a lookup had summed the code lengths in place
// (encoding/fsst's TestReview58NullableLookupOfNulls); the file reader
// reads a nullable chunk whole for a lookup, so this test, of the
// public path, passed before that fix too.
func TestReview58FSSTLookupOfNullsAfterValues(t *testing.T) {
	const rows = 2000
	words := strings.Fields("furiously carefully quickly blithely regular final ironic pending express " +
		"packages deposits accounts requests theodolites instructions sleep haggle nag cajole among")
	r := rand.New(rand.NewPCG(58, 2))
	sch := arrow.NewSchema([]arrow.Field{{Name: "t", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	want := make([]string, rows)
	for i := range want {
		if i%3 == 1 {
			b.Field(0).AppendNull()
			continue
		}
		var sb strings.Builder
		for j := 0; j < 2+r.IntN(5); j++ {
			sb.WriteString(words[r.IntN(len(words))])
			sb.WriteByte(' ')
		}
		want[i] = sb.String()
		b.Field(0).(*array.StringBuilder).Append(want[i])
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	f := openWritten(t, strata.WriteOptions{NoZstd: true, Parallel: 1}, rec)
	defer f.Close()
	lay, err := f.Layouts()
	if err != nil {
		t.Fatal(err)
	}
	if s := lay["t"].Tree.String(); !strings.Contains(s, "FSST(") {
		t.Fatalf("column stored as %s, want FSST values: the test no longer looks up what it was written for", s)
	}
	for _, req := range [][]int64{{3}, {1}, {4, 7}, {1, 4, 10}} {
		got, err := f.Take(req, nil)
		if err != nil {
			t.Fatalf("take %v: %v", req, err)
		}
		col := got.Column(0).(*array.String)
		for i, row := range req {
			if row%3 == 1 {
				if !col.IsNull(i) {
					t.Errorf("row %d: %q, want null", row, col.Value(i))
				}
			} else if col.IsNull(i) || col.Value(i) != want[row] {
				t.Errorf("row %d: %q, want %q", row, col.Value(i), want[row])
			}
		}
		got.Release()
	}
}
