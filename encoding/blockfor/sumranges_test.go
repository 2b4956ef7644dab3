package blockfor_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/blockfor"
	"strata/internal/bitpack"
)

// limits returns the smallest and largest T.
func limits[T encoding.Integer]() (lo, hi T) {
	size := encoding.TypeFor[T]().Size()
	var z T
	if ^z < 0 {
		hi = T(uint64(1)<<(8*size-1) - 1)
		return ^hi, hi
	}
	return 0, ^z
}

// wideOf is the widened value of v (sign-extended for signed types).
func wideOf[T encoding.Integer](v T) uint64 { return uint64(int64(v)) }

// sumShapes names the value shapes of TestSumRangesValues.
var sumShapes = []string{"small", "outliers", "ends", "random", "lengths", "constant", "steps"}

// sumValues returns n values of one of sumShapes: exception-free blocks
// (small, constant), blocks with a few exceptions (outliers, lengths:
// FSST code lengths with rare long ones, steps: sorted with jumps),
// values at both ends of T's range (ends: the packed window of a narrow
// type runs past its range, so slots wrap as Read wraps them) and values
// spread over the whole range (random).
func sumValues[T encoding.Integer](r *rand.Rand, shape string, n int) []T {
	lo, hi := limits[T]()
	vals := make([]T, n)
	base := T(r.Uint64())
	for i := range vals {
		switch shape {
		case "small":
			vals[i] = base + T(r.IntN(16))
		case "outliers":
			vals[i] = base + T(r.IntN(8))
			if r.IntN(20) == 0 {
				vals[i] = T(r.Uint64())
			}
		case "ends":
			vals[i] = hi - T(r.IntN(3))
			if r.IntN(6) == 0 {
				vals[i] = lo + T(r.IntN(3))
			}
		case "random":
			vals[i] = T(r.Uint64())
		case "lengths":
			vals[i] = T(10 + r.IntN(34))
			if r.IntN(40) == 0 {
				vals[i] = T(100 + r.IntN(100))
			}
		case "constant":
			vals[i] = base
		case "steps":
			if i > 0 {
				vals[i] = vals[i-1] + T(r.IntN(3))
				if r.IntN(50) == 0 {
					vals[i] += T(1 + r.IntN(100))
				}
			} else {
				vals[i] = base
			}
		}
	}
	return vals
}

// blockforNode writes vals as a BlockFOR node of blocks of bs rows.
func blockforNode[T encoding.Integer](t *testing.T, vals []T, bs int) []byte {
	t.Helper()
	node := encoding.AppendHeader(nil, encoding.KindBlockFOR, encoding.TypeFor[T](), len(vals))
	node, err := blockfor.NewCodec(bs).Encoder.Encode(node, vals, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return node
}

// naiveSum adds the widened values one by one.
func naiveSum[T encoding.Integer](vals []T) uint64 {
	var s uint64
	for _, v := range vals {
		s += wideOf(v)
	}
	return s
}

// randomRanges returns a start row and ends for SumRanges over n rows of
// blocks of bs rows: empty ranges, ranges of one row, ranges that end on
// or just past a block boundary, inside one block and across several,
// and the cut a point lookup of FSST makes (0, the row, the next, n).
func randomRanges(r *rand.Rand, n, bs int) (int, []int32) {
	if r.IntN(5) == 0 {
		row := r.IntN(n)
		return 0, []int32{int32(row), int32(row + 1), int32(n)}
	}
	from := r.IntN(n + 1)
	if r.IntN(4) == 0 {
		from = min(n, from/bs*bs+[]int{0, 1, bs - 1}[r.IntN(3)])
	}
	var ends []int32
	e := from
	for k := r.IntN(7); k >= 0; k-- {
		switch r.IntN(6) {
		case 0: // empty
		case 1:
			e = min(n, e+1)
		case 2: // to the next block boundary, or one past it
			e = min(n, (e/bs+1)*bs+r.IntN(2))
		case 3:
			e = min(n, e+1+r.IntN(bs))
		case 4:
			e = min(n, e+1+r.IntN(4*bs))
		default:
			e += r.IntN(n - e + 1)
		}
		ends = append(ends, int32(e))
	}
	return from, ends
}

// checkSums calls s.SumRanges(from, ends) and compares every sum with the
// naive sum of vals over its range.
func checkSums[T encoding.Integer](t *testing.T, s encoding.RangeSummer, vals []T, from int, ends []int32, what string) {
	t.Helper()
	out := make([]uint64, len(ends)+1)
	out[len(ends)] = 12345
	if err := s.SumRanges(from, ends, out); err != nil {
		t.Fatalf("%s: SumRanges(%d, %v): %v", what, from, ends, err)
	}
	r := from
	for i, e := range ends {
		if want := naiveSum(vals[r:e]); out[i] != want {
			t.Fatalf("%s: SumRanges(%d, %v): sum %d of [%d, %d) = %d, want %d", what, from, ends, i, r, e, out[i], want)
		}
		r = int(e)
	}
	if out[len(ends)] != 12345 {
		t.Fatalf("%s: SumRanges(%d, %v) wrote past its sums", what, from, ends)
	}
}

// TestSumRangesValues checks SumRanges value by value against a naive
// loop over the decoded values, for every integer type, block sizes from
// 1 to the default, blocks with and without exceptions, over random
// ranges: on a fresh decoder for each call (a cold lookup: exceptions
// walked in place), on one decoder for all calls (tables built when a
// call comes back to a block, then kept) and on one whose reads of parts
// of blocks build tables between the sums.
func TestSumRangesValues(t *testing.T) {
	t.Run("int8", func(t *testing.T) { testSumRanges[int8](t) })
	t.Run("int16", func(t *testing.T) { testSumRanges[int16](t) })
	t.Run("int32", func(t *testing.T) { testSumRanges[int32](t) })
	t.Run("int64", func(t *testing.T) { testSumRanges[int64](t) })
	t.Run("uint8", func(t *testing.T) { testSumRanges[uint8](t) })
	t.Run("uint16", func(t *testing.T) { testSumRanges[uint16](t) })
	t.Run("uint32", func(t *testing.T) { testSumRanges[uint32](t) })
	t.Run("uint64", func(t *testing.T) { testSumRanges[uint64](t) })
}

// readPart reads values [a, b) of d into got after a Reset and a Skip (the
// window a Delta parent reads after a skip) and checks them against vals.
func readPart[T encoding.Integer](t *testing.T, d encoding.Reader[T], vals, got []T, a, b int, what string) {
	t.Helper()
	d.Reset()
	if err := d.Skip(a); err != nil {
		t.Fatal(err)
	}
	if err := d.Read(got[a:b]); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got[a:b], vals[a:b]) {
		t.Fatalf("%s: part [%d, %d) read other values", what, a, b)
	}
}

func testSumRanges[T encoding.Integer](t *testing.T) {
	r := rand.New(rand.NewPCG(58, uint64(encoding.TypeFor[T]())))
	withExc := 0
	for _, bs := range []int{1, 7, 64, 1024} {
		for _, shape := range sumShapes {
			for _, n := range []int{1, 2, 65, 1000, 1025, 5000} {
				what := fmt.Sprintf("bs %d/%s/%d", bs, shape, n)
				vals := sumValues[T](r, shape, n)
				node := blockforNode(t, vals, bs)
				open := func() encoding.Reader[T] {
					d, err := encoding.OpenTyped[T](node, 0, all.Options())
					if err != nil {
						t.Fatalf("%s: %v", what, err)
					}
					return d
				}
				d := open()
				if blockfor.Exceptions[T](d) > 0 {
					withExc++
				}
				got := make([]T, n)
				if err := d.Read(got); err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				if !slices.Equal(got, vals) {
					t.Fatalf("%s: read other values than written", what)
				}
				warm := open().(encoding.RangeSummer)
				mixed := open()
				for range 60 {
					from, ends := randomRanges(r, n, bs)
					checkSums(t, open().(encoding.RangeSummer), vals, from, ends, what+"/cold")
					checkSums(t, warm, vals, from, ends, what+"/warm")
					// a part read, as a window after a Delta skip
					a := r.IntN(n)
					readPart(t, mixed, vals, got, a, min(n, a+1+r.IntN(2*bs)), what)
					checkSums(t, mixed.(encoding.RangeSummer), vals, from, ends, what+"/mixed")
				}
			}
		}
	}
	if withExc < 20 {
		t.Fatalf("only %d nodes with exceptions", withExc)
	}
}

// hostileBlock is one block of a hand-written body: any content open
// accepts, with slots that need not be zero under exceptions, exceptions
// past the block's maximum (their width holds more than its spread),
// windows past T's range and, when bad, positions that repeat, decrease
// or pass the block's rows.
type hostileBlock struct {
	min, spread, baseOff uint64
	w                    int
	slots, pos, exc      []uint64
	bad                  bool
}

// hostileNode writes n rows in blocks of bs rows of random hostile blocks
// of T; it returns the node, its blocks and, for the good blocks, the
// values a read returns by the format's definition.
func hostileNode[T encoding.Integer](r *rand.Rand, n, bs int, badBlocks bool) ([]byte, []hostileBlock, []T) {
	lo, hi := limits[T]()
	body := binary.AppendUvarint(nil, uint64(bs))
	var blocks []hostileBlock
	vals := make([]T, n)
	var prev uint64
	for b := 0; b*bs < n; b++ {
		rows := min(bs, n-b*bs)
		var hb hostileBlock
		switch r.IntN(4) {
		case 0:
			hb.min = wideOf(T(r.Uint64()))
		case 1:
			hb.min = wideOf(hi - T(r.IntN(50)))
		case 2:
			hb.min = wideOf(lo + T(r.IntN(50)))
		default:
			hb.min = wideOf(T(r.IntN(100)))
		}
		dist := wideOf(hi) - hb.min // the largest spread from this minimum
		switch r.IntN(4) {
		case 0:
			hb.spread = min(dist, uint64(r.IntN(4)))
		case 1:
			hb.spread = min(dist, uint64(r.IntN(1000)))
		case 2:
			hb.spread = dist
		default:
			if dist == ^uint64(0) {
				hb.spread = r.Uint64()
			} else {
				hb.spread = r.Uint64N(dist + 1)
			}
		}
		switch r.IntN(3) {
		case 0:
			hb.baseOff = hb.spread
		case 1:
			hb.baseOff = 0
		default:
			if hb.spread == ^uint64(0) {
				hb.baseOff = r.Uint64()
			} else {
				hb.baseOff = r.Uint64N(hb.spread + 1)
			}
		}
		ew := bits.Len64(hb.spread)
		hb.w = r.IntN(ew + 1)
		pw := bits.Len(uint(rows - 1))
		nexc := 0
		switch r.IntN(3) {
		case 0:
		case 1:
			nexc = min(rows, 1+r.IntN(5))
		default:
			nexc = r.IntN(rows + 1)
		}
		perm := r.Perm(rows)[:nexc]
		for _, p := range perm {
			hb.pos = append(hb.pos, uint64(p))
		}
		slices.Sort(hb.pos)
		if badBlocks && nexc > 0 && r.IntN(3) == 0 {
			j := r.IntN(nexc)
			hb.pos[j] = r.Uint64N(uint64(1) << pw) // may repeat, decrease or pass rows
			if nexc > 1 && r.IntN(2) == 0 {
				j = 1 + r.IntN(nexc-1)
				hb.pos[j] = hb.pos[j-1]
			}
		}
		for j, p := range hb.pos {
			if p >= uint64(rows) || (j > 0 && p <= hb.pos[j-1]) {
				hb.bad = true
			}
		}
		for range rows {
			hb.slots = append(hb.slots, r.Uint64()&lowBits(hb.w))
		}
		for range nexc {
			hb.exc = append(hb.exc, r.Uint64()&lowBits(ew))
		}
		if !hb.bad {
			base := hb.min + hb.baseOff
			for i, s := range hb.slots {
				vals[b*bs+i] = T(base + s)
			}
			for j, p := range hb.pos {
				vals[b*bs+int(p)] = T(hb.min + hb.exc[j])
			}
		}
		if b == 0 {
			var z T
			if ^z < 0 {
				body = binary.AppendVarint(body, int64(hb.min))
			} else {
				body = binary.AppendUvarint(body, hb.min)
			}
		} else {
			body = binary.AppendVarint(body, int64(hb.min-prev))
		}
		prev = hb.min
		body = binary.AppendUvarint(body, hb.spread)
		body = binary.AppendUvarint(body, hb.baseOff)
		body = append(body, byte(hb.w))
		body = binary.AppendUvarint(body, uint64(nexc))
		blocks = append(blocks, hb)
	}
	for _, hb := range blocks {
		body = bitpack.Pack(body, hb.slots, hb.w)
		body = bitpack.Pack(body, hb.pos, bits.Len(uint(len(hb.slots)-1)))
		body = bitpack.Pack(body, hb.exc, bits.Len64(hb.spread))
	}
	node := encoding.AppendHeader(nil, encoding.KindBlockFOR, encoding.TypeFor[T](), n)
	return append(node, body...), blocks, vals
}

func lowBits(w int) uint64 {
	if w == 0 {
		return 0
	}
	return ^uint64(0) >> (64 - w)
}

// TestSumRangesHostile sums ranges of hand-written bodies whose contents
// a writer would not produce but open accepts (nonzero slots under
// exceptions, exceptions past the block's maximum, windows that wrap T)
// against the values the format defines, which reads return too; and,
// with corrupt exception positions, checks that a sum touching such a
// block is refused as corrupt, however the decoder reached it, and that
// one not touching it is exact.
func TestSumRangesHostile(t *testing.T) {
	t.Run("int8", func(t *testing.T) { testSumHostile[int8](t) })
	t.Run("int16", func(t *testing.T) { testSumHostile[int16](t) })
	t.Run("int32", func(t *testing.T) { testSumHostile[int32](t) })
	t.Run("int64", func(t *testing.T) { testSumHostile[int64](t) })
	t.Run("uint8", func(t *testing.T) { testSumHostile[uint8](t) })
	t.Run("uint16", func(t *testing.T) { testSumHostile[uint16](t) })
	t.Run("uint32", func(t *testing.T) { testSumHostile[uint32](t) })
	t.Run("uint64", func(t *testing.T) { testSumHostile[uint64](t) })
}

func testSumHostile[T encoding.Integer](t *testing.T) {
	r := rand.New(rand.NewPCG(7, uint64(encoding.TypeFor[T]())))
	refused := 0
	for iter := range 300 {
		bs := []int{1, 3, 64, 100, 1024}[r.IntN(5)]
		n := 1 + r.IntN(4*bs+50)
		bad := iter%2 == 1
		node, blocks, vals := hostileNode[T](r, n, bs, bad)
		what := fmt.Sprintf("iter %d, bs %d, %d rows", iter, bs, n)
		open := func() encoding.Reader[T] {
			d, err := encoding.OpenTyped[T](node, 0, all.Options())
			if err != nil {
				t.Fatalf("%s: open: %v", what, err)
			}
			return d
		}
		// reads agree with the format's definition, and refuse bad blocks
		got := make([]T, n)
		for b, hb := range blocks {
			d := open()
			a, e := b*bs, b*bs+len(hb.slots)
			if err := d.Skip(a); err != nil {
				t.Fatal(err)
			}
			err := d.Read(got[a:e])
			if hb.bad != (err != nil) {
				t.Fatalf("%s: block %d bad %v, read: %v", what, b, hb.bad, err)
			}
			if err == nil && !slices.Equal(got[a:e], vals[a:e]) {
				t.Fatalf("%s: block %d read other values", what, b)
			}
		}
		warm := open().(encoding.RangeSummer)
		mixed := open()
		for range 40 {
			from, ends := randomRanges(r, n, bs)
			touchesBad := false
			if len(ends) > 0 && int(ends[len(ends)-1]) > from {
				for b := from / bs; b*bs < int(ends[len(ends)-1]); b++ {
					touchesBad = touchesBad || blocks[b].bad
				}
			}
			if !touchesBad {
				checkSums(t, open().(encoding.RangeSummer), vals, from, ends, what+"/cold")
				checkSums(t, warm, vals, from, ends, what+"/warm")
			} else {
				out := make([]uint64, len(ends))
				for _, s := range []encoding.RangeSummer{open().(encoding.RangeSummer), warm, mixed.(encoding.RangeSummer)} {
					if err := s.SumRanges(from, ends, out); !errors.Is(err, encoding.ErrCorrupt) {
						t.Fatalf("%s: SumRanges(%d, %v) over a block with bad exceptions: %v", what, from, ends, err)
					}
				}
				refused++
				continue
			}
			// a part of a good block read (tables built by reads), then the sums
			a := r.IntN(n)
			if !blocks[a/bs].bad {
				readPart(t, mixed, vals, got, a, min((a/bs+1)*bs, n, a+1+r.IntN(bs)), what)
			}
			checkSums(t, mixed.(encoding.RangeSummer), vals, from, ends, what+"/mixed")
		}
	}
	if refused < 50 {
		t.Fatalf("only %d sums touched bad blocks", refused)
	}
}
