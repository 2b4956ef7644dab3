package format

import (
	"encoding/binary"
	"fmt"

	"strata/encoding"
)

// Segmented chunks.
//
// An uncompressed chunk payload of at least minSegments segments is stored
// with a checksum per segment, so that a reader that needs a few rows of a
// large chunk (a point lookup) reads and checks the segments holding them
// and the chunk's head, not the whole chunk:
//
//	payloadLen:u32 | 0x80:u8 | sum32(segLog | table):u32 | segLog:u8 | table: nseg × u32 | data
//
// data is the chunk's payload, cut into segments of 1<<segLog bytes (the
// last may be shorter); table entry i is sum32 of segment i. nseg is not
// stored: with T = payloadLen − 1 and S = 1<<segLog it is ceil(T / (S+4)),
// and a reader checks that the data length T − 4·nseg needs exactly nseg
// segments.

// Segment sizes.
const (
	// DefaultSegmentLog: 4 KiB segments cost 4 bytes of table per 4 KiB
	// (0.1 %) and let a lookup read a page where it read a whole chunk.
	DefaultSegmentLog = 12
	MinSegmentLog     = 10
	MaxSegmentLog     = 20
	// minSegments is the fewest segments a payload must span to be
	// segmented: below it a lookup saves too little to pay for a table.
	minSegments = 4
	// segmentedFlag marks a segmented chunk in the compression byte of
	// its header (the payload itself is stored uncompressed).
	segmentedFlag Compression = 0x80
)

// appendSegmented appends the segmented form of payload (from segLog on;
// the caller writes the chunk header).
func appendSegmented(dst, payload []byte, segLog int) []byte {
	s := 1 << segLog
	n := (len(payload) + s - 1) / s
	dst = append(dst, byte(segLog))
	for i := 0; i < n; i++ {
		dst = binary.LittleEndian.AppendUint32(dst, Checksum32(payload[i*s:min(len(payload), (i+1)*s)]))
	}
	return append(dst, payload...)
}

// Segments describes a segmented chunk: where its data starts within the
// chunk and the checksum of each segment.
type Segments struct {
	// DataOff is the offset of the payload within the chunk (header and
	// table before it); DataLen its length.
	DataOff, DataLen int
	// Log is the segment size's logarithm.
	Log  int
	Sums []uint32
}

// SegmentStart and SegmentEnd bound segment i within the payload.
func (s Segments) SegmentStart(i int) int { return i << s.Log }
func (s Segments) SegmentEnd(i int) int   { return min(s.DataLen, (i+1)<<s.Log) }

// HeadLen is how many leading bytes of a chunk of size bytes ParseSegments
// needs at most, whatever its segment size, plus want bytes of payload.
func HeadLen(size int64, want int) int64 {
	n := (size + 1<<MinSegmentLog - 1) >> MinSegmentLog
	return min(size, int64(ChunkHeaderSize+1)+4*n+int64(want))
}

// IsSegmented reports whether the chunk whose leading bytes are head is
// segmented.
func IsSegmented(head []byte) bool {
	return len(head) > 4 && Compression(head[4]) == segmentedFlag
}

// ParseSegments reads the framing and segment table of a segmented chunk of
// size bytes from its leading bytes head (HeadLen of them suffice) and,
// when verify is set, checks the table's checksum. Segments' data are
// checked one by one with Check.
func ParseSegments(head []byte, size int64, verify bool) (Segments, error) {
	if len(head) < ChunkHeaderSize+1 || size < int64(ChunkHeaderSize+1) {
		return Segments{}, encoding.Corruptf("segmented chunk of %d bytes is shorter than its header", size)
	}
	if Compression(head[4]) != segmentedFlag {
		return Segments{}, encoding.Corruptf("chunk header: compression %d is not a segmented chunk", head[4])
	}
	if n := binary.LittleEndian.Uint32(head); uint64(n) != uint64(size-ChunkHeaderSize) {
		return Segments{}, encoding.Corruptf("chunk header declares %d payload bytes, chunk holds %d", n, size-ChunkHeaderSize)
	}
	log := int(head[ChunkHeaderSize])
	if log < MinSegmentLog || log > MaxSegmentLog {
		return Segments{}, encoding.Corruptf("segmented chunk: segment size 2^%d outside 2^%d..2^%d", log, MinSegmentLog, MaxSegmentLog)
	}
	t := size - ChunkHeaderSize - 1
	s := int64(1) << log
	n := (t + s + 3) / (s + 4)
	dataLen := t - 4*n
	if n < 1 || dataLen < 1 || (dataLen+s-1)/s != n {
		return Segments{}, encoding.Corruptf("segmented chunk: %d bytes after the segment size fit no table of 2^%d-byte segments", t, log)
	}
	off := ChunkHeaderSize + 1 + 4*int(n)
	if len(head) < off {
		return Segments{}, encoding.Corruptf("segmented chunk: %d bytes read, its table ends at %d", len(head), off)
	}
	if verify {
		sum := binary.LittleEndian.Uint32(head[5:])
		if got := Checksum32(head[ChunkHeaderSize:off]); got != sum {
			return Segments{}, fmt.Errorf("chunk segment table: stored %#08x, computed %#08x: %w", sum, got, ErrChecksum)
		}
	}
	sums := make([]uint32, n)
	for i := range sums {
		sums[i] = binary.LittleEndian.Uint32(head[ChunkHeaderSize+1+4*i:])
	}
	return Segments{DataOff: off, DataLen: int(dataLen), Log: log, Sums: sums}, nil
}

// Check checks segment i's bytes against its checksum.
func (s Segments) Check(i int, b []byte) error {
	if i < 0 || i >= len(s.Sums) || len(b) != s.SegmentEnd(i)-s.SegmentStart(i) {
		return encoding.Corruptf("segmented chunk: segment %d of %d bytes is not one of its %d segments", i, len(b), len(s.Sums))
	}
	if got := Checksum32(b); got != s.Sums[i] {
		return fmt.Errorf("chunk segment %d: stored %#08x, computed %#08x: %w", i, s.Sums[i], got, ErrChecksum)
	}
	return nil
}
