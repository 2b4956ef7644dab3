package strata_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata"
)

// review58Colliding returns two sequences of n 64-bit values (n >= 32)
// that differ in two values and have the same unseeded 128-bit xxh3: the
// first value of the first two 64-byte stripes agrees with the default
// secret in its low 32 bits, so the lane's multiply contributes nothing,
// and a difference of 2^32 added to one and taken from the other cancels
// in the accumulator they share.
func review58Colliding(n int, at func(i int) uint64) (a, b []uint64) {
	a = make([]uint64, n)
	for i := range a {
		a[i] = at(i)
	}
	a[0] = a[0]&^0xffffffff | 0x396cfeb8 // low half of xxh3's secret word at 0
	a[8] = a[8]&^0xffffffff | 0x2c81017c // and at 8
	b = append([]uint64(nil), a...)
	b[0] += 1 << 32
	b[8] -= 1 << 32
	return a, b
}

// TestReview58CollidingColumnsKeepTheirValues writes two columns whose
// values differ in two rows but hash alike under unseeded xxh3, as int64
// and as 8-byte strings. The writer's trial cache and statistics cache
// were keyed by that hash alone: the second column was stored with the
// first one's values (a leaf that won a whole-sequence selection reused
// the cached trial node of the other column), or packed with the other
// column's bounds, silently truncating its values.
func TestReview58CollidingColumnsKeepTheirValues(t *testing.T) {
	for _, n := range []int{40, 100, 1000, 3000} {
		for _, opt := range []struct {
			name string
			o    strata.WriteOptions
		}{{"default", strata.WriteOptions{}}, {"nozstd", strata.WriteOptions{NoZstd: true}}, {"size", strata.WriteOptions{Optimize: 1}}} {
			t.Run(fmt.Sprintf("%d/%s", n, opt.name), func(t *testing.T) {
				a, b := review58Colliding(n, func(i int) uint64 { return uint64(i % 50) })
				sa, sb := review58Colliding(n, func(i int) uint64 { return 0x3030303030303030 + uint64(i%7) })
				sch := arrow.NewSchema([]arrow.Field{
					{Name: "a", Type: arrow.PrimitiveTypes.Int64},
					{Name: "b", Type: arrow.PrimitiveTypes.Int64},
					{Name: "sa", Type: arrow.BinaryTypes.Binary},
					{Name: "sb", Type: arrow.BinaryTypes.Binary},
				}, nil)
				bld := array.NewRecordBuilder(memory.DefaultAllocator, sch)
				defer bld.Release()
				for i := 0; i < n; i++ {
					bld.Field(0).(*array.Int64Builder).Append(int64(a[i]))
					bld.Field(1).(*array.Int64Builder).Append(int64(b[i]))
					bld.Field(2).(*array.BinaryBuilder).Append(binary.LittleEndian.AppendUint64(nil, sa[i]))
					bld.Field(3).(*array.BinaryBuilder).Append(binary.LittleEndian.AppendUint64(nil, sb[i]))
				}
				rec := bld.NewRecordBatch()
				defer rec.Release()
				o := opt.o
				o.Parallel = 1
				f := openWritten(t, o, rec)
				defer f.Close()
				got, err := f.Take([]int64{0, 8}, []string{"a", "b", "sa", "sb"})
				if err != nil {
					t.Fatal(err)
				}
				defer got.Release()
				for _, c := range []struct {
					col  int
					want []uint64
				}{{0, a}, {1, b}} {
					g := got.Column(c.col).(*array.Int64)
					if uint64(g.Value(0)) != c.want[0] || uint64(g.Value(1)) != c.want[8] {
						t.Errorf("%s: rows 0 and 8 read %d %d, want %d %d", sch.Field(c.col).Name,
							g.Value(0), g.Value(1), int64(c.want[0]), int64(c.want[8]))
					}
				}
				for _, c := range []struct {
					col  int
					want []uint64
				}{{2, sa}, {3, sb}} {
					g := got.Column(c.col).(*array.Binary)
					for k, row := range []int{0, 8} {
						if w := binary.LittleEndian.AppendUint64(nil, c.want[row]); !bytes.Equal(g.Value(k), w) {
							t.Errorf("%s: row %d reads %x, want %x", sch.Field(c.col).Name, row, g.Value(k), w)
						}
					}
				}
			})
		}
	}
}
