package format

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"strata/iox"
)

// FuzzOpen opens arbitrary bytes and reads every section, stream table and
// chunk: the only acceptable outcomes are success or a format error.
func FuzzOpen(f *testing.F) {
	for _, skip := range []bool{false, true} {
		f.Add(smallFile(f, WriterOptions{GroupSize: 2}), uint16(0), skip)
		f.Add(smallFile(f, WriterOptions{ChunkCompression: CompressionZstd}), uint16(100), skip)
		f.Add(smallFile(f, WriterOptions{NoMetadataCompression: true}), uint16(40), skip)
		f.Add(build(f, fileSpec{}, WriterOptions{}, 0), uint16(0), skip)
		for _, g := range goldens {
			if data, err := os.ReadFile(filepath.Join("testdata", g.name)); err == nil {
				f.Add(data, uint16(512), skip)
			}
		}
	}
	// skipChecksums lets mutations reach the footer, group and chunk parsers
	// instead of stopping at the first checksum.
	f.Fuzz(func(t *testing.T, data []byte, tail uint16, skipChecksums bool) {
		opts := ReaderOptions{TailSize: int64(tail), MaxSectionSize: 1 << 20, MaxGroupSize: 1 << 20,
			MaxFooterSize: 1 << 20, MaxChunkSize: 1 << 20, skipChecksums: skipChecksums}
		err := readAll(data, opts)
		if err != nil && !isFormatErr(err) {
			t.Fatalf("not a format error: %v", err)
		}
		if err == nil {
			fl, err := Open(context.Background(), iox.Bytes(data), opts)
			if err != nil {
				t.Fatalf("second open: %v", err)
			}
			if err := fl.Verify(context.Background()); err != nil && !isFormatErr(err) {
				t.Fatalf("verify: not a format error: %v", err)
			}
		}
	})
}

// FuzzDecodeChunk decodes arbitrary chunk bytes.
func FuzzDecodeChunk(f *testing.F) {
	for _, p := range [][]byte{nil, []byte("x"), bytes.Repeat([]byte("abc"), 100)} {
		for _, c := range []Compression{CompressionNone, CompressionZstd} {
			b, _ := AppendChunk(nil, p, c)
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		p, err := decodeChunk(raw, 1<<20, len(raw) > 0 && raw[0]&1 == 0, MinorVersion)
		if err != nil {
			if !isFormatErr(err) {
				t.Fatalf("not a format error: %v", err)
			}
			return
		}
		if len(p) > 1<<20 {
			t.Fatalf("payload of %d bytes beyond the limit", len(p))
		}
	})
}
