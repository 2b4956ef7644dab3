package read_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	"strata/read"
)

// TestTakeFiles looks rows up in one table cut into four files (one of
// them empty) and compares every result, value by value, with the same
// lookup in one file of all the rows: rows in order, shuffled, repeated,
// within one file, none, and projections of whole and nested columns.
func TestTakeFiles(t *testing.T) {
	const n = 3000
	rec := aggRecord(n, 7)
	defer rec.Release()
	whole := aggFile(t, rec)
	parts := cutFiles(t, rec, 700, 700, 2400) // the second file empty
	r := rand.New(rand.NewPCG(3, 4))
	shuffled := make([]int64, 200)
	for i := range shuffled {
		shuffled[i] = r.Int64N(n)
	}
	inOrder := []int64{0, 1, 699, 700, 701, 2399, 2400, 2999}
	ctx := context.Background()
	for _, c := range []struct {
		name string
		rows []int64
		cols []string
	}{
		{"in order", inOrder, nil},
		{"shuffled", shuffled, nil},
		{"repeated", []int64{5, 5, 2500, 5, 2500, 2500}, nil},
		{"one file", []int64{800, 801, 2399}, nil},
		{"none", nil, nil},
		{"projected", shuffled, []string{"name", "s.x", "big"}},
	} {
		want, _, err := whole.TakeContext(ctx, c.rows, read.TakeOptions{Columns: c.cols})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got, st, err := read.TakeFiles(ctx, parts, c.rows, read.TakeOptions{Columns: c.cols})
		if err != nil {
			t.Fatalf("%s over the parts: %v", c.name, err)
		}
		if !array.RecordEqual(got, want) {
			t.Errorf("%s: the parts give\n%v\none file gives\n%v", c.name, got, want)
		}
		if st.RowsReturned != int64(len(c.rows)) {
			t.Errorf("%s: %d rows returned, want %d", c.name, st.RowsReturned, len(c.rows))
		}
		got.Release()
		want.Release()
	}

	// rows past the table, a file of other columns and no file are refused
	if _, _, err := read.TakeFiles(ctx, parts, []int64{n}, read.TakeOptions{}); !errors.Is(err, read.ErrInvalidArgument) {
		t.Errorf("row %d of %d: %v", n, n, err)
	}
	if _, _, err := read.TakeFiles(ctx, parts, []int64{-1}, read.TakeOptions{}); !errors.Is(err, read.ErrInvalidArgument) {
		t.Errorf("row -1: %v", err)
	}
	if _, _, err := read.TakeFiles(ctx, []*read.File{parts[0], int32File(t)}, []int64{0, 700}, read.TakeOptions{Columns: []string{"big"}}); !errors.Is(err, read.ErrInvalidArgument) {
		t.Errorf("columns of different types: %v", err)
	}
	if _, _, err := read.TakeFiles(ctx, nil, []int64{0}, read.TakeOptions{}); !errors.Is(err, read.ErrInvalidArgument) {
		t.Errorf("no file: %v", err)
	}
}
