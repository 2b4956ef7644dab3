package nullable_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/encodingtest"
	"strata/encoding/nullable"
)

// validity patterns every type is tested with.
var patterns = []string{"none-null", "all-null", "alternating", "random", "sparse-nulls"}

func validity(pattern string, n int, seed uint64) []bool {
	r := rand.New(rand.NewPCG(seed, 11))
	v := make([]bool, n)
	for i := range v {
		switch pattern {
		case "none-null":
			v[i] = true
		case "all-null":
			v[i] = false
		case "alternating":
			v[i] = i%2 == 0
		case "random":
			v[i] = r.IntN(3) != 0
		case "sparse-nulls":
			v[i] = r.IntN(50) != 0
		}
	}
	return v
}

func count(v []bool) int {
	c := 0
	for _, b := range v {
		if b {
			c++
		}
	}
	return c
}

// forces replays a few validity/value child layouts besides free selection.
var forces = []*encoding.Tree{
	{Kind: encoding.KindNullable},
	{Kind: encoding.KindNullable, Children: []*encoding.Tree{{Kind: encoding.KindTrivial}, {Kind: encoding.KindTrivial}}},
	{Kind: encoding.KindNullable, Children: []*encoding.Tree{{Kind: encoding.KindRLE}, {Kind: encoding.KindDictionary}}},
	{Kind: encoding.KindNullable, Children: []*encoding.Tree{{Kind: encoding.KindSparseBool}}},
}

func roundTrips[T encoding.Fixed](t *testing.T) {
	opts := all.Options()
	for fi, force := range forces {
		p := all.Policy()
		p.Force = force
		for _, pat := range patterns {
			for _, n := range []int{0, 1, 7, 64, 1025, 70000} {
				if testing.Short() && n > 2000 {
					continue
				}
				for _, shape := range []encodingtest.Shape{encodingtest.ShapeLowCard, encodingtest.ShapeRandom, encodingtest.ShapeExtremes} {
					t.Run(fmt.Sprintf("%d/%s/%d/%s", fi, pat, n, shape), func(t *testing.T) {
						valid := validity(pat, n, uint64(n))
						vals := encodingtest.Gen[T](shape, count(valid), uint64(n)+1)
						checkFixed(t, p, opts, vals, valid)
					})
				}
			}
		}
	}
}

func checkFixed[T encoding.Fixed](t *testing.T, p *encoding.Policy, opts *encoding.Options, vals []T, valid []bool) {
	node, tree, err := nullable.Encode(p, nil, vals, valid)
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	if got, err := encoding.Capture(node, opts); err != nil || got.String() != tree.String() {
		t.Fatalf("Capture = %v, %v; Encode tree %v", got, err, tree)
	}
	r, err := encoding.OpenTyped[T](node, 0, opts)
	if err != nil {
		t.Fatalf("Open %v: %v", tree, err)
	}
	n := len(valid)
	want := make([]T, n) // nulls read as zero values
	j := 0
	for i, v := range valid {
		if v {
			want[i] = vals[j]
			j++
		}
	}
	encodingtest.CheckReader(t, r, want, uint64(n))

	// ReadNullable in random steps.
	rng := rand.New(rand.NewPCG(uint64(n), 3))
	r.Reset()
	for pos := 0; pos < n; {
		k := 1 + rng.IntN(min(n-pos, 3000))
		got, gv := make([]T, k), make([]bool, k)
		if err := encoding.ReadNullable(r, got, gv); err != nil {
			t.Fatalf("ReadNullable: %v", err)
		}
		for i := range got {
			if gv[i] != valid[pos+i] || !encodingtest.Same(got[i], want[pos+i]) {
				t.Fatalf("row %d = %v/%v, want %v/%v", pos+i, got[i], gv[i], want[pos+i], valid[pos+i])
			}
		}
		pos += k
	}

	// Gather.
	if g, ok := r.(encoding.Gatherer[T]); !ok {
		t.Fatalf("no Gatherer")
	} else if n > 0 {
		var rows []int32
		for i := rng.IntN(5); i < n; i += 1 + rng.IntN(40) {
			rows = append(rows, int32(i))
		}
		got := make([]T, len(rows))
		if err := g.Gather(rows, got); err != nil {
			t.Fatalf("Gather: %v", err)
		}
		for i, row := range rows {
			if !encodingtest.Same(got[i], want[row]) {
				t.Fatalf("Gather row %d = %v, want %v", row, got[i], want[row])
			}
		}
	}
	checkNum(t, r, want, valid, rng)
}

func checkNum[T encoding.Fixed](t *testing.T, r encoding.Reader[T], want []T, valid []bool, rng *rand.Rand) {
	switch w := any(want).(type) {
	case []int8:
		numCaps(t, r, w, valid, rng)
	case []int32:
		numCaps(t, r, w, valid, rng)
	case []uint64:
		numCaps(t, r, w, valid, rng)
	case []float64:
		numCaps(t, r, w, valid, rng)
	}
}

func numCaps[T encoding.Number](t *testing.T, r any, want []T, valid []bool, rng *rand.Rand) {
	n := len(want)
	if b, ok := r.(encoding.Bounder[T]); ok {
		if mn, mx, ok := b.Bounds(); ok {
			for i, v := range want {
				if valid[i] && v == v && (v < mn || v > mx) {
					t.Fatalf("row %d = %v outside bounds [%v, %v]", i, v, mn, mx)
				}
			}
		}
	}
	f, ok := r.(encoding.Filterer[T])
	if !ok {
		t.Fatalf("no Filterer")
	}
	if n == 0 {
		return
	}
	dec := r.(encoding.Reader[T])
	for trial := 0; trial < 10; trial++ {
		p := &encoding.Pred[T]{Op: encoding.Op(1 + rng.IntN(int(encoding.OpIn)))}
		p.A, p.B = want[rng.IntN(n)], want[rng.IntN(n)]
		if p.B < p.A {
			p.A, p.B = p.B, p.A
		}
		if p.Op == encoding.OpIn {
			p.Set = []T{p.A}
			if p.B > p.A {
				p.Set = append(p.Set, p.B)
			}
		}
		start := rng.IntN(n)
		k := 1 + rng.IntN(n-start)
		sel := encoding.NewBitmap(k, true)
		if trial%2 == 1 {
			for i := 0; i < k; i++ {
				if rng.IntN(3) == 0 {
					sel.Clear(i)
				}
			}
		}
		in := slices.Clone(sel)
		dec.Reset()
		if err := dec.Skip(start); err != nil {
			t.Fatal(err)
		}
		if err := f.Filter(p, k, sel); err != nil {
			t.Fatalf("Filter: %v", err)
		}
		if dec.Pos() != start+k {
			t.Fatalf("Pos after Filter = %d, want %d", dec.Pos(), start+k)
		}
		for i := 0; i < k; i++ {
			exp := in.Get(i) && valid[start+i] && p.Match(want[start+i])
			if sel.Get(i) != exp {
				t.Fatalf("Filter %v %v at row %d (%v, valid %v): got %v", p.Op, p.A, start+i, want[start+i], valid[start+i], sel.Get(i))
			}
		}
	}
}

func TestRoundTrip(t *testing.T) {
	t.Run("bool", roundTrips[bool])
	t.Run("int8", roundTrips[int8])
	t.Run("int32", roundTrips[int32])
	t.Run("uint64", roundTrips[uint64])
	t.Run("float64", roundTrips[float64])
}

func TestRoundTripBinary(t *testing.T) {
	opts := all.Options()
	for fi, force := range forces {
		p := all.Policy()
		p.Force = force
		for _, pat := range patterns {
			for _, n := range []int{0, 1, 7, 64, 1025, 70000} {
				if testing.Short() && n > 2000 {
					continue
				}
				t.Run(fmt.Sprintf("%d/%s/%d", fi, pat, n), func(t *testing.T) {
					valid := validity(pat, n, uint64(n))
					vals := encodingtest.GenBytes(encodingtest.ShapeLowCard, count(valid), uint64(n))
					checkBinary(t, p, opts, vals, valid)
				})
			}
		}
	}
}

func checkBinary(t *testing.T, p *encoding.Policy, opts *encoding.Options, vals encoding.Bytes, valid []bool) {
	node, tree, err := nullable.Encode(p, nil, vals, valid)
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	r, err := encoding.OpenBinary(node, 0, opts)
	if err != nil {
		t.Fatalf("Open %v: %v", tree, err)
	}
	n := len(valid)
	var want encoding.Bytes
	j := 0
	for _, v := range valid {
		if v {
			want.Append(vals.Value(j))
			j++
		} else {
			want.Append(nil)
		}
	}
	rng := rand.New(rand.NewPCG(uint64(n), 5))
	for pass := 0; pass < 2; pass++ {
		r.Reset()
		var got encoding.Bytes
		got.Append([]byte("sentinel")) // appending after existing values
		gv := make([]bool, n)
		for pos := 0; pos < n; {
			k := 1 + rng.IntN(min(n-pos, 2000))
			if pass == 0 {
				if err := r.ReadBinary(&got, k); err != nil {
					t.Fatalf("ReadBinary: %v", err)
				}
			} else if err := encoding.ReadBinaryNullable(r, &got, gv[pos:], k); err != nil {
				t.Fatalf("ReadBinaryNullable: %v", err)
			}
			pos += k
		}
		if got.Len() != n+1 {
			t.Fatalf("read %d values, want %d", got.Len()-1, n)
		}
		for i := 0; i < n; i++ {
			if !bytes.Equal(got.Value(i+1), want.Value(i)) || (pass == 1 && gv[i] != valid[i]) {
				t.Fatalf("row %d = %q, want %q", i, got.Value(i+1), want.Value(i))
			}
		}
	}
	if n == 0 {
		return
	}
	var rows []int32
	for i := rng.IntN(3); i < n; i += 1 + rng.IntN(30) {
		rows = append(rows, int32(i))
	}
	var got encoding.Bytes
	if err := r.(encoding.BinaryGatherer).GatherBinary(rows, &got); err != nil {
		t.Fatalf("GatherBinary: %v", err)
	}
	for i, row := range rows {
		if !bytes.Equal(got.Value(i), want.Value(int(row))) {
			t.Fatalf("Gather row %d = %q, want %q", row, got.Value(i), want.Value(int(row)))
		}
	}
	f := r.(encoding.BinaryFilterer)
	for trial := 0; trial < 8; trial++ {
		bp := &encoding.BytesPred{Op: encoding.Op(1 + rng.IntN(int(encoding.OpPrefix)))}
		bp.A, bp.B = want.Value(rng.IntN(n)), want.Value(rng.IntN(n))
		if bytes.Compare(bp.B, bp.A) < 0 {
			bp.A, bp.B = bp.B, bp.A
		}
		bp.Set = [][]byte{bp.A}
		start := rng.IntN(n)
		k := 1 + rng.IntN(n-start)
		sel := encoding.NewBitmap(k, true)
		r.Reset()
		if err := r.Skip(start); err != nil {
			t.Fatal(err)
		}
		if err := f.FilterBinary(bp, k, sel); err != nil {
			t.Fatalf("FilterBinary: %v", err)
		}
		for i := 0; i < k; i++ {
			exp := valid[start+i] && bp.Match(want.Value(start+i))
			if sel.Get(i) != exp {
				t.Fatalf("FilterBinary %v %q row %d: got %v", bp.Op, bp.A, start+i, sel.Get(i))
			}
		}
	}
}

func TestEncodeErrors(t *testing.T) {
	p := all.Policy()
	if _, _, err := nullable.Encode(p, nil, []int32{1, 2}, []bool{true, false}); err == nil {
		t.Fatal("count mismatch accepted")
	}
	if _, _, err := nullable.Encode(p, nil, []string{"x"}, []bool{true}); err == nil {
		t.Fatal("bad type accepted")
	}
}
