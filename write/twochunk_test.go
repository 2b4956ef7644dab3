package write

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/encoding"
	"strata/encoding/all"
)

// wholeCounter counts the encodes of binary sequences of n values: for a
// binary stream of n values, its selections whole (a child sequence of a
// chunk's, lengths or bytes, is not binary, or not as long).
type wholeCounter struct {
	encoding.Encoder
	n    int
	hits *atomic.Int64
}

func (e wholeCounter) Encode(dst []byte, vals any, st *encoding.Stats, ctx *encoding.Ctx) ([]byte, error) {
	if _, ok := encoding.BinaryValues(vals); ok && encoding.LenOf(vals) == e.n {
		e.hits.Add(1)
	}
	return e.Encoder.Encode(dst, vals, st, ctx)
}

// the optional interfaces selection asks an encoder for, kept by the wrap
type (
	wholeCounterWT struct {
		wholeCounter
		encoding.WholeTrialer
	}
	wholeCounterSS struct {
		wholeCounter
		encoding.SampleScaler
	}
	wholeCounterBoth struct {
		wholeCounter
		encoding.WholeTrialer
		encoding.SampleScaler
	}
)

// countingPolicy is the default policy with every encoder counting its
// encodes of n binary values in hits.
func countingPolicy(n int, hits *atomic.Int64) *encoding.Policy {
	var cs []*encoding.Codec
	for _, c := range all.Registry().Codecs() {
		c2 := *c
		if c.Encoder != nil {
			wc := wholeCounter{Encoder: c.Encoder, n: n, hits: hits}
			wt, isWT := c.Encoder.(encoding.WholeTrialer)
			ss, isSS := c.Encoder.(encoding.SampleScaler)
			switch {
			case isWT && isSS:
				c2.Encoder = wholeCounterBoth{wc, wt, ss}
			case isWT:
				c2.Encoder = wholeCounterWT{wc, wt}
			case isSS:
				c2.Encoder = wholeCounterSS{wc, ss}
			default:
				c2.Encoder = wc
			}
		}
		cs = append(cs, &c2)
	}
	return encoding.DefaultPolicy(encoding.NewRegistry(cs...))
}

// TestShortStreamCutInsideNotSelectedWhole: a stream of at most twice
// trialValues values is trialled whole so that, cut as one chunk, its
// trial is its chunk. One whose raw bytes pass ChunkBytes is several
// chunks whatever its encoding, and was trialled whole anyway, twice (a
// low-cardinality one again with its shared alphabet), before each of its
// chunks was selected: species' item_id, 12,360 ids of 24 characters,
// cost 12 % of the set's write so. Its first chunk is now sized from
// selection's estimate of its start, and nothing encodes it whole.
func TestShortStreamCutInsideNotSelectedWhole(t *testing.T) {
	const rows = 12000 // 32 bytes each: 384,000 raw bytes, past ChunkBytes
	for _, distinct := range []int{rows, 300} {
		t.Run(fmt.Sprintf("distinct %d", distinct), func(t *testing.T) {
			sch := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.BinaryTypes.String}}, nil)
			b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
			defer b.Release()
			sb := b.Field(0).(*array.StringBuilder)
			for i := range rows {
				sb.Append(fmt.Sprintf("58fa3f0be4b0b7ea%016x", (i%distinct)*7919))
			}
			rec := b.NewRecord()
			defer rec.Release()
			var hits atomic.Int64
			f := writeOpen(t, rec, Options{Policy: countingPolicy(rows, &hits)})
			streams, err := f.Container().Streams(context.Background(), 0)
			if err != nil {
				t.Fatal(err)
			}
			chunks := 0
			for _, c := range streams[0].Chunks {
				if c.Rows > 0 { // not a shared dictionary's definition
					chunks++
				}
			}
			if chunks < 2 {
				t.Fatalf("%d chunks, want the stream cut by ChunkBytes", chunks)
			}
			if n := hits.Load(); n > 0 {
				t.Errorf("%d encodes of the whole stream of %d values cut in %d chunks", n, rows, chunks)
			}
		})
	}
}
