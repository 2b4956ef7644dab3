package all_test

import (
	"bytes"
	"fmt"
	"math"
	"sync"
	"testing"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/trivial"
)

// memoProbe is the Trivial encoder with a search remembered through
// Ctx.Memo: the sum of its values, counted each time it is computed.
type memoProbe struct {
	encoding.Encoder
	calls *int
	bad   *[]string
}

func (m memoProbe) Encode(dst []byte, vals any, st *encoding.Stats, ctx *encoding.Ctx) ([]byte, error) {
	v := vals.([]int64)
	sum := func() int64 {
		s := int64(0)
		for _, x := range v {
			s += x
		}
		return s
	}
	got := ctx.Memo("probe", encoding.BytesOf(v), func() any { *m.calls++; return sum() }).(int64)
	if want := sum(); got != want {
		*m.bad = append(*m.bad, fmt.Sprintf("Memo returned %d for values summing to %d", got, want))
	}
	return m.Encoder.Encode(dst, vals, st, ctx)
}

// TestMemo checks that Ctx.Memo computes once per distinct input while a
// cache holds it, again for other bytes of the same length and after a
// Reset, and every time without a cache.
func TestMemo(t *testing.T) {
	calls := 0
	var bad []string
	cd := *trivial.Codec
	cd.Encoder = memoProbe{Encoder: trivial.Codec.Encoder, calls: &calls, bad: &bad}
	p := encoding.DefaultPolicy(encoding.NewRegistry(&cd))
	p.Zstd = false
	p.ZstdCache = encoding.NewZstdCache()
	a := []int64{1, 2, 3, 4, 5}
	b := []int64{1, 2, 3, 4, 6}
	for i, c := range []struct {
		vals  []int64
		calls int
		reset bool
	}{
		{a, 1, false}, {a, 1, false}, {b, 2, false}, {a, 2, false}, {b, 2, false},
		{append([]int64(nil), a...), 2, false}, // same bytes elsewhere in memory
		{a, 3, true},
	} {
		if c.reset {
			p.ZstdCache.Reset()
		}
		if _, _, err := p.Encode(nil, c.vals); err != nil {
			t.Fatal(err)
		}
		if calls != c.calls {
			t.Errorf("step %d: %d computations, want %d", i, calls, c.calls)
		}
	}
	p.ZstdCache = nil
	for i := 0; i < 2; i++ {
		if _, _, err := p.Encode(nil, a); err != nil {
			t.Fatal(err)
		}
	}
	if calls != 5 {
		t.Errorf("without a cache: %d computations, want 5", calls)
	}
	for _, s := range bad {
		t.Error(s)
	}
}

// memoInputs are sequences whose selection runs the remembered searches
// (LagDelta's lag, ALP's exponents), several times each.
func memoInputs() []any {
	periodic := make([]int64, 5000)
	temps := make([]float64, 4800)
	for i := range periodic {
		periodic[i] = int64((i%24)*(i%24)) + int64(i/24)
	}
	for i := range temps {
		temps[i] = math.Round((15+10*math.Sin(float64(i)/7)+float64(i%5))*10) / 10
	}
	coords := make([]float64, 3000)
	for i := range coords {
		coords[i] = float64(i%60)*0.25 - 7.5
	}
	return []any{periodic, temps, coords, periodic[:1000]}
}

// TestMemoSameBytes checks that remembered searches do not change what
// selection writes: every input encodes to the same bytes without a
// cache, with a fresh one, and with one that has seen it (and the other
// inputs) before.
func TestMemoSameBytes(t *testing.T) {
	ins := memoInputs()
	plain := all.Policy()
	warm := all.Policy()
	warm.ZstdCache = encoding.NewZstdCache()
	for round := 0; round < 2; round++ {
		for i, vals := range ins {
			want, _, err := plain.Encode(nil, vals)
			if err != nil {
				t.Fatal(err)
			}
			fresh := all.Policy()
			fresh.ZstdCache = encoding.NewZstdCache()
			for name, p := range map[string]*encoding.Policy{"fresh cache": fresh, "warm cache": warm} {
				got, _, err := p.Encode(nil, vals)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("round %d, input %d, %s: %d bytes differ from the %d without a cache", round, i, name, len(got), len(want))
				}
			}
		}
	}
}

// TestMemoConcurrent encodes the inputs from several goroutines through
// one cache, as a file's streams are encoded in parallel (run with -race),
// and checks every result against the encode without a cache.
func TestMemoConcurrent(t *testing.T) {
	ins := memoInputs()
	want := make([][]byte, len(ins))
	for i, vals := range ins {
		var err error
		if want[i], _, err = all.Policy().Encode(nil, vals); err != nil {
			t.Fatal(err)
		}
	}
	p := all.Policy()
	p.ZstdCache = encoding.NewZstdCache()
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := 0; r < 3; r++ {
				i := (g + r) % len(ins)
				got, _, err := p.Encode(nil, ins[i])
				if err != nil {
					errs <- err.Error()
					return
				}
				if !bytes.Equal(got, want[i]) {
					errs <- fmt.Sprintf("goroutine %d: input %d encoded differently", g, i)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
