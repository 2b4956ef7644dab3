package stats

import (
	"encoding/binary"
	"math"
	"sync"

	"github.com/zeebo/xxh3"

	"strata/encoding"
)

// Bloom is a split-block bloom filter with Parquet's SBBF semantics: the
// filter is an array of 256-bit blocks, each eight 32-bit words. An insert
// picks one block from the high 32 bits of the 64-bit hash and sets one bit
// in each of the eight words, chosen by multiplying the low 32 bits with
// eight odd salt constants and keeping the top 5 bits. A lookup reads a
// single block (one cache line), so it costs about as much as one hash.
//
// Unlike Parquet the hash is xxh3-64 (not xxHash64) over the canonical bytes
// of a value (see HashUint, HashFloat, HashBytes), and the block count need
// not be a power of two.
type Bloom struct {
	blocks []bloomBlock
}

type bloomBlock [8]uint32

// Salt constants of the Parquet split-block bloom filter.
var bloomSalt = bloomBlock{
	0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d,
	0x705495c7, 0x2df1424b, 0x9efc4947, 0x5c6bfb31,
}

const (
	bloomBlockBytes = 32
	// MaxBloomBytes caps the size of one filter (128 MiB).
	MaxBloomBytes  = 128 << 20
	maxBloomBlocks = MaxBloomBytes / bloomBlockBytes
	// bloomVersion identifies the layout and hash: SBBF with xxh3-64.
	bloomVersion = 1
)

// DefaultFPP is the false-positive probability writers aim for.
const DefaultFPP = 0.01

// NewBloom returns an empty filter sized so that after inserting ndv
// distinct values the probability that MayContain reports a value that was
// never inserted is at most fpp (clamped to [1e-6, 0.5]). The size is the
// smallest block count whose expected false-positive rate, accounting for
// the uneven (Poisson) load of blocks, meets fpp; at 1% that is about 10.5
// bits per distinct value.
func NewBloom(ndv int, fpp float64) *Bloom {
	return &Bloom{blocks: make([]bloomBlock, BloomBlocks(ndv, fpp))}
}

// BloomBlocks returns the block count NewBloom uses for ndv and fpp.
func BloomBlocks(ndv int, fpp float64) int {
	if !(fpp >= 1e-6) { // also catches NaN
		fpp = 1e-6
	}
	fpp = min(fpp, 0.5)
	if ndv <= 0 {
		return 1
	}
	// With lambda* the largest mean block load meeting fpp, any block count
	// of at least ndv/lambda* does.
	n := math.Ceil(float64(ndv) / loadFor(fpp))
	if n >= maxBloomBlocks {
		return maxBloomBlocks
	}
	return max(1, int(n))
}

var loadCache sync.Map // fpp → mean block load (float64)

// loadFor returns the largest mean number of values per block whose
// expected false-positive rate is at most fpp (the rate grows with the load).
func loadFor(fpp float64) float64 {
	if v, ok := loadCache.Load(fpp); ok {
		return v.(float64)
	}
	lo, hi := 0.0, 1024.0 // loads in values per 256-bit block
	for range 100 {
		m := (lo + hi) / 2
		if bloomFPP(m) <= fpp {
			lo = m
		} else {
			hi = m
		}
	}
	lo = max(lo, 1e-9)
	loadCache.Store(fpp, lo)
	return lo
}

// bloomFPP is the expected false-positive rate of a filter whose blocks
// hold lambda values on average: the number of values in the block a probe
// lands in is Poisson(lambda); with k values in it, each of the eight words
// has a given bit set with probability 1-(31/32)^k.
func bloomFPP(lambda float64) float64 {
	if lambda <= 0 {
		return 0
	}
	spread := 12*math.Sqrt(lambda) + 20
	k0 := max(0, int(lambda-spread))
	k1 := int(lambda+spread) + 1
	var p float64
	for k := k0; k <= k1; k++ {
		lg, _ := math.Lgamma(float64(k) + 1)
		pk := math.Exp(-lambda + float64(k)*math.Log(lambda) - lg)
		p += pk * math.Pow(1-math.Pow(31.0/32.0, float64(k)), 8)
	}
	return p
}

// SizeBytes returns the size of the filter's bit array.
func (f *Bloom) SizeBytes() int { return len(f.blocks) * bloomBlockBytes }

func (f *Bloom) block(h uint64) *bloomBlock {
	return &f.blocks[((h>>32)*uint64(len(f.blocks)))>>32]
}

// NumBlocks returns the number of 32-byte blocks of the filter.
func (f *Bloom) NumBlocks() int { return len(f.blocks) }

// BloomBlockIndex returns the block of a filter of n blocks that hash h
// falls into. With AppendBlock and BlockMayContain it lets a filter be
// stored as separately readable blocks and probed by reading one block:
// the time-series index keeps its series-path filter that way.
func BloomBlockIndex(h uint64, n int) int { return int(((h >> 32) * uint64(n)) >> 32) }

// AppendBlock appends block i's 32 bytes (eight little-endian words, as
// AppendBinary stores them) to dst.
func (f *Bloom) AppendBlock(dst []byte, i int) []byte {
	for _, w := range f.blocks[i] {
		dst = binary.LittleEndian.AppendUint32(dst, w)
	}
	return dst
}

// BloomBlockMayContain reports whether the block b (32 bytes as
// AppendBlock wrote it) may hold hash h; false means h was certainly never
// inserted. It returns false for a b of the wrong length.
func BloomBlockMayContain(b []byte, h uint64) bool {
	if len(b) != bloomBlockBytes {
		return false
	}
	key := uint32(h)
	for i := range bloomSalt {
		w := binary.LittleEndian.Uint32(b[4*i:])
		if w&(1<<((key*bloomSalt[i])>>27)) == 0 {
			return false
		}
	}
	return true
}

// Insert adds a hash (from Value.Hash, HashUint, HashFloat or HashBytes).
func (f *Bloom) Insert(h uint64) {
	b := f.block(h)
	key := uint32(h)
	for i := range b {
		b[i] |= 1 << ((key * bloomSalt[i]) >> 27)
	}
}

// MayContain reports whether a hash may have been inserted. False means it
// certainly was not.
func (f *Bloom) MayContain(h uint64) bool {
	b := f.block(h)
	key := uint32(h)
	for i := range b {
		if b[i]&(1<<((key*bloomSalt[i])>>27)) == 0 {
			return false
		}
	}
	return true
}

// InsertValues adds every non-null value of vals ([]T or encoding.Bytes /
// *encoding.Bytes). valid, when non-nil, marks non-null values.
func (f *Bloom) InsertValues(vals any, valid []bool) {
	for _, h := range AppendHashes(nil, vals, valid) {
		f.Insert(h)
	}
}

// AppendHashes appends the bloom hash of every non-null value of vals (as
// InsertValues would insert it) to dst. Writers use it to count distinct
// values before sizing a filter.
func AppendHashes(dst []uint64, vals any, valid []bool) []uint64 {
	switch v := vals.(type) {
	case []bool:
		for i, x := range v {
			if valid == nil || valid[i] {
				var u uint64
				if x {
					u = 1
				}
				dst = append(dst, HashUint(u))
			}
		}
	case []int8:
		return hashInts(dst, v, valid)
	case []int16:
		return hashInts(dst, v, valid)
	case []int32:
		return hashInts(dst, v, valid)
	case []int64:
		return hashInts(dst, v, valid)
	case []uint8:
		return hashUints(dst, v, valid)
	case []uint16:
		return hashUints(dst, v, valid)
	case []uint32:
		return hashUints(dst, v, valid)
	case []uint64:
		return hashUints(dst, v, valid)
	case []float32:
		for i, x := range v {
			if valid == nil || valid[i] {
				dst = append(dst, HashFloat(float64(x)))
			}
		}
	case []float64:
		for i, x := range v {
			if valid == nil || valid[i] {
				dst = append(dst, HashFloat(x))
			}
		}
	case encoding.Bytes:
		return hashBytes(dst, &v, valid)
	case *encoding.Bytes:
		return hashBytes(dst, v, valid)
	}
	return dst
}

func hashInts[T int8 | int16 | int32 | int64](dst []uint64, v []T, valid []bool) []uint64 {
	for i, x := range v {
		if valid == nil || valid[i] {
			dst = append(dst, HashInt(int64(x)))
		}
	}
	return dst
}

func hashUints[T uint8 | uint16 | uint32 | uint64](dst []uint64, v []T, valid []bool) []uint64 {
	for i, x := range v {
		if valid == nil || valid[i] {
			dst = append(dst, HashUint(uint64(x)))
		}
	}
	return dst
}

func hashBytes(dst []uint64, v *encoding.Bytes, valid []bool) []uint64 {
	for i := 0; i < v.Len(); i++ {
		if valid == nil || valid[i] {
			dst = append(dst, HashBytes(v.Value(i)))
		}
	}
	return dst
}

// HashUint hashes an integer as the 8 little-endian bytes of its 64-bit
// value, so a literal hashes the same whatever width the column has.
func HashUint(v uint64) uint64 {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], v)
	return xxh3.Hash(b[:])
}

// HashInt hashes a signed integer as HashUint of its two's-complement bits.
func HashInt(v int64) uint64 { return HashUint(uint64(v)) }

// HashFloat hashes a float (float32 values widened exactly) as HashUint of
// its float64 bits, with -0.0 folded into 0.0 because they compare equal,
// and every NaN folded into one canonical NaN.
func HashFloat(v float64) uint64 {
	switch {
	case v == 0:
		v = 0
	case v != v:
		return HashUint(0x7ff8000000000001)
	}
	return HashUint(math.Float64bits(v))
}

// HashBytes hashes a Binary value's raw bytes.
func HashBytes(v []byte) uint64 { return xxh3.Hash(v) }

// AppendBinary appends the serialized filter to dst (layout in
// docs/FORMAT.md, "Column statistics" and "Bloom filters").
func (f *Bloom) AppendBinary(dst []byte) []byte {
	dst = append(dst, bloomVersion)
	dst = binary.AppendUvarint(dst, uint64(len(f.blocks)))
	for i := range f.blocks {
		for _, w := range f.blocks[i] {
			dst = binary.LittleEndian.AppendUint32(dst, w)
		}
	}
	return dst
}

// MarshalBinary implements encoding.BinaryMarshaler.
func (f *Bloom) MarshalBinary() ([]byte, error) {
	return f.AppendBinary(make([]byte, 0, 1+binary.MaxVarintLen64+f.SizeBytes())), nil
}

// UnmarshalBinary implements encoding.BinaryUnmarshaler; b must hold exactly
// one filter.
func (f *Bloom) UnmarshalBinary(b []byte) error {
	g, n, err := DecodeBloom(b)
	if err != nil {
		return err
	}
	if n != len(b) {
		return encoding.Corruptf("stats: %d trailing bytes after bloom filter", len(b)-n)
	}
	*f = *g
	return nil
}

// DecodeBloom decodes a filter from the front of b and returns it with the
// number of bytes consumed. The block count is checked against the bytes
// present and MaxBloomBytes before anything is allocated.
func DecodeBloom(b []byte) (*Bloom, int, error) {
	if len(b) < 1 {
		return nil, 0, encoding.Corruptf("stats: bloom filter truncated")
	}
	if b[0] != bloomVersion {
		return nil, 0, encoding.Unsupportedf("stats: bloom filter version %d", b[0])
	}
	nb, n := binary.Uvarint(b[1:])
	if n <= 0 {
		return nil, 0, encoding.Corruptf("stats: bloom filter: bad block count varint")
	}
	p := 1 + n
	if nb == 0 {
		return nil, 0, encoding.Corruptf("stats: bloom filter with no blocks")
	}
	if nb > maxBloomBlocks {
		return nil, 0, encoding.Limitf("stats: bloom filter of %d blocks", nb)
	}
	if nb*bloomBlockBytes > uint64(len(b)-p) {
		return nil, 0, encoding.Corruptf("stats: bloom filter of %d blocks, %d bytes remain", nb, len(b)-p)
	}
	f := &Bloom{blocks: make([]bloomBlock, nb)}
	for i := range f.blocks {
		for j := range f.blocks[i] {
			f.blocks[i][j] = binary.LittleEndian.Uint32(b[p:])
			p += 4
		}
	}
	return f, p, nil
}
