package write

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/encoding"
	"strata/format"
)

// TestStreamChunkLimitMessage: a row whose values make more chunks of
// one stream than readers take (maxStreamChunks, lowered here from
// format.DefaultMaxChunks-1) fails the write with ErrLimit, and the
// message names the column, which "stream 1" did not, and the option
// that makes fewer chunks.
func TestStreamChunkLimitMessage(t *testing.T) {
	defer func(m int) { maxStreamChunks = m }(maxStreamChunks)
	maxStreamChunks = 50
	sch := arrow.NewSchema([]arrow.Field{{Name: "events", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32)}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	lb := b.Field(0).(*array.ListBuilder)
	lb.Append(true)
	for j := range 200 {
		lb.ValueBuilder().(*array.Int32Builder).Append(int32(j))
	}
	rec := b.NewRecord()
	defer rec.Release()
	w, err := New(format.NewWriter(&bytes.Buffer{}, format.WriterOptions{}), sch, Options{ChunkValues: 1})
	if err != nil {
		t.Fatal(err)
	}
	err = w.Write(rec)
	if err == nil {
		err = w.Close()
	}
	if !errors.Is(err, encoding.ErrLimit) || !strings.Contains(err.Error(), "column events.") || !strings.Contains(err.Error(), "ChunkValues") {
		t.Fatalf("a row of 200 one-value chunks past a limit of 50: %v, want ErrLimit naming the column and ChunkValues", err)
	}
}
