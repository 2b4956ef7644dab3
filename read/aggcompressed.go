package read

import (
	"math/bits"

	"strata/encoding"
	"strata/stats"
)

// aggCompressed folds a chunk's selected rows into a without materializing
// its values when the chunk is run-length or dictionary encoded: one step
// per run (count the selected rows of the run, multiply by its value) or one
// id pass plus one step per alphabet entry. It reports whether it could.
func aggCompressed(d encoding.Decoder, n int, sel encoding.Bitmap, a *aggState) (bool, error) {
	switch d.Type() {
	case encoding.Int8:
		return aggCompressedInts[int8](d, n, sel, a)
	case encoding.Int16:
		return aggCompressedInts[int16](d, n, sel, a)
	case encoding.Int32:
		return aggCompressedInts[int32](d, n, sel, a)
	case encoding.Int64:
		return aggCompressedInts[int64](d, n, sel, a)
	case encoding.Uint8:
		return aggCompressedInts[uint8](d, n, sel, a)
	case encoding.Uint16:
		return aggCompressedInts[uint16](d, n, sel, a)
	case encoding.Uint32:
		return aggCompressedInts[uint32](d, n, sel, a)
	case encoding.Uint64:
		return aggCompressedInts[uint64](d, n, sel, a)
	}
	return false, nil
}

func aggCompressedInts[T encoding.Integer](d encoding.Decoder, n int, sel encoding.Bitmap, a *aggState) (bool, error) {
	signed := d.Type().IsSigned()
	if rr, ok := d.(encoding.RunReader[T]); ok {
		lengths, values := rr.Runs()
		var sum Int128
		var cnt int64
		var mn, mx T
		have := false
		start := 0
		for i, l := range lengths {
			end := start + int(l)
			c := int64(l)
			if sel != nil {
				c = int64(countRange(sel, start, end))
			}
			start = end
			if c == 0 {
				continue
			}
			v := values[i]
			addMul(&sum, signed, uint64(c), v)
			cnt += c
			if !have || v < mn {
				mn = v
			}
			if !have || v > mx {
				mx = v
			}
			have = true
		}
		if start != n {
			return false, encoding.Corruptf("runs cover %d of %d rows", start, n)
		}
		a.add(sum, cnt, have, stats.Of(mn), stats.Of(mx))
		return true, nil
	}
	if dd, ok := d.(encoding.Dictionary[T]); ok {
		alpha := dd.Alphabet()
		counts := make([]int64, len(alpha))
		if sel != nil && sel.Count() < n/8 {
			// Sparse selection: gather only the selected ids.
			rows := sel.Rows(nil)
			ids := make([]uint32, len(rows))
			if err := dd.GatherIDs(rows, ids); err != nil {
				return false, err
			}
			for _, id := range ids {
				if int(id) >= len(counts) {
					return false, encoding.Corruptf("dictionary id %d beyond alphabet of %d", id, len(counts))
				}
				counts[id]++
			}
		} else {
			ids := make([]uint32, n)
			if err := dd.ReadIDs(ids); err != nil {
				return false, err
			}
			for i, id := range ids {
				if sel == nil || sel.Get(i) {
					counts[id]++
				}
			}
		}
		var sum Int128
		var cnt int64
		var mn, mx T
		have := false
		for id, c := range counts {
			if c == 0 {
				continue
			}
			v := alpha[id]
			addMul(&sum, signed, uint64(c), v)
			cnt += c
			if !have || v < mn {
				mn = v
			}
			if !have || v > mx {
				mx = v
			}
			have = true
		}
		a.add(sum, cnt, have, stats.Of(mn), stats.Of(mx))
		return true, nil
	}
	return false, nil
}

// aggGathered folds the selected rows of a chunk into a by gathering only
// them, when they are few (under an eighth of the chunk's rows) and the
// decoder gathers rows without decoding the rest (Gatherer): a filter that
// keeps a few thousand rows of a 64 Ki-row chunk then decodes those rows,
// not the chunk. It reports whether it could. d holds no nulls (not
// Nullable).
func aggGathered(d encoding.Decoder, n int, sel encoding.Bitmap, a *aggState) (bool, error) {
	if sel == nil || sel.Count() >= n/8 {
		return false, nil
	}
	switch d.Type() {
	case encoding.Int8:
		return gatherFold(d, sel, a, foldInts[int8])
	case encoding.Int16:
		return gatherFold(d, sel, a, foldInts[int16])
	case encoding.Int32:
		return gatherFold(d, sel, a, foldInts[int32])
	case encoding.Int64:
		return gatherFold(d, sel, a, foldInts[int64])
	case encoding.Uint8:
		return gatherFold(d, sel, a, foldUints[uint8])
	case encoding.Uint16:
		return gatherFold(d, sel, a, foldUints[uint16])
	case encoding.Uint32:
		return gatherFold(d, sel, a, foldUints[uint32])
	case encoding.Uint64:
		return gatherFold(d, sel, a, foldUints[uint64])
	case encoding.Float32:
		return gatherFold(d, sel, a, foldFloats[float32])
	case encoding.Float64:
		return gatherFold(d, sel, a, foldFloats[float64])
	}
	return false, nil
}

// gatherFold gathers the selected rows of d, if it is a Gatherer, and
// folds them with fold (every gathered row valid and selected).
func gatherFold[T encoding.Fixed](d encoding.Decoder, sel encoding.Bitmap, a *aggState,
	fold func(*aggState, []T, []bool, encoding.Bitmap)) (bool, error) {
	g, ok := d.(encoding.Gatherer[T])
	if !ok {
		return false, nil
	}
	rows := sel.Rows(nil)
	if len(rows) == 0 {
		return true, nil
	}
	vals := make([]T, len(rows))
	if err := g.Gather(rows, vals); err != nil {
		return false, err
	}
	valid := make([]bool, len(rows))
	for i := range valid {
		valid[i] = true
	}
	fold(a, vals, valid, nil)
	return true, nil
}

// addMul adds n copies of v to sum exactly.
func addMul[T encoding.Integer](sum *Int128, signed bool, n uint64, v T) {
	if signed {
		sum.addMulInt(n, int64(v))
	} else {
		sum.addMulUint(n, uint64(v))
	}
}

func (a *aggState) add(sum Int128, cnt int64, have bool, mn, mx stats.Value) {
	if !have {
		return
	}
	a.count += cnt
	a.sumI.add(sum)
	a.fold(mn, mx)
}

// countRange counts the set rows of sel in [lo, hi).
func countRange(sel encoding.Bitmap, lo, hi int) int {
	n := 0
	for lo < hi {
		w := lo >> 6
		off := uint(lo & 63)
		take := min(64-int(off), hi-lo)
		word := sel[w] >> off
		if take < 64 {
			word &= (1 << uint(take)) - 1
		}
		n += bits.OnesCount64(word)
		lo += take
	}
	return n
}
