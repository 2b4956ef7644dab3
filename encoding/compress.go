package encoding

import (
	"fmt"
	"sync"

	"github.com/klauspost/compress/zstd"
)

var (
	zencOnce sync.Once
	zenc     *zstd.Encoder
	zdecOnce sync.Once
	zdec     *zstd.Decoder
)

func encoder() *zstd.Encoder {
	zencOnce.Do(func() {
		zenc, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault),
			zstd.WithEncoderConcurrency(1), zstd.WithZeroFrames(true))
	})
	return zenc
}

func decoder() *zstd.Decoder {
	zdecOnce.Do(func() {
		zdec, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(1<<32))
	})
	return zdec
}

// ZstdAppend appends the zstd frame of src to dst.
func ZstdAppend(dst, src []byte) []byte { return encoder().EncodeAll(src, dst) }

func decompress(src []byte, rawLen int) ([]byte, error) {
	// The declared size is trusted only as far as the input could plausibly
	// expand; a larger output grows on demand and is checked afterwards.
	c := rawLen
	if lim := 64*len(src) + 4096; c > lim {
		c = lim
	}
	out, err := decoder().DecodeAll(src, make([]byte, 0, c))
	if err != nil {
		return nil, Corruptf("zstd body: %v", err)
	}
	if len(out) != rawLen {
		return nil, Corruptf("zstd body: %d bytes, header says %d", len(out), rawLen)
	}
	return out, nil
}

// Compress rewrites node with its body zstd-compressed if that saves at least
// minSaving (a fraction, e.g. 0.02) of the node's size; else it returns node.
// dst is reused for the result when possible.
func Compress(node []byte, minSaving float64, opts *Options) ([]byte, error) {
	h, err := ParseHeader(node, 0, opts)
	if err != nil {
		return nil, err
	}
	if h.Flags&FlagZstd != 0 || len(h.Body) < 64 {
		return node, nil
	}
	prefix := len(node) - len(h.Body)
	out := make([]byte, 0, len(node))
	out = append(out, node[:prefix]...)
	out[2] |= FlagZstd
	out = appendUvarint(out, uint64(len(h.Body)))
	out = ZstdAppend(out, h.Body)
	if float64(len(out)) > float64(len(node))*(1-minSaving) {
		return node, nil
	}
	return out, nil
}

func appendUvarint(dst []byte, v uint64) []byte {
	for v >= 0x80 {
		dst = append(dst, byte(v)|0x80)
		v >>= 7
	}
	return append(dst, byte(v))
}

// Decompress is exposed for the container layer, which frames chunks with the
// same codec: it inflates src, which must produce exactly rawLen bytes.
func Decompress(src []byte, rawLen int) ([]byte, error) {
	if rawLen < 0 {
		return nil, fmt.Errorf("zstd: negative size: %w", ErrCorrupt)
	}
	return decompress(src, rawLen)
}
