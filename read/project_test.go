package read_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"golang.org/x/sync/errgroup"

	"strata/iox"
	"strata/read"
	"strata/write"
)

// TestProjectionCache: lookups and scans with many projections, more than
// the cache holds, concurrently and repeated, return the projected
// columns of a full scan, value by value, with a schema of those columns
// in that order; an unknown name is still an error every time.
func TestProjectionCache(t *testing.T) {
	data := lineitemWith(t, write.Options{})
	f, err := read.Open(context.Background(), iox.Bytes(data), read.Options{Parallelism: 1})
	if err != nil {
		t.Fatal(err)
	}
	all, _ := scanAll(t, f, read.ScanOptions{})
	defer all.Release()
	names := make([]string, all.NumCols())
	for i := range names {
		names[i] = all.ColumnName(i)
	}
	var projs [][]int
	for i := range 12 {
		p := []int{i % len(names), (i*5 + 3) % len(names)}
		if i%3 == 0 {
			p = append(p, (i+7)%len(names))
		}
		projs = append(projs, p)
	}
	var g errgroup.Group
	for w := range 4 {
		g.Go(func() error {
			for k := range 60 {
				p := projs[(k+w*5)%len(projs)]
				cols := make([]string, len(p))
				for i, c := range p {
					cols[i] = names[c]
				}
				row := int64(k*7919+w*104729) % f.NumRows()
				rec, err := f.Take([]int64{row}, cols)
				if err != nil {
					return err
				}
				for i, c := range p {
					want := array.NewSlice(all.Column(c), row, row+1)
					ok := rec.Schema().Field(i).Name == names[c] && array.Equal(want, rec.Column(i))
					want.Release()
					if !ok {
						defer rec.Release()
						return fmt.Errorf("take %v row %d: column %d is %s %v, want %s", cols, row, i, rec.Schema().Field(i).Name, rec.Column(i), names[c])
					}
				}
				rec.Release()
				if _, err := f.Take([]int64{row}, []string{cols[0], "no_such_column"}); !errors.Is(err, read.ErrUnknownColumn) {
					return fmt.Errorf("an unknown column gives %v", err)
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
}
