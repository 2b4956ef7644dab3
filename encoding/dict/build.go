package dict

import (
	"bytes"
	"math/bits"

	"github.com/zeebo/xxh3"

	"strata/encoding"
)

// table is an open-addressing hash table from a 64-bit key (a value's bit
// pattern, or a hash of binary bytes) to a provisional id. It exists because
// Go maps cost several times more per lookup on this hot path.
type table struct {
	keys  []uint64
	ids   []uint32 // id+1; 0 marks an empty slot
	shift uint
	n     int
}

func newTable(hint int) *table {
	size := 64
	for size < 2*hint {
		size <<= 1
	}
	return &table{keys: make([]uint64, size), ids: make([]uint32, size), shift: uint(64 - bits.TrailingZeros(uint(size)))}
}

// tableHint is the number of keys to size a table for: the distinct count
// when it is known (0 when not), else up to 1,024 of the n values.
func tableHint(n, distinct int) int {
	if distinct > 0 {
		return min(distinct, n)
	}
	return min(n, 1024)
}

func (t *table) slot(k uint64) int { return int((k * 0x9E3779B97F4A7C15) >> t.shift) }

func (t *table) grow() {
	old := *t
	size := 2 * len(old.keys)
	t.keys, t.ids = make([]uint64, size), make([]uint32, size)
	t.shift--
	mask := size - 1
	for i, id := range old.ids {
		if id == 0 {
			continue
		}
		h := t.slot(old.keys[i])
		for t.ids[h] != 0 {
			h = (h + 1) & mask
		}
		t.keys[h], t.ids[h] = old.keys[i], id
	}
}

// build returns the sorted alphabet of v and each value's id. key maps a
// value to its bit pattern, so floats are distinguished bit-exactly.
// distinct is the distinct count when known exactly (the table and the
// alphabet are sized by it and never grow), else 0.
func build[T encoding.Number](v []T, key func(T) uint64, distinct int) ([]T, []uint32) {
	idv := make([]uint32, len(v))
	uniq := make([]T, 0, distinct)
	t := newTable(tableHint(len(v), distinct))
	mask := len(t.keys) - 1
	for i, x := range v {
		k := key(x)
		h := t.slot(k)
		for {
			id := t.ids[h]
			if id == 0 {
				uniq = append(uniq, x)
				t.keys[h], t.ids[h] = k, uint32(len(uniq))
				idv[i] = uint32(len(uniq) - 1)
				t.n++
				if 2*t.n > len(t.keys) {
					t.grow()
					mask = len(t.keys) - 1
				}
				break
			}
			if t.keys[h] == k {
				idv[i] = id - 1
				break
			}
			h = (h + 1) & mask
		}
	}
	alpha, remap := sortNum(uniq)
	for i, id := range idv {
		idv[i] = remap[id]
	}
	return alpha, idv
}

// sortNum returns the distinct values uniq in alphabet order and, for
// each of them, its rank in that order.
func sortNum[T encoding.Number](uniq []T) (alpha []T, rank []uint32) {
	order := orderNum(uniq)
	alpha = make([]T, len(uniq))
	rank = make([]uint32, len(uniq))
	for r, p := range order {
		alpha[r] = uniq[p]
		rank[p] = uint32(r)
	}
	return alpha, rank
}

// buildBinary is build for binary values: keys are xxh3 hashes, confirmed
// by comparing bytes, so no value is allocated; when every value is short
// the keys are the values themselves (shortKey).
func buildBinary(b *encoding.Bytes, distinct int) (encoding.Bytes, []uint32) {
	n := b.Len()
	idv := make([]uint32, n)
	uniq := encoding.Bytes{Offsets: make([]int32, 1, distinct+1)}
	t := newTable(tableHint(n, distinct))
	mask := len(t.keys) - 1
	short := allShort(b)
	for i := 0; i < n; i++ {
		x := b.Value(i)
		var k uint64
		if short {
			k = shortKey(x)
		} else {
			k = xxh3.Hash(x)
		}
		h := t.slot(k)
		for {
			id := t.ids[h]
			if id == 0 {
				uniq.Append(x)
				t.keys[h], t.ids[h] = k, uint32(uniq.Len())
				idv[i] = uint32(uniq.Len() - 1)
				t.n++
				if 2*t.n > len(t.keys) {
					t.grow()
					mask = len(t.keys) - 1
				}
				break
			}
			if t.keys[h] == k && (short || bytes.Equal(uniq.Value(int(id-1)), x)) {
				idv[i] = id - 1
				break
			}
			h = (h + 1) & mask
		}
	}
	d := uniq.Len()
	order := orderBinary(&uniq)
	alpha := encoding.Bytes{Offsets: make([]int32, 1, d+1), Data: make([]byte, 0, len(uniq.Data))}
	remap := make([]uint32, d)
	for rank, p := range order {
		alpha.Append(uniq.Value(int(p)))
		remap[p] = uint32(rank)
	}
	for i, id := range idv {
		idv[i] = remap[id]
	}
	return alpha, idv
}
