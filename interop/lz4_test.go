package interop

import (
	"bytes"
	"encoding/binary"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/pierrec/lz4/v4"
)

// lz4Inputs are pages of several shapes: empty, tiny, runs, text, noise.
func lz4Inputs() [][]byte {
	rng := rand.New(rand.NewPCG(5, 6))
	noise := make([]byte, 70_000)
	for i := range noise {
		noise[i] = byte(rng.Uint32())
	}
	text := bytes.Repeat([]byte("the quick brown fox jumps over the lazy dog; "), 3000)
	return [][]byte{{}, {7}, []byte("abc"), bytes.Repeat([]byte{0}, 100_000), text, noise, append(text[:5000:5000], noise[:5000]...)}
}

// hadoopFrame frames one bare block as Hadoop does.
func hadoopFrame(raw, block []byte) []byte {
	out := binary.BigEndian.AppendUint32(nil, uint32(len(raw)))
	out = binary.BigEndian.AppendUint32(out, uint32(len(block)))
	return append(out, block...)
}

func bareBlock(t testing.TB, src []byte) []byte {
	buf := make([]byte, lz4.CompressBlockBound(len(src)))
	var c lz4.Compressor
	n, err := c.CompressBlock(src, buf)
	if err != nil || (n == 0 && len(src) > 0) {
		t.Fatalf("lz4 block: %d, %v", n, err)
	}
	return buf[:n]
}

// TestHadoopLZ4Codec checks each layout the codec reads against the bytes
// it was made from, and that damaged pages are errors.
func TestHadoopLZ4Codec(t *testing.T) {
	var c hadoopLZ4
	for _, in := range lz4Inputs() {
		enc := c.Encode(nil, in)
		if len(enc) > int(c.CompressBound(int64(len(in)))) {
			t.Fatalf("%d bytes encoded to %d, above the bound", len(in), len(enc))
		}
		if got := binary.BigEndian.Uint32(enc); int(got) != len(in) {
			t.Fatalf("frame declares %d bytes for %d", got, len(in))
		}
		layouts := map[string][]byte{"hadoop": enc}
		if len(in) > 0 {
			layouts["bare block"] = bareBlock(t, in)
			var fb bytes.Buffer
			w := lz4.NewWriter(&fb)
			if _, err := w.Write(in); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			layouts["frame"] = fb.Bytes()
			h := len(in) / 2
			layouts["two hadoop frames"] = append(hadoopFrame(in[:h], bareBlock(t, in[:h])), hadoopFrame(in[h:], bareBlock(t, in[h:]))...)
		}
		for name, page := range layouts {
			out, err := c.DecodeWithError(make([]byte, len(in)), page)
			if err != nil {
				t.Fatalf("%s of %d bytes: %v", name, len(in), err)
			}
			if !bytes.Equal(out, in) {
				t.Fatalf("%s of %d bytes: decoded %d bytes that differ", name, len(in), len(out))
			}
			if len(in) == 0 {
				continue
			}
			// a page too small for the data is an error, not a write past it
			if _, err := c.DecodeWithError(make([]byte, len(in)-1), page); err == nil {
				t.Errorf("%s of %d bytes decoded into %d bytes", name, len(in), len(in)-1)
			}
			// truncated pages
			for _, cut := range []int{1, len(page) / 2, len(page) - 1} {
				if cut <= 0 || cut >= len(page) {
					continue
				}
				out, err := c.DecodeWithError(make([]byte, len(in)), page[:cut])
				if err == nil && bytes.Equal(out, in) {
					t.Errorf("%s of %d bytes cut to %d still gave the whole input", name, len(in), cut)
				}
			}
		}
	}
	// a frame declaring more than the page holds is refused, not trusted
	huge := binary.BigEndian.AppendUint32(nil, 1<<31)
	huge = binary.BigEndian.AppendUint32(huge, 1<<31)
	if _, err := c.DecodeWithError(make([]byte, 16), append(huge, 1, 2, 3)); err == nil {
		t.Error("a frame of 2 GiB declared in a 11-byte page decoded")
	}
}

// FuzzHadoopLZ4 decodes arbitrary pages into pages of arbitrary size: an
// error or bytes, never a panic or a write past the page; and what the
// codec encodes it decodes unchanged.
func FuzzHadoopLZ4(f *testing.F) {
	var c hadoopLZ4
	for _, in := range lz4Inputs() {
		if len(in) < 6000 {
			f.Add(c.Encode(nil, in), uint16(len(in)))
			if len(in) > 0 {
				f.Add(bareBlock(f, in), uint16(len(in)))
			}
		}
	}
	f.Fuzz(func(t *testing.T, page []byte, size uint16) {
		dst := make([]byte, size)
		out, err := c.DecodeWithError(dst, page)
		if err == nil && len(out) > int(size) {
			t.Fatalf("decoded %d bytes into a page of %d", len(out), size)
		}
		enc := c.Encode(nil, page)
		back, err := c.DecodeWithError(make([]byte, len(page)), enc)
		if err != nil || !bytes.Equal(back, page) {
			t.Fatalf("round trip of %d bytes: %v", len(page), err)
		}
	})
}

// TestEmptyPages checks the wrapper every codec gets: zero compressed
// bytes decode to zero bytes, in one piece and streamed, and any other
// page is the codec's business.
func TestEmptyPages(t *testing.T) {
	for _, k := range []compress.Compression{compress.Codecs.Snappy, compress.Codecs.Gzip,
		compress.Codecs.Brotli, compress.Codecs.Zstd, compress.Codecs.Lz4Raw, compress.Codecs.Lz4} {
		c, err := compress.GetCodec(k)
		if err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		switch c.(type) {
		case emptyPages, emptyPagesStreaming:
		default:
			t.Fatalf("%s: codec %T is not wrapped", k, c)
		}
		out, err := compress.Decode(c, make([]byte, 0, 8), nil)
		if err != nil || len(out) != 0 {
			t.Errorf("%s: empty page gave %d bytes, %v", k, len(out), err)
		}
		in := bytes.Repeat([]byte("page "), 1000)
		back, err := compress.Decode(c, make([]byte, len(in)), c.Encode(nil, in))
		if err != nil || !bytes.Equal(back, in) {
			t.Errorf("%s: a page of %d bytes came back as %d, %v", k, len(in), len(back), err)
		}
		if _, err := compress.Decode(c, make([]byte, len(in)), []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}); err == nil {
			t.Errorf("%s: seven bytes of garbage decoded", k)
		}
		if s, ok := c.(compress.StreamingCodec); ok {
			r := s.NewReader(bytes.NewReader(nil))
			if b, err := io.ReadAll(r); err != nil || len(b) != 0 {
				t.Errorf("%s: empty stream gave %d bytes, %v", k, len(b), err)
			}
			var buf bytes.Buffer
			w := s.NewWriter(&buf)
			w.Write(in)
			w.Close()
			b, err := io.ReadAll(s.NewReader(&buf))
			if err != nil || !bytes.Equal(b, in) {
				t.Errorf("%s: streamed page came back as %d bytes, %v", k, len(b), err)
			}
		}
	}
}
