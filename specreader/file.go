// Package specreader is a second reader of Strata files, written from
// docs/FORMAT.md alone: it opens a file from its bytes (container chapter),
// parses the schema section (schema chapter), decodes every chunk with the
// node package (encoding chapters) and assembles the streams into row
// values (schema chapter, "Streams of a node"). It imports nothing of the
// Strata module, so where it agrees with the Go reader the document said
// enough; where it had to guess, specreader/gaps/container.md says so.
package specreader

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/klauspost/compress/zstd"
	"github.com/zeebo/xxh3"
)

// Errors the reader wraps, so callers can tell bad bytes from features
// this reader (or version) does not know and from limits it applies.
var (
	ErrCorrupt     = errors.New("corrupt file")
	ErrUnsupported = errors.New("unsupported")
	ErrLimit       = errors.New("over a reader limit")
)

// Limits the reader applies before allocating (FORMAT.md §8 lists the Go
// reader's defaults; this reader uses the same figures).
const (
	maxFooter     = 64 << 20
	maxSection    = 256 << 20
	maxGroup      = 256 << 20
	maxChunk      = 1 << 30
	maxStripes    = 1 << 24
	maxStreams    = 1 << 20
	maxChunks     = 1 << 20
	maxSections   = 1 << 16
	postscriptLen = 26
	chunkHeader   = 9
)

var magic = [4]byte{'S', 'T', 'R', 'A'}

// Stripe is one entry of the stripe directory (FORMAT.md §5.1) with its
// derived offset and first file row.
type Stripe struct {
	Rows     uint64 // top-level rows of the stripe
	FirstRow uint64 // file row of the stripe's first row
	Offset   uint64 // absolute offset of the stripe's first byte
	Size     uint64 // bytes of the stripe
	Group    int    // index of the stripe group covering it
}

// BlobRef locates a stored blob (FORMAT.md §5, blobRef).
type BlobRef struct {
	Offset      uint64
	Size        uint64
	Compression uint8
	Checksum    uint32
}

// Group is one entry of the stripe group directory (FORMAT.md §5.2).
type Group struct {
	FirstStripe int
	Stripes     int
	Ref         BlobRef
}

// Section is one entry of the section directory (FORMAT.md §5.3).
type Section struct {
	Name string
	Ref  BlobRef
}

// File is an opened Strata file: its directories, parsed schema and the
// stripe groups (parsed lazily, cached).
type File struct {
	data     []byte
	Major    uint16
	Minor    uint16
	Stripes  []Stripe
	Groups   []Group
	Sections []Section
	Schema   *Schema
	// Properties holds the "properties" section's string map (nil when absent).
	Properties map[string]string

	// Stats holds the parsed statistics sections.
	Stats StatsSections
	// Kinds tallies the node kinds decoded so far.
	Kinds KindTally

	tables     [][]stripeTable // per group, nil until loaded
	rowAligned []bool          // per stream id: one entry per stripe row
}

// Open parses a whole file held in memory: postscript, footer, directories
// and the schema and properties sections. Stripe groups are parsed when a
// stripe is read.
func Open(data []byte) (*File, error) {
	f, err := OpenContainer(data)
	if err != nil {
		return nil, err
	}
	if err := f.loadSchema(); err != nil {
		return nil, err
	}
	if err := f.loadProperties(); err != nil {
		return nil, err
	}
	if err := f.loadStats(); err != nil {
		return nil, err
	}
	return f, nil
}

// OpenContainer parses only the container (FORMAT.md, "Strata container
// format"): postscript and footer. Chunk payloads and sections stay opaque;
// ChunkPayloads reads them.
func OpenContainer(data []byte) (*File, error) {
	f := &File{data: data}
	if err := f.openTail(); err != nil {
		return nil, err
	}
	// Check every section's checksum now, including those this reader does
	// not parse (user, stats.bloom, ts.*): the file is in memory, so this
	// costs one hash pass over the sections.
	for _, s := range f.Sections {
		stored := data[s.Ref.Offset : s.Ref.Offset+s.Ref.Size]
		if got := sum32(stored); got != s.Ref.Checksum {
			return nil, fmt.Errorf("section %q: checksum %#x, directory says %#x: %w", s.Name, got, s.Ref.Checksum, ErrCorrupt)
		}
	}
	return f, nil
}

// ChunkPayloads returns the raw payloads of every chunk of stream `stream`
// of stripe s, checked against the group table and their checksums, with
// their group-table row counts.
func (f *File) ChunkPayloads(s, stream int) ([][]byte, []uint64, error) {
	if s < 0 || s >= len(f.Stripes) {
		return nil, nil, fmt.Errorf("stripe %d of %d: %w", s, len(f.Stripes), ErrCorrupt)
	}
	t, err := f.table(s)
	if err != nil {
		return nil, nil, err
	}
	if stream < 0 || stream >= len(t.Streams) {
		return nil, nil, nil
	}
	var ps [][]byte
	var rows []uint64
	for c, e := range t.Streams[stream].Chunks {
		p, err := f.chunkPayload(s, stream, c, e)
		if err != nil {
			return nil, nil, err
		}
		ps = append(ps, p)
		rows = append(rows, e.Rows)
	}
	return ps, rows, nil
}

// StreamCount returns the number of streams stripe s records.
func (f *File) StreamCount(s int) (int, error) {
	t, err := f.table(s)
	if err != nil {
		return 0, err
	}
	return len(t.Streams), nil
}

// VerifyFileChecksum checks the postscript's fileChecksum over the whole
// file (FORMAT.md §2). Open does not, as the document says readers need not.
func (f *File) VerifyFileChecksum() error {
	n := len(f.data)
	want := binary.LittleEndian.Uint64(f.data[n-12:])
	if got := xxh3.Hash(f.data[:n-12]); got != want {
		return fmt.Errorf("file checksum %#x, postscript says %#x: %w", got, want, ErrCorrupt)
	}
	return nil
}

// openTail reads the postscript and the footer (FORMAT.md §2, §3, §5).
func (f *File) openTail() error {
	d := f.data
	n := len(d)
	if n < 30 {
		return fmt.Errorf("file of %d bytes, under 30: %w", n, ErrCorrupt)
	}
	if [4]byte(d[:4]) != magic {
		return fmt.Errorf("leading magic % x: %w", d[:4], ErrCorrupt)
	}
	ps := d[n-postscriptLen:]
	if [4]byte(ps[22:26]) != magic {
		return fmt.Errorf("trailing magic % x: %w", ps[22:26], ErrCorrupt)
	}
	footerSize := binary.LittleEndian.Uint32(ps[0:])
	footerComp := ps[4]
	checksumKind := ps[5]
	footerSum := binary.LittleEndian.Uint32(ps[6:])
	f.Major = binary.LittleEndian.Uint16(ps[10:])
	f.Minor = binary.LittleEndian.Uint16(ps[12:])
	if f.Major != 1 {
		return fmt.Errorf("major version %d: %w", f.Major, ErrUnsupported)
	}
	if checksumKind != 1 {
		return fmt.Errorf("checksum kind %d: %w", checksumKind, ErrUnsupported)
	}
	if uint64(footerSize) > uint64(n-30) {
		return fmt.Errorf("footer size %d in a file of %d bytes: %w", footerSize, n, ErrCorrupt)
	}
	if footerSize > maxFooter {
		return fmt.Errorf("footer size %d: %w", footerSize, ErrLimit)
	}
	fstart := uint64(n) - postscriptLen - uint64(footerSize)
	stored := d[fstart : n-postscriptLen]
	if got := sum32(stored); got != footerSum {
		return fmt.Errorf("footer checksum %#x, postscript says %#x: %w", got, footerSum, ErrCorrupt)
	}
	raw, err := unstore(stored, footerComp, maxFooter, f.Minor)
	if err != nil {
		return fmt.Errorf("footer: %w", err)
	}
	return f.parseFooter(raw, fstart)
}

// parseFooter parses the raw footer (FORMAT.md §5); dataEnd is F, the
// footer's offset, which bounds every region.
func (f *File) parseFooter(raw []byte, dataEnd uint64) error {
	r := &reader{b: raw, what: "footer"}
	ns := r.count(maxStripes, 3)
	end := uint64(4)
	var firstRow uint64
	for i := 0; i < ns && r.err == nil; i++ {
		rows, gap, size := r.uvarint(), r.uvarint(), r.uvarint()
		if r.err != nil {
			break
		}
		off := end + gap
		if off < end || off+size < off || off+size > dataEnd {
			return fmt.Errorf("stripe %d at [%d, +%d) outside the data region [4, %d): %w", i, off, size, dataEnd, ErrCorrupt)
		}
		if firstRow+rows < firstRow || firstRow+rows >= 1<<62 {
			return fmt.Errorf("stripe %d: total rows reach 2^62: %w", i, ErrCorrupt)
		}
		f.Stripes = append(f.Stripes, Stripe{Rows: rows, FirstRow: firstRow, Offset: off, Size: size})
		firstRow += rows
		end = off + size
	}
	ng := r.count(maxStripes, 8)
	next := 0
	for g := 0; g < ng && r.err == nil; g++ {
		cnt := r.uvarint()
		ref := r.blobRef()
		if r.err != nil {
			break
		}
		if cnt == 0 || cnt > uint64(len(f.Stripes)-next) {
			return fmt.Errorf("group %d covers %d stripes, %d left: %w", g, cnt, len(f.Stripes)-next, ErrCorrupt)
		}
		if err := checkRegion(ref, dataEnd); err != nil {
			return fmt.Errorf("group %d: %w", g, err)
		}
		for s := next; s < next+int(cnt); s++ {
			f.Stripes[s].Group = g
		}
		f.Groups = append(f.Groups, Group{FirstStripe: next, Stripes: int(cnt), Ref: ref})
		next += int(cnt)
	}
	if r.err == nil && next != len(f.Stripes) {
		return fmt.Errorf("groups cover %d of %d stripes: %w", next, len(f.Stripes), ErrCorrupt)
	}
	nsec := r.count(maxSections, 9)
	seen := map[string]bool{}
	for i := 0; i < nsec && r.err == nil; i++ {
		name := r.bytes(r.count(255, 1))
		ref := r.blobRef()
		if r.err != nil {
			break
		}
		if len(name) == 0 {
			return fmt.Errorf("section %d has an empty name: %w", i, ErrCorrupt)
		}
		if seen[string(name)] {
			return fmt.Errorf("section %q appears twice: %w", name, ErrCorrupt)
		}
		seen[string(name)] = true
		if err := checkRegion(ref, dataEnd); err != nil {
			return fmt.Errorf("section %q: %w", name, err)
		}
		f.Sections = append(f.Sections, Section{Name: string(name), Ref: ref})
	}
	if r.err != nil {
		return r.err
	}
	if len(r.b) != 0 && f.Minor == 0 {
		return fmt.Errorf("footer: %d trailing bytes in a minor-0 file: %w", len(r.b), ErrCorrupt)
	}
	f.tables = make([][]stripeTable, len(f.Groups))
	return nil
}

// checkRegion checks that a blob lies inside the data region [4, F).
func checkRegion(ref BlobRef, dataEnd uint64) error {
	if ref.Offset < 4 || ref.Offset+ref.Size < ref.Offset || ref.Offset+ref.Size > dataEnd {
		return fmt.Errorf("blob at [%d, +%d) outside the data region [4, %d): %w", ref.Offset, ref.Size, dataEnd, ErrCorrupt)
	}
	return nil
}

// blob returns a stored blob's raw bytes after checking its checksum.
func (f *File) blob(ref BlobRef, limit int, what string) ([]byte, error) {
	stored := f.data[ref.Offset : ref.Offset+ref.Size]
	if got := sum32(stored); got != ref.Checksum {
		return nil, fmt.Errorf("%s: checksum %#x, directory says %#x: %w", what, got, ref.Checksum, ErrCorrupt)
	}
	raw, err := unstore(stored, ref.Compression, limit, f.Minor)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return raw, nil
}

// Section returns the raw bytes of the named section, or nil, false.
func (f *File) Section(name string) ([]byte, bool, error) {
	for _, s := range f.Sections {
		if s.Name == name {
			b, err := f.blob(s.Ref, maxSection, "section "+name)
			return b, err == nil, err
		}
	}
	return nil, false, nil
}

// sum32 is the low 32 bits of XXH3-64 with seed 0 (FORMAT.md, Conventions).
func sum32(b []byte) uint32 { return uint32(xxh3.Hash(b)) }

var zdec, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxChunk))

// unstore turns a stored blob into its raw bytes (FORMAT.md, Conventions:
// compression 0 none, 1 zstd as `uvarint(len(raw)) | one zstd frame`).
// minor is the file's minor version: another id is a newer writer's
// (unsupported) only in a file of a minor above 0, and damage in a file of
// minor 0, which no writer could have written it in.
func unstore(stored []byte, comp uint8, limit int, minor uint16) ([]byte, error) {
	switch comp {
	case 0:
		return stored, nil
	case 1:
		rawLen, k := binary.Uvarint(stored)
		if k <= 0 {
			return nil, fmt.Errorf("zstd blob: bad raw length varint: %w", ErrCorrupt)
		}
		frame := stored[k:]
		if rawLen > uint64(limit) {
			return nil, fmt.Errorf("zstd blob of %d raw bytes: %w", rawLen, ErrLimit)
		}
		if rawLen > 32768*uint64(len(frame)) {
			return nil, fmt.Errorf("zstd blob: %d raw bytes from a %d-byte frame: %w", rawLen, len(frame), ErrCorrupt)
		}
		var h zstd.Header
		if err := h.Decode(frame); err != nil {
			return nil, fmt.Errorf("zstd frame header: %v: %w", err, ErrCorrupt)
		}
		if h.HasFCS && h.FrameContentSize != rawLen {
			return nil, fmt.Errorf("zstd frame content size %d, blob says %d: %w", h.FrameContentSize, rawLen, ErrCorrupt)
		}
		out, err := zdec.DecodeAll(frame, make([]byte, 0, int(rawLen)))
		if err != nil {
			return nil, fmt.Errorf("zstd: %v: %w", err, ErrCorrupt)
		}
		if uint64(len(out)) != rawLen {
			return nil, fmt.Errorf("zstd frame inflates to %d bytes, blob says %d: %w", len(out), rawLen, ErrCorrupt)
		}
		return out, nil
	}
	if minor == 0 {
		return nil, fmt.Errorf("compression id %d in a minor-0 file: %w", comp, ErrCorrupt)
	}
	return nil, fmt.Errorf("compression id %d: %w", comp, ErrUnsupported)
}

// reader parses uvarint-based records; the first error sticks and later
// reads return zero values, so parsers check r.err once per record.
type reader struct {
	b    []byte
	what string
	err  error
}

func (r *reader) fail(format string, a ...any) {
	if r.err == nil {
		r.err = fmt.Errorf(r.what+": "+format, a...)
	}
}

// uvarint reads an unsigned LEB128 of at most 10 bytes, rejecting overflow.
func (r *reader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, k := binary.Uvarint(r.b)
	if k <= 0 {
		r.fail("bad or truncated uvarint: %w", ErrCorrupt)
		return 0
	}
	r.b = r.b[k:]
	return v
}

// varint reads a zig-zag signed varint.
func (r *reader) varint() int64 {
	u := r.uvarint()
	return int64(u>>1) ^ -int64(u&1)
}

// count reads a count bounded by limit and by the bytes that remain, each
// counted item taking at least minBytes bytes.
func (r *reader) count(limit int, minBytes int) int {
	v := r.uvarint()
	if r.err != nil {
		return 0
	}
	if v > uint64(limit) {
		r.fail("count %d over the limit %d: %w", v, limit, ErrLimit)
		return 0
	}
	if minBytes > 0 && v > uint64(len(r.b)/minBytes) {
		r.fail("count %d with %d bytes left: %w", v, len(r.b), ErrCorrupt)
		return 0
	}
	return int(v)
}

func (r *reader) u8() uint8 {
	if r.err != nil {
		return 0
	}
	if len(r.b) < 1 {
		r.fail("truncated: %w", ErrCorrupt)
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v
}

func (r *reader) u32() uint32 {
	if r.err != nil {
		return 0
	}
	if len(r.b) < 4 {
		r.fail("truncated: %w", ErrCorrupt)
		return 0
	}
	v := binary.LittleEndian.Uint32(r.b)
	r.b = r.b[4:]
	return v
}

// bytes returns the next n bytes.
func (r *reader) bytes(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n > len(r.b) {
		r.fail("%d bytes wanted, %d left: %w", n, len(r.b), ErrCorrupt)
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

// str reads `uvarint length | bytes`.
func (r *reader) str() string {
	n := r.count(len(r.b), 1)
	return string(r.bytes(n))
}

func (r *reader) blobRef() BlobRef {
	return BlobRef{Offset: r.uvarint(), Size: r.uvarint(), Compression: r.u8(), Checksum: r.u32()}
}
