package write

import (
	"math/rand/v2"
	"strings"
	"testing"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/nullable"
	"strata/shred"
)

// commentStream returns a binary stream of n comment-like values drawn
// from a small vocabulary (the text a stripe-scoped FSST table codes well).
func commentStream(n int) *shred.Stream {
	words := strings.Fields("carefully final deposits sleep quickly regular packages haggle blithely ironic " +
		"accounts furiously express requests nag slyly pending theodolites among the special foxes")
	r := rand.New(rand.NewPCG(7, 8))
	var b encoding.Bytes
	b.Offsets = append(b.Offsets, 0)
	for range n {
		for k := range 3 + r.IntN(6) {
			if k > 0 {
				b.Data = append(b.Data, ' ')
			}
			b.Data = append(b.Data, words[r.IntN(len(words))]...)
		}
		b.Offsets = append(b.Offsets, int32(len(b.Data)))
	}
	return &shred.Stream{Type: encoding.Binary, Values: b, Len: n}
}

// tableEncoder returns a writer without zstd, a text stream of n comment
// values, a chunk encoder for it that may share a table, and a counter of
// the tables that encoder learns.
func tableEncoder(n int) (*Writer, *shred.Stream, *chunkEncoder, *int) {
	p := all.Policy()
	p.Zstd = false
	w := &Writer{policy: p}
	s := commentStream(n)
	enc := &chunkEncoder{policy: w.policy, nullable: nullable.Encode}
	cd := *w.tableCodec(s)
	built := new(int)
	learn := cd.BuildTable
	cd.BuildTable = func(v *encoding.Bytes) encoding.ChunkTable { *built++; return learn(v) }
	enc.tableCodec, enc.tableOK = &cd, true
	enc.tableVals = func() *encoding.Bytes {
		all := sliceValues(s.Values, 0, s.Len).(encoding.Bytes)
		return &all
	}
	return w, s, enc, built
}

// encodeChunks encodes s in chunks of size values as encodeStream does.
func encodeChunks(t *testing.T, enc *chunkEncoder, s *shred.Stream, size int) streamResult {
	t.Helper()
	var res streamResult
	for lo := 0; lo < s.Len; lo += size {
		hi := min(lo+size, s.Len)
		node, err := enc.encode(nil, sliceValues(s.Values, lo, hi), nil)
		if err != nil {
			t.Fatal(err)
		}
		res.chunks = append(res.chunks, encodedChunk{node: node, rows: hi - lo, lo: lo, tree: enc.last, time: enc.last.Time()})
	}
	return res
}

// TestTableWeighedInSelection checks that the chunks of a text stream weigh
// a reference to the stripe's shared FSST table against what selection
// chose: without zstd, selection alone prefers plain values to FSST with
// a table of the chunk's own (the golden file sharedfsst had such a
// chunk), while a reference to the shared table beats both. Every chunk
// must refer to the table, learned once, and shareTable must keep it.
func TestTableWeighedInSelection(t *testing.T) {
	w, s, enc, built := tableEncoder(1200)
	res := encodeChunks(t, enc, s, 128)
	for i, c := range res.chunks {
		if k := encoding.Kind(c.node[0]); k != encoding.KindSharedFSST {
			t.Errorf("chunk %d: %v (%v), want a SharedFSST reference", i, k, c.tree)
		}
	}
	if *built != 1 {
		t.Errorf("table learned %d times, want once", *built)
	}
	if err := w.shareTable(s, enc, &res); err != nil {
		t.Fatal(err)
	}
	if res.chunks[0].rows != 0 || encoding.Kind(res.chunks[0].node[0]) != encoding.KindSharedFSST {
		t.Fatalf("no definition chunk in front of the stream: %v", res.chunks[0].tree)
	}
	if len(res.chunks) != 11 {
		t.Errorf("%d chunks, want the definition and 10 references", len(res.chunks))
	}
}

// TestTableDropped checks that references made while the table was weighed
// are selected again without it when shareTable does not keep it (here:
// savings that cannot pay for the definition), so no chunk refers to a
// table the stream does not store, and that the next stripe selects
// afresh instead of replaying a reference.
func TestTableDropped(t *testing.T) {
	w, s, enc, _ := tableEncoder(600)
	res := encodeChunks(t, enc, s, 128)
	if encoding.Kind(res.chunks[1].node[0]) != encoding.KindSharedFSST {
		t.Fatalf("chunk 1 is %v, want a reference before the table is weighed", res.chunks[1].tree)
	}
	enc.tableSaved = -1 << 30
	if err := w.shareTable(s, enc, &res); err != nil {
		t.Fatal(err)
	}
	for i, c := range res.chunks {
		if c.rows == 0 {
			t.Fatalf("chunk %d is a definition of a dropped table", i)
		}
		if k := encoding.Kind(c.node[0]); k == encoding.KindSharedFSST {
			t.Errorf("chunk %d still refers to the dropped table", i)
		}
		vals := sliceValues(s.Values, c.lo, c.lo+c.rows).(encoding.Bytes)
		d, err := encoding.Open(c.node, all.Options())
		if err != nil {
			t.Fatalf("chunk %d: %v", i, err)
		}
		var got encoding.Bytes
		if err := d.(encoding.BinaryReader).ReadBinary(&got, c.rows); err != nil {
			t.Fatalf("chunk %d: %v", i, err)
		}
		for k := range c.rows {
			if string(got.Value(k)) != string(vals.Value(k)) {
				t.Fatalf("chunk %d row %d: %q, want %q", i, k, got.Value(k), vals.Value(k))
			}
		}
	}
	if enc.tableRef(enc.tree) {
		t.Errorf("the encoder still replays a reference: %v", enc.tree)
	}
}
