package timeseries

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/format"
	"strata/iox"
)

// TestTableStripeRows writes time-series tables with Table.StripeRows
// set, sorted and buffered, in one record and in records that end inside
// units. The table writer ends a stripe every StripeRows rows whatever the
// batches, which cut units (one chunk per column, addressed whole within
// one stripe by the series index) in two: Close failed with "chunks do not
// end where unit 0 does" for every bound below the file's rows. Stripes
// now end between units: every row reads back, and a stripe holds at most
// StripeRows rows unless it is a single unit of more.
func TestTableStripeRows(t *testing.T) {
	const series, perSeries = 5, 130
	var pts []point
	for k := range series {
		for i := range perSeries {
			pts = append(pts, point{k: string(rune('a' + k)), t: int64(i), v: float64(k*1000 + i)})
		}
	}
	recs := func(size int) []arrow.Record {
		b := array.NewRecordBuilder(memory.DefaultAllocator, pointSchema)
		defer b.Release()
		var out []arrow.Record
		for i, p := range pts {
			b.Field(0).(*array.StringBuilder).Append(p.k)
			b.Field(1).(*array.Int64Builder).Append(p.t)
			b.Field(2).(*array.Float64Builder).Append(p.v)
			if (i+1)%size == 0 || i == len(pts)-1 {
				out = append(out, b.NewRecord())
			}
		}
		return out
	}
	for _, sr := range []int64{1, 7, 64, 65, 100, 200, 1000} {
		for _, sorted := range []bool{false, true} {
			for _, size := range []int{len(pts), 33} {
				what := fmt.Sprintf("StripeRows %d, sorted %v, records of %d rows", sr, sorted, size)
				o := &WriterOptions{Sorted: sorted, ChunkRows: 64, MinChunkRows: 8}
				o.Table.StripeRows = sr
				f, data := writeSamePoints(t, what, recs(size), o, pts)
				f.Close()
				ff, err := format.Open(ctx, iox.Bytes(data), format.ReaderOptions{})
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				var total int64
				for s := range ff.NumStripes() {
					rows := ff.Stripe(s).Rows
					// units hold at most ChunkRows rows
					if rows > max(sr, 64) {
						t.Errorf("%s: stripe %d holds %d rows", what, s, rows)
					}
					total += rows
				}
				if total != int64(len(pts)) || (sr < int64(len(pts)) && ff.NumStripes() < 2) {
					t.Errorf("%s: %d stripes of %d rows in all", what, ff.NumStripes(), total)
				}
			}
		}
	}
}
