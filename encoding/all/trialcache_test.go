package all_test

import (
	"bytes"
	"fmt"
	"math"
	"testing"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/encodingtest"
)

// periodic returns hourly-like readings: a daily cycle plus a slow drift,
// the data LagDelta exists for (its encoder reads Ctx.Whole, whose trials
// the cache must not keep).
func periodic(n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(1000*math.Sin(float64(i%24)/24*2*math.Pi)) + int64(i/500)
	}
	return out
}

// TestTrialCacheSameBytes checks that selection through a TrialCache
// writes the bytes and trees it writes without one: on a first selection
// (the cache empty), on a second one of the same values (the trials
// found in the cache), and after a size estimate of the values (as the
// writer estimates a stream before selecting it), in every Optimize mode.
func TestTrialCacheSameBytes(t *testing.T) {
	type input struct {
		name string
		vals any
	}
	var inputs []input
	for _, typ := range []encoding.Type{encoding.Int64, encoding.Int32, encoding.Float64, encoding.Binary} {
		for _, shape := range encodingtest.ShapesFor(typ) {
			for _, n := range []int{1000, 9000} {
				inputs = append(inputs, input{fmt.Sprintf("%v/%s/%d", typ, shape, n), encodingtest.Values(typ, shape, n, 7)})
			}
		}
	}
	inputs = append(inputs, input{"periodic", periodic(20000)})
	for _, o := range []encoding.Optimize{encoding.OptimizeBalanced, encoding.OptimizeSize, encoding.OptimizeSpeed} {
		plain := all.Policy()
		plain.Optimize = o
		cached := *plain
		cached.Trials = encoding.NewTrialCache()
		for _, in := range inputs {
			want, wantTree, err := plain.Encode(nil, in.vals)
			if err != nil {
				t.Fatalf("%v %s: %v", o, in.name, err)
			}
			for round, estimate := range []bool{false, false, true} {
				if estimate {
					cached.Trials.Reset()
					if _, err := cached.EstimateSize(in.vals); err != nil {
						t.Fatalf("%v %s: estimate: %v", o, in.name, err)
					}
				}
				got, tree, err := cached.Encode(nil, in.vals)
				if err != nil {
					t.Fatalf("%v %s round %d: %v", o, in.name, round, err)
				}
				if !bytes.Equal(got, want) || tree.String() != wantTree.String() {
					t.Fatalf("%v %s round %d: %d bytes %v through the cache, %d bytes %v without", o, in.name, round,
						len(got), tree, len(want), wantTree)
				}
			}
		}
		if cached.Trials.Len() == 0 {
			t.Errorf("%v: no trial was cached", o)
		}
	}
}
