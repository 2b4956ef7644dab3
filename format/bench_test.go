package format

import (
	"bytes"
	"context"
	"math/rand/v2"
	"testing"

	"strata/iox"
)

// BenchmarkDecodeChunk measures framing + checksum of an uncompressed 1 MiB
// chunk; BenchmarkMemcpy is the baseline for the same output size.
func BenchmarkDecodeChunk(b *testing.B) {
	payload := make([]byte, 1<<20)
	for i := range payload {
		payload[i] = byte(i * 31)
	}
	raw, _ := AppendChunk(nil, payload, CompressionNone)
	b.SetBytes(int64(len(payload)))
	for b.Loop() {
		if _, err := DecodeChunk(raw); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMemcpy(b *testing.B) {
	src := make([]byte, 1<<20)
	dst := make([]byte, 1<<20)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		copy(dst, src)
	}
}

// BenchmarkOpen opens a file of 1000 stripes and loads one stripe group.
func BenchmarkOpen(b *testing.B) {
	var buf bytes.Buffer
	w := NewWriter(&buf, WriterOptions{})
	rng := rand.New(rand.NewPCG(1, 1))
	for range 1000 {
		for id := range 20 {
			w.WriteChunk(id, make([]byte, rng.IntN(100)), 1000, []byte("stats"))
		}
		w.FinishStripe(1000)
	}
	w.AddSection("schema", make([]byte, 2000))
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	data := iox.Bytes(buf.Bytes())
	for b.Loop() {
		f, err := Open(context.Background(), data, ReaderOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := f.Streams(context.Background(), 500); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWrite writes 64 stripes of 16 streams × 4 chunks of 16 KiB.
func BenchmarkWrite(b *testing.B) {
	payload := make([]byte, 16<<10)
	b.SetBytes(64 * 16 * 4 * int64(len(payload)))
	for b.Loop() {
		w := NewWriter(discard{}, WriterOptions{})
		for range 64 {
			for c := range 4 {
				for id := range 16 {
					w.WriteChunk(id, payload, 100, []byte{byte(c)})
				}
			}
			w.FinishStripe(400)
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
