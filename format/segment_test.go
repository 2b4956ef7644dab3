package format

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"strata/encoding"
	"strata/iox"
)

// TestSegmentedRoundTrip frames payloads around the segmenting threshold
// and checks that whole-chunk decoding returns them, that the segments
// ParseSegments finds from the head alone cover the payload, and that
// every segment checks.
func TestSegmentedRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, log := range []int{MinSegmentLog, DefaultSegmentLog} {
		s := 1 << log
		for _, n := range []int{1, s, 4*s - 1, 4 * s, 4*s + 1, 5*s - 1, 7*s + 13, 16 * s} {
			p := make([]byte, n)
			for i := range p {
				p[i] = byte(r.IntN(7))
			}
			raw, err := appendChunk([]byte("prefix"), p, CompressionNone, 0, log)
			if err != nil {
				t.Fatal(err)
			}
			raw = raw[len("prefix"):]
			got, err := DecodeChunk(raw)
			if err != nil || !bytes.Equal(got, p) {
				t.Fatalf("log %d, %d bytes: decode %v, equal %v", log, n, err, bytes.Equal(got, p))
			}
			if err := CheckChunk(raw); err != nil {
				t.Fatalf("log %d, %d bytes: check: %v", log, n, err)
			}
			if !IsSegmented(raw) {
				if n >= 4*s {
					t.Fatalf("log %d, %d bytes: not segmented", log, n)
				}
				continue
			}
			if n < 4*s {
				t.Fatalf("log %d, %d bytes: segmented below four segments", log, n)
			}
			head := raw[:HeadLen(int64(len(raw)), 0)]
			seg, err := ParseSegments(head, int64(len(raw)), true)
			if err != nil {
				t.Fatal(err)
			}
			if seg.DataLen != n || seg.DataOff+n != len(raw) || len(seg.Sums) != (n+s-1)/s {
				t.Fatalf("log %d, %d bytes: segments %+v", log, n, seg)
			}
			for i := range seg.Sums {
				b := raw[seg.DataOff+seg.SegmentStart(i) : seg.DataOff+seg.SegmentEnd(i)]
				if !bytes.Equal(b, p[i*s:min(n, (i+1)*s)]) {
					t.Fatalf("segment %d is not the payload's", i)
				}
				if err := seg.Check(i, b); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

// TestSegmentedCorruption flips one byte at a time in a segmented chunk:
// whole-chunk decoding must fail with a checksum or corruption error, and
// a flipped data byte must fail exactly its own segment's check.
func TestSegmentedCorruption(t *testing.T) {
	p := bytes.Repeat([]byte("0123456789abcdef"), 6<<10>>4)
	raw, err := appendChunk(nil, p, CompressionNone, 0, MinSegmentLog)
	if err != nil {
		t.Fatal(err)
	}
	seg, err := ParseSegments(raw, int64(len(raw)), true)
	if err != nil {
		t.Fatal(err)
	}
	for pos := 0; pos < len(raw); pos += 37 {
		bad := bytes.Clone(raw)
		bad[pos] ^= 0x20
		if _, err := DecodeChunk(bad); !errors.Is(err, encoding.ErrCorrupt) {
			t.Fatalf("byte %d flipped: decode gives %v", pos, err)
		}
		if pos < seg.DataOff {
			continue
		}
		for i := range seg.Sums {
			b := bad[seg.DataOff+seg.SegmentStart(i) : seg.DataOff+seg.SegmentEnd(i)]
			err := seg.Check(i, b)
			if in := pos-seg.DataOff >= seg.SegmentStart(i) && pos-seg.DataOff < seg.SegmentEnd(i); in != (err != nil) {
				t.Fatalf("byte %d flipped: segment %d check gives %v", pos, i, err)
			}
		}
	}
	// A truncated head, a wrong size and an impossible segment size.
	if _, err := ParseSegments(raw[:seg.DataOff-1], int64(len(raw)), true); err == nil {
		t.Fatal("a head cut inside the table parsed")
	}
	if _, err := ParseSegments(raw, int64(len(raw)+1), true); err == nil {
		t.Fatal("a wrong chunk size parsed")
	}
	bad := bytes.Clone(raw)
	bad[ChunkHeaderSize] = MaxSegmentLog + 1
	if _, err := ParseSegments(bad, int64(len(bad)), false); err == nil {
		t.Fatal("segment size 2^21 parsed")
	}
}

// TestSegmentedFile writes a file whose large chunks are segmented and
// reads every chunk back through the reader.
func TestSegmentedFile(t *testing.T) {
	s := goldenSpec()
	big := bytes.Repeat([]byte("a segmented chunk "), 1000)
	s.stripes[0].streams[0] = append(s.stripes[0].streams[0], chunkSpec{payload: big, rows: 7})
	data := build(t, s, WriterOptions{SegmentLog: MinSegmentLog}, 1)
	f, err := Open(context.Background(), iox.Bytes(data), ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkSpec(t, f, s)
	segmented := 0
	for st := 0; st < f.NumStripes(); st++ {
		infos, err := f.Streams(context.Background(), st)
		if err != nil {
			t.Fatal(err)
		}
		for _, info := range infos {
			for _, c := range info.Chunks {
				if IsSegmented(data[c.Offset : c.Offset+c.Size]) {
					segmented++
				}
			}
		}
	}
	if segmented == 0 {
		t.Fatal("no chunk segmented")
	}
	if err := f.Verify(context.Background()); err != nil {
		t.Fatal(err)
	}
}
