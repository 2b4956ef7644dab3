package node

import "fmt"

// Chimp (kind 20, FORMAT.md "Float encodings"): Chimp128, an XOR encoding
// of the Gorilla family, in independent blocks of bs rows, each one
// LSB-first bitstream.

const kindChimp = 20

func init() { register(kindChimp, decodeChimp) }

// chimpLead is L, the leading-zero counts a 3-bit code stands for.
var chimpLead = [8]int{0, 8, 12, 16, 18, 20, 22, 24}

// decodeChimp decodes `bounds | bs | len_b per block | streams`.
func decodeChimp(h Header, r Resolver) (Values, error) {
	if err := ftFloatType(h.Type); err != nil {
		return Values{}, err
	}
	n := h.Rows
	_, rest, err := ftParseBounds(h.Body, h.Type)
	if err != nil {
		return Values{}, fmt.Errorf("chimp: %w", err)
	}
	bs, rest, err := Count(rest, 65536, "chimp bs")
	if err != nil {
		return Values{}, err
	}
	if bs < 1 {
		return Values{}, fmt.Errorf("chimp bs 0: %w", ErrCorrupt)
	}
	nb := (n + bs - 1) / bs
	// Each block has at least a one-byte length.
	if nb > len(rest) {
		return Values{}, fmt.Errorf("chimp: %d blocks, %d bytes left: %w", nb, len(rest), ErrCorrupt)
	}
	lens := make([]int, nb)
	for b := range lens {
		if lens[b], rest, err = Count(rest, len(rest), "chimp block length"); err != nil {
			return Values{}, fmt.Errorf("block %d: %w", b, err)
		}
	}
	total := 0
	for _, l := range lens {
		total += l // each ≤ len(body), nb ≤ len(body): no overflow
	}
	if total != len(rest) {
		return Values{}, fmt.Errorf("chimp block streams of %d bytes, %d left: %w", total, len(rest), ErrCorrupt)
	}
	v := Make(h.Type, n)
	for b, l := range lens {
		lo := b * bs
		hi := min(n, lo+bs)
		if err := chimpBlock(rest[:l], &v, lo, hi); err != nil {
			return Values{}, fmt.Errorf("chimp block %d: %w", b, err)
		}
		rest = rest[l:]
	}
	return v, nil
}

// chimpBlock decodes rows [lo, hi) of v from one block's stream. Bits after
// the block's last field are ignored, whole bytes included: FORMAT.md
// rejects only a stream that ends early (gaps/floattext.md).
func chimpBlock(s []byte, v *Values, lo, hi int) error {
	w := 8 * v.Type.Width()
	r := ftBitReader{b: s}
	need := func(m int, what string, i int) (uint64, error) {
		x, ok := r.read(m)
		if !ok {
			return 0, fmt.Errorf("row %d: stream ends in %s: %w", i, what, ErrCorrupt)
		}
		return x, nil
	}
	u := make([]uint64, hi-lo) // the block's bits, u[i] for block row i
	var err error
	if u[0], err = need(w, "the first value", 0); err != nil {
		return err
	}
	z, haveZ := 0, false
	for i := 1; i < len(u); i++ {
		flag, err := need(2, "a flag", i)
		if err != nil {
			return err
		}
		switch flag {
		case 0, 1:
			s, err := need(7, "s", i)
			if err != nil {
				return err
			}
			j := i - 1 - ((i-1-int(s))%128+128)%128
			if j < 0 {
				return fmt.Errorf("row %d: reference row %d: %w", i, j, ErrCorrupt)
			}
			if flag == 0 {
				u[i] = u[j]
			} else {
				c, err := need(3, "c", i)
				if err != nil {
					return err
				}
				m, err := need(6, "m", i)
				if err != nil {
					return err
				}
				lead := chimpLead[c]
				if m < 1 || lead+int(m) > w {
					return fmt.Errorf("row %d: flag 1 with L %d, m %d in %d bits: %w", i, lead, m, w, ErrCorrupt)
				}
				x, err := need(int(m), "x", i)
				if err != nil {
					return err
				}
				u[i] = u[j] ^ x<<uint(w-lead-int(m))
			}
			haveZ = false
		case 2:
			if !haveZ {
				return fmt.Errorf("row %d: flag 2 with no leading-zero count set: %w", i, ErrCorrupt)
			}
			x, err := need(w-z, "x", i)
			if err != nil {
				return err
			}
			u[i] = u[i-1] ^ x
		case 3:
			c, err := need(3, "c", i)
			if err != nil {
				return err
			}
			z, haveZ = chimpLead[c], true
			x, err := need(w-z, "x", i)
			if err != nil {
				return err
			}
			u[i] = u[i-1] ^ x
		}
	}
	for i, x := range u {
		v.SetBits(lo+i, x)
	}
	return nil
}
