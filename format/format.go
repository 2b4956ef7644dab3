// Package format reads and writes the Strata container: the bytes that hold
// chunks, streams, stripes, stripe groups, named metadata sections, the
// footer and the postscript. It knows nothing about schemas or encodings: a
// chunk payload, a stats blob and a section are opaque bytes to it.
//
// File layout (every integer little endian; see docs/FORMAT.md, "Strata container format"):
//
//	"STRA" | stripe | ... | group | ... | section | ... | footer | postscript
//
// A stripe is the concatenation of its streams (in stream id order), a stream
// the concatenation of its chunks. A chunk is framed as
//
//	payloadLen:u32 | compression:u8 | checksum:u32 | payload
//
// A stripe group lists, for a run of consecutive stripes, every stream's chunk
// table (rows, byte size and an opaque stats blob per chunk); it is written
// right after the last stripe of its run and loaded by a reader only when one
// of its stripes is read. The footer holds the stripe directory, the group
// directory and the named section directory; the fixed-size postscript at the
// very end locates and checks the footer.
package format

import (
	"encoding/binary"
	"fmt"
	"math"
	"sync"

	"github.com/klauspost/compress/zstd"
	"github.com/zeebo/xxh3"

	"strata/encoding"
)

// Format constants. All of them are part of the file format.
const (
	// Magic opens and closes every Strata file.
	Magic = "STRA"
	// PostscriptSize is the size of the fixed trailer.
	PostscriptSize = 26
	// ChunkHeaderSize is the size of a chunk's framing before its payload.
	ChunkHeaderSize = 9
	// MajorVersion changes when a reader of the previous major version could
	// misread a file; readers reject other majors.
	MajorVersion = 1
	// MinorVersion changes for compatible additions; a reader accepts any
	// minor and ignores trailing footer fields of newer minors.
	MinorVersion = 0
	// MaxNameLen bounds a section name.
	MaxNameLen = 255
)

// Compression identifies how a chunk payload, a section, a stripe group or
// the footer is stored.
type Compression uint8

// Compression ids.
const (
	// CompressionNone stores the bytes as they are.
	CompressionNone Compression = 0
	// CompressionZstd stores uvarint(raw length) followed by one zstd frame.
	CompressionZstd Compression = 1
)

func (c Compression) String() string {
	switch c {
	case CompressionNone:
		return "none"
	case CompressionZstd:
		return "zstd"
	}
	return fmt.Sprintf("compression(%d)", uint8(c))
}

// ChecksumXXH3 is the only checksum kind: xxh3-64 with seed 0. Chunks,
// sections, groups and the footer keep its low 32 bits; the file checksum
// keeps all 64.
const ChecksumXXH3 uint8 = 1

// ErrChecksum reports stored bytes whose checksum does not match. It wraps
// encoding.ErrCorrupt, so errors.Is(err, encoding.ErrCorrupt) also holds.
var ErrChecksum = fmt.Errorf("checksum mismatch: %w", encoding.ErrCorrupt)

// DefaultMinSaving is the fraction of its size zstd must save for a chunk or
// metadata blob to be stored compressed.
const DefaultMinSaving = 0.02

// minCompress is the smallest blob worth trying to compress: a zstd frame
// costs ~9 bytes of header and checksum, more than it saves on tiny input.
const minCompress = 64

// maxZstdRatio bounds how far a zstd frame can expand: a 4-byte RLE block
// (3-byte header + 1 byte) yields at most 128 KiB. A declared raw size beyond
// len(frame)*maxZstdRatio cannot be honest and is rejected before allocating.
const maxZstdRatio = 1 << 15

// Checksum32 returns the checksum the container stores for chunk payloads,
// sections, stripe groups and the footer: the low 32 bits of xxh3-64.
func Checksum32(b []byte) uint32 { return uint32(xxh3.Hash(b)) }

// appendStored appends raw in its stored form: compressed with zstd when c
// asks for it and it saves at least minSaving of the size, else as is.
// It returns the extended dst and the compression actually used.
func appendStored(dst, raw []byte, c Compression, minSaving float64) ([]byte, Compression) {
	if c != CompressionZstd || len(raw) < minCompress {
		return append(dst, raw...), CompressionNone
	}
	start := len(dst)
	dst = binary.AppendUvarint(dst, uint64(len(raw)))
	dst = encoding.ZstdAppend(dst, raw)
	if float64(len(dst)-start) > float64(len(raw))*(1-minSaving) {
		return append(dst[:start], raw...), CompressionNone
	}
	return dst, CompressionZstd
}

var (
	zdecOnce sync.Once
	zdec     *zstd.Decoder
)

// decoder returns the shared zstd decoder. Its DecodeAll never writes past
// cap(dst), so the caller's check of the declared raw size against its limit
// bounds every allocation, whatever the frame claims.
func decoder() *zstd.Decoder {
	zdecOnce.Do(func() {
		var err error
		zdec, err = zstd.NewReader(nil, zstd.WithDecodeAllCapLimit(true),
			zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(math.MaxInt32))
		if err != nil {
			panic(err) // static options; cannot fail
		}
	})
	return zdec
}

// anyMinor stands for a file whose minor version is not known (DecodeChunk
// of a chunk without its file): an unknown compression id may be a newer
// writer's.
const anyMinor = math.MaxUint16

// unknownCompression reports a compression id this reader does not know in
// a blob of a file of the given minor version. A new id needs a new minor
// version (docs/COMPATIBILITY.md), so in a file of a minor this reader
// knows no writer could have written it and the id is damage: the checksum
// of a chunk covers its stored payload, not the header byte that holds the
// id, and the footer's compression sits in the postscript. Only a file of
// a newer minor makes it unsupported.
func unknownCompression(c Compression, minor uint16, what string) error {
	if minor > MinorVersion {
		return encoding.Unsupportedf("%s: compression %d (file version %d.%d, this reader knows %d.%d)",
			what, uint8(c), MajorVersion, minor, MajorVersion, MinorVersion)
	}
	return encoding.Corruptf("%s: unknown compression %d in a version %d.%d file", what, uint8(c), MajorVersion, minor)
}

// unstore returns the raw bytes of a stored blob. maxRaw bounds the raw size;
// minor is the minor version of the file that holds the blob (see
// unknownCompression); what names the blob for errors.
func unstore(stored []byte, c Compression, maxRaw int, minor uint16, what string) ([]byte, error) {
	switch c {
	case CompressionNone:
		if len(stored) > maxRaw {
			return nil, encoding.Limitf("%s: %d bytes, limit %d", what, len(stored), maxRaw)
		}
		return stored, nil
	case CompressionZstd:
	default:
		return nil, unknownCompression(c, minor, what)
	}
	raw, n := binary.Uvarint(stored)
	if n <= 0 {
		return nil, encoding.Corruptf("%s: bad raw size uvarint", what)
	}
	frame := stored[n:]
	if raw > uint64(maxRaw) {
		return nil, encoding.Limitf("%s: raw size %d, limit %d", what, raw, maxRaw)
	}
	if raw > uint64(len(frame))*maxZstdRatio {
		return nil, encoding.Corruptf("%s: raw size %d impossible for a %d-byte zstd frame", what, raw, len(frame))
	}
	var h zstd.Header
	if err := h.Decode(frame); err != nil {
		return nil, encoding.Corruptf("%s: zstd header: %v", what, err)
	}
	if h.HasFCS && h.FrameContentSize != raw {
		return nil, encoding.Corruptf("%s: zstd frame holds %d bytes, header says %d", what, h.FrameContentSize, raw)
	}
	out, err := decoder().DecodeAll(frame, make([]byte, 0, int(raw)))
	if err != nil {
		return nil, encoding.Corruptf("%s: zstd: %v", what, err)
	}
	if uint64(len(out)) != raw {
		return nil, encoding.Corruptf("%s: zstd frame holds %d bytes, header says %d", what, len(out), raw)
	}
	return out, nil
}

// DefaultMaxChunkSize bounds the raw payload DecodeChunk inflates.
const DefaultMaxChunkSize = 1 << 30

// AppendChunk appends the framing and stored payload of one chunk to dst.
// With CompressionZstd the payload is compressed unconditionally.
func AppendChunk(dst, payload []byte, c Compression) ([]byte, error) {
	if c != CompressionNone && c != CompressionZstd {
		return dst, encoding.Unsupportedf("chunk compression %d", uint8(c))
	}
	return appendChunk(dst, payload, c, -1)
}

// appendChunk frames payload; minSaving < 0 forces the requested compression.
func appendChunk(dst, payload []byte, c Compression, minSaving float64) ([]byte, error) {
	start := len(dst)
	dst = append(dst, make([]byte, ChunkHeaderSize)...)
	used := CompressionNone
	switch {
	case c == CompressionZstd && minSaving < 0:
		dst = binary.AppendUvarint(dst, uint64(len(payload)))
		dst = encoding.ZstdAppend(dst, payload)
		used = CompressionZstd
	default:
		dst, used = appendStored(dst, payload, c, minSaving)
	}
	stored := dst[start+ChunkHeaderSize:]
	if uint64(len(stored)) > math.MaxUint32 {
		return dst[:start], encoding.Limitf("chunk payload of %d bytes exceeds 4 GiB", len(stored))
	}
	h := dst[start : start+ChunkHeaderSize]
	binary.LittleEndian.PutUint32(h[0:], uint32(len(stored)))
	h[4] = byte(used)
	binary.LittleEndian.PutUint32(h[5:], Checksum32(stored))
	return dst, nil
}

// DecodeChunk checks the framing and checksum of one whole chunk (header and
// payload, exactly as ChunkInfo locates it) and returns its payload,
// decompressed if needed. An uncompressed payload aliases raw. Without the
// chunk's file it cannot tell a damaged compression byte from a newer
// writer's id and reports an unknown one as unsupported; File.DecodeChunk
// and File.DecodeChunkAt tell them apart by the file's version.
func DecodeChunk(raw []byte) ([]byte, error) {
	return decodeChunk(raw, DefaultMaxChunkSize, true, anyMinor)
}

// CheckChunk checks the framing and checksum of one whole chunk without
// decompressing its payload. An unknown compression id is corrupt: this is
// File.CheckChunk for a file of this reader's version.
func CheckChunk(raw []byte) error { return checkChunk(raw, MinorVersion) }

func checkChunk(raw []byte, minor uint16) error {
	if len(raw) < ChunkHeaderSize {
		return encoding.Corruptf("chunk of %d bytes is shorter than its %d-byte header", len(raw), ChunkHeaderSize)
	}
	if n := binary.LittleEndian.Uint32(raw); uint64(n) != uint64(len(raw)-ChunkHeaderSize) {
		return encoding.Corruptf("chunk header declares %d payload bytes, chunk holds %d", n, len(raw)-ChunkHeaderSize)
	}
	sum := binary.LittleEndian.Uint32(raw[5:])
	if got := Checksum32(raw[ChunkHeaderSize:]); got != sum {
		return fmt.Errorf("chunk payload: stored %#08x, computed %#08x: %w", sum, got, ErrChecksum)
	}
	if c := Compression(raw[4]); c != CompressionNone && c != CompressionZstd && minor <= MinorVersion {
		return unknownCompression(c, minor, "chunk header")
	}
	return nil
}

// decodeChunk checks a chunk's framing, then its checksum, and only then
// reads the compression byte (unstore); minor is its file's minor version.
func decodeChunk(raw []byte, maxRaw int, verify bool, minor uint16) ([]byte, error) {
	if len(raw) < ChunkHeaderSize {
		return nil, encoding.Corruptf("chunk of %d bytes is shorter than its %d-byte header", len(raw), ChunkHeaderSize)
	}
	n := binary.LittleEndian.Uint32(raw)
	if uint64(n) != uint64(len(raw)-ChunkHeaderSize) {
		return nil, encoding.Corruptf("chunk header declares %d payload bytes, chunk holds %d", n, len(raw)-ChunkHeaderSize)
	}
	c := Compression(raw[4])
	sum := binary.LittleEndian.Uint32(raw[5:])
	stored := raw[ChunkHeaderSize:]
	if got := Checksum32(stored); got != sum && verify {
		return nil, fmt.Errorf("chunk payload: stored %#08x, computed %#08x: %w", sum, got, ErrChecksum)
	}
	return unstore(stored, c, maxRaw, minor, "chunk payload")
}
