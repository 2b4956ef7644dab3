package node

import (
	"fmt"
	"math"
)

// ALP (kind 13, FORMAT.md "Float encodings"): floats that were decimals,
// stored as integer digits with a per-vector exponent and factor, plus
// exceptions stored whole.

const kindALP = 13

func init() { register(kindALP, decodeALP) }

// alpVector is one vector's decode parameters: value = (d × 10^f) / 10^e,
// and for a narrow vector (float64 nodes only) the float32 of that printed
// back to k decimals.
type alpVector struct {
	e, f, k int
	narrow  bool
}

// decode maps a digit to the value's bits in type t.
func (p alpVector) decode(d int64, t Type) uint64 {
	x := float64(d) * ftPow10[p.f] / ftPow10[p.e]
	if t == Float32 {
		return uint64(math.Float32bits(float32(x)))
	}
	if p.narrow {
		y := float64(float32(x))
		x = math.RoundToEven(y*ftPow10[p.k]) / ftPow10[p.k]
	}
	return math.Float64bits(x)
}

// decodeALP decodes `vs | bounds | (e, f[, k]) per vector | digits |
// E [| positions | values]`.
func decodeALP(h Header, r Resolver) (Values, error) {
	if err := ftFloatType(h.Type); err != nil {
		return Values{}, err
	}
	n := h.Rows
	vs, rest, err := Count(h.Body, 65536, "alp vs")
	if err != nil {
		return Values{}, err
	}
	if vs < 1 {
		return Values{}, fmt.Errorf("alp vs 0: %w", ErrCorrupt)
	}
	_, rest, err = ftParseBounds(rest, h.Type)
	if err != nil {
		return Values{}, fmt.Errorf("alp: %w", err)
	}
	nv := (n + vs - 1) / vs
	if 2*nv > len(rest) {
		return Values{}, fmt.Errorf("alp: %d vectors need at least %d bytes, %d left: %w", nv, 2*nv, len(rest), ErrCorrupt)
	}
	maxE := 18
	if h.Type == Float32 {
		maxE = 10
	}
	vecs := make([]alpVector, nv)
	for j := range vecs {
		if len(rest) < 2 {
			return Values{}, fmt.Errorf("alp vector %d: body ends: %w", j, ErrCorrupt)
		}
		eb, f := rest[0], int(rest[1])
		rest = rest[2:]
		p := alpVector{e: int(eb), f: f}
		if eb&0x80 != 0 {
			if h.Type != Float64 {
				return Values{}, fmt.Errorf("alp vector %d: narrow in a float32 node: %w", j, ErrCorrupt)
			}
			if len(rest) < 1 {
				return Values{}, fmt.Errorf("alp vector %d: body ends before k: %w", j, ErrCorrupt)
			}
			p = alpVector{e: int(eb & 0x7f), f: f, k: int(rest[0]), narrow: true}
			rest = rest[1:]
			if p.e > 10 || p.k > 18 {
				return Values{}, fmt.Errorf("alp narrow vector %d: e %d, k %d: %w", j, p.e, p.k, ErrCorrupt)
			}
		}
		if p.e > maxE || p.f > p.e {
			return Values{}, fmt.Errorf("alp vector %d: e %d, f %d: %w", j, p.e, p.f, ErrCorrupt)
		}
		vecs[j] = p
	}
	digitType := Int64
	if h.Type == Float32 {
		digitType = Int32
	}
	digits, rest, err := ftChild(rest, digitType, n, r, "alp digits")
	if err != nil {
		return Values{}, err
	}
	ne, rest, err := Count(rest, n, "alp exceptions")
	if err != nil {
		return Values{}, err
	}
	v := Make(h.Type, n)
	for i, d := range digits.Int {
		v.SetBits(i, vecs[i/vs].decode(d, h.Type))
	}
	if ne > 0 {
		pos, rest2, err := ftChild(rest, Uint32, ne, r, "alp positions")
		if err != nil {
			return Values{}, err
		}
		if err := ftCheckPositions(pos.Uint, n, "alp exception"); err != nil {
			return Values{}, err
		}
		vals, rest3, err := ftChild(rest2, h.Type, ne, r, "alp exception values")
		if err != nil {
			return Values{}, err
		}
		for j, p := range pos.Uint {
			v.SetBits(int(p), vals.Bits(j))
		}
		rest = rest3
	}
	if err := ftNoTrailing(rest, "alp"); err != nil {
		return Values{}, err
	}
	return v, nil
}
