package cascade

import (
	"math"
	"unsafe"

	"strata/encoding"
)

func f32bits(v float32) uint32     { return math.Float32bits(v) }
func f64bits(v float64) uint64     { return math.Float64bits(v) }
func f32frombits(u uint32) float32 { return math.Float32frombits(u) }
func f64frombits(u uint64) float64 { return math.Float64frombits(u) }

// Keys returns a view of vals whose == is bit-exact equality: floats are
// reinterpreted as their bit patterns (so -0 != +0 and NaN == NaN of the same
// payload); every other type is returned as is. The view shares memory.
func Keys(vals any) any {
	switch v := vals.(type) {
	case []float32:
		if len(v) == 0 {
			return []uint32(nil)
		}
		return unsafe.Slice((*uint32)(unsafe.Pointer(&v[0])), len(v))
	case []float64:
		if len(v) == 0 {
			return []uint64(nil)
		}
		return unsafe.Slice((*uint64)(unsafe.Pointer(&v[0])), len(v))
	}
	return vals
}

// asUint32 views an int32 slice as uint32 (same size and layout).
func asUint32(v []int32) []uint32 {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(&v[0])), len(v))
}

// allocInt32 returns n int32s, from opts.Alloc when the reader recycles
// its decoders' memory (their values are then whatever the buffer held),
// else fresh zeroed ones.
func allocInt32(opts *encoding.Options, n int) []int32 {
	if opts == nil || opts.Alloc == nil || n == 0 {
		return make([]int32, n)
	}
	b := opts.Alloc(4 * n)
	return unsafe.Slice((*int32)(unsafe.Pointer(&b[0])), n)
}
