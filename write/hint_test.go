package write_test

import (
	"bytes"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/write"
)

// TestRowsHintSameBytes checks that RowsHint only sizes buffers: a file
// written with a hint that is right, too small or far too large is byte
// for byte the file written without one, across several stripes (so the
// reserved buffers are reused and regrown), with stripes that one record
// overfills, and with nulls, text and a list column whose streams hold
// more values than rows.
func TestRowsHintSameBytes(t *testing.T) {
	const batchRows, batches = 3000, 12
	sch, rows := wideningTable(t, batches, batchRows)
	// an empty record first: the buffers are sized from the first record
	// that holds rows
	empty := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	recs := append([]arrow.Record{empty.NewRecord()}, rows...)
	empty.Release()
	defer recs[0].Release()
	write1 := func(stripe int, hint int64) []byte {
		return writeFile(t, sch, recs, write.Options{StripeBytes: stripe, RowsHint: hint, Parallel: 1})
	}
	// stripes of several records, and stripes a single record overfills
	for _, stripe := range []int{256 << 10, 16 << 10} {
		want := write1(stripe, 0)
		for _, hint := range []int64{batchRows + 1, batchRows * batches, 100 * batchRows * batches} {
			if got := write1(stripe, hint); !bytes.Equal(got, want) {
				t.Errorf("stripes of %d bytes, RowsHint %d: %d bytes differ from the %d written without a hint", stripe, hint, len(got), len(want))
			}
		}
	}
}
