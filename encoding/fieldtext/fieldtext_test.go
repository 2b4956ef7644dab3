package fieldtext_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/encodingtest"
	"strata/encoding/fieldtext"
)

// fieldShapes returns n values of each shape FieldText is for: request
// paths with ids, JSON events, dates written out, place names with
// distances, and log lines with a time, a thread and a duration.
func fieldShapes(n int) map[string]*encoding.Bytes {
	r := rand.New(rand.NewPCG(3, 4))
	out := map[string]*encoding.Bytes{}
	add := func(name string, f func(i int) string) {
		var b encoding.Bytes
		for i := 0; i < n; i++ {
			b.Append([]byte(f(i)))
		}
		out[name] = &b
	}
	res := []string{"users", "orders", "items", "search"}
	add("path", func(int) string {
		return fmt.Sprintf("/api/v%d/%s/%d", 1+r.IntN(3), res[r.IntN(len(res))], r.IntN(100000))
	})
	acts := []string{"click", "view", "buy", "scroll"}
	add("json", func(int) string {
		return fmt.Sprintf(`{"user":%d,"action":"%s","value":%d,"ok":%v}`, r.IntN(50000), acts[r.IntN(4)], r.IntN(1000), r.IntN(10) > 0)
	})
	base := time.Date(1990, 1, 1, 0, 0, 0, 0, time.UTC)
	add("date", func(int) string { return base.AddDate(0, 0, r.IntN(12000)).Format("Jan 02 2006") })
	towns := []string{"Ridgecrest, CA", "Anchorage, Alaska", "Hilo, Hawaii", "Petrolia, CA", "Tokyo, Japan"}
	dirs := []string{"N", "NNE", "SSW", "W", "ESE"}
	add("place", func(int) string {
		return fmt.Sprintf("M %d.%d - %dkm %s of %s", r.IntN(7), r.IntN(10), 1+r.IntN(300), dirs[r.IntN(5)], towns[r.IntN(5)])
	})
	t0 := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	add("log", func(i int) string {
		return fmt.Sprintf("%s [worker-%d] INFO request %d done in %d ms", t0.Add(time.Duration(i*1500+r.IntN(1000))*time.Millisecond).Format("2006-01-02 15:04:05.000"),
			r.IntN(16), 1000000+i, r.IntN(500))
	})
	return out
}

// TestShapes checks that the default selection stores each shape as
// FieldText and that it round-trips, value by value.
func TestShapes(t *testing.T) {
	for name, vals := range fieldShapes(5000) {
		node, tree, err := all.Policy().Encode(nil, vals)
		if err != nil {
			t.Fatal(name, err)
		}
		if !strings.Contains(tree.String(), "FieldText") {
			t.Errorf("%s: chose %v", name, tree)
		}
		r, err := encoding.OpenBinary(node, 0, all.Options())
		if err != nil {
			t.Fatal(name, err)
		}
		var got encoding.Bytes
		if err := r.ReadBinary(&got, vals.Len()); err != nil {
			t.Fatal(name, err)
		}
		for i := 0; i < vals.Len(); i++ {
			if string(got.Value(i)) != string(vals.Value(i)) {
				t.Fatalf("%s: value %d is %q, want %q", name, i, got.Value(i), vals.Value(i))
			}
		}
	}
}

// TestEdges round-trips values at the edges of the parse: the longest
// field, a run one digit too long, zero-padded numbers, the seventeenth
// number of a value, 0xff bytes and values without numbers.
func TestEdges(t *testing.T) {
	vals := []string{
		"9999999999999999999", "x18446744073709551615y", "00000000000000000000", "0", "00", "007",
		"a\xffb1\xff", "\xff\x00\xff\x01", "", "no numbers", strings.Repeat("1,", 20), "v1.2.3",
		"12345678901234567890123", "-5", "1e10",
	}
	var b encoding.Bytes
	for _, v := range vals {
		b.Append([]byte(v))
	}
	node, tree, err := all.Policy().EncodeWith(nil, &b, encoding.KindFieldText)
	if err != nil {
		t.Fatal(err)
	}
	if tree.Kind != encoding.KindFieldText {
		t.Fatalf("tree %v", tree)
	}
	r, err := encoding.OpenBinary(node, 0, all.Options())
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range vals {
		var got encoding.Bytes
		if err := r.ReadBinary(&got, 1); err != nil {
			t.Fatal(i, err)
		}
		if string(got.Value(0)) != want {
			t.Fatalf("value %d is %q, want %q", i, got.Value(0), want)
		}
	}
	if _, _, err := all.Policy().EncodeWith(nil, &encoding.Bytes{Offsets: []int32{0, 1}, Data: []byte("x")}, encoding.KindFieldText); err == nil {
		t.Fatal("encoded text without numbers")
	}
	long := &encoding.Bytes{}
	for range 20 {
		long.Append([]byte("ab12345678901234567890123cd"))
	}
	if fieldtext.Codec.Encoder.Fit(encoding.ComputeStats(long)) {
		t.Fatal("Fit accepts text whose only numbers are over 19 digits")
	}
	if fieldtext.MaxFields != 16 {
		t.Fatal("MaxFields is part of the format")
	}
}

// BenchmarkDecode decodes 16 Ki values of each shape stored as FieldText,
// FSST and Trivial+zstd, reporting ns and bytes a value:
//
//	go test -run XXX -bench Decode ./encoding/fieldtext
func BenchmarkDecode(b *testing.B) {
	shapes := fieldShapes(16384)
	for _, name := range []string{"path", "json", "date", "place", "log"} {
		encodingtest.BenchBinaryDecode(b, name+"/", shapes[name], encoding.KindFieldText, encoding.KindFSST, encoding.KindTrivial)
	}
}

// TestFilter checks FilterBinary against BytesPred.Match on predicates
// the skeletons settle (a path's first piece, a log line's fixed start)
// and ones only the numbers decide.
func TestFilter(t *testing.T) {
	shapes := fieldShapes(3000)
	// more skeletons than a filter judges at once (eagerVerdicts)
	var many encoding.Bytes
	r := rand.New(rand.NewPCG(7, 8))
	for i := 0; i < 12000; i++ {
		many.Append(fmt.Appendf(nil, "user-%c%c%c logged in %d times", 'a'+r.IntN(26), 'a'+r.IntN(26), 'a'+r.IntN(26), r.IntN(40)))
	}
	shapes["many"] = &many
	ops := map[string][]string{
		"many": {"user-abc logged in 7 times", "user-a", "user-abc logged in 1", "user-zzz", "v"},
		"path": {"/api/v2/users/", "/api/v2/users/1", "/api/v2/users/a", "/api/v1", "/api/v3/z", "/apj", "", "/api/v2/items/123"},
		"log":  {"2024-05-01 00:0", "2024-05-01 00:10:00.000 [worker-3] INFO request 1000400 done in 7 ms", "2024-06", "2023", "2024-05-01 x"},
		"json": {`{"user":12`, `{"user":`, `{"user":1,"action":"buy","value":2,"ok":true}`, `{"v`},
	}
	for name, operands := range ops {
		vals := shapes[name]
		for k := 0; k < 3; k++ {
			operands = append(operands, string(vals.Value(k*97)))
		}
		node, _, err := all.Policy().EncodeWith(nil, vals, encoding.KindFieldText)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range operands {
			for _, b := range operands {
				for op := encoding.OpEq; op <= encoding.OpPrefix; op++ {
					p := &encoding.BytesPred{Op: op, A: []byte(a), B: []byte(b), Set: [][]byte{[]byte(a)}}
					if op == encoding.OpBetween && a > b {
						continue
					}
					r, err := encoding.OpenBinary(node, 0, all.Options())
					if err != nil {
						t.Fatal(err)
					}
					n := vals.Len()
					sel := encoding.NewBitmap(n, true)
					if err := r.(encoding.BinaryFilterer).FilterBinary(p, n, sel); err != nil {
						t.Fatal(name, op, a, err)
					}
					for i := 0; i < n; i++ {
						if sel.Get(i) != p.Match(vals.Value(i)) {
							t.Fatalf("%s %v %q %q: row %d %q: got %v", name, op, a, b, i, vals.Value(i), sel.Get(i))
						}
					}
				}
			}
		}
	}
}

// BenchmarkFilter filters 16 Ki request paths on a prefix the skeletons
// settle and on equality, against the same node decoded and compared:
//
//	go test -run XXX -bench Filter ./encoding/fieldtext
func BenchmarkFilter(b *testing.B) {
	vals := fieldShapes(16384)["path"]
	node, _, err := all.Policy().EncodeWith(nil, vals, encoding.KindFieldText)
	if err != nil {
		b.Fatal(err)
	}
	preds := map[string]*encoding.BytesPred{
		"prefix": {Op: encoding.OpPrefix, A: []byte("/api/v2/orders/")},
		"eq":     {Op: encoding.OpEq, A: vals.Value(100)},
	}
	for name, p := range preds {
		b.Run(name+"/pushed", func(b *testing.B) {
			sel := encoding.NewBitmap(vals.Len(), true)
			for i := 0; i < b.N; i++ {
				r, _ := encoding.OpenBinary(node, 0, all.Options())
				for j := range sel {
					sel[j] = ^uint64(0)
				}
				if err := r.(encoding.BinaryFilterer).FilterBinary(p, vals.Len(), sel); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(vals.Len()), "ns/value")
		})
		b.Run(name+"/decoded", func(b *testing.B) {
			var dst encoding.Bytes
			for i := 0; i < b.N; i++ {
				r, _ := encoding.OpenBinary(node, 0, all.Options())
				dst.Reset()
				if err := r.ReadBinary(&dst, vals.Len()); err != nil {
					b.Fatal(err)
				}
				k := 0
				for j := 0; j < vals.Len(); j++ {
					if p.Match(dst.Value(j)) {
						k++
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(vals.Len()), "ns/value")
		})
	}
}

// BenchmarkGather gathers 8 rows spread over 16 Ki request paths, as a
// point lookup or a selective scan's payload does:
//
//	go test -run XXX -bench Gather ./encoding/fieldtext
func BenchmarkGather(b *testing.B) {
	vals := fieldShapes(16384)["path"]
	node, _, err := all.Policy().EncodeWith(nil, vals, encoding.KindFieldText)
	if err != nil {
		b.Fatal(err)
	}
	rows := []int32{10, 2000, 4000, 6000, 8000, 10000, 12000, 16000}
	r, err := encoding.OpenBinary(node, 0, all.Options())
	if err != nil {
		b.Fatal(err)
	}
	var dst encoding.Bytes
	for i := 0; i < b.N; i++ {
		dst.Reset()
		if err := r.(encoding.BinaryGatherer).GatherBinary(rows, &dst); err != nil {
			b.Fatal(err)
		}
	}
	for i, row := range rows {
		if string(dst.Value(i)) != string(vals.Value(int(row))) {
			b.Fatalf("row %d: %q, want %q", row, dst.Value(i), vals.Value(int(row)))
		}
	}
}

// TestFilterReused filters twice with one predicate value whose operand
// changes in between, as a caller reusing its predicate may: the second
// filter must not answer from the first one's verdicts.
func TestFilterReused(t *testing.T) {
	vals := fieldShapes(2000)["path"]
	node, _, err := all.Policy().EncodeWith(nil, vals, encoding.KindFieldText)
	if err != nil {
		t.Fatal(err)
	}
	r, err := encoding.OpenBinary(node, 0, all.Options())
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 0, 64)
	p := &encoding.BytesPred{Op: encoding.OpPrefix}
	for _, a := range []string{"/api/v2/users/", "/api/v3/items/", "/api/v3/items/9"} {
		p.A = append(buf[:0], a...) // the same backing array, another operand
		r.Reset()
		n := vals.Len()
		sel := encoding.NewBitmap(n, true)
		if err := r.(encoding.BinaryFilterer).FilterBinary(p, n, sel); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < n; i++ {
			if sel.Get(i) != p.Match(vals.Value(i)) {
				t.Fatalf("prefix %q: row %d %q: got %v", a, i, vals.Value(i), sel.Get(i))
			}
		}
	}
}
