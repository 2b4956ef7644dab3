package timeseries

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"
	"time"

	"strata/format"
	"strata/iox"
	"strata/write"
)

// fuzzFile is a small time-series file with small pages, so its index has
// inner pages, several unit and statistics pages and a bloom filter.
func fuzzFile(t testing.TB) []byte { return fuzzFileVersion(t, 0) }

// fuzzFileVersion is fuzzFile with an index of the given version (0: the
// current one), so the fuzz targets start from the statistics records of
// every version a reader takes.
func fuzzFileVersion(t testing.TB, version int) []byte {
	recs, _ := tsbsData(t, 12, 2*time.Hour, false)
	return writeFile(t, recs, tsbsModel, &WriterOptions{Sorted: true, ChunkRows: 200, PageBytes: 256, indexVersion: version})
}

// indexPages returns the model section and every page payload of a file.
func indexPages(t testing.TB, data []byte) (model []byte, pages [][]byte) {
	f, err := format.Open(ctx, iox.Bytes(data), format.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	model, _, err = f.Section(ctx, sectionModel)
	if err != nil {
		t.Fatal(err)
	}
	si, _ := f.SectionInfo(sectionIndex)
	sec := data[si.Offset : si.Offset+si.Size]
	for len(sec) >= format.ChunkHeaderSize {
		n := int(uint32(sec[0]) | uint32(sec[1])<<8 | uint32(sec[2])<<16 | uint32(sec[3])<<24)
		p, err := format.DecodeChunk(sec[:format.ChunkHeaderSize+n])
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, p)
		sec = sec[format.ChunkHeaderSize+n:]
	}
	return model, pages
}

// parseAll runs every index parser on b with the TSBS layout and a small
// one, each with the statistics records of index version 1 and of
// version 2 (first and last).
func parseAll(b []byte) {
	l := &layout{nkeys: 10, ncols: 21, nnum: 10}
	for range 10 {
		l.classes = append(l.classes, classFloat)
	}
	small := &layout{nkeys: 1, ncols: 3, classes: []valueClass{classBytes, classInt}, nnum: 1}
	l2, small2 := *l, *small
	l2.ends, small2.ends = true, true
	_, _ = decodeMeta(b)
	for _, x := range []*layout{l, small, &l2, &small2} {
		_, _ = decodeLeaf(b, x)
		_, _ = decodeInner(b, x.nkeys)
		_, _ = decodeUnits(b, x)
		_, _ = decodeStats(b, x)
	}
	_, _ = decodeBloomPage(b, 8)
}

// TestIndexParsersRoundTrip checks, for an index of each version, that
// its model parses with that version and its statistics pages with that
// version's layout, and that truncated pages fail with an error rather
// than a panic under every layout.
func TestIndexParsersRoundTrip(t *testing.T) {
	for _, version := range []int{1, 2} {
		data := fuzzFileVersion(t, version)
		model, pages := indexPages(t, data)
		m, err := decodeMeta(model)
		if err != nil {
			t.Fatal(err)
		}
		if m.version != version {
			t.Fatalf("index version %d, want %d", m.version, version)
		}
		if len(pages) < 10 {
			t.Fatalf("only %d index pages", len(pages))
		}
		l := &layout{nkeys: 10, ncols: 21, nnum: 10, ends: version >= endsVersion}
		stats := 0
		for _, p := range pages {
			if p[0] == pageStats {
				stats++
				if _, err := decodeStats(p, l); err != nil {
					t.Fatalf("version %d: %v", version, err)
				}
			}
		}
		if stats < 2 {
			t.Fatalf("version %d: %d statistics pages", version, stats)
		}
		for _, p := range append(pages, model) {
			for cut := 0; cut < len(p); cut++ {
				parseAll(p[:cut])
			}
		}
	}
}

// FuzzIndexPages feeds arbitrary bytes to the index parsers (directory
// leaves and inner pages, unit, statistics and bloom pages, the model
// section): any input must give a result or an error, never a panic or an
// allocation sized by an unchecked count.
//
//	go test -run '^$' -fuzz FuzzIndexPages -fuzztime 60s ./timeseries
func FuzzIndexPages(f *testing.F) {
	for _, version := range []int{1, 2} {
		model, pages := indexPages(f, fuzzFileVersion(f, version))
		f.Add(model)
		for _, p := range pages {
			f.Add(p)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) { parseAll(b) })
}

// FuzzOpen opens arbitrary files and runs every kind of read on them.
// Checksums reject most mutations of a real file before any parser sees
// them; FuzzIndexPages reaches the parsers behind them.
//
//	go test -run '^$' -fuzz FuzzOpen -fuzztime 60s ./timeseries
func FuzzOpen(f *testing.F) {
	// (files of both index versions: their statistics records differ)
	for _, version := range []int{1, 2} {
		data := fuzzFileVersion(f, version)
		f.Add(data)
		f.Add(data[:len(data)/2])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		tf, err := OpenSource(ctx, iox.Bytes(b), nil)
		if err != nil {
			return
		}
		exerciseFile(tf)
	})
}

// exerciseFile runs a query, aggregates, a sample, last and a lookup.
func exerciseFile(f *File) {
	lo, hi := f.TimeRange()
	if rows, err := f.Query(ctx, QueryOptions{Time: &TimeRange{lo + (hi-lo)/3, hi}, Limit: 500}); err == nil {
		for {
			rec, err := rows.Next()
			if err != nil {
				break
			}
			rec.Release()
		}
	}
	if rec, _, err := f.Aggregate(ctx, AggOptions{Every: (hi-lo)/4 + 1}); err == nil {
		rec.Release()
	}
	// bars in buckets wide enough to hold whole units: statistics, and
	// each unit's first and last rows
	if rec, _, err := f.Aggregate(ctx, AggOptions{Every: max(hi-lo, 0) + 1, Funcs: []string{"first", "last", "count"}, Threads: 2}); err == nil {
		rec.Release()
	}
	// windows that overlap (many short ones) read one per record and
	// stacked, on two threads
	for _, o := range []SampleOptions{{Windows: 3, Length: 5}, {Windows: 40, Length: 7, Stacked: true, Threads: 2}} {
		if recs, _, err := f.Sample(ctx, o); err == nil {
			for _, r := range recs {
				r.Release()
			}
		}
	}
	if rec, _, err := f.Last(ctx, nil, nil); err == nil {
		rec.Release()
	}
	_, _ = f.Select(ctx, Selector{})
}

// patchFrames returns the file offsets and sizes of the uncompressed chunk
// frames of data: every stream chunk and every index page. Each frame
// carries its own checksum and is read alone (a page by its range), so a
// frame's payload can be overwritten in place and its checksum fixed up
// without touching the rest of the file.
func patchFrames(t testing.TB, data []byte) [][2]int64 {
	fc, err := format.Open(ctx, iox.Bytes(data), format.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var frames [][2]int64
	add := func(off, size int64) {
		if size > format.ChunkHeaderSize && data[off+4] == byte(format.CompressionNone) {
			frames = append(frames, [2]int64{off, size})
		}
	}
	for s := range fc.NumStripes() {
		streams, err := fc.Streams(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range streams {
			for _, ch := range st.Chunks {
				add(ch.Offset, ch.Size)
			}
		}
	}
	si, _ := fc.SectionInfo(sectionIndex)
	for off := si.Offset; off+format.ChunkHeaderSize <= si.Offset+si.Size; {
		size := format.ChunkHeaderSize + int64(binary.LittleEndian.Uint32(data[off:]))
		add(off, size)
		off += size
	}
	return frames
}

// patchSeeds returns the files FuzzPatched damages, with their frames:
// both index versions, and the current one without zstd in its leaves.
func patchSeeds(t testing.TB) (out []patchSeed) {
	recs, _ := tsbsData(t, 12, 2*time.Hour, false)
	for _, o := range []WriterOptions{
		{Sorted: true, ChunkRows: 200, PageBytes: 256, indexVersion: 1},
		{Sorted: true, ChunkRows: 200, PageBytes: 256, indexVersion: 2},
		{Sorted: true, ChunkRows: 150, PageBytes: 256, Table: write.Options{NoZstd: true}},
	} {
		data := writeFile(t, recs, tsbsModel, &o)
		out = append(out, patchSeed{data, patchFrames(t, data)})
	}
	return out
}

// patchSeed is a seed file of FuzzPatched and its uncompressed frames.
type patchSeed struct {
	data   []byte
	frames [][2]int64
}

// FuzzPatched overwrites bytes of one uncompressed frame (a stream chunk
// or an index page) of a seed file and fixes up the frame's checksum, so
// the damage reaches the index parsers and the decoders through every
// kind of read instead of stopping at a checksum as FuzzOpen's mutations
// do. Any error is fine; a panic, a hang or an unbounded allocation is
// not.
//
//	go test -run '^$' -fuzz FuzzPatched -fuzztime 60s ./timeseries
func FuzzPatched(f *testing.F) {
	seeds := patchSeeds(f)
	for i, s := range seeds {
		f.Logf("seed %d: %d bytes, %d uncompressed frames", i, len(s.data), len(s.frames))
		f.Add(uint8(i), uint16(0), uint16(0), []byte{})
		f.Add(uint8(i), uint16(3), uint16(1), []byte{0xff})
		f.Add(uint8(i), uint16(40), uint16(9), []byte{0, 0, 0, 0x80})
		f.Add(uint8(i), uint16(1000), uint16(20), []byte{0x7f, 0x7f})
	}
	f.Fuzz(func(t *testing.T, seed uint8, frame, at uint16, patch []byte) {
		s := seeds[int(seed)%len(seeds)]
		data := bytes.Clone(s.data)
		fr := s.frames[int(frame)%len(s.frames)]
		stored := data[fr[0]+format.ChunkHeaderSize : fr[0]+fr[1]]
		copy(stored[int(at)%len(stored):], patch)
		binary.LittleEndian.PutUint32(data[fr[0]+5:], format.Checksum32(stored))
		stop := time.AfterFunc(patchTimeout, func() {
			panic(fmt.Sprintf("reading a file patched at frame %d byte %d took over %v", frame, at, patchTimeout))
		})
		defer stop.Stop()
		tf, err := OpenSource(ctx, iox.Bytes(data), nil)
		if err != nil {
			return
		}
		exerciseFile(tf)
	})
}

// patchTimeout is how long FuzzPatched lets one input read before it
// crashes the process, so the fuzzer records it: generous, as the
// machine may be busy.
const patchTimeout = 20 * time.Second
