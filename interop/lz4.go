package interop

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"sync"

	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/pierrec/lz4/v4"
)

// Parquet's deprecated LZ4 codec (codec 5, not LZ4_RAW) was written in two
// ways: parquet-mr and Arrow C++ since 2020 frame each page as Hadoop's
// block codec does (big-endian 4-byte decompressed and compressed sizes
// before each LZ4 block), while older parquet-cpp wrote one bare LZ4 block
// (and some writers an LZ4 frame). arrow-go implements none of them, so
// files from Spark and Hadoop could not be imported. hadoopLZ4 reads all
// three, as Arrow C++ does: the Hadoop framing when the page parses as it
// exactly, else a bare block, else an LZ4 frame; and writes the Hadoop
// framing. It is registered with arrow-go only when arrow-go has no LZ4
// codec of its own.
type hadoopLZ4 struct{}

// hadoopHeader is the size of one Hadoop frame's two lengths.
const hadoopHeader = 8

// lz4Frame is the magic number that starts an LZ4 frame.
const lz4Frame = 0x184D2204

var lz4Compressors = sync.Pool{New: func() any { return new(lz4.Compressor) }}

// DecodeWithError implements compress.ErrorCodec. dst must have the length
// of the decompressed page (arrow-go passes it so, from the page header it
// has checked against its page-size limit); nothing is allocated from a
// length read in src.
func (hadoopLZ4) DecodeWithError(dst, src []byte) ([]byte, error) {
	dst = dst[:cap(dst)]
	if n, ok := decodeHadoopFrames(dst, src); ok {
		return dst[:n], nil
	}
	n, err := lz4.UncompressBlock(src, dst)
	if err == nil {
		return dst[:n], nil
	}
	if len(src) >= 4 && binary.LittleEndian.Uint32(src) == lz4Frame {
		r := lz4.NewReader(bytes.NewReader(src))
		n, ferr := io.ReadFull(r, dst)
		if ferr == nil || ferr == io.ErrUnexpectedEOF {
			// the frame must end here, cleanly: its end mark (and
			// checksum, when it has one) read, nothing beyond dst
			var one [1]byte
			m, rerr := r.Read(one[:])
			switch {
			case m == 0 && rerr == io.EOF:
				return dst[:n], nil
			case m > 0:
				ferr = fmt.Errorf("more than the page's %d bytes", len(dst))
			default:
				ferr = rerr
			}
		}
		return nil, fmt.Errorf("lz4 page (%d bytes): not Hadoop-framed, not a bare block (%v), LZ4 frame: %w", len(src), err, ferr)
	}
	return nil, fmt.Errorf("lz4 page (%d bytes): neither Hadoop-framed nor a bare LZ4 block: %w", len(src), err)
}

// decodeHadoopFrames decodes src as a sequence of Hadoop LZ4 frames into
// dst, reporting false unless every frame's lengths agree with the bytes
// present and the blocks decode to exactly the sizes declared.
func decodeHadoopFrames(dst, src []byte) (int, bool) {
	out := 0
	for len(src) > 0 {
		if len(src) < hadoopHeader {
			return 0, false
		}
		raw := binary.BigEndian.Uint32(src)
		comp := binary.BigEndian.Uint32(src[4:])
		src = src[hadoopHeader:]
		if uint64(comp) > uint64(len(src)) || uint64(raw) > uint64(len(dst)-out) {
			return 0, false
		}
		n, err := lz4.UncompressBlock(src[:comp], dst[out:out+int(raw)])
		if err != nil || n != int(raw) {
			return 0, false
		}
		out += n
		src = src[comp:]
	}
	return out, true
}

// Decode implements compress.Codec; arrow-go calls DecodeWithError.
func (c hadoopLZ4) Decode(dst, src []byte) []byte {
	out, err := c.DecodeWithError(dst, src)
	if err != nil {
		panic(err)
	}
	return out
}

// Encode implements compress.Codec: one Hadoop frame holding one block.
func (c hadoopLZ4) Encode(dst, src []byte) []byte {
	bound := int(c.CompressBound(int64(len(src))))
	if cap(dst) < bound {
		dst = make([]byte, bound)
	}
	dst = dst[:bound]
	lc := lz4Compressors.Get().(*lz4.Compressor)
	n, err := lc.CompressBlock(src, dst[hadoopHeader:])
	lz4Compressors.Put(lc)
	if err != nil || n == 0 {
		// cannot happen with a bound-sized buffer (the library's promise)
		panic(fmt.Sprintf("lz4: block of %d bytes not compressed: %v", len(src), err))
	}
	binary.BigEndian.PutUint32(dst, uint32(len(src)))
	binary.BigEndian.PutUint32(dst[4:], uint32(n))
	return dst[:hadoopHeader+n]
}

// EncodeLevel implements compress.Codec; LZ4 blocks have no level.
func (c hadoopLZ4) EncodeLevel(dst, src []byte, _ int) []byte { return c.Encode(dst, src) }

// CompressBound implements compress.Codec.
func (hadoopLZ4) CompressBound(n int64) int64 {
	return int64(hadoopHeader + lz4.CompressBlockBound(int(n)))
}

// init adds to arrow-go's codecs what reading real files needs: the LZ4
// codec, then empty pages for every codec (emptypage.go).
func init() {
	if _, err := compress.GetCodec(compress.Codecs.Lz4); err != nil {
		compress.RegisterCodec(compress.Codecs.Lz4, hadoopLZ4{})
	}
	wrapEmptyPages()
}
