package read_test

import (
	"context"
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	"strata/iox"
	"strata/read"
	"strata/write"
)

// TestSplits scans a many-stripe file split by split, with and without a
// filter and with offset and limit, and checks that the pieces put together
// equal the whole-file scan; a split of another file is refused.
func TestSplitsCoverAndFilter(t *testing.T) {
	data, _ := writeFile(t, 7, 20000, write.Options{StripeBytes: 64 << 10, ChunkValues: 1000})
	f, err := read.Open(context.Background(), iox.Bytes(data), read.Options{})
	if err != nil {
		t.Fatal(err)
	}
	stripes := f.Container().NumStripes()
	if stripes < 4 {
		t.Fatalf("want several stripes, have %d", stripes)
	}
	for _, target := range []int64{0, 1, 200 << 10, 1 << 40} {
		sps := f.Splits(target)
		var rows int64
		next := 0
		for _, sp := range sps {
			if sp.FirstStripe != next || sp.Stripes < 1 || sp.FirstRow != rows {
				t.Fatalf("target %d: split %+v after stripe %d, row %d", target, sp, next, rows)
			}
			next += sp.Stripes
			rows += sp.Rows
		}
		if next != stripes || rows != f.NumRows() {
			t.Fatalf("target %d: splits cover %d stripes, %d rows; file has %d, %d", target, next, rows, stripes, f.NumRows())
		}
		if target <= 0 && len(sps) != stripes {
			t.Fatalf("target 0: %d splits for %d stripes", len(sps), stripes)
		}
		if target == 1<<40 && len(sps) != 1 {
			t.Fatalf("huge target: %d splits", len(sps))
		}
		for _, opts := range []read.ScanOptions{
			{Columns: []string{"id", "tag", "price"}},
			{Columns: []string{"id", "grp"}, Where: "grp BETWEEN -10 AND 40 AND tag != 'AIR'"},
			{Where: "price < 3 OR tag IS NULL"},
		} {
			want, _ := scanAll(t, f, opts)
			var parts []*array.Int32
			var total int64
			for i := range sps {
				o := opts
				o.Split = &sps[i]
				got, _ := scanAll(t, f, o)
				if got == nil {
					continue
				}
				total += got.NumRows()
				parts = append(parts, got.Column(0).(*array.Int32))
			}
			if want == nil {
				if total != 0 {
					t.Fatalf("%+v: splits return %d rows, whole scan none", opts, total)
				}
				continue
			}
			if total != want.NumRows() {
				t.Fatalf("%+v: splits return %d rows, whole scan %d", opts, total, want.NumRows())
			}
			k := 0
			ids := want.Column(0).(*array.Int32)
			for _, p := range parts {
				for j := 0; j < p.Len(); j++ {
					if p.Value(j) != ids.Value(k) {
						t.Fatalf("%+v: row %d: id %d, whole scan %d", opts, k, p.Value(j), ids.Value(k))
					}
					k++
				}
			}
		}
	}
	// Offset and limit apply within the split.
	sp := f.Splits(0)[1]
	got, _ := scanAll(t, f, read.ScanOptions{Columns: []string{"id"}, Split: &sp, Offset: 5, Limit: 10})
	whole, _ := scanAll(t, f, read.ScanOptions{Columns: []string{"id"}, Offset: sp.FirstRow + 5, Limit: 10})
	if got.NumRows() != 10 || !array.Equal(got.Column(0), whole.Column(0)) {
		t.Fatalf("split with offset/limit: %v, want %v", got.Column(0), whole.Column(0))
	}
	// A split of another file, or out of range, is refused.
	bad := sp
	bad.FileSize++
	if _, err := f.Scan(read.ScanOptions{Split: &bad}); !errors.Is(err, read.ErrInvalidArgument) {
		t.Fatalf("split of another file: %v", err)
	}
	bad = sp
	bad.Stripes = stripes + 1
	if _, err := f.Scan(read.ScanOptions{Split: &bad}); !errors.Is(err, read.ErrInvalidArgument) {
		t.Fatalf("split beyond the file: %v", err)
	}
	bad = sp
	bad.Rows++
	if _, err := f.Scan(read.ScanOptions{Split: &bad}); !errors.Is(err, read.ErrInvalidArgument) {
		t.Fatalf("split with wrong rows: %v", err)
	}
	// A split of no stripe that claims rows (its scan would return none
	// of them) is refused too; one of no rows scans nothing.
	bad = sp
	bad.Stripes = 0
	if _, err := f.Scan(read.ScanOptions{Split: &bad}); !errors.Is(err, read.ErrInvalidArgument) {
		t.Fatalf("split of no stripe with %d rows: %v", bad.Rows, err)
	}
	if _, _, err := f.AggregateContext(context.Background(), "count(*)", read.AggregateOptions{Split: &bad}); !errors.Is(err, read.ErrInvalidArgument) {
		t.Fatalf("aggregate over a split of no stripe with %d rows: %v", bad.Rows, err)
	}
	bad.Rows = 0
	if got, _ := scanAll(t, f, read.ScanOptions{Split: &bad}); got != nil && got.NumRows() != 0 {
		t.Fatalf("split of no stripe and no rows: %d rows", got.NumRows())
	}
	b := []byte(`{"file_size":1,"first_stripe":2}`)
	if p, err := read.ParseSplit(b); err != nil || p.FileSize != 1 || p.FirstStripe != 2 {
		t.Fatalf("ParseSplit: %+v, %v", p, err)
	}
}

// TestBoolRangeFilters: range comparisons on a bool column that hold for
// every value (b <= TRUE, b >= FALSE) or none (b > TRUE, b < FALSE) keep
// exactly the non-null rows, or none; they returned no rows at all (found by
// the DuckDB pushdown test).
func TestBoolRangeFilters(t *testing.T) {
	data, recs := writeFile(t, 3, 5000, write.Options{StripeBytes: 64 << 10, ChunkValues: 1000})
	f, err := read.Open(context.Background(), iox.Bytes(data), read.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var nonNull, trues int64
	for _, r := range recs {
		b := r.Column(5).(*array.Boolean)
		for i := 0; i < b.Len(); i++ {
			if b.IsValid(i) {
				nonNull++
				if b.Value(i) {
					trues++
				}
			}
		}
	}
	for where, want := range map[string]int64{
		"flag <= TRUE": nonNull, "flag >= FALSE": nonNull, "flag > TRUE": 0, "flag < FALSE": 0,
		"flag > FALSE": trues, "flag >= TRUE": trues, "flag < TRUE": nonNull - trues,
		"NOT (flag > TRUE)": nonNull, "flag BETWEEN FALSE AND TRUE": nonNull,
	} {
		got, _ := scanAll(t, f, read.ScanOptions{Columns: []string{"id"}, Where: where})
		n := int64(0)
		if got != nil {
			n = got.NumRows()
		}
		if n != want {
			t.Errorf("%s: %d rows, want %d", where, n, want)
		}
	}
}
