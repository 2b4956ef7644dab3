package format

import (
	"bytes"
	"context"
	"encoding/hex"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"strata/iox"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// goldenSpec is the frozen content of the golden files. Never change it (it
// deliberately does not use genSpec): the files in testdata must keep reading
// as this spec forever.
func goldenSpec() fileSpec {
	pattern := func(n, seed int) []byte {
		p := make([]byte, n)
		for i := range p {
			p[i] = byte((i/16)%4 + seed)
		}
		return p
	}
	var s fileSpec
	for st := range 5 {
		sp := stripeSpec{rows: 100 * (st + 1), streams: make([][]chunkSpec, 4)}
		for id := range 4 {
			if (st+id)%4 == 3 {
				continue // absent stream
			}
			for c := range 1 + (st+id)%3 {
				ch := chunkSpec{payload: pattern(20+40*id+10*c, st+id+c), rows: 10*(id+1) + c}
				if id%2 == 0 {
					ch.stats = []byte{byte(st), byte(id), byte(c)}
				}
				sp.streams[id] = append(sp.streams[id], ch)
			}
		}
		s.stripes = append(s.stripes, sp)
	}
	s.sections = []sectionSpec{
		{"schema", pattern(300, 7)},
		{"stats.file", pattern(40, 3)},
		{"properties", []byte("k=v\n")},
		{"user", []byte("any bytes")},
	}
	return s
}

var goldens = []struct {
	name string
	opts WriterOptions
	// exact: today's writer must still produce the file byte for byte.
	// Files holding zstd frames are only read, since the compressor's output
	// may legitimately change between library versions.
	exact bool
}{
	{"v1.0-plain.strata", WriterOptions{GroupSize: 2, NoMetadataCompression: true}, true},
	{"v1.0-zstd.strata", WriterOptions{GroupSize: 3, ChunkCompression: CompressionZstd}, false},
}

func TestGolden(t *testing.T) {
	for _, g := range goldens {
		t.Run(g.name, func(t *testing.T) {
			path := filepath.Join("testdata", g.name)
			s := goldenSpec()
			if *update {
				if err := os.WriteFile(path, build(t, s, g.opts, 99), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			f, err := Open(context.Background(), iox.Bytes(data), ReaderOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if major, minor := f.Version(); major != 1 || minor != 0 {
				t.Fatalf("version %d.%d", major, minor)
			}
			checkSpec(t, f, s)
			if g.opts.ChunkCompression == CompressionZstd {
				si, _ := f.SectionInfo("schema")
				c, _ := f.Chunk(context.Background(), 0, 2, 0)
				if si.Compression != CompressionZstd || data[c.Offset+4] != byte(CompressionZstd) {
					t.Fatal("zstd golden file holds no zstd section or chunk")
				}
			}
			if g.exact && !bytes.Equal(build(t, s, g.opts, 99), data) {
				t.Fatal("the writer no longer produces the golden bytes: the format changed")
			}
		})
	}
}

// TestDocExample pins the worked example of docs/FORMAT.md, "Strata container format".
func TestDocExample(t *testing.T) {
	const want = "53545241020000000068b5b2eaaabb01010103 0b00 01 03000b 01 01 0f06000b840b43 00" +
		"0e000000 00 01 dcf5176b 0100 0000 a727da4dcde3b28d 53545241"
	var buf bytes.Buffer
	w := NewWriter(&buf, WriterOptions{NoMetadataCompression: true})
	w.WriteChunk(0, []byte{0xAA, 0xBB}, 3, nil)
	w.FinishStripe(3)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := hex.EncodeToString(buf.Bytes()); got != strings.ReplaceAll(want, " ", "") {
		t.Fatalf("got %s", got)
	}
	f, err := Open(context.Background(), iox.Bytes(buf.Bytes()), ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p, err := f.ReadChunk(context.Background(), 0, 0, 0); err != nil || !bytes.Equal(p, []byte{0xAA, 0xBB}) {
		t.Fatalf("chunk %x %v", p, err)
	}
}
