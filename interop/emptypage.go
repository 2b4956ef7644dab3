package interop

import (
	"bufio"
	"io"

	"github.com/apache/arrow-go/v18/parquet/compress"
)

// Empty compressed pages. A data page v2 whose values section is empty
// (every value null, say) holds zero bytes of compressed data, and some
// writers (parquet-mr among them) mark it compressed all the same. No codec
// turns zero bytes into a valid stream (snappy wants at least its length
// varint), so arrow-go failed such files with "could not decompress page".
// A reader must take zero compressed bytes as zero bytes of data, as Arrow
// C++ does; emptyPages wraps each codec arrow-go has so that it does, and
// hands every other page to the codec unchanged.
type emptyPages struct{ compress.Codec }

// DecodeWithError implements compress.ErrorCodec.
func (c emptyPages) DecodeWithError(dst, src []byte) ([]byte, error) {
	if len(src) == 0 {
		return dst[:0], nil
	}
	return compress.Decode(c.Codec, dst, src)
}

// Decode implements compress.Codec.
func (c emptyPages) Decode(dst, src []byte) []byte {
	if len(src) == 0 {
		return dst[:0]
	}
	return c.Codec.Decode(dst, src)
}

// emptyPagesStreaming is emptyPages for a codec that also streams.
type emptyPagesStreaming struct {
	emptyPages
	s compress.StreamingCodec
}

// NewReader implements compress.StreamingCodec: a stream with no bytes
// reads as empty; any other goes to the codec's reader.
func (c emptyPagesStreaming) NewReader(r io.Reader) io.ReadCloser {
	br := bufio.NewReaderSize(r, 16)
	if _, err := br.Peek(1); err == io.EOF {
		return io.NopCloser(br)
	}
	return c.s.NewReader(br)
}

// NewWriter implements compress.StreamingCodec.
func (c emptyPagesStreaming) NewWriter(w io.Writer) io.WriteCloser { return c.s.NewWriter(w) }

// NewWriterLevel implements compress.StreamingCodec.
func (c emptyPagesStreaming) NewWriterLevel(w io.Writer, level int) (io.WriteCloser, error) {
	return c.s.NewWriterLevel(w, level)
}

// wrapEmptyPages re-registers each compressing codec arrow-go knows
// wrapped in emptyPages (once: a wrapped codec is left as it is).
func wrapEmptyPages() {
	for _, k := range []compress.Compression{compress.Codecs.Snappy, compress.Codecs.Gzip,
		compress.Codecs.Brotli, compress.Codecs.Zstd, compress.Codecs.Lz4Raw, compress.Codecs.Lz4} {
		c, err := compress.GetCodec(k)
		if err != nil {
			continue
		}
		switch c.(type) {
		case emptyPages, emptyPagesStreaming:
			continue
		}
		if s, ok := c.(compress.StreamingCodec); ok {
			compress.RegisterCodec(k, emptyPagesStreaming{emptyPages{c}, s})
		} else {
			compress.RegisterCodec(k, emptyPages{c})
		}
	}
}
