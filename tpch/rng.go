package tpch

import "math/bits"

// rng is a SplitMix64 stream. It is tiny, fast, passes BigCrush and, most
// importantly here, can be seeded cheaply per order, which makes every order
// a pure function of (seed, order index): output does not depend on the batch
// size and any order can be generated without generating the ones before it.
type rng struct{ s uint64 }

const golden = 0x9e3779b97f4a7c15

func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// orderRNG returns the stream for order index i (1-based) under seed.
func orderRNG(seed uint64, i int64) rng {
	return rng{s: mix64(seed^0x5452_4154_415f_4c49) ^ mix64(uint64(i)*golden+0x243f6a8885a308d3)}
}

func (r *rng) next() uint64 {
	r.s += golden
	return mix64(r.s)
}

// intn returns a uniform value in [0, n) using Lemire's multiply-high
// reduction (the bias, at most n/2^64, is irrelevant for n < 2^20).
func (r *rng) intn(n uint64) uint64 {
	hi, _ := bits.Mul64(r.next(), n)
	return hi
}

// between returns a uniform value in [lo, hi].
func (r *rng) between(lo, hi int64) int64 {
	return lo + int64(r.intn(uint64(hi-lo+1)))
}
