package read_test

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"strata/encoding"
	"strata/iox"
	"strata/read"
	"strata/write"
)

// TestPartialLookups: the first lookups in a large segmented chunk of an
// InPlace root read its head and the segment holding the row, not the
// chunk, and return what a full scan returns; once they have cost about
// what reading the chunk costs, the next lookup reads it whole and caches
// its decoder, and the one after reads nothing.
func TestPartialLookups(t *testing.T) {
	data := lineitemWith(t, write.Options{})
	open := func(src []byte) *read.File {
		f, err := read.Open(context.Background(), iox.Bytes(src), read.Options{Parallelism: 1, DecoderCacheBytes: 64 << 20})
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	f := open(data)
	all, _ := scanAll(t, f, read.ScanOptions{})
	defer all.Release()
	n := f.NumRows()
	r := rand.New(rand.NewPCG(7, 7))
	partial := map[string]int{}
	for k := 0; k < 30; k++ {
		row := r.Int64N(n)
		g := open(data)
		// Every column, cold: the values of a full scan.
		rec, _, err := g.TakeContext(context.Background(), []int64{row}, read.TakeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for c := 0; c < int(all.NumCols()); c++ {
			want, got := array.NewSlice(all.Column(c), row, row+1), rec.Column(c)
			if !array.Equal(want, got) {
				t.Fatalf("row %d column %s: %v, want %v", row, all.ColumnName(c), got, want)
			}
			want.Release()
		}
		rec.Release()
		// Columns whose chunks are read in part, each on a fresh file:
		// FixedBitWidth roots, a SharedDictionary over FixedBitWidth ids and
		// a Correlated column over FixedBitWidth differences.
		for _, col := range []string{"l_partkey", "l_quantity", "l_commitdate"} {
			if partialLookup(t, open(data), all, col, row) {
				partial[col]++
			}
		}
	}
	for _, col := range []string{"l_partkey", "l_quantity", "l_commitdate"} {
		if k := partial[col]; k < 20 {
			t.Fatalf("only %d of 30 rows fell in segmented chunks of an InPlace %s: the test would not test partial reads", k, col)
		}
	}
}

// partialLookup looks up row of col three times on h, checking values and
// what each lookup read; it reports false when the row's chunk is not one
// a lookup reads in part.
func partialLookup(t *testing.T, h *read.File, all arrow.Record, col string, row int64) bool {
	t.Helper()
	lo, _, chunk, ok, err := read.RowBytesAt(h, col, row)
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		return false
	}
	ci := -1
	for c := 0; c < int(all.NumCols()); c++ {
		if all.ColumnName(c) == col {
			ci = c
		}
	}
	take := func() read.ScanStats {
		rec, st, err := h.TakeContext(context.Background(), []int64{row}, read.TakeOptions{Columns: []string{col}})
		if err != nil {
			t.Fatal(err)
		}
		want := array.NewSlice(all.Column(ci), row, row+1)
		if !array.Equal(want, rec.Column(0)) {
			t.Fatalf("row %d %s: %v, want %v", row, col, rec.Column(0), want)
		}
		want.Release()
		rec.Release()
		return st
	}
	// The first lookups read the chunk's head and at most one segment (a
	// SharedDictionary's stripe alphabet comes with the head: one more
	// range, small; a Correlated chunk's reference is read in part too),
	// as many as a whole read would cost (one per 16 KiB of chunk); the
	// next reads the rest and keeps the decoder, and the one after reads
	// nothing.
	partials := max(1, chunk.Len/(16<<10))
	for k := int64(0); k < partials; k++ {
		if st := take(); st.BytesRead > 2*(4<<10)+2048+refBytes(col) || st.Requests > 4 {
			t.Fatalf("%s row %d (bytes at %d of a %d-byte chunk): lookup %d read %d bytes in %d requests, want its head and at most one segment",
				col, row, lo-chunk.Off, chunk.Len, k+1, st.BytesRead, st.Requests)
		}
	}
	if st := take(); st.BytesRead < chunk.Len-int64(4<<10) {
		t.Fatalf("%s row %d: lookup %d read %d bytes of a %d-byte chunk, want the rest of it", col, row, partials+1, st.BytesRead, chunk.Len)
	}
	if st := take(); st.BytesRead != 0 {
		t.Fatalf("%s row %d: the lookup after read %d bytes, want the cached decoder", col, row, st.BytesRead)
	}
	return true
}

// TestPartialLookupCorruption: a partial lookup checks what it reads. A
// flipped byte in the row's own segment fails the lookup with a checksum
// error; one elsewhere in the chunk is not read by the lookup (whose value
// is right) but fails a scan.
func TestPartialLookupCorruption(t *testing.T) {
	data := lineitemWith(t, write.Options{})
	f, err := read.Open(context.Background(), iox.Bytes(data), read.Options{Parallelism: 1})
	if err != nil {
		t.Fatal(err)
	}
	all, _ := scanAll(t, f, read.ScanOptions{Columns: []string{"l_partkey"}})
	defer all.Release()
	r := rand.New(rand.NewPCG(3, 3))
	tested, refTested := 0, 0
	for k := 0; k < 40 && tested < 8; k++ {
		row := r.Int64N(f.NumRows())
		lo, hi, chunk, ok, err := read.RowBytesAt(f, "l_partkey", row)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			continue
		}
		tested++
		// In the row's segment.
		bad := bytes.Clone(data)
		bad[lo+(hi-lo)/2] ^= 0x10
		g, err := read.Open(context.Background(), iox.Bytes(bad), read.Options{Parallelism: 1})
		if err != nil {
			t.Fatal(err)
		}
		if rec, err := g.Take([]int64{row}, []string{"l_partkey"}); !errors.Is(err, encoding.ErrCorrupt) {
			if err == nil {
				rec.Release()
			}
			t.Fatalf("row %d: a flipped byte of its segment gives %v, want a checksum error", row, err)
		}
		// In the reference's segment a Correlated column reads for the row.
		if slo, shi, _, sok, err := read.RowBytesAt(f, "l_shipdate", row); err != nil {
			t.Fatal(err)
		} else if sok {
			refTested++
			bad := bytes.Clone(data)
			bad[slo+(shi-slo)/2] ^= 0x10
			g, err := read.Open(context.Background(), iox.Bytes(bad), read.Options{Parallelism: 1})
			if err != nil {
				t.Fatal(err)
			}
			if rec, err := g.Take([]int64{row}, []string{"l_commitdate"}); !errors.Is(err, encoding.ErrCorrupt) {
				if err == nil {
					rec.Release()
				}
				t.Fatalf("row %d: a flipped byte of its l_shipdate segment gives l_commitdate %v, want a checksum error", row, err)
			}
		}
		// Far from it: the last byte of the chunk, or its first data
		// segment's last byte when the row lies at the end.
		bad = bytes.Clone(data)
		far := chunk.Off + chunk.Len - 1
		if far-lo < 8<<10 {
			far = chunk.Off + chunk.Len/2 - 8<<10
		}
		bad[far] ^= 0x10
		g, err = read.Open(context.Background(), iox.Bytes(bad), read.Options{Parallelism: 1})
		if err != nil {
			t.Fatal(err)
		}
		rec, err := g.Take([]int64{row}, []string{"l_partkey"})
		if err != nil {
			t.Fatalf("row %d: a flipped byte %d bytes away fails the lookup: %v", row, far-lo, err)
		}
		want := array.NewSlice(all.Column(0), row, row+1)
		if !array.Equal(want, rec.Column(0)) {
			t.Fatalf("row %d: %v, want %v", row, rec.Column(0), want)
		}
		want.Release()
		rec.Release()
		sc, err := g.Scan(read.ScanOptions{Columns: []string{"l_partkey"}})
		if err != nil {
			t.Fatal(err)
		}
		var serr error
		for {
			rec, err := sc.Next()
			if err != nil {
				serr = err
				break
			}
			rec.Release()
		}
		sc.Close()
		if !errors.Is(serr, encoding.ErrCorrupt) {
			t.Fatalf("row %d: a scan over a flipped byte gives %v, want a checksum error", row, serr)
		}
	}
	if tested < 8 || refTested < 4 {
		t.Fatalf("only %d rows in segmented InPlace chunks, %d in reference chunks", tested, refTested)
	}
}

// refBytes is what a lookup of row in col reads of the chunk its chunk is
// stored relative to: l_commitdate is stored relative to l_shipdate, whose
// chunk holding the row is read in part too (its head and a segment).
func refBytes(col string) int64 {
	if col != "l_commitdate" {
		return 0
	}
	return 2*(4<<10) + 1024
}
