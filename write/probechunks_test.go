package write

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/read"
)

// TestStripeChunkBoundProbe: the first rows a writer appends (the probe,
// appended before it knows what a row takes) are bounded by
// maxStripeChunks too. Rows of lists of 100 values written with one-value
// chunks count some 200 chunks a row in chunkEstimate; a probe of 60 such
// rows appended whole made one stripe of over 6,000 chunks against a
// bound of 1,000 (with the real bound, 1,100 rows of 1,100 values made a
// stream of more than format.DefaultMaxChunks chunks and the write failed
// with ErrLimit, though every row alone was far from it).
func TestStripeChunkBoundProbe(t *testing.T) {
	defer func(m int) { maxStripeChunks = m }(maxStripeChunks)
	maxStripeChunks = 1000
	const rows, per = 60, 100
	sch := arrow.NewSchema([]arrow.Field{{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int16)}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	lb := b.Field(0).(*array.ListBuilder)
	vb := lb.ValueBuilder().(*array.Int16Builder)
	for r := range rows {
		lb.Append(true)
		for j := range per {
			vb.Append(int16(r*per + j))
		}
	}
	rec := b.NewRecord()
	defer rec.Release()
	f := writeOpen(t, rec, Options{ChunkValues: 1})
	c := f.Container()
	for s := range c.NumStripes() {
		streams, err := c.Streams(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		chunks := 0
		for _, st := range streams {
			chunks += len(st.Chunks)
		}
		// a row's chunks (some 200) past the bound at most
		if chunks > maxStripeChunks+2*per+8 {
			t.Errorf("stripe %d of %d: %d chunks, bound %d", s, c.NumStripes(), chunks, maxStripeChunks)
		}
	}
	vals, _, err := f.AggregateContext(context.Background(), "count(*)", read.AggregateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if vals[0].I != rows {
		t.Errorf("%d rows read back, want %d", vals[0].I, rows)
	}
}
