package dict

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"math"
	"slices"

	"strata/encoding"
)

// Sorting an alphabet. Dictionary and SharedDictionary sort their distinct
// values (in first-seen order, uniq) and need, for each, its rank. Sorting
// indices with a comparator that looks each value up and switches on its
// type was about half of building a shared alphabet; instead each value
// gets a 64-bit key whose unsigned order is the alphabet's order (compare),
// and pairs of key and index are sorted by key. Distinct values have
// distinct keys (text: the first 8 bytes, ties broken by the whole
// values), so the order is the one compare gives, whatever the sort.

// keyed is a value's sort key and its index in uniq.
type keyed struct {
	k uint64
	i uint32
}

// orderNum returns the indices of uniq (distinct values) in compare's
// order.
func orderNum[T encoding.Number](uniq []T) []uint32 {
	ks := make([]keyed, 0, len(uniq))
	var nans []uint32 // NaNs sort after every number, by bit pattern
	for i, x := range uniq {
		k, nan := sortKey(x)
		if nan {
			nans = append(nans, uint32(i))
			continue
		}
		ks = append(ks, keyed{k, uint32(i)})
	}
	sortKeyed(ks)
	order := make([]uint32, 0, len(uniq))
	for _, p := range ks {
		order = append(order, p.i)
	}
	if len(nans) > 0 {
		slices.SortFunc(nans, func(a, b uint32) int { return compare(uniq[a], uniq[b]) })
		order = append(order, nans...)
	}
	return order
}

// sortKey maps a number to a uint64 in the same order as compare, and
// reports NaNs (which compare orders by bit pattern after every number).
// Floats order as numbers with -0 before +0: positive floats keep their
// bits with the sign bit set, negative ones are complemented.
func sortKey[T encoding.Number](x T) (uint64, bool) {
	switch v := any(x).(type) {
	case float32:
		return floatKey(float64(v))
	case float64:
		return floatKey(v)
	case int8, int16, int32, int64:
		return uint64(x) ^ 1<<63, false // sign-extended, then offset
	}
	return uint64(x), false
}

func floatKey(f float64) (uint64, bool) {
	if f != f {
		return 0, true
	}
	b := math.Float64bits(f)
	if b>>63 != 0 {
		return ^b, false
	}
	return b | 1<<63, false
}

// orderBinary returns the indices of uniq (distinct values) in
// bytes.Compare order.
func orderBinary(uniq *encoding.Bytes) []uint32 {
	d := uniq.Len()
	ks := make([]keyed, d)
	var pad [8]byte
	for i := range ks {
		v := uniq.Value(i)
		var k uint64
		if len(v) >= 8 {
			k = binary.BigEndian.Uint64(v)
		} else {
			copy(pad[:], v)
			clear(pad[len(v):])
			k = binary.BigEndian.Uint64(pad[:])
		}
		ks[i] = keyed{k, uint32(i)}
	}
	sortKeyed(ks)
	// values sharing their first 8 bytes (a key) are ordered by the rest
	for lo := 0; lo < len(ks); {
		hi := lo + 1
		for hi < len(ks) && ks[hi].k == ks[lo].k {
			hi++
		}
		if hi-lo > 1 {
			slices.SortFunc(ks[lo:hi], func(a, b keyed) int {
				return bytes.Compare(uniq.Value(int(a.i)), uniq.Value(int(b.i)))
			})
		}
		lo = hi
	}
	order := make([]uint32, d)
	for r, p := range ks {
		order[r] = p.i
	}
	return order
}

// radixKeyed is the length from which sortKeyed sorts by radix rather than
// by comparison.
const radixKeyed = 128

// sortKeyed sorts ks by key (the order of pairs with equal keys is left
// unspecified; callers order them afterwards when it matters). An
// alphabet of a few thousand values took a comparison sort's n log n calls
// of the comparator on every Dictionary trial; a least-significant-digit
// radix sort over the key bytes that differ between the keys (the high
// bytes of nearby numbers are equal) takes a few linear passes. Keys
// already in order (the alphabet of a sorted column) cost one pass.
func sortKeyed(ks []keyed) {
	n := len(ks)
	if n < 2 {
		return
	}
	and, or := ks[0].k, ks[0].k
	ordered := true
	for i := 1; i < n; i++ {
		k := ks[i].k
		and &= k
		or |= k
		ordered = ordered && ks[i-1].k <= k
	}
	if ordered {
		return
	}
	if n < radixKeyed {
		slices.SortFunc(ks, func(a, b keyed) int { return cmp.Compare(a.k, b.k) })
		return
	}
	diff := and ^ or // the bits that differ between some keys
	src, dst := ks, make([]keyed, n)
	for shift := uint(0); shift < 64; shift += 8 {
		if byte(diff>>shift) == 0 {
			continue // every key has this byte: the pass would not move anything
		}
		var cnt [256]int
		for _, e := range src {
			cnt[byte(e.k>>shift)]++
		}
		sum := 0
		for i, c := range cnt {
			cnt[i] = sum
			sum += c
		}
		for _, e := range src {
			b := byte(e.k >> shift)
			dst[cnt[b]] = e
			cnt[b]++
		}
		src, dst = dst, src
	}
	if &src[0] != &ks[0] {
		copy(ks, src)
	}
}
