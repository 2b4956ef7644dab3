package format

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/zeebo/xxh3"

	"strata/iox"
)

// WriterOptions configure a Writer. The zero value is usable.
type WriterOptions struct {
	// GroupSize is the number of consecutive stripes whose chunk tables share
	// one stripe group. Smaller groups load less metadata per stripe read;
	// larger groups mean fewer small reads. Default DefaultGroupSize.
	GroupSize int
	// ChunkCompression is applied to every chunk written with WriteChunk,
	// kept only where it saves MinSaving. Default CompressionNone: encoded
	// nodes already compress their leaves.
	ChunkCompression Compression
	// MinSaving is the fraction zstd must save to be kept. Default
	// DefaultMinSaving.
	MinSaving float64
	// NoMetadataCompression stores sections, stripe groups and the footer
	// uncompressed even where zstd would save space.
	NoMetadataCompression bool
	// OnStripe, when set, is called by FinishStripe with the index and
	// directory entry of the stripe just written and its streams, indexed
	// by stream id, with every chunk's absolute offset, size, rows and
	// first row (Stats is left empty). It lets a caller index the layout
	// before it adds sections, as the time-series layer's series index
	// does. The slices are the callee's to keep.
	OnStripe func(stripe int, info StripeInfo, streams []StreamInfo)
}

// DefaultGroupSize is the default number of stripes per stripe group.
const DefaultGroupSize = 8

// MaxStreamID bounds the stream ids a Writer accepts.
const MaxStreamID = DefaultMaxStreams - 1

// ErrClosed reports a call on a Writer after Close or Abort.
var ErrClosed = errors.New("format: writer closed")

// Writer writes a Strata container. Chunks of the current stripe are
// buffered per stream until FinishStripe, so memory stays bounded by the
// stripe size plus the chunk tables of the current stripe group. A Writer is
// not safe for concurrent use; after any error every later call returns it.
type Writer struct {
	dst  io.Writer
	opts WriterOptions
	h    *xxh3.Hasher
	off  int64
	err  error

	streams   []streamBuf // current stripe, by stream id
	used      int         // streams[:used] hold chunks in this stripe
	buffered  int64       // bytes buffered for the current stripe
	stripeHas bool        // the current stripe has chunks

	foot      footer
	groupBody []byte // chunk tables of the stripes of the open group
	groupFrom int    // first stripe of the open group
	names     map[string]bool
	scratch   []byte

	// set by CreateFile
	file      *os.File
	buf       *bufio.Writer
	tmp, path string
	// set by CreateSink
	sink iox.Sink
}

type streamBuf struct {
	data   []byte // framed chunks
	table  []byte // rows | size | statsLen | stats per chunk
	chunks int
	infos  []ChunkInfo // sizes and rows, kept only for OnStripe
}

// NewWriter starts a Strata container on dst and writes its leading magic.
// The Writer does not close dst.
func NewWriter(dst io.Writer, opts WriterOptions) *Writer {
	if opts.GroupSize <= 0 {
		opts.GroupSize = DefaultGroupSize
	}
	if opts.MinSaving == 0 {
		opts.MinSaving = DefaultMinSaving
	}
	w := &Writer{dst: dst, opts: opts, h: xxh3.New(), names: map[string]bool{}}
	w.write([]byte(Magic))
	return w
}

// TempSuffix is what the temporary file of a CreateFile writer adds to the
// destination's name, before a random part: "t.strata" is written as
// "t.strata.tmp-123456789" and renamed when complete.
const TempSuffix = ".tmp-"

// CreateFile writes a container to a temporary file next to path
// (path + TempSuffix + random digits) and renames it to path when Close
// succeeds. Abort, or a failing Close, removes the temporary file, so an
// error never leaves a file under path, and a crash at any point leaves
// path as it was (absent, or the previous complete file).
//
// A crashed writer's temporary file is left behind; the writer holds an
// advisory lock on it while it lives (on Unix), and the next CreateFile to
// the same path removes every such file whose lock is free.
func CreateFile(path string, opts WriterOptions) (*Writer, error) {
	// A directory at path would only be found by the rename in Close,
	// after the whole file was written: refuse it now.
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("format: create %s: is a directory", path)
	}
	removeAbandoned(path)
	f, err := createLockedTemp(path)
	if err != nil {
		return nil, err
	}
	// (created 0666 less the umask, as a new file of any writer; a file
	// it replaces gives it its mode)
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
		if err := f.Chmod(fi.Mode().Perm()); err != nil {
			f.Close()
			os.Remove(f.Name())
			return nil, err
		}
	}
	buf := bufio.NewWriterSize(f, 1<<20)
	w := NewWriter(buf, opts)
	w.file, w.buf, w.tmp, w.path = f, buf, f.Name(), path
	if w.err != nil {
		w.Abort()
		return nil, w.err
	}
	return w, nil
}

// Create starts a container at a location: a local path (or file:// URL)
// written by CreateFile, or a remote location such as s3://bucket/key
// written through the iox.Sink its scheme registered (CreateSink). ctx
// bounds a remote sink's requests.
func Create(ctx context.Context, location string, opts WriterOptions) (*Writer, error) {
	if !iox.IsRemote(location) {
		return CreateFile(iox.LocalPath(location), opts)
	}
	s, err := iox.Create(ctx, location)
	if err != nil {
		return nil, err
	}
	return CreateSink(s, opts), nil
}

// CreateSink writes a container to s, a remote destination such as an
// object being uploaded: Close commits it, so it appears whole or not at
// all, and Abort, or a Close that fails, abandons it.
func CreateSink(s iox.Sink, opts WriterOptions) *Writer {
	w := NewWriter(s, opts)
	w.sink = s
	return w
}

// removeAbandoned removes the temporary files that crashed writers to path
// left behind.
func removeAbandoned(path string) {
	dir, base := filepath.Dir(path), filepath.Base(path)+TempSuffix
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if name := e.Name(); strings.HasPrefix(name, base) && e.Type().IsRegular() {
			removeIfAbandoned(filepath.Join(dir, name))
		}
	}
}

// createLockedTemp creates and locks a new temporary file for path. Another
// writer's removeAbandoned may open a file between its creation and its
// lock and remove it; the file is then no longer linked under its name,
// and a fresh one is made.
func createLockedTemp(path string) (*os.File, error) {
	for try := 0; ; try++ {
		f, err := iox.CreateTemp(filepath.Dir(path), filepath.Base(path)+TempSuffix+"*", 0o666)
		if err != nil {
			return nil, err
		}
		err = lockTemp(f)
		if err == nil {
			fi, err1 := f.Stat()
			li, err2 := os.Stat(f.Name())
			if err1 == nil && err2 == nil && os.SameFile(fi, li) {
				return f, nil
			}
			err = errors.New("temporary file removed by another writer")
		}
		f.Close()
		if try == 10 {
			return nil, fmt.Errorf("format: cannot lock a temporary file for %s: %w", path, err)
		}
	}
}

// write appends p to the output and the running file checksum.
func (w *Writer) write(p []byte) {
	if w.err != nil {
		return
	}
	w.h.Write(p)
	n, err := w.dst.Write(p)
	w.off += int64(n)
	if err == nil && n != len(p) {
		err = io.ErrShortWrite
	}
	if err != nil {
		w.err = fmt.Errorf("format: write: %w", err)
	}
}

// Offset returns the bytes written to the output so far (buffered chunks of
// the current stripe are not counted).
func (w *Writer) Offset() int64 { return w.off }

// Buffered returns the framed chunk bytes buffered for the current stripe,
// for callers that cut stripes by size.
func (w *Writer) Buffered() int64 { return w.buffered }

// WriteChunk appends one chunk to stream of the current stripe. payload is
// stored (zstd-compressed per WriterOptions.ChunkCompression) and framed;
// rows is the number of rows it holds in the stream's row domain; stats is
// an opaque blob kept in the stripe group's chunk table. Both slices are
// copied. Chunks of one stream keep the order they are written in; chunks of
// different streams may interleave freely.
func (w *Writer) WriteChunk(stream int, payload []byte, rows int, stats []byte) error {
	return w.WriteChunkWith(stream, payload, rows, stats, w.opts.ChunkCompression)
}

// WriteChunkWith is WriteChunk with the compression chosen per call
// (still kept only where it saves MinSaving).
func (w *Writer) WriteChunkWith(stream int, payload []byte, rows int, stats []byte, c Compression) error {
	if w.err != nil {
		return w.err
	}
	switch {
	case stream < 0 || stream > MaxStreamID:
		return fmt.Errorf("format: stream id %d outside [0,%d]", stream, MaxStreamID)
	case rows < 0:
		return fmt.Errorf("format: stream %d: negative row count %d", stream, rows)
	case c != CompressionNone && c != CompressionZstd:
		return fmt.Errorf("format: stream %d: unknown compression %d", stream, c)
	}
	if stream >= len(w.streams) {
		w.streams = append(w.streams, make([]streamBuf, stream+1-len(w.streams))...)
	}
	s := &w.streams[stream]
	before := len(s.data)
	// A stream's chunks of a stripe gather in one buffer of up to tens of
	// MiB; grown by append's quarter at that size it was copied many times
	// over, so it doubles (the frame may exceed the payload by a little).
	if need := before + ChunkHeaderSize + len(payload) + len(payload)/64 + 64; need > cap(s.data) {
		grown := make([]byte, before, max(need, 2*cap(s.data)))
		copy(grown, s.data)
		s.data = grown
	}
	data, err := appendChunk(s.data, payload, c, w.opts.MinSaving)
	if err != nil {
		return fmt.Errorf("format: stream %d: %w", stream, err)
	}
	s.data = data
	size := len(s.data) - before
	s.table = binary.AppendUvarint(s.table, uint64(rows))
	s.table = binary.AppendUvarint(s.table, uint64(size))
	s.table = binary.AppendUvarint(s.table, uint64(len(stats)))
	s.table = append(s.table, stats...)
	s.chunks++
	if w.opts.OnStripe != nil {
		s.infos = append(s.infos, ChunkInfo{Size: int64(size), Rows: int64(rows)})
	}
	w.used = max(w.used, stream+1)
	w.buffered += int64(size)
	w.stripeHas = true
	return nil
}

// FinishStripe writes the buffered chunks as one stripe holding rows rows,
// streams in id order, and records its chunk tables in the open stripe group,
// which is written once it holds GroupSize stripes.
func (w *Writer) FinishStripe(rows int) error {
	if w.err != nil {
		return w.err
	}
	if rows < 0 {
		return fmt.Errorf("format: stripe with negative row count %d", rows)
	}
	if len(w.foot.stripes) >= DefaultMaxStripes {
		w.err = fmt.Errorf("format: more than %d stripes", DefaultMaxStripes)
		return w.err
	}
	st := StripeInfo{Rows: int64(rows), Offset: w.off, Group: len(w.foot.groups)}
	var layout []StreamInfo
	if w.opts.OnStripe != nil {
		layout = make([]StreamInfo, w.used)
	}
	w.groupBody = binary.AppendUvarint(w.groupBody, uint64(w.used))
	for id := range w.streams[:w.used] {
		s := &w.streams[id]
		if layout != nil {
			li := &layout[id]
			li.Offset, li.Size, li.Chunks = w.off, int64(len(s.data)), s.infos
			off := w.off
			for i := range li.Chunks {
				c := &li.Chunks[i]
				c.Offset, c.FirstRow = off, li.Rows
				off += c.Size
				li.Rows += c.Rows
			}
			s.infos = nil
		}
		w.write(s.data)
		w.groupBody = binary.AppendUvarint(w.groupBody, uint64(s.chunks))
		w.groupBody = append(w.groupBody, s.table...)
		s.data, s.table, s.chunks = s.data[:0], s.table[:0], 0
	}
	st.Size = w.off - st.Offset
	if w.err != nil {
		return w.err
	}
	if st.Size != w.buffered {
		w.err = fmt.Errorf("format: stripe of %d bytes, %d buffered", st.Size, w.buffered)
		return w.err
	}
	if n := len(w.foot.stripes); n > 0 {
		st.FirstRow = w.foot.stripes[n-1].FirstRow + w.foot.stripes[n-1].Rows
	}
	w.foot.stripes = append(w.foot.stripes, st)
	w.foot.rows += st.Rows
	w.used, w.buffered, w.stripeHas = 0, 0, false
	if layout != nil {
		w.opts.OnStripe(len(w.foot.stripes)-1, st, layout)
	}
	if len(w.foot.stripes)-w.groupFrom >= w.opts.GroupSize {
		w.flushGroup()
	}
	return w.err
}

// flushGroup writes the open stripe group.
func (w *Writer) flushGroup() {
	n := len(w.foot.stripes) - w.groupFrom
	if n == 0 || w.err != nil {
		return
	}
	raw := binary.AppendUvarint(w.scratch[:0], uint64(n))
	raw = append(raw, w.groupBody...)
	ref := w.writeBlob(raw)
	w.foot.groups = append(w.foot.groups, groupRef{First: w.groupFrom, Count: n, Ref: ref})
	w.groupFrom = len(w.foot.stripes)
	w.groupBody = w.groupBody[:0]
	w.scratch = raw[:0]
}

// writeBlob writes raw in stored form and returns its reference.
func (w *Writer) writeBlob(raw []byte) blobRef {
	c := CompressionZstd
	if w.opts.NoMetadataCompression {
		c = CompressionNone
	}
	return w.writeBlobWith(raw, c)
}

// writeBlobWith writes raw, compressed with c where it saves MinSaving.
func (w *Writer) writeBlobWith(raw []byte, c Compression) blobRef {
	stored, used := appendStored(nil, raw, c, w.opts.MinSaving)
	r := blobRef{Off: w.off, Size: int64(len(stored)), Comp: used, Sum: Checksum32(stored)}
	w.write(stored)
	return r
}

// AddSection writes a named metadata section now (zstd-compressed where it
// saves MinSaving). Names are 1..MaxNameLen bytes and unique in a file. The
// section may be added at any time before Close; data is not retained.
func (w *Writer) AddSection(name string, data []byte) error {
	c := CompressionZstd
	if w.opts.NoMetadataCompression {
		c = CompressionNone
	}
	return w.AddSectionWith(name, data, c)
}

// AddSectionWith is AddSection with the compression chosen by the caller
// (zstd is still kept only where it saves MinSaving). CompressionNone keeps
// the section's bytes as they are in the file, so a reader can read parts
// of it by range (SectionInfo) — the time-series index is a section of
// separately framed pages read one at a time.
func (w *Writer) AddSectionWith(name string, data []byte, c Compression) error {
	if w.err != nil {
		return w.err
	}
	if name == "" || len(name) > MaxNameLen {
		return fmt.Errorf("format: section name of %d bytes, want 1..%d", len(name), MaxNameLen)
	}
	if w.names[name] {
		return fmt.Errorf("format: section %q added twice", name)
	}
	if len(w.foot.sections) >= DefaultMaxSections {
		return fmt.Errorf("format: more than %d sections", DefaultMaxSections)
	}
	if c != CompressionNone && c != CompressionZstd {
		return fmt.Errorf("format: section %q: unknown compression %d", name, c)
	}
	r := w.writeBlobWith(data, c)
	if w.err != nil {
		return w.err
	}
	w.names[name] = true
	w.foot.sections = append(w.foot.sections, SectionInfo{Name: name, Offset: r.Off, Size: r.Size,
		Compression: r.Comp, Checksum: r.Sum})
	return nil
}

// AddSectionRaw writes a named section stored uncompressed, whatever the
// writer's metadata compression: its bytes sit at SectionInfo.Offset as
// given, so a reader may read a sub-range of it without the rest (the
// section checksum then covers only whole-section reads; a sub-range needs
// a checksum of its own).
func (w *Writer) AddSectionRaw(name string, data []byte) error {
	if w.err != nil {
		return w.err
	}
	if name == "" || len(name) > MaxNameLen {
		return fmt.Errorf("format: section name of %d bytes, want 1..%d", len(name), MaxNameLen)
	}
	if w.names[name] {
		return fmt.Errorf("format: section %q added twice", name)
	}
	if len(w.foot.sections) >= DefaultMaxSections {
		return fmt.Errorf("format: more than %d sections", DefaultMaxSections)
	}
	r := blobRef{Off: w.off, Size: int64(len(data)), Comp: CompressionNone, Sum: Checksum32(data)}
	w.write(data)
	if w.err != nil {
		return w.err
	}
	w.names[name] = true
	w.foot.sections = append(w.foot.sections, SectionInfo{Name: name, Offset: r.Off, Size: r.Size,
		Compression: r.Comp, Checksum: r.Sum})
	return nil
}

// Close writes the last stripe group, the footer and the postscript. Chunks
// written since the last FinishStripe are an error. For a Writer made by
// CreateFile, Close also syncs and closes the file and renames it into
// place, or removes it if anything failed; for one made by CreateSink it
// commits the sink, or aborts it.
func (w *Writer) Close() error {
	if errors.Is(w.err, ErrClosed) {
		return w.err
	}
	if w.err == nil && w.stripeHas {
		w.err = errors.New("format: Close with chunks after the last FinishStripe")
	}
	w.flushGroup()
	if w.err == nil {
		raw := appendFooter(nil, &w.foot)
		c := CompressionZstd
		if w.opts.NoMetadataCompression {
			c = CompressionNone
		}
		stored, used := appendStored(nil, raw, c, w.opts.MinSaving)
		if uint64(len(stored)) > math.MaxUint32 {
			w.err = fmt.Errorf("format: footer of %d bytes exceeds 4 GiB", len(stored))
		}
		w.write(stored)
		ps := appendPostscript(nil, postscript{footerSize: uint32(len(stored)), footerComp: used,
			checksumKind: ChecksumXXH3, footerChecksum: Checksum32(stored),
			major: MajorVersion, minor: MinorVersion})
		// The file checksum covers everything before its own field.
		cut := PostscriptSize - fileChecksumEnd
		w.write(ps[:cut])
		binary.LittleEndian.PutUint64(ps[cut:], w.h.Sum64())
		w.write(ps[cut:])
	}
	err := w.err
	if w.file != nil {
		err = w.finishFile(err)
	}
	if w.sink != nil {
		if err == nil {
			err = w.sink.Commit()
		} else {
			w.sink.Abort()
		}
	}
	w.err = ErrClosed
	w.streams, w.groupBody, w.scratch = nil, nil, nil
	return err
}

// finishFile flushes, syncs and renames a CreateFile target, or removes the
// temporary file when err is set or anything fails.
func (w *Writer) finishFile(err error) error {
	if err == nil {
		err = w.buf.Flush()
	}
	if err == nil {
		err = w.file.Sync()
	}
	if err == nil && renameOpen {
		err = os.Rename(w.tmp, w.path) // still locked: no other writer removes it
	}
	if cerr := w.file.Close(); err == nil {
		err = cerr
	}
	if err == nil && !renameOpen {
		err = os.Rename(w.tmp, w.path)
	}
	if err != nil {
		os.Remove(w.tmp)
		return err
	}
	if d, derr := os.Open(filepath.Dir(w.path)); derr == nil { // persist the rename
		d.Sync()
		d.Close()
	}
	return nil
}

// Abort abandons the container. For a Writer made by CreateFile it closes
// and removes the temporary file; nothing appears under the target path.
func (w *Writer) Abort() error {
	if errors.Is(w.err, ErrClosed) {
		return nil
	}
	w.err = ErrClosed
	w.streams, w.groupBody, w.scratch = nil, nil, nil
	if w.sink != nil {
		w.sink.Abort()
	}
	if w.file == nil {
		return nil
	}
	w.file.Close()
	if err := os.Remove(w.tmp); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}
