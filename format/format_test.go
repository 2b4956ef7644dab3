package format

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/zeebo/xxh3"

	"strata/encoding"
	"strata/iox"
)

// The tests describe a file as a spec, write it with random interleavings of
// streams, and check every byte that comes back.

type chunkSpec struct {
	payload, stats []byte
	rows           int
}

type stripeSpec struct {
	rows    int
	streams [][]chunkSpec // by stream id; nil = absent
}

type fileSpec struct {
	stripes  []stripeSpec
	sections []sectionSpec
}

type sectionSpec struct {
	name string
	data []byte
}

func randBytes(rng *rand.Rand, n int) []byte {
	p := make([]byte, n)
	if rng.IntN(2) == 0 { // compressible
		for i := range p {
			p[i] = byte(i / 7 % 5)
		}
		return p
	}
	for i := range p {
		p[i] = byte(rng.Uint32())
	}
	return p
}

func genSpec(rng *rand.Rand, nStripes, maxStreams, maxChunk int) fileSpec {
	var s fileSpec
	for range nStripes {
		st := stripeSpec{rows: rng.IntN(5000)}
		n := rng.IntN(maxStreams + 1)
		st.streams = make([][]chunkSpec, n)
		for id := range st.streams {
			if rng.IntN(4) == 0 {
				continue // absent stream
			}
			for range 1 + rng.IntN(4) {
				c := chunkSpec{payload: randBytes(rng, rng.IntN(maxChunk+1)), rows: rng.IntN(1000)}
				if rng.IntN(3) > 0 {
					c.stats = randBytes(rng, rng.IntN(20))
				}
				st.streams[id] = append(st.streams[id], c)
			}
		}
		s.stripes = append(s.stripes, st)
	}
	for i, name := range []string{"schema", "stats.file", "stats.stripe", "properties", "user"} {
		if rng.IntN(5) == 0 {
			continue
		}
		s.sections = append(s.sections, sectionSpec{name, randBytes(rng, rng.IntN(3000*(i+1)))})
	}
	return s
}

// writeSpec writes s, interleaving the streams' chunks randomly and adding
// sections at random points.
func writeSpec(w *Writer, s fileSpec, rng *rand.Rand) error {
	secs := slices.Clone(s.sections)
	for _, st := range s.stripes {
		next := make([]int, len(st.streams))
		for {
			var open []int
			for id, cs := range st.streams {
				if next[id] < len(cs) {
					open = append(open, id)
				}
			}
			if len(open) == 0 {
				break
			}
			id := open[rng.IntN(len(open))]
			c := st.streams[id][next[id]]
			next[id]++
			if err := w.WriteChunk(id, c.payload, c.rows, c.stats); err != nil {
				return err
			}
			if len(secs) > 0 && rng.IntN(50) == 0 {
				if err := w.AddSection(secs[0].name, secs[0].data); err != nil {
					return err
				}
				secs = secs[1:]
			}
		}
		if err := w.FinishStripe(st.rows); err != nil {
			return err
		}
	}
	for _, sec := range secs {
		if err := w.AddSection(sec.name, sec.data); err != nil {
			return err
		}
	}
	return w.Close()
}

func build(t testing.TB, s fileSpec, opts WriterOptions, seed uint64) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := writeSpec(NewWriter(&buf, opts), s, rand.New(rand.NewPCG(seed, 7))); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// checkSpec reads everything back and compares it with s.
func checkSpec(t testing.TB, f *File, s fileSpec) {
	t.Helper()
	if f.NumStripes() != len(s.stripes) {
		t.Fatalf("stripes %d, want %d", f.NumStripes(), len(s.stripes))
	}
	var rows int64
	for i, st := range s.stripes {
		si := f.Stripe(i)
		if si.Rows != int64(st.rows) || si.FirstRow != rows {
			t.Fatalf("stripe %d: %+v, want rows %d first %d", i, si, st.rows, rows)
		}
		if st.rows > 0 && (f.StripeForRow(rows) != i || f.StripeForRow(rows+int64(st.rows)-1) != i) {
			t.Fatalf("StripeForRow in stripe %d", i)
		}
		rows += int64(st.rows)
		streams, err := f.Streams(context.Background(), i)
		if err != nil {
			t.Fatal(err)
		}
		// Trailing absent streams are not recorded.
		want := len(st.streams)
		for want > 0 && len(st.streams[want-1]) == 0 {
			want--
		}
		if len(streams) > len(st.streams) || len(streams) < want {
			t.Fatalf("stripe %d: %d streams, want %d", i, len(streams), want)
		}
		pos := si.Offset
		for id, cs := range st.streams {
			var info StreamInfo
			if id < len(streams) {
				info = streams[id]
			}
			if len(info.Chunks) != len(cs) {
				t.Fatalf("stripe %d stream %d: %d chunks, want %d", i, id, len(info.Chunks), len(cs))
			}
			if len(cs) > 0 && info.Offset != pos {
				t.Fatalf("stripe %d stream %d: offset %d, want %d", i, id, info.Offset, pos)
			}
			pos += info.Size
			var srows int64
			for c, want := range cs {
				ci := info.Chunks[c]
				if ci.Rows != int64(want.rows) || ci.FirstRow != srows || !bytes.Equal(ci.Stats, want.stats) {
					t.Fatalf("stripe %d stream %d chunk %d: %+v", i, id, c, ci)
				}
				if want.rows > 0 && (info.ChunkForRow(srows) != c || info.ChunkForRow(srows+int64(want.rows)-1) != c) {
					t.Fatalf("ChunkForRow stripe %d stream %d chunk %d", i, id, c)
				}
				srows += int64(want.rows)
				p, err := f.ReadChunk(context.Background(), i, id, c)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(p, want.payload) {
					t.Fatalf("stripe %d stream %d chunk %d: payload differs", i, id, c)
				}
			}
			if info.Rows != srows || info.ChunkForRow(srows) != -1 {
				t.Fatalf("stripe %d stream %d: rows %d want %d", i, id, info.Rows, srows)
			}
		}
		if pos != si.Offset+si.Size {
			t.Fatalf("stripe %d: streams end at %d, stripe at %d", i, pos, si.Offset+si.Size)
		}
	}
	if f.NumRows() != rows || f.StripeForRow(rows) != -1 || f.StripeForRow(-1) != -1 {
		t.Fatalf("rows %d, want %d", f.NumRows(), rows)
	}
	if len(f.Sections()) != len(s.sections) {
		t.Fatalf("%d sections, want %d", len(f.Sections()), len(s.sections))
	}
	for _, sec := range s.sections {
		b, ok, err := f.Section(context.Background(), sec.name)
		if err != nil || !ok || !bytes.Equal(b, sec.data) {
			t.Fatalf("section %q: ok=%v err=%v equal=%v", sec.name, ok, err, bytes.Equal(b, sec.data))
		}
	}
	if _, ok, err := f.Section(context.Background(), "nope"); ok || err != nil {
		t.Fatal("missing section found")
	}
	if err := f.Verify(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 1))
	for iter := range 30 {
		s := genSpec(rng, rng.IntN(40), 1+rng.IntN(12), 1+rng.IntN(3000))
		opts := WriterOptions{GroupSize: 1 + rng.IntN(10)}
		switch iter % 3 {
		case 1:
			opts.ChunkCompression = CompressionZstd
		case 2:
			opts.NoMetadataCompression = true
		}
		data := build(t, s, opts, uint64(iter))
		for _, tail := range []int64{0, PostscriptSize, 100, 1 << 30} {
			f, err := Open(context.Background(), iox.Bytes(data), ReaderOptions{TailSize: tail})
			if err != nil {
				t.Fatalf("iter %d tail %d: %v", iter, tail, err)
			}
			wantGroups := (len(s.stripes) + opts.GroupSize - 1) / opts.GroupSize
			if f.NumGroups() != wantGroups {
				t.Fatalf("iter %d: %d groups, want %d", iter, f.NumGroups(), wantGroups)
			}
			for i := range f.NumStripes() {
				if g := f.Stripe(i).Group; g != i/opts.GroupSize {
					t.Fatalf("stripe %d in group %d", i, g)
				}
			}
			checkSpec(t, f, s)
		}
	}
}

func TestEmptyFile(t *testing.T) {
	data := build(t, fileSpec{}, WriterOptions{}, 0)
	if len(data) != len(Magic)+1+3+PostscriptSize {
		t.Logf("empty file is %d bytes", len(data))
	}
	f, err := Open(context.Background(), iox.Bytes(data), ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkSpec(t, f, fileSpec{})
	if _, err := f.Streams(context.Background(), 0); !errors.Is(err, ErrIndex) {
		t.Fatalf("Streams(0) of empty file: %v", err)
	}
}

func TestCompressionUsed(t *testing.T) {
	big := bytes.Repeat([]byte("abcdefgh"), 4096)
	var buf bytes.Buffer
	w := NewWriter(&buf, WriterOptions{ChunkCompression: CompressionZstd})
	w.WriteChunk(0, big, 10, nil)
	w.WriteChunkWith(1, big, 10, nil, CompressionNone)
	w.WriteChunk(2, []byte("tiny"), 1, nil)
	w.FinishStripe(10)
	w.AddSection("schema", big)
	w.AddSection("user", []byte("x"))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := Open(context.Background(), iox.Bytes(buf.Bytes()), ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ss, _ := f.Streams(context.Background(), 0)
	if ss[0].Size >= int64(len(big))/10 || ss[1].Size != int64(len(big))+ChunkHeaderSize || ss[2].Size != 4+ChunkHeaderSize {
		t.Fatalf("stream sizes %d %d %d", ss[0].Size, ss[1].Size, ss[2].Size)
	}
	si, _ := f.SectionInfo("schema")
	if si.Compression != CompressionZstd || si.Size >= int64(len(big))/10 {
		t.Fatalf("schema section %+v", si)
	}
	si, _ = f.SectionInfo("user")
	if si.Compression != CompressionNone || si.Size != 1 {
		t.Fatalf("user section %+v", si)
	}
	for id := range 3 {
		p, err := f.ReadChunk(context.Background(), 0, id, 0)
		if err != nil || (id < 2 && !bytes.Equal(p, big)) {
			t.Fatalf("chunk %d: %v", id, err)
		}
	}
	// AppendChunk forces the compression it is asked for.
	c, _ := AppendChunk(nil, []byte("tiny"), CompressionZstd)
	if c[4] != byte(CompressionZstd) {
		t.Fatal("AppendChunk ignored zstd")
	}
	if p, err := DecodeChunk(c); err != nil || string(p) != "tiny" {
		t.Fatalf("DecodeChunk: %q %v", p, err)
	}
	if _, err := AppendChunk(nil, nil, 9); !errors.Is(err, encoding.ErrUnsupported) {
		t.Fatalf("AppendChunk(9): %v", err)
	}
}

// TestReads counts the reads Open and the group loads make.
func TestReads(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	s := genSpec(rng, 20, 5, 2000)
	data := build(t, s, WriterOptions{GroupSize: 4}, 1)
	src := iox.NewFetcher(iox.Bytes(data), iox.FetcherOptions{})
	f, err := Open(context.Background(), src, ReaderOptions{TailSize: 4096})
	if err != nil {
		t.Fatal(err)
	}
	if st := src.Stats(); st.Reads != 1 || st.BytesRead != 4096 {
		t.Fatalf("Open: %+v, want one 4 KiB read", st)
	}
	// Stripe group 0 is far from the tail: one read, cached afterwards.
	src.ResetStats()
	for range 3 {
		if _, err := f.Streams(context.Background(), 1); err != nil {
			t.Fatal(err)
		}
		if _, err := f.Streams(context.Background(), 3); err != nil {
			t.Fatal(err)
		}
	}
	if st := src.Stats(); st.Reads != 1 {
		t.Fatalf("group load: %+v, want one read", st)
	}
	// A footer larger than the tail costs exactly one more read.
	src.ResetStats()
	if _, err := Open(context.Background(), src, ReaderOptions{TailSize: PostscriptSize + 1}); err != nil {
		t.Fatal(err)
	}
	if st := src.Stats(); st.Reads != 2 {
		t.Fatalf("small tail: %+v, want two reads", st)
	}
	// With the whole file as tail, sections and groups need no reads.
	src.ResetStats()
	f, err = Open(context.Background(), src, ReaderOptions{TailSize: int64(len(data))})
	if err != nil {
		t.Fatal(err)
	}
	for i := range f.NumStripes() {
		f.Streams(context.Background(), i)
	}
	for _, sec := range f.Sections() {
		f.Section(context.Background(), sec.Name)
	}
	if st := src.Stats(); st.Reads != 1 {
		t.Fatalf("whole-file tail: %+v", st)
	}
	// Coalesced chunk reads through the fetcher decode to the same payloads.
	f, _ = Open(context.Background(), src, ReaderOptions{})
	var rs []iox.Range
	var want [][]byte
	for i, st := range s.stripes {
		for id, cs := range st.streams {
			for c := range cs {
				r, err := f.ChunkRange(context.Background(), i, id, c)
				if err != nil {
					t.Fatal(err)
				}
				rs = append(rs, r)
				want = append(want, cs[c].payload)
			}
		}
	}
	src.ResetStats()
	raws, err := src.Fetch(context.Background(), rs)
	if err != nil {
		t.Fatal(err)
	}
	for k, raw := range raws {
		p, err := DecodeChunk(raw)
		if err != nil || !bytes.Equal(p, want[k]) {
			t.Fatalf("chunk %d: %v", k, err)
		}
	}
	t.Logf("%d chunks in %d reads", len(rs), src.Stats().Reads)
}

func TestConcurrentReaders(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	s := genSpec(rng, 30, 6, 500)
	data := build(t, s, WriterOptions{GroupSize: 3}, 2)
	f, err := Open(context.Background(), iox.NewFetcher(iox.Bytes(data), iox.FetcherOptions{}), ReaderOptions{TailSize: 1024})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 1))
			for range 200 {
				i := r.IntN(len(s.stripes))
				ss, err := f.Streams(context.Background(), i)
				if err != nil {
					t.Error(err)
					return
				}
				for id, info := range ss {
					for c := range info.Chunks {
						p, err := f.ReadChunk(context.Background(), i, id, c)
						if err != nil || !bytes.Equal(p, s.stripes[i].streams[id][c].payload) {
							t.Error("bad chunk", err)
							return
						}
					}
				}
			}
		})
	}
	wg.Wait()
}

func TestWriterErrors(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf, WriterOptions{})
	if err := w.WriteChunk(-1, nil, 0, nil); err == nil {
		t.Fatal("negative stream id accepted")
	}
	if err := w.WriteChunk(MaxStreamID+1, nil, 0, nil); err == nil {
		t.Fatal("huge stream id accepted")
	}
	if err := w.WriteChunk(0, nil, -1, nil); err == nil {
		t.Fatal("negative rows accepted")
	}
	if err := w.FinishStripe(-1); err == nil {
		t.Fatal("negative stripe rows accepted")
	}
	if err := w.AddSection("", nil); err == nil {
		t.Fatal("empty name accepted")
	}
	if err := w.AddSection(strings.Repeat("x", MaxNameLen+1), nil); err == nil {
		t.Fatal("long name accepted")
	}
	if err := w.AddSection("a", nil); err != nil {
		t.Fatal(err)
	}
	if err := w.AddSection("a", nil); err == nil {
		t.Fatal("duplicate name accepted")
	}
	w.WriteChunk(0, []byte("x"), 1, nil)
	if err := w.Close(); err == nil {
		t.Fatal("Close with an unfinished stripe succeeded")
	}
	if err := w.WriteChunk(0, nil, 0, nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("write after close: %v", err)
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	if f.n -= len(p); f.n < 0 {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

func TestWriterSticky(t *testing.T) {
	w := NewWriter(&failWriter{n: 100}, WriterOptions{})
	w.WriteChunk(0, make([]byte, 200), 1, nil)
	if err := w.FinishStripe(1); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("FinishStripe: %v", err)
	}
	if err := w.AddSection("x", nil); err == nil {
		t.Fatal("error not sticky")
	}
	if err := w.Close(); err == nil {
		t.Fatal("Close succeeded after a write error")
	}
}

func tmpNames(t *testing.T, dir string) []string {
	m, err := filepath.Glob(filepath.Join(dir, "*.tmp-*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestCreateFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.strata")
	rng := rand.New(rand.NewPCG(3, 3))
	s := genSpec(rng, 10, 4, 1000)

	w, err := CreateFile(path, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.WriteChunk(0, []byte("abc"), 1, nil)
	w.FinishStripe(1)
	if n := tmpNames(t, dir); len(n) != 1 || !strings.HasPrefix(filepath.Base(n[0]), "t.strata.tmp-") {
		t.Fatalf("temp files %v", n)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatal("target exists before Close")
	}
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	if n := tmpNames(t, dir); len(n) != 0 {
		t.Fatalf("Abort left %v", n)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatal("target exists after Abort")
	}

	// A failing Close removes the temporary file too.
	w, _ = CreateFile(path, WriterOptions{})
	w.WriteChunk(0, []byte("abc"), 1, nil)
	if err := w.Close(); err == nil {
		t.Fatal("Close with unfinished stripe succeeded")
	}
	if n := tmpNames(t, dir); len(n) != 0 {
		t.Fatalf("failed Close left %v", n)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatal("target exists after failed Close")
	}

	w, _ = CreateFile(path, WriterOptions{})
	if err := writeSpec(w, s, rng); err != nil {
		t.Fatal(err)
	}
	if n := tmpNames(t, dir); len(n) != 0 {
		t.Fatalf("Close left %v", n)
	}
	if err := w.Abort(); err != nil { // no-op after Close
		t.Fatal(err)
	}
	src, err := iox.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	f, err := Open(context.Background(), src, ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkSpec(t, f, s)

	if _, err := CreateFile(filepath.Join(dir, "missing", "x"), WriterOptions{}); err == nil {
		t.Fatal("CreateFile in a missing directory succeeded")
	}
}

// readAll touches every section, stream table and chunk of data.
func readAll(data []byte, opts ReaderOptions) error {
	f, err := Open(context.Background(), iox.Bytes(data), opts)
	if err != nil {
		return err
	}
	for _, s := range f.Sections() {
		if _, _, err := f.Section(context.Background(), s.Name); err != nil {
			return err
		}
	}
	for i := range f.NumStripes() {
		ss, err := f.Streams(context.Background(), i)
		if err != nil {
			return err
		}
		for id, s := range ss {
			for c := range s.Chunks {
				if _, err := f.ReadChunk(context.Background(), i, id, c); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func isFormatErr(err error) bool {
	return errors.Is(err, encoding.ErrCorrupt) || errors.Is(err, encoding.ErrUnsupported) || errors.Is(err, encoding.ErrLimit)
}

func smallFile(t testing.TB, opts WriterOptions) []byte {
	var buf bytes.Buffer
	w := NewWriter(&buf, opts)
	for st := range 3 {
		for id := range 3 {
			if id == 1 && st == 1 {
				continue
			}
			w.WriteChunk(id, bytes.Repeat([]byte{byte(id + st)}, 70+id), 5, []byte{byte(st)})
			w.WriteChunk(id, []byte{1, 2, 3}, 2, nil)
		}
		w.FinishStripe(7)
	}
	w.AddSection("schema", bytes.Repeat([]byte("schema!"), 20))
	w.AddSection("user", []byte("hi"))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestCorruptEveryByte flips each byte of small files: reading everything
// or verifying must fail, and always with a format error.
func TestCorruptEveryByte(t *testing.T) {
	for _, opts := range []WriterOptions{{GroupSize: 2}, {GroupSize: 2, ChunkCompression: CompressionZstd}, {NoMetadataCompression: true}} {
		data := smallFile(t, opts)
		if err := readAll(data, ReaderOptions{}); err != nil {
			t.Fatal(err)
		}
		for i := range data {
			for _, x := range []byte{0x01, 0x80, 0xff} {
				bad := slices.Clone(data)
				bad[i] ^= x
				err := readAll(bad, ReaderOptions{TailSize: 64})
				if err == nil {
					f, oerr := Open(context.Background(), iox.Bytes(bad), ReaderOptions{TailSize: 1 << 20})
					if oerr != nil {
						err = oerr // the leading magic, seen when the tail covers it
					} else if err = f.Verify(context.Background()); err == nil {
						t.Fatalf("byte %d^%#x: undetected", i, x)
					}
				}
				if !isFormatErr(err) {
					t.Fatalf("byte %d^%#x: %v is not a format error", i, x, err)
				}
				// Unsupported is for what a newer writer could have
				// written: only the postscript's major version and
				// checksum kind say so in a file of this minor.
				ps := len(data) - PostscriptSize
				if errors.Is(err, encoding.ErrUnsupported) && i != ps+5 && i != ps+10 && i != ps+11 {
					t.Fatalf("byte %d^%#x (postscript at %d): %v, want ErrCorrupt", i, x, ps, err)
				}
			}
		}
	}
}

// withMinor rewrites a file's minor version and its file checksum.
func withMinor(data []byte, minor uint16) []byte {
	b := slices.Clone(data)
	ps := len(b) - PostscriptSize
	binary.LittleEndian.PutUint16(b[ps+12:], minor)
	binary.LittleEndian.PutUint64(b[ps+14:], xxh3.Hash(b[:len(b)-fileChecksumEnd]))
	return b
}

// TestUnknownCompression: the checksum of a chunk covers its payload, not
// the header byte holding its compression id, and the footer's id sits in
// the postscript. An id this reader does not know is damage (ErrCorrupt)
// in a file of a minor version it knows, and a newer writer's
// (ErrUnsupported) only in a file of a newer minor.
func TestUnknownCompression(t *testing.T) {
	data := smallFile(t, WriterOptions{NoMetadataCompression: true})
	f, err := Open(t.Context(), iox.Bytes(data), ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c0, err := f.Chunk(t.Context(), 0, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	chunkComp := int(c0.Offset) + 4
	footComp := len(data) - PostscriptSize + 4
	for _, at := range []struct {
		name string
		off  int
	}{{"chunk", chunkComp}, {"footer", footComp}} {
		for _, id := range []byte{2, 3, 0x80, 0xff} {
			bad := slices.Clone(data)
			bad[at.off] = id
			for _, c := range []struct {
				minor uint16
				want  error
			}{{MinorVersion, encoding.ErrCorrupt}, {MinorVersion + 1, encoding.ErrUnsupported}} {
				err := readAll(withMinor(bad, c.minor), ReaderOptions{})
				if !errors.Is(err, c.want) || !strings.Contains(err.Error(), fmt.Sprintf("compression %d", id)) {
					t.Errorf("%s compression %d, minor %d: %v, want %v naming the id", at.name, id, c.minor, err, c.want)
				}
			}
		}
	}

	// Verify checks the chunk's framing and checksum; the id is damage
	// only in a file of a minor this reader knows.
	bad := slices.Clone(data)
	bad[chunkComp] = 2
	raw := bad[c0.Offset : c0.Offset+c0.Size]
	if err := CheckChunk(raw); !errors.Is(err, encoding.ErrCorrupt) {
		t.Errorf("CheckChunk: %v, want ErrCorrupt", err)
	}
	for _, c := range []struct {
		minor uint16
		want  error
	}{{MinorVersion, encoding.ErrCorrupt}, {MinorVersion + 1, nil}} {
		f, err := Open(t.Context(), iox.Bytes(withMinor(bad, c.minor)), ReaderOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := f.CheckChunk(raw); !errors.Is(err, c.want) {
			t.Errorf("File.CheckChunk, minor %d: %v, want %v", c.minor, err, c.want)
		}
	}
	// Without its file, an unknown id may be a newer writer's.
	if _, err := DecodeChunk(raw); !errors.Is(err, encoding.ErrUnsupported) {
		t.Errorf("DecodeChunk: %v, want ErrUnsupported", err)
	}
}

func TestTruncate(t *testing.T) {
	data := smallFile(t, WriterOptions{GroupSize: 2})
	for n := range len(data) {
		if err := readAll(data[:n], ReaderOptions{}); !isFormatErr(err) {
			t.Fatalf("truncated to %d: %v", n, err)
		}
		// A file cut in the middle and padded back to size fails too.
		padded := append(slices.Clone(data[:n]), make([]byte, len(data)-n)...)
		if err := readAll(padded, ReaderOptions{}); err == nil && n < len(data)-PostscriptSize {
			f, _ := Open(context.Background(), iox.Bytes(padded), ReaderOptions{})
			if f.Verify(context.Background()) == nil {
				t.Fatalf("zeroed tail from %d undetected", n)
			}
		}
	}
}

func TestChunkErrorContext(t *testing.T) {
	data := smallFile(t, WriterOptions{})
	f, err := Open(context.Background(), iox.Bytes(data), ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ci, _ := f.Chunk(context.Background(), 2, 1, 0)
	bad := slices.Clone(data)
	bad[ci.Offset+ChunkHeaderSize+3] ^= 1
	f, _ = Open(context.Background(), iox.Bytes(bad), ReaderOptions{})
	_, err = f.ReadChunk(context.Background(), 2, 1, 0)
	if !errors.Is(err, ErrChecksum) || !errors.Is(err, encoding.ErrCorrupt) || !strings.Contains(err.Error(), "stripe 2, stream 1, chunk 0") {
		t.Fatalf("error %v", err)
	}
	if _, err := f.ReadChunk(context.Background(), 2, 1, 1); err != nil {
		t.Fatalf("neighbour chunk: %v", err)
	}
	for _, c := range [][3]int{{3, 0, 0}, {-1, 0, 0}, {0, -1, 0}, {0, 0, 2}, {0, 9, 0}} {
		if _, err := f.ReadChunk(context.Background(), c[0], c[1], c[2]); !errors.Is(err, ErrIndex) {
			t.Fatalf("%v: %v", c, err)
		}
	}
	// An absent stream is empty, located at the stripe's end.
	s, err := f.Stream(context.Background(), 1, 7)
	if err != nil || len(s.Chunks) != 0 || s.Offset != f.Stripe(1).Offset+f.Stripe(1).Size {
		t.Fatalf("absent stream %+v %v", s, err)
	}
	ss, _ := f.Streams(context.Background(), 1)
	if len(ss[1].Chunks) != 0 || ss[1].Size != 0 {
		t.Fatalf("skipped stream %+v", ss[1])
	}
}

func TestDecodeChunkErrors(t *testing.T) {
	good, _ := AppendChunk(nil, bytes.Repeat([]byte("z"), 1000), CompressionZstd)
	cases := map[string][]byte{
		"short":      good[:5],
		"length":     good[:len(good)-1],
		"checksum":   append(slices.Clone(good[:ChunkHeaderSize]), append([]byte{good[ChunkHeaderSize] ^ 1}, good[ChunkHeaderSize+1:]...)...),
		"bad method": withHeader(good[ChunkHeaderSize:], 7),
		"bomb":       withHeader(append([]byte{0xff, 0xff, 0xff, 0xff, 0x0f}, good[ChunkHeaderSize+2:]...), 1),
		"raw size":   withHeader(append([]byte{0xe9, 0x07}, good[ChunkHeaderSize+2:]...), 1),
		"not zstd":   withHeader([]byte{10, 1, 2, 3, 4, 5, 6, 7, 8}, 1),
		"bad varint": withHeader([]byte{0x80}, 1),
	}
	for name, c := range cases {
		if _, err := DecodeChunk(c); !isFormatErr(err) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if p, err := DecodeChunk(good); err != nil || len(p) != 1000 {
		t.Fatalf("good chunk: %v", err)
	}
}

// withHeader frames a stored payload with a chosen compression byte.
func withHeader(stored []byte, comp byte) []byte {
	c, _ := AppendChunk(nil, stored, CompressionNone)
	c[4] = comp
	return c
}

func TestLimits(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 11))
	s := genSpec(rng, 12, 5, 300)
	s.sections = []sectionSpec{{"user", bytes.Repeat([]byte("u"), 5000)}}
	data := build(t, s, WriterOptions{GroupSize: 4}, 3)
	check := func(name string, o ReaderOptions, want error) {
		t.Helper()
		if err := readAll(data, o); !errors.Is(err, want) {
			t.Errorf("%s: %v, want %v", name, err, want)
		}
	}
	check("stripes", ReaderOptions{MaxStripes: 11}, encoding.ErrLimit)
	check("footer", ReaderOptions{MaxFooterSize: 10}, encoding.ErrLimit)
	check("section", ReaderOptions{MaxSectionSize: 4999}, encoding.ErrLimit)
	check("group", ReaderOptions{MaxGroupSize: 20}, encoding.ErrLimit)
	check("streams", ReaderOptions{MaxStreams: 1}, encoding.ErrLimit)
	check("chunks", ReaderOptions{MaxChunks: 1}, encoding.ErrLimit)
	check("chunk size", ReaderOptions{MaxChunkSize: 10}, encoding.ErrLimit)
	check("sections", ReaderOptions{MaxSections: 0}, nil)
	if err := readAll(data, ReaderOptions{MaxSectionSize: 5000, MaxStripes: 12, MaxStreams: 5, MaxChunks: 4}); err != nil {
		t.Fatalf("at the limits: %v", err)
	}
}

func TestNotStrata(t *testing.T) {
	for _, data := range [][]byte{nil, []byte("STRA"), make([]byte, 100), []byte(strings.Repeat("STRA", 20))} {
		if err := readAll(data, ReaderOptions{}); !isFormatErr(err) {
			t.Errorf("%q: %v", data, err)
		}
	}
	data := smallFile(t, WriterOptions{})
	bad := slices.Clone(data)
	bad[len(bad)-PostscriptSize+10] = 2 // major
	if err := readAll(bad, ReaderOptions{}); !errors.Is(err, encoding.ErrUnsupported) {
		t.Errorf("major 2: %v", err)
	}
	bad = slices.Clone(data)
	bad[len(bad)-PostscriptSize+5] = 2 // checksum kind
	if err := readAll(bad, ReaderOptions{}); !errors.Is(err, encoding.ErrUnsupported) {
		t.Errorf("checksum kind 2: %v", err)
	}
}

func ExampleWriter() {
	var buf bytes.Buffer
	w := NewWriter(&buf, WriterOptions{})
	w.WriteChunk(0, []byte("encoded node of stream 0"), 3, nil)
	w.WriteChunk(1, []byte("encoded node of stream 1"), 3, []byte("min/max"))
	w.FinishStripe(3)
	w.AddSection("schema", []byte("..."))
	if err := w.Close(); err != nil {
		panic(err)
	}
	f, err := Open(context.Background(), iox.Bytes(buf.Bytes()), ReaderOptions{})
	if err != nil {
		panic(err)
	}
	streams, _ := f.Streams(context.Background(), 0)
	p, _ := f.ReadChunk(context.Background(), 0, 1, 0)
	fmt.Println(f.NumRows(), len(streams), string(p), string(streams[1].Chunks[0].Stats))
	// Output: 3 2 encoded node of stream 1 min/max
}
