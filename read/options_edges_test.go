package read_test

import (
	"context"
	"fmt"
	"testing"

	"strata/read"
	"strata/write"
)

// TestMetaCacheNoBudget: a metadata cache of 0 or a negative budget keeps
// the file opened last, as one below a file's metadata does (documented
// at NewMetaCache), and every file opened through it reads its rows.
func TestMetaCacheNoBudget(t *testing.T) {
	data, _ := writeFile(t, 5, 3000, write.Options{StripeBytes: 32 << 10})
	for _, limit := range []int64{0, -1, -1 << 62} {
		c := read.NewMetaCache(limit)
		for i := range 3 {
			src := &countingSource{data: data, id: fmt.Sprint("nobudget:", limit, ":", i)}
			f, err := read.Open(context.Background(), src, read.Options{MetaCache: c})
			if err != nil {
				t.Fatal(err)
			}
			vals, _, err := f.Aggregate("count(*)", "")
			if err != nil || vals[0].I != 3000 {
				t.Fatalf("limit %d: count %v, %v; want 3000", limit, vals, err)
			}
		}
		if c.Len() != 1 {
			t.Errorf("limit %d: cache holds %d files, want the last one", limit, c.Len())
		}
	}
}
