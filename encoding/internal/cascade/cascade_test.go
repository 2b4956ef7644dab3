package cascade

import (
	"math/rand/v2"
	"slices"
	"testing"

	"strata/encoding"
)

func TestClearRange(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 5000; trial++ {
		n := 1 + r.IntN(300)
		a := encoding.NewBitmap(n, false)
		for i := range a {
			a[i] = r.Uint64()
		}
		b := slices.Clone(a)
		lo := r.IntN(n + 1)
		hi := lo + r.IntN(n-lo+1)
		a.ClearRange(lo, hi)
		ClearRange(b, lo, hi)
		if !slices.Equal(a, b) {
			t.Fatalf("ClearRange(%d, %d) of %d rows differs", lo, hi, n)
		}
	}
}

func TestFill(t *testing.T) {
	for n := 0; n < 200; n++ {
		d := make([]int16, n)
		Fill(d, 7)
		for i, v := range d {
			if v != 7 {
				t.Fatalf("n=%d: d[%d] = %d", n, i, v)
			}
		}
	}
}

func TestPositions(t *testing.T) {
	if err := CheckPositions([]uint32{0, 3, 9}, 10, "p"); err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]uint32{{3, 3}, {4, 2}, {10}} {
		if err := CheckPositions(bad, 10, "p"); err == nil {
			t.Fatalf("%v accepted", bad)
		}
	}
}

// lengths is a Reader[uint32] over a slice, for ReadOffsets.
type lengths struct {
	v   []uint32
	pos int
}

func (l *lengths) Kind() encoding.Kind   { return encoding.KindTrivial }
func (l *lengths) Type() encoding.Type   { return encoding.Uint32 }
func (l *lengths) Len() int              { return len(l.v) }
func (l *lengths) Pos() int              { return l.pos }
func (l *lengths) Reset()                { l.pos = 0 }
func (l *lengths) Skip(n int) error      { l.pos += n; return nil }
func (l *lengths) Read(d []uint32) error { l.pos += copy(d, l.v[l.pos:]); return nil }

// TestReadOffsetsRecycled checks that offsets read into a recycled buffer
// (Options.Alloc, whose bytes are what an earlier decoder left) come out
// as the running sums of the lengths, the first one 0, and that a total
// beyond the limit is refused either way.
func TestReadOffsetsRecycled(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 200; trial++ {
		n := r.IntN(300)
		v := make([]uint32, n)
		want := make([]int32, n+1)
		for i := range v {
			v[i] = uint32(r.IntN(40))
			want[i+1] = want[i] + int32(v[i])
		}
		var handed []byte
		dirty := &encoding.Options{Alloc: func(k int) []byte {
			handed = make([]byte, k+r.IntN(64))
			for i := range handed {
				handed[i] = 0xa5
			}
			return handed[:k]
		}}
		for _, opts := range []*encoding.Options{nil, dirty} {
			got, err := ReadOffsets(&lengths{v: v}, n, int(want[n]), opts, "lengths")
			if err != nil {
				t.Fatalf("n=%d: %v", n, err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("n=%d, recycled=%v: offsets %v, want %v", n, opts != nil, got, want)
			}
			if n > 0 && want[n] > 0 {
				if _, err := ReadOffsets(&lengths{v: v}, n, int(want[n])-1, opts, "lengths"); err == nil {
					t.Fatalf("n=%d: a total of %d passed a limit of %d", n, want[n], want[n]-1)
				}
			}
		}
		if n > 0 && len(handed) == 0 {
			t.Fatalf("n=%d: Alloc was not used", n)
		}
	}
}
