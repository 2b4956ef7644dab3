package format

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/zeebo/xxh3"

	"strata/encoding"
	"strata/iox"
)

// ReaderOptions bound what Open and later calls read and allocate. Zero
// fields take the defaults below; every size read from a file is checked
// against them before anything is allocated.
type ReaderOptions struct {
	// TailSize is the size of the first read from the end of the file. It
	// holds the postscript and footer in the common case, and often the last
	// sections and stripe group too. Default 64 KiB.
	TailSize int64
	// MaxFooterSize bounds the footer, stored and decompressed. Default 64 MiB.
	MaxFooterSize int
	// MaxSectionSize bounds a named section, stored and decompressed.
	// Default 256 MiB.
	MaxSectionSize int
	// MaxGroupSize bounds a stripe group, stored and decompressed.
	// Default 256 MiB.
	MaxGroupSize int
	// MaxChunkSize bounds a chunk payload after decompression. Default 1 GiB.
	MaxChunkSize int
	// MaxStripes bounds the stripes of a file. Default 1<<24.
	MaxStripes int
	// MaxStreams bounds the streams of one stripe. Default 1<<20.
	MaxStreams int
	// MaxChunks bounds the chunks of one stream in one stripe. Default 1<<20.
	MaxChunks int
	// MaxSections bounds the named sections. Default 1<<16.
	MaxSections int

	// skipChecksums lets the package's fuzz targets reach the parsers behind
	// the checksums; it cannot be set from outside the package.
	skipChecksums bool
}

// Default reader limits.
const (
	DefaultTailSize       = 64 << 10
	DefaultMaxFooterSize  = 64 << 20
	DefaultMaxSectionSize = 256 << 20
	DefaultMaxGroupSize   = 256 << 20
	DefaultMaxStripes     = 1 << 24
	DefaultMaxStreams     = 1 << 20
	DefaultMaxChunks      = 1 << 20
	DefaultMaxSections    = 1 << 16
)

func (o ReaderOptions) withDefaults() ReaderOptions {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	if o.TailSize <= 0 {
		o.TailSize = DefaultTailSize
	}
	o.TailSize = max(o.TailSize, PostscriptSize)
	def(&o.MaxFooterSize, DefaultMaxFooterSize)
	def(&o.MaxSectionSize, DefaultMaxSectionSize)
	def(&o.MaxGroupSize, DefaultMaxGroupSize)
	def(&o.MaxChunkSize, DefaultMaxChunkSize)
	def(&o.MaxStripes, DefaultMaxStripes)
	def(&o.MaxStreams, DefaultMaxStreams)
	def(&o.MaxChunks, DefaultMaxChunks)
	def(&o.MaxSections, DefaultMaxSections)
	return o
}

// postscript is the decoded fixed trailer.
type postscript struct {
	footerSize     uint32
	footerComp     Compression
	checksumKind   uint8
	footerChecksum uint32
	fileChecksum   uint64
	major, minor   uint16
}

// Postscript layout, PostscriptSize bytes at the very end of the file:
//
//	0  footerSize     u32   stored bytes of the footer
//	4  footerComp     u8    Compression of the footer
//	5  checksumKind   u8    ChecksumXXH3
//	6  footerChecksum u32   Checksum32 of the stored footer
//	10 major          u16
//	12 minor          u16
//	14 fileChecksum   u64   xxh3-64 of file bytes [0, fileSize-12)
//	22 magic          "STRA"

// fileChecksumEnd is where the bytes the file checksum covers end, counted
// back from the end of the file: everything before the fileChecksum field,
// so every byte but the checksum itself and the trailing magic is covered.
const fileChecksumEnd = PostscriptSize - 14

func appendPostscript(dst []byte, ps postscript) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, ps.footerSize)
	dst = append(dst, byte(ps.footerComp), ps.checksumKind)
	dst = binary.LittleEndian.AppendUint32(dst, ps.footerChecksum)
	dst = binary.LittleEndian.AppendUint16(dst, ps.major)
	dst = binary.LittleEndian.AppendUint16(dst, ps.minor)
	dst = binary.LittleEndian.AppendUint64(dst, ps.fileChecksum)
	return append(dst, Magic...)
}

func parsePostscript(b []byte) (postscript, error) {
	var ps postscript
	if string(b[22:26]) != Magic {
		return ps, encoding.Corruptf("not a Strata file: trailing magic %q", b[22:26])
	}
	ps.footerSize = binary.LittleEndian.Uint32(b[0:])
	ps.footerComp = Compression(b[4])
	ps.checksumKind = b[5]
	ps.footerChecksum = binary.LittleEndian.Uint32(b[6:])
	ps.major = binary.LittleEndian.Uint16(b[10:])
	ps.minor = binary.LittleEndian.Uint16(b[12:])
	ps.fileChecksum = binary.LittleEndian.Uint64(b[14:])
	if ps.major != MajorVersion {
		return ps, encoding.Unsupportedf("format version %d.%d (this reader reads %d.x)", ps.major, ps.minor, MajorVersion)
	}
	if ps.checksumKind != ChecksumXXH3 {
		return ps, encoding.Unsupportedf("postscript: checksum kind %d", ps.checksumKind)
	}
	return ps, nil
}

// File is an open Strata container: a source and the metadata read from it.
// Its methods are safe for concurrent use by many goroutines; stripe groups
// are loaded on first use and cached in the Meta.
type File struct {
	src iox.Source
	*Meta
}

// Meta is what Open learns about a container: postscript, footer and the
// stripe groups loaded so far. It does not hold the source, so Files opened
// on the same bytes can share it (Bind) and a reader can keep it across
// opens without another read; groups loaded through any of them are kept.
type Meta struct {
	opts    ReaderOptions
	size    int64
	ps      postscript
	tail    []byte // the last bytes of the file, from tailOff
	tailOff int64
	foot    *footer
	groups  []groupSlot
	// loaded counts the raw bytes of the stripe groups loaded so far.
	loaded atomic.Int64
}

// Tail returns the last bytes of the file that opening it read, from
// offset off (the footer's head included when it began before them). The
// bytes are shared: the caller must not change them.
func (m *Meta) Tail() (off int64, b []byte) { return m.tailOff, m.tail }

// Bind returns a File reading the bytes m describes from src. The caller
// vouches that src holds the same bytes as the source m was read from.
func (m *Meta) Bind(src iox.Source) *File { return &File{src: src, Meta: m} }

// Bytes estimates the memory m holds: the file tail, the decoded footer
// and the stripe groups loaded so far.
func (m *Meta) Bytes() int64 {
	n := int64(len(m.tail)) + m.loaded.Load()
	n += int64(len(m.foot.stripes))*48 + int64(len(m.foot.groups))*48
	for _, s := range m.foot.sections {
		n += int64(len(s.Name)) + 64
	}
	return n
}

type groupSlot struct {
	mu sync.Mutex
	v  atomic.Pointer[[][]StreamInfo]
}

// Open reads the postscript and footer of a Strata file with one read from
// its end (two when the footer is larger than opts.TailSize) and checks the
// footer's checksum. It does not verify the whole file; see Verify.
func Open(ctx context.Context, src iox.Source, opts ReaderOptions) (*File, error) {
	opts = opts.withDefaults()
	size := src.Size()
	if size < int64(len(Magic)+PostscriptSize) {
		return nil, encoding.Corruptf("not a Strata file: %d bytes is shorter than magic and postscript", size)
	}
	tailLen := min(opts.TailSize, size)
	tailOff := size - tailLen
	tail, err := iox.ReadRange(ctx, src, iox.Range{Off: tailOff, Len: tailLen})
	if err != nil {
		return nil, fmt.Errorf("reading file tail: %w", err)
	}
	ps, err := parsePostscript(tail[len(tail)-PostscriptSize:])
	if err != nil {
		return nil, err
	}
	footEnd := size - PostscriptSize
	if int64(ps.footerSize) > footEnd-int64(len(Magic)) {
		return nil, encoding.Corruptf("postscript: footer of %d bytes does not fit in a %d-byte file", ps.footerSize, size)
	}
	if int64(ps.footerSize) > int64(opts.MaxFooterSize) {
		return nil, encoding.Limitf("footer of %d bytes, limit %d", ps.footerSize, opts.MaxFooterSize)
	}
	footOff := footEnd - int64(ps.footerSize)
	if footOff < tailOff { // second read: the footer's head
		head, err := iox.ReadRange(ctx, src, iox.Range{Off: footOff, Len: tailOff - footOff})
		if err != nil {
			return nil, fmt.Errorf("reading footer: %w", err)
		}
		tail, tailOff = append(head, tail...), footOff
	}
	if tailOff == 0 && string(tail[:len(Magic)]) != Magic {
		return nil, encoding.Corruptf("not a Strata file: leading magic %q", tail[:len(Magic)])
	}
	stored := tail[footOff-tailOff : footEnd-tailOff]
	if got := Checksum32(stored); got != ps.footerChecksum && !opts.skipChecksums {
		return nil, fmt.Errorf("footer: stored %#08x, computed %#08x: %w", ps.footerChecksum, got, ErrChecksum)
	}
	raw, err := unstore(stored, ps.footerComp, opts.MaxFooterSize, ps.minor, "footer")
	if err != nil {
		return nil, err
	}
	foot, err := parseFooter(raw, footOff, ps.minor, &opts)
	if err != nil {
		return nil, err
	}
	return &File{src: src, Meta: &Meta{opts: opts, size: size, ps: ps, tail: tail, tailOff: tailOff,
		foot: foot, groups: make([]groupSlot, len(foot.groups))}}, nil
}

// Source returns the source the file reads from.
func (f *File) Source() iox.Source { return f.src }

// Size returns the file size in bytes.
func (f *File) Size() int64 { return f.size }

// Version returns the format version the file was written with.
func (f *File) Version() (major, minor uint16) { return f.ps.major, f.ps.minor }

// NumRows returns the total rows of all stripes.
func (f *File) NumRows() int64 { return f.foot.rows }

// NumStripes returns the number of stripes.
func (f *File) NumStripes() int { return len(f.foot.stripes) }

// NumGroups returns the number of stripe groups.
func (f *File) NumGroups() int { return len(f.foot.groups) }

// Stripe returns the directory entry of stripe i, 0 ≤ i < NumStripes().
func (f *File) Stripe(i int) StripeInfo { return f.foot.stripes[i] }

// StripeForRow returns the stripe holding file row row, or -1.
func (f *File) StripeForRow(row int64) int {
	if row < 0 || row >= f.foot.rows {
		return -1
	}
	s := f.foot.stripes
	return sort.Search(len(s), func(i int) bool { return s[i].FirstRow+s[i].Rows > row })
}

// Sections returns the section directory in file order. The slice is shared:
// do not modify it.
func (f *File) Sections() []SectionInfo { return f.foot.sections }

// SectionInfo returns the directory entry of the named section.
func (f *File) SectionInfo(name string) (SectionInfo, bool) {
	i, ok := f.foot.byName[name]
	if !ok {
		return SectionInfo{}, false
	}
	return f.foot.sections[i], true
}

// Section reads, checks and decompresses the named section. It reports
// false, without error, when the file has no such section. Each call returns
// a fresh buffer the caller owns.
func (f *File) Section(ctx context.Context, name string) ([]byte, bool, error) {
	i, ok := f.foot.byName[name]
	if !ok {
		return nil, false, nil
	}
	s := f.foot.sections[i]
	b, fromTail, err := f.readBlob(ctx, blobRef{s.Offset, s.Size, s.Compression, s.Checksum}, f.opts.MaxSectionSize, "section "+name)
	if err != nil {
		return nil, true, err
	}
	if fromTail && s.Compression == CompressionNone {
		b = append([]byte(nil), b...)
	}
	return b, true, nil
}

// readBlob reads a stored blob, checks its checksum and decompresses it.
// fromTail reports that the stored bytes alias the cached tail.
func (f *File) readBlob(ctx context.Context, r blobRef, maxRaw int, what string) (raw []byte, fromTail bool, err error) {
	// Writers store compressed only when it is smaller, so a stored size
	// beyond the raw limit is refused before reading.
	if r.Size > int64(maxRaw) {
		return nil, false, encoding.Limitf("%s: %d bytes, limit %d", what, r.Size, maxRaw)
	}
	var stored []byte
	if r.Off >= f.tailOff {
		stored = f.tail[r.Off-f.tailOff : r.Off-f.tailOff+r.Size]
		fromTail = true
	} else {
		stored, err = iox.ReadRange(ctx, f.src, iox.Range{Off: r.Off, Len: r.Size})
		if err != nil {
			return nil, false, fmt.Errorf("%s: %w", what, err)
		}
	}
	if got := Checksum32(stored); got != r.Sum && !f.opts.skipChecksums {
		return nil, false, fmt.Errorf("%s: stored %#08x, computed %#08x: %w", what, r.Sum, got, ErrChecksum)
	}
	raw, err = unstore(stored, r.Comp, maxRaw, f.ps.minor, what)
	return raw, fromTail, err
}

// group returns the stream tables of group g, loading it on first use.
func (f *File) group(ctx context.Context, g int) ([][]StreamInfo, error) {
	slot := &f.groups[g]
	if p := slot.v.Load(); p != nil {
		return *p, nil
	}
	slot.mu.Lock()
	defer slot.mu.Unlock()
	if p := slot.v.Load(); p != nil {
		return *p, nil
	}
	ref := f.foot.groups[g]
	raw, _, err := f.readBlob(ctx, ref.Ref, f.opts.MaxGroupSize, fmt.Sprintf("stripe group %d", g))
	if err != nil {
		return nil, err
	}
	t, err := parseGroup(raw, g, ref, f.foot.stripes, &f.opts)
	if err != nil {
		return nil, err
	}
	slot.v.Store(&t)
	n := int64(len(raw))
	for _, streams := range t {
		n += int64(len(streams)) * 64
		for _, s := range streams {
			n += int64(len(s.Chunks)) * 64
		}
	}
	f.loaded.Add(n)
	return t, nil
}

// Streams returns the streams of stripe, indexed by stream id, loading and
// caching the stripe's group on first use. A stream id at or beyond the
// returned length is absent from the stripe. The result is shared: do not
// modify it.
func (f *File) Streams(ctx context.Context, stripe int) ([]StreamInfo, error) {
	if stripe < 0 || stripe >= len(f.foot.stripes) {
		return nil, fmt.Errorf("stripe %d of %d: %w", stripe, len(f.foot.stripes), ErrIndex)
	}
	g := f.foot.stripes[stripe].Group
	t, err := f.group(ctx, g)
	if err != nil {
		return nil, fmt.Errorf("stripe %d: %w", stripe, err)
	}
	return t[stripe-f.foot.groups[g].First], nil
}

// ErrIndex reports a stripe, stream or chunk index outside the file.
var ErrIndex = errors.New("format: index out of range")

// Stream returns one stream of a stripe; an absent stream is a zero
// StreamInfo at the stripe's end offset.
func (f *File) Stream(ctx context.Context, stripe, stream int) (StreamInfo, error) {
	ss, err := f.Streams(ctx, stripe)
	if err != nil {
		return StreamInfo{}, err
	}
	if stream < 0 {
		return StreamInfo{}, fmt.Errorf("stripe %d, stream %d: %w", stripe, stream, ErrIndex)
	}
	if stream >= len(ss) {
		st := f.foot.stripes[stripe]
		return StreamInfo{Offset: st.Offset + st.Size}, nil
	}
	return ss[stream], nil
}

// StreamRange returns the byte range of a whole stream of a stripe.
func (f *File) StreamRange(ctx context.Context, stripe, stream int) (iox.Range, error) {
	s, err := f.Stream(ctx, stripe, stream)
	if err != nil {
		return iox.Range{}, err
	}
	return iox.Range{Off: s.Offset, Len: s.Size}, nil
}

// Chunk returns the directory entry of one chunk.
func (f *File) Chunk(ctx context.Context, stripe, stream, chunk int) (ChunkInfo, error) {
	s, err := f.Stream(ctx, stripe, stream)
	if err != nil {
		return ChunkInfo{}, err
	}
	if chunk < 0 || chunk >= len(s.Chunks) {
		return ChunkInfo{}, fmt.Errorf("stripe %d, stream %d, chunk %d of %d: %w", stripe, stream, chunk, len(s.Chunks), ErrIndex)
	}
	return s.Chunks[chunk], nil
}

// ChunkRange returns the byte range of one framed chunk, for a caller that
// plans and coalesces its own reads and then calls DecodeChunkAt.
func (f *File) ChunkRange(ctx context.Context, stripe, stream, chunk int) (iox.Range, error) {
	c, err := f.Chunk(ctx, stripe, stream, chunk)
	if err != nil {
		return iox.Range{}, err
	}
	return iox.Range{Off: c.Offset, Len: c.Size}, nil
}

// ReadChunk reads and decodes one chunk with a read of its own.
func (f *File) ReadChunk(ctx context.Context, stripe, stream, chunk int) ([]byte, error) {
	r, err := f.ChunkRange(ctx, stripe, stream, chunk)
	if err != nil {
		return nil, err
	}
	raw, err := iox.ReadRange(ctx, f.src, r)
	if err != nil {
		return nil, fmtChunk(stripe, stream, chunk, err)
	}
	return f.DecodeChunkAt(stripe, stream, chunk, raw)
}

// DecodeChunkAt is File.DecodeChunk with errors naming the chunk's stripe,
// stream and index (a negative index: a caller that does not know it).
func (f *File) DecodeChunkAt(stripe, stream, chunk int, raw []byte) ([]byte, error) {
	p, err := f.DecodeChunk(raw)
	if err != nil {
		return nil, fmtChunk(stripe, stream, chunk, err)
	}
	return p, nil
}

// DecodeChunk is the package's DecodeChunk for bytes framed as a chunk in
// this file, with the file's chunk size limit. A compression id this reader
// does not know is ErrCorrupt in a file of a minor version it knows (no
// writer of that version uses one; the checksum does not cover the header)
// and ErrUnsupported only in a file of a newer minor.
func (f *File) DecodeChunk(raw []byte) ([]byte, error) {
	return decodeChunk(raw, f.opts.MaxChunkSize, !f.opts.skipChecksums, f.ps.minor)
}

// CheckChunk is the package's CheckChunk for a chunk of this file: in a
// file of a newer minor version an unknown compression id is not damage,
// and only the framing and the checksum are checked.
func (f *File) CheckChunk(raw []byte) error { return checkChunk(raw, f.ps.minor) }

// Verify reads the whole file and checks its leading magic and the file
// checksum in the postscript. It reads the source beneath any Fetchers
// (iox.Underlying), so the tail a Fetcher keeps from opening, possibly an
// earlier open's through a metadata cache, cannot stand in for the bytes
// the source holds now.
func (f *File) Verify(ctx context.Context) error {
	src := iox.Underlying(f.src)
	head, err := iox.ReadRange(ctx, src, iox.Range{Off: 0, Len: int64(len(Magic))})
	if err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	if string(head) != Magic {
		return encoding.Corruptf("not a Strata file: leading magic %q", head)
	}
	h := xxh3.New()
	end := f.size - fileChecksumEnd
	buf := make([]byte, min(end, 1<<20))
	for off := int64(0); off < end; {
		n := min(int64(len(buf)), end-off)
		if err := iox.ReadFull(ctx, src, buf[:n], off); err != nil {
			return fmt.Errorf("verify: %w", err)
		}
		h.Write(buf[:n])
		off += n
	}
	if got := h.Sum64(); got != f.ps.fileChecksum {
		return fmt.Errorf("file checksum: stored %#016x, computed %#016x: %w", f.ps.fileChecksum, got, ErrChecksum)
	}
	return nil
}

func fmtStripe(i int, err error) error { return fmt.Errorf("stripe %d: %w", i, err) }
func fmtGroup(i int, err error) error  { return fmt.Errorf("stripe group %d: %w", i, err) }
func fmtStream(stripe, stream int, err error) error {
	return fmt.Errorf("stripe %d, stream %d: %w", stripe, stream, err)
}
func fmtChunk(stripe, stream, chunk int, err error) error {
	if chunk < 0 {
		return fmtStream(stripe, stream, err)
	}
	return fmt.Errorf("stripe %d, stream %d, chunk %d: %w", stripe, stream, chunk, err)
}
