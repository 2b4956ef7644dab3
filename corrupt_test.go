package strata_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"strata"
	"strata/encoding"
	"strata/encoding/all"
	"strata/format"
	"strata/internal/randtable"
	"strata/iox"
	"strata/shred"
)

// The corruption sweep flips single bits of small files that together use
// every encoding and every metadata section, and truncates them at every
// length. For every damaged file:
//
//   - every read (open, full scan, Take, aggregates, Inspect) returns the
//     original data or an error wrapping ErrCorrupt, ErrUnsupported or
//     ErrLimit; never a panic, a hang or a different value;
//   - a verifying open (OpenOptions.Verify) and File.Verify (what `strata
//     verify` runs) report the damage: every flip is detected.
//
// Files under sweepDenseBytes have every bit flipped and are cut at every
// length; larger ones every bit and every length in their last
// sweepTailBytes (stripe groups, sections, footer, postscript) and every
// sweepStride-th byte before. STRATA_SWEEP=full flips every bit and cuts
// at every length of every file (docs/GUARANTEES.md has its figures).
const (
	sweepDenseBytes = 1500
	sweepTailBytes  = 512
	sweepStride     = 24
	sweepTimeout    = 20 * time.Second
)

// sweepFiles are the golden files plus the fuzz seeds.
func sweepFiles(t *testing.T) map[string][]byte {
	files := map[string][]byte{}
	paths, _ := filepath.Glob(filepath.Join(goldenDir, "*.strata"))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files[filepath.Base(p)] = b
	}
	for i, b := range fuzzSeeds() {
		files[fmt.Sprintf("seed%d", i)] = b
	}
	files["sparse-fsst"] = sparseFSSTFile(t)
	files["timeseries"] = timeseriesFile(t)
	return files
}

// sparseFSSTFile holds the encodings the other files do not reach: a bool
// column with rare trues (SparseBool), URL-like text (FSST), a float
// column of one value with rare exceptions (MainlyConstant) and zero-padded
// numeric codes (DigitText), full-precision measurements in a narrow
// range (ALP-RD), readings with a period of 24 rows (LagDelta under
// ALP), signed amounts as text with grouping commas (NumText) and
// masses in steps of 25 (Scaled).
func sparseFSSTFile(t *testing.T) []byte {
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "flag", Type: arrow.FixedWidthTypes.Boolean},
		{Name: "url", Type: arrow.BinaryTypes.String},
		{Name: "mostly", Type: arrow.PrimitiveTypes.Float64},
		{Name: "code", Type: arrow.BinaryTypes.String},
		{Name: "precise", Type: arrow.PrimitiveTypes.Float64},
		{Name: "hourly", Type: arrow.PrimitiveTypes.Float64},
		{Name: "amount", Type: arrow.BinaryTypes.String},
		{Name: "mass", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
	b := array.NewRecordBuilder(mem, sch)
	defer b.Release()
	words := []string{"alpha", "beta", "gamma", "delta", "epsilon", "zeta"}
	for i := 0; i < 240; i++ {
		b.Field(0).(*array.BooleanBuilder).Append(i%100 == 7)
		b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("https://www.example.org/%s/%s?id=%d", words[i%6], words[(i*7)%6], i*31%1000))
		v := 1.5
		if i%29 == 3 {
			v = math.Sqrt(float64(i)) * 1e10
		}
		b.Field(2).(*array.Float64Builder).Append(v)
		b.Field(3).(*array.StringBuilder).Append(fmt.Sprintf("%05d", (i*7919)%100000))
		b.Field(4).(*array.Float64Builder).Append(1000 + math.Sin(float64(i)*0.7)*math.Sqrt(2))
		b.Field(5).(*array.Float64Builder).Append(float64((i%24)*37%101+i/24) / 10)
		b.Field(6).(*array.StringBuilder).Append(string(encoding.AppendNumber(nil, int64((i*7919)%200000-100000)*1000, true)))
		b.Field(7).(*array.Int64Builder).Append(int64((i*104729)%65521) * 25)
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	// No shared dictionaries: a stripe-wide alphabet of two values would
	// take "mostly" from MainlyConstant (other swept files have them).
	w, err := strata.NewWriter(&buf, sch, &strata.WriteOptions{ChunkValues: 120, NoZstd: true, NoShared: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestCorruptionSweepCoversEncodings checks the swept files use every
// registered encoding, so the sweep reaches every decoder.
func TestCorruptionSweepCoversEncodings(t *testing.T) {
	seen := map[string]bool{}
	for _, data := range sweepFiles(t) {
		f, err := strata.OpenSource(iox.Bytes(data))
		if err != nil {
			t.Fatal(err)
		}
		rep, err := f.Inspect()
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range rep.Columns {
			for k := range c.Encodings {
				seen[k] = true
			}
		}
	}
	for _, c := range all.Registry().Codecs() {
		if !seen[c.Kind.String()] {
			t.Errorf("no swept file uses encoding %s", c.Kind)
		}
	}
}

// readResult is what reading a file every way returned.
type readResult struct {
	scan, take arrow.RecordBatch
	aggs       string
}

func (r *readResult) release() {
	if r.scan != nil {
		r.scan.Release()
	}
	if r.take != nil {
		r.take.Release()
	}
}

// equal compares two results value by value (nulls, NaN and unordered
// FlatMap entries logically).
func (r *readResult) equal(o *readResult) error {
	cmp := randtable.Compare{Unordered: randtable.MetadataFlag(shred.FlatMapMetadataKey)}
	if err := cmp.Records(r.scan, o.scan); err != nil {
		return fmt.Errorf("scan: %w", err)
	}
	if (r.take == nil) != (o.take == nil) {
		return errors.New("take: one side has rows")
	}
	if r.take != nil {
		if err := cmp.Records(r.take, o.take); err != nil {
			return fmt.Errorf("take: %w", err)
		}
	}
	if r.aggs != o.aggs {
		return fmt.Errorf("aggregates %s, want %s", o.aggs, r.aggs)
	}
	return nil
}

// readAll reads data every way: a full scan, a Take, count/min/max of
// every leaf column, Inspect. An error is returned as is.
func readAll(data []byte) (*readResult, error) { return readAllWith(data, false) }

// shortReads is a source that returns at most n bytes a read, with no
// error, as an io.ReaderAt may.
type shortReads struct {
	b iox.Bytes
	n int
}

func (s shortReads) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	return s.b.ReadAt(ctx, p[:min(len(p), s.n)], off)
}

func (s shortReads) Size() int64 { return s.b.Size() }

// readAllWith is readAll; hostile reads the file as a demanding reader
// would: through short reads, on four goroutines with a prefetch window of
// one byte and a decoder cache of 16 KiB, so that errors surface in jobs
// running beside others and in a producer waiting for room.
func readAllWith(data []byte, hostile bool) (*readResult, error) {
	src := iox.Source(iox.Bytes(data))
	var opts []strata.OpenOption
	if hostile {
		src = shortReads{iox.Bytes(data), 777}
		opts = append(opts, strata.OpenOptions{Parallelism: 4, PrefetchBytes: 1}, strata.WithDecoderCache(16<<10))
	}
	f, err := strata.OpenSource(src, opts...)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	res := &readResult{}
	sc, err := f.Scan(strata.ScanOptions{})
	if err != nil {
		return nil, err
	}
	var recs []arrow.RecordBatch
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	for {
		rec, err := sc.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		recs = append(recs, rec)
	}
	if res.scan, err = randtable.Concat(mem, f.Schema(), recs); err != nil {
		return nil, err
	}
	if n := f.NumRows(); n > 0 {
		rec, err := f.Take([]int64{n - 1, 0, n / 2}, nil)
		if err != nil {
			res.release()
			return nil, err
		}
		res.take = rec
	}
	aggs := []string{"count(*)"}
	for _, fd := range f.Schema().Fields() {
		if isLeaf(fd.Type) {
			aggs = append(aggs, "count("+fd.Name+")")
			if d, ok := fd.Type.(*arrow.Decimal128Type); !ok || d.Precision <= 18 {
				aggs = append(aggs, "min("+fd.Name+")", "max("+fd.Name+")")
			}
		}
	}
	vals, _, err := f.Aggregate(strata.AggregateOptions{Exprs: strings.Join(aggs, ", ")})
	if err != nil {
		res.release()
		return nil, err
	}
	var b strings.Builder
	for _, v := range vals {
		fmt.Fprintf(&b, "%s=%s;", v.Name, v.String())
	}
	res.aggs = b.String()
	if _, err := f.Inspect(); err != nil {
		res.release()
		return nil, err
	}
	if _, err := f.Layouts(); err != nil {
		res.release()
		return nil, err
	}
	return res, nil
}

func isLeaf(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.STRUCT, arrow.LIST, arrow.MAP:
		return false
	}
	return true
}

// clearError reports whether err says what kind of damage it met.
func clearError(err error) bool {
	return errors.Is(err, encoding.ErrCorrupt) || errors.Is(err, encoding.ErrUnsupported) || errors.Is(err, encoding.ErrLimit)
}

// withTimeout runs fn, turning a panic into an error and a hang into a
// test failure.
func withTimeout(t *testing.T, what string, fn func() error) error {
	done := make(chan error, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- fmt.Errorf("PANIC: %v", r)
			}
		}()
		done <- fn()
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(sweepTimeout):
		t.Fatalf("%s: no answer after %v (hang)", what, sweepTimeout)
		return nil
	}
}

type sweepCounts struct {
	flips, readErr, harmless, verifyOpen, verifyLocated int
	truncations, truncErr                               int
}

// newerWriterField reports whether byte at of a file of size bytes is one of
// the postscript fields a newer writer may set to what this reader does not
// know (the major version and the checksum kind): a flip there is
// unsupported. Every other flip of a file of this reader's minor is damage.
func newerWriterField(size, at int) bool {
	ps := size - format.PostscriptSize
	return at == ps+5 || at == ps+10 || at == ps+11
}

func TestCorruptionSweep(t *testing.T) {
	full := os.Getenv("STRATA_SWEEP") == "full"
	files := sweepFiles(t)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	var (
		mu    sync.Mutex
		total sweepCounts
	)
	only := os.Getenv("STRATA_SWEEP_FILE")
	// The files are swept side by side (each alone is a few to tens of
	// seconds of reads): the group returns when every one is done.
	t.Run("files", func(t *testing.T) {
		for _, name := range names {
			if only != "" && name != only {
				continue
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				c := sweepFile(t, name, files[name], full)
				mu.Lock()
				total.add(c)
				mu.Unlock()
			})
		}
	})
	t.Logf("TOTAL: %d flips: %d read errors, %d harmless (original data), 0 wrong answers; %d refused by a verifying open, %d detected by verifying open or File.Verify; %d truncations, %d refused",
		total.flips, total.readErr, total.harmless, total.verifyOpen, total.verifyLocated, total.truncations, total.truncErr)
}

// sweepFile flips every bit of orig (every sweepStride-th byte's of a
// large file, but its tail) and truncates it at every length likewise,
// reading each copy every way: no panic, no hang, no wrong answer
// without an error, and every flip detected by verification.
func sweepFile(t *testing.T, name string, orig []byte, full bool) sweepCounts {
	want, err := readAll(orig)
	if err != nil {
		t.Fatalf("%s: original does not read: %v", name, err)
	}
	var c sweepCounts
	buf := make([]byte, len(orig))
	for bit := 0; bit < len(orig)*8; bit++ {
		byteAt := bit / 8
		dense := full || len(orig) <= sweepDenseBytes || byteAt >= len(orig)-sweepTailBytes
		if !dense && byteAt%sweepStride != 0 {
			continue
		}
		copy(buf, orig)
		buf[byteAt] ^= 1 << (bit % 8)
		c.flips++
		what := fmt.Sprintf("%s: bit %d (byte %d of %d)", name, bit, byteAt, len(orig))
		var diff error
		hostile := c.flips%2 == 0
		what += fmt.Sprintf(" (hostile reader %v)", hostile)
		err := withTimeout(t, what, func() error {
			got, err := readAllWith(buf, hostile)
			if err == nil {
				diff = want.equal(got)
				got.release()
			}
			return err
		})
		switch {
		case err != nil && strings.HasPrefix(err.Error(), "PANIC"):
			t.Errorf("%s: %v", what, err)
		case err != nil && !clearError(err):
			t.Errorf("%s: error without a kind (ErrCorrupt/ErrUnsupported/ErrLimit): %v", what, err)
		case err != nil && errors.Is(err, encoding.ErrUnsupported) && !errors.Is(err, encoding.ErrCorrupt) && !newerWriterField(len(orig), byteAt):
			t.Errorf("%s: damage reported as unsupported: %v", what, err)
		case err != nil:
			c.readErr++
		case diff != nil:
			t.Errorf("%s: read returned different data without an error: %v", what, diff)
		default:
			c.harmless++
		}
		// Detection: a verifying open, or File.Verify after a plain open.
		err = withTimeout(t, what+" (verify)", func() error {
			f, err := strata.OpenSourceWith(iox.Bytes(buf), strata.OpenOptions{Verify: true})
			if err == nil {
				f.Close()
				return nil
			}
			c.verifyOpen++
			g, err := strata.OpenSource(iox.Bytes(buf))
			if err != nil {
				return err // the footer or postscript: Open itself reports it
			}
			defer g.Close()
			return g.Verify(context.Background())
		})
		switch {
		case err == nil:
			t.Errorf("%s: not detected by a verifying open and File.Verify", what)
		case !clearError(err):
			t.Errorf("%s: verify error without a kind: %v", what, err)
		default:
			c.verifyLocated++
		}
	}
	for n := 0; n < len(orig); n++ {
		if !full && len(orig) > sweepDenseBytes && n < len(orig)-sweepTailBytes && n%sweepStride != 0 {
			continue
		}
		c.truncations++
		hostile := c.truncations%2 == 0
		what := fmt.Sprintf("%s: truncated to %d of %d bytes (hostile reader %v)", name, n, len(orig), hostile)
		err := withTimeout(t, what, func() error {
			got, err := readAllWith(orig[:n], hostile)
			if err == nil {
				got.release()
			}
			return err
		})
		switch {
		case err == nil:
			t.Errorf("%s: read without an error", what)
		case !clearError(err):
			t.Errorf("%s: error without a kind: %v", what, err)
		default:
			c.truncErr++
		}
	}
	want.release()
	t.Logf("%-32s %6d bytes: %6d flips (%d read errors, %d harmless, %d refused by a verifying open, %d detected in all); %d truncations, %d refused",
		name, len(orig), c.flips, c.readErr, c.harmless, c.verifyOpen, c.verifyLocated, c.truncations, c.truncErr)
	return c
}

func (c *sweepCounts) add(o sweepCounts) {
	c.flips += o.flips
	c.readErr += o.readErr
	c.harmless += o.harmless
	c.verifyOpen += o.verifyOpen
	c.verifyLocated += o.verifyLocated
	c.truncations += o.truncations
	c.truncErr += o.truncErr
}
