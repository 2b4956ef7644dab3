package encoding

import (
	"bytes"
	"fmt"
	"runtime"
	"sync"

	"github.com/klauspost/compress/zstd"
	"github.com/zeebo/xxh3"
)

var (
	zdecOnce sync.Once
	zdec     *zstd.Decoder
)

func decoder() *zstd.Decoder {
	zdecOnce.Do(func() {
		// DecodeAllCapLimit keeps DecodeAll within cap(dst), so the caller's
		// check of the declared size bounds every allocation. The frames'
		// own content checksums are not verified: every chunk and section
		// a body comes from is checked whole (xxh3) before it is decoded,
		// and hashing the inflated bytes again cost a lookup a few percent
		// of its time.
		zdec, _ = zstd.NewReader(nil, zstd.WithDecodeAllCapLimit(true), zstd.IgnoreChecksum(true),
			zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(1<<31))
	})
	return zdec
}

// largeLeaf is the body size from which text and float bodies use the
// default level: on them matches dominate and the better level costs about
// twice the time for a few percent (and on float bit patterns often finds
// less). Bodies of integers and bools (bit-packed ids, small-range values)
// keep the better level at any size, since its entropy coding is what
// makes zstd pay on them at all: on 64 Ki-value chunks of flights_3m's
// origin ids the default level saves nothing where the better one saves
// a fifth.
const largeLeaf = 64 << 10

// zstd levels a body is compressed at.
const (
	levelDefault = iota
	levelBetter
	levelBest
	levelTrial
)

// ZstdAppend appends the zstd frame of src to dst, at the default level
// from largeLeaf bytes on.
func ZstdAppend(dst, src []byte) []byte {
	if len(src) < largeLeaf {
		return zstdAppend(dst, src, levelBetter)
	}
	return zstdAppend(dst, src, levelDefault)
}

// zstdAppend appends the zstd frame of src at a level.
func zstdAppend(dst, src []byte, level int) []byte {
	p := &zpools[level]
	e := p.get(level)
	defer p.put(e) // (also if EncodeAll panics, which the writer recovers from)
	return e.EncodeAll(src, dst)
}

// The zstd encoders, one pool per level. A zstd.Encoder made with
// concurrency n holds n encoders and lets only n EncodeAll calls run at
// once; one made with 1, shared by every goroutine, serialized the zstd
// work of a parallel write, about a quarter of its CPU. A pool hands each
// goroutine an encoder of its own and makes only as many as run at once,
// up to maxEncoders: an encoder's tables take about 1.3 MiB at the
// default level, 4 MiB at the better one and over 32 MiB at the best,
// touched on first use, so a pool neither makes one per core up front nor
// grows with the cores of a large machine.
var zpools [levelTrial + 1]zpool

// maxEncoders bounds the encoders of one level that exist at once; a
// goroutine past it waits for one to be put back.
func maxEncoders(level int) int {
	if level == levelBest {
		return min(runtime.GOMAXPROCS(0), 4)
	}
	return min(runtime.GOMAXPROCS(0), 8)
}

type zpool struct {
	once   sync.Once
	tokens chan struct{} // one per encoder in use
	mu     sync.Mutex
	idle   []*zstd.Encoder
}

func (p *zpool) get(level int) *zstd.Encoder {
	p.once.Do(func() { p.tokens = make(chan struct{}, maxEncoders(level)) })
	p.tokens <- struct{}{}
	p.mu.Lock()
	if n := len(p.idle); n > 0 {
		e := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		return e
	}
	p.mu.Unlock()
	return newEncoder(level)
}

func (p *zpool) put(e *zstd.Encoder) {
	p.mu.Lock()
	p.idle = append(p.idle, e)
	p.mu.Unlock()
	<-p.tokens
}

// newEncoder returns a zstd encoder of one of the levels below.
func newEncoder(level int) *zstd.Encoder {
	opts := []zstd.EOption{zstd.WithEncoderConcurrency(1), zstd.WithZeroFrames(true)}
	switch level {
	case levelBest:
		// zstd's strongest level, which OptimizeSize uses on every leaf:
		// several times slower to write than the default level, 5-15 %
		// smaller on text, and as fast to inflate.
		opts = append(opts, zstd.WithEncoderLevel(zstd.SpeedBestCompression))
	case levelBetter:
		// The default level leaves literals of bit-packed data nearly
		// uncompressed; the better level's Huffman pass is what makes zstd
		// pay on packed ids and small-range integers.
		opts = append(opts, zstd.WithEncoderLevel(zstd.SpeedBetterCompression))
	case levelTrial:
		// The bodies of trial encodes, whose frames only tell selection
		// how far zstd shrinks a candidate and are then discarded: the
		// default level with entropy coding of literals even in blocks
		// without matches (which is what the better level gains on
		// bit-packed data). On the leaves trials compress (the real data
		// sets) it takes about 40 % of the better level's time and its
		// frames are 0.8 % larger on average, a bias that the yardstick's
		// ratio (choose) mostly corrects.
		opts = append(opts, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithAllLitEntropyCompression(true))
	default:
		opts = append(opts, zstd.WithEncoderLevel(zstd.SpeedDefault))
	}
	e, err := zstd.NewWriter(nil, opts...)
	if err != nil {
		panic(fmt.Sprintf("encoding: zstd encoder: %v", err)) // only invalid options fail
	}
	return e
}

// maxZstdRatio bounds how far one zstd frame may inflate (a block of up to
// 128 KiB can be represented in a handful of bytes; 1<<15 leaves room).
const maxZstdRatio = 1 << 15

const zstdSlack = 64

// probeSize is the slice of a large leaf that Compress tries first.
const probeSize = 16 << 10

func decompress(src []byte, rawLen int) ([]byte, error) {
	return decompressInto(src, rawLen, nil)
}

func decompressInto(src []byte, rawLen int, alloc func(int) []byte) ([]byte, error) {
	// zstd cannot expand a frame by more than maxZstdRatio, so a larger
	// declared size is corrupt; below it the declared size (already checked
	// against the decode limits) bounds the allocation.
	if uint64(rawLen) > uint64(len(src))*maxZstdRatio+64 {
		return nil, Corruptf("zstd body: %d bytes declared for a %d-byte frame", rawLen, len(src))
	}
	// A little spare capacity lets the decoder use its fast path, which
	// needs room to over-copy short matches.
	var dst []byte
	if alloc != nil {
		dst = alloc(rawLen + zstdSlack)[:0]
	} else {
		dst = make([]byte, 0, rawLen+zstdSlack)
	}
	out, err := decoder().DecodeAll(src, dst)
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
	out, _, err := compress(node, minSaving, false, false, opts, nil)
	return out, err
}

// CompressBest is Compress at zstd's strongest level.
func CompressBest(node []byte, minSaving float64, opts *Options) ([]byte, error) {
	out, _, err := compress(node, minSaving, true, false, opts, nil)
	return out, err
}

// compress is Compress at zstd's strongest level (best), or with the
// cheaper encoder of trial encodes in place of the better level (trial,
// unless best), through the cache zc when it is not nil. It reports
// whether it compressed with the trial encoder.
func compress(node []byte, minSaving float64, best, trial bool, opts *Options, zc *ZstdCache) ([]byte, bool, error) {
	h, err := ParseHeader(node, 0, opts)
	if err != nil {
		return nil, false, err
	}
	if h.Flags&FlagZstd != 0 || len(h.Body) < 64 {
		return node, false, nil
	}
	level := levelDefault
	switch {
	case best:
		level = levelBest
	case h.Type.IsInteger() || h.Type == Bool || len(h.Body) < largeLeaf:
		level = levelBetter
		if trial {
			// the trial encoder stands in for the better level only: a
			// large text or float body is compressed at the default
			// level, which costs no more
			level = levelTrial
		}
	}
	// Probe a large body with a slice from its middle first: bit-packed
	// random values and other incompressible leaves then cost one small
	// compression instead of a full one.
	if len(h.Body) > 4*probeSize {
		mid := len(h.Body)/2 - probeSize/2
		probe := zstdAppend(nil, h.Body[mid:mid+probeSize], level)
		if float64(len(probe)) > float64(probeSize)*(1-minSaving/2) {
			return node, false, nil
		}
	}
	prefix := len(node) - len(h.Body)
	out := make([]byte, 0, len(node))
	out = append(out, node[:prefix]...)
	out[2] |= FlagZstd
	out = appendUvarint(out, uint64(len(h.Body)))
	out = zc.appendFrame(out, h.Body, level)
	if float64(len(out)) > float64(len(node))*(1-minSaving) {
		return node, false, nil
	}
	return out, level == levelTrial, nil
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

// DefaultZstdDecode is the cost of inflating a zstd body, as strata
// calibrate measured it (docs/benchmarks.md).
var DefaultZstdDecode = ZstdCost{PerFrame: 8300, PerByte: 1.34}

// Selection compresses the same body more than once: a stream's yardstick
// (its plain layout, encoded whole) is encoded again when the stream is
// selected a second time (the sizer's trial and the chunk, a trial with
// and without the shared alphabet), and a finalist's leaf is often the
// same bytes as another finalist's. A ZstdCache remembers recent frames
// by their source bytes, compared in full, so a repeated body costs a hash
// and a comparison instead of a compression, and the output is the same
// bytes either way. The writer keeps one per file (Policy.ZstdCache): a
// cache shared between writes would make writing the same data twice
// look cheaper than writing it once.
type ZstdCache struct {
	mu      sync.Mutex
	entries map[uint64]zstdEntry
	bytes   int
	// memo holds the parameter searches Ctx.Memo remembered (memo.go),
	// memoBytes the bytes of their inputs.
	memo      map[memoKey]memoEntry
	memoBytes int
	// frames, srcBytes and largest count the compressions the cache did
	// not answer (Compressed).
	frames, srcBytes, largest int
}

// Compressed returns how many zstd frames went through the cache without
// being found in it, their source bytes and the largest source: the
// compression work of the selections that used it.
func (zc *ZstdCache) Compressed() (frames, bytes, largest int) {
	zc.mu.Lock()
	defer zc.mu.Unlock()
	return zc.frames, zc.srcBytes, zc.largest
}

// count records a compression the cache did not answer (zc.mu held).
func (zc *ZstdCache) count(n int) {
	zc.frames++
	zc.srcBytes += n
	zc.largest = max(zc.largest, n)
}

// NewZstdCache returns an empty cache.
func NewZstdCache() *ZstdCache { return &ZstdCache{entries: map[uint64]zstdEntry{}} }

// Reset empties the cache (frames and remembered searches), releasing its
// memory.
func (zc *ZstdCache) Reset() {
	zc.mu.Lock()
	zc.entries = map[uint64]zstdEntry{}
	zc.bytes = 0
	zc.memo, zc.memoBytes = nil, 0
	zc.mu.Unlock()
}

type zstdEntry struct {
	level      int
	src, frame []byte
}

// Bounds of the cache: bodies above zstdCacheMaxBody are not kept, and
// the cache is emptied when it holds more than zstdCacheBytes (source and
// frame bytes), so it stays a few MiB whatever is written.
const (
	zstdCacheMaxBody = 1 << 20
	zstdCacheBytes   = 8 << 20
)

// appendFrame appends the frame of src at level, from the cache when the
// same bytes were compressed at that level recently; a nil cache
// compresses every time.
func (zc *ZstdCache) appendFrame(dst, src []byte, level int) []byte {
	if zc == nil {
		return zstdAppend(dst, src, level)
	}
	if len(src) > zstdCacheMaxBody {
		zc.mu.Lock()
		zc.count(len(src))
		zc.mu.Unlock()
		return zstdAppend(dst, src, level)
	}
	key := xxh3.Hash(src) ^ uint64(level)*0x9E3779B97F4A7C15
	zc.mu.Lock()
	e, ok := zc.entries[key]
	zc.mu.Unlock()
	if ok && e.level == level && bytes.Equal(e.src, src) {
		return append(dst, e.frame...)
	}
	start := len(dst)
	dst = zstdAppend(dst, src, level)
	e = zstdEntry{level: level, src: append([]byte(nil), src...), frame: append([]byte(nil), dst[start:]...)}
	zc.mu.Lock()
	zc.count(len(src))
	if zc.bytes+len(e.src)+len(e.frame) > zstdCacheBytes {
		clear(zc.entries)
		zc.bytes = 0
	}
	if old, ok := zc.entries[key]; ok {
		zc.bytes -= len(old.src) + len(old.frame)
	}
	zc.entries[key] = e
	zc.bytes += len(e.src) + len(e.frame)
	zc.mu.Unlock()
	return dst
}
