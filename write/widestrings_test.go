package write

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestStripeChunkBoundWideStrings: the chunk bound counts the chunks a
// stripe makes, not many times them. chunkEstimate counted up to 36
// chunks of ChunkBytes cuts for every binary stream holding any data,
// though a stream of fewer than ChunkBytes bytes is never cut by them:
// a table of 7,000 short string columns reached MaxStripeChunks at a few
// rows, and was written in stripes of some 35 rows (25 MB for 3,000 rows
// a single stripe holds in 0.5 MB). Here the bound is lowered to 1,000
// and 30 string columns of short values make about 30 chunks: one
// stripe, as StripeBytes has it.
func TestStripeChunkBoundWideStrings(t *testing.T) {
	defer func(m int) { maxStripeChunks = m }(maxStripeChunks)
	maxStripeChunks = 1000
	const cols, rows = 30, 3000
	var fields []arrow.Field
	for c := range cols {
		fields = append(fields, arrow.Field{Name: fmt.Sprintf("s%d", c), Type: arrow.BinaryTypes.String, Nullable: true})
	}
	sch := arrow.NewSchema(fields, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	for c := range cols {
		sb := b.Field(c).(*array.StringBuilder)
		for r := range rows {
			sb.Append(fmt.Sprint("v", r%7))
		}
	}
	rec := b.NewRecord()
	defer rec.Release()
	f := writeOpen(t, rec, Options{})
	if n := f.Container().NumStripes(); n != 1 {
		t.Errorf("%d stripes for %d rows of %d short strings, want 1", n, rows, cols)
	}
}
