package write_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/format"
	"strata/write"
)

// TestRowsHintSameBytes checks that RowsHint only sizes buffers: a file
// written with a hint that is right, too small or far too large is byte
// for byte the file written without one, across several stripes (so the
// reserved buffers are reused and regrown), with stripes that one record
// overfills, and with nulls, text and a list column whose streams hold
// more values than rows.
func TestRowsHintSameBytes(t *testing.T) {
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "v", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String},
		{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32)},
	}, nil)
	const batchRows, batches = 3000, 12
	// an empty record first: the buffers are sized from the first record
	// that holds rows
	empty := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	recs := []arrow.Record{empty.NewRecord()}
	empty.Release()
	for b := range batches {
		bld := array.NewRecordBuilder(memory.DefaultAllocator, sch)
		for i := b * batchRows; i < (b+1)*batchRows; i++ {
			bld.Field(0).(*array.Int64Builder).Append(int64(i))
			if i%5 == 1 {
				bld.Field(1).AppendNull()
			} else {
				bld.Field(1).(*array.Float64Builder).Append(float64(i%97) / 4)
			}
			// rows grow wider as the file goes on, so the first record
			// underestimates the later ones
			bld.Field(2).(*array.StringBuilder).Append(fmt.Sprintf("row-%d-%s", i%300, bytes.Repeat([]byte{'x'}, b)))
			lb := bld.Field(3).(*array.ListBuilder)
			lb.Append(true)
			for k := range i % 4 {
				lb.ValueBuilder().(*array.Int32Builder).Append(int32(i + k))
			}
		}
		recs = append(recs, bld.NewRecord())
		bld.Release()
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	write1 := func(stripe int, hint int64) []byte {
		var buf bytes.Buffer
		w, err := write.New(format.NewWriter(&buf, format.WriterOptions{}), sch,
			write.Options{StripeBytes: stripe, RowsHint: hint, Parallel: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			if err := w.Write(r); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
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
