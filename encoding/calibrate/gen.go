package calibrate

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"

	"strata/encoding"
)

// words is a small vocabulary for text values.
var words = []string{"the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog", "carefully", "final",
	"requests", "packages", "deposits", "ironic", "furiously", "regular", "accounts", "sleep", "among", "blithely"}

// gen returns rows values of typ in a shape (nil when the shape has no
// values of that type), and a validity for the "nulls" shape. avgLen is the
// average length of binary values; a negative avgLen makes every binary
// value exactly -avgLen bytes long.
func gen(typ encoding.Type, shape string, rows, avgLen int) (any, []bool) {
	r := rand.New(rand.NewPCG(uint64(rows), uint64(len(shape))))
	var valid []bool
	if shape == "nulls" {
		valid = make([]bool, rows)
		present := 0
		for i := range valid {
			valid[i] = r.IntN(10) >= 3
			if valid[i] {
				present++
			}
		}
		rows, shape = present, "random"
	}
	if typ == encoding.Bool {
		if shape != "sparse" && shape != "random" {
			return nil, nil
		}
		v := make([]bool, rows)
		for i := range v {
			v[i] = r.IntN(100) < 3 || (shape == "random" && r.IntN(2) == 0)
		}
		return v, valid
	}
	if typ == encoding.Binary {
		return genBytes(r, shape, rows, avgLen), valid
	}
	if shape == "sparse" || shape == "text" || shape == "numbers" || shape == "hex" || shape == "fields" || (shape == "stepped" && typ == encoding.Float64) {
		return nil, nil
	}
	u := make([]uint64, rows)
	switch shape {
	case "constant":
		for i := range u {
			u[i] = 77
		}
	case "mainly-constant":
		for i := range u {
			u[i] = 500
			if r.IntN(20) == 0 {
				u[i] = r.Uint64N(1 << 20)
			}
		}
	case "runs":
		v := r.Uint64N(1000)
		for i := range u {
			if r.IntN(8) == 0 {
				v = r.Uint64N(1 << 16)
			}
			u[i] = v
		}
	case "low-cardinality":
		alpha := make([]uint64, 50)
		for i := range alpha {
			alpha[i] = r.Uint64N(1 << 30)
		}
		for i := range u {
			u[i] = alpha[r.IntN(len(alpha))]
		}
	case "small-range":
		for i := range u {
			u[i] = 1000 + r.Uint64N(1<<12)
		}
	case "outliers":
		for i := range u {
			u[i] = r.Uint64N(256)
			if r.IntN(100) == 0 {
				u[i] = r.Uint64N(1 << 30)
			}
		}
	case "sorted":
		v := uint64(1 << 20)
		for i := range u {
			v += r.Uint64N(100)
			u[i] = v
		}
	case "decimal", "random":
		for i := range u {
			u[i] = r.Uint64N(1 << 31)
		}
	case "stepped":
		// amounts in whole thousands
		for i := range u {
			u[i] = 1000 * r.Uint64N(1<<20)
		}
	default:
		return nil, nil
	}
	switch typ {
	case encoding.Int64:
		return conv(u, func(x uint64) int64 { return int64(x) }), valid
	case encoding.Uint32:
		return conv(u, func(x uint64) uint32 { return uint32(x) }), valid
	case encoding.Float64:
		if shape == "decimal" {
			return conv(u, func(x uint64) float64 { return float64(x%100000) / 100 }), valid
		}
		return conv(u, func(x uint64) float64 { return float64(x) / 7 }), valid
	}
	return nil, nil
}

func conv[T any](u []uint64, f func(uint64) T) []T {
	out := make([]T, len(u))
	for i, x := range u {
		out[i] = f(x)
	}
	return out
}

func genBytes(r *rand.Rand, shape string, rows, avgLen int) any {
	fixed := 0
	if avgLen < 0 {
		fixed, avgLen = -avgLen, -avgLen
	}
	text := func() []byte {
		var b []byte
		for len(b) < avgLen-3+r.IntN(7) {
			if len(b) > 0 {
				b = append(b, ' ')
			}
			b = append(b, words[r.IntN(len(words))]...)
		}
		if fixed > 0 {
			// one length: cut, or pad with letters so that short values
			// stay distinct
			for len(b) < fixed {
				b = append(b, byte('a'+r.IntN(26)))
			}
			b = b[:fixed]
		}
		return b
	}
	var out encoding.Bytes
	out.Offsets = append(out.Offsets, 0)
	switch shape {
	case "constant":
		v := text()
		for i := 0; i < rows; i++ {
			out.Append(v)
		}
	case "mainly-constant":
		v := text()
		for i := 0; i < rows; i++ {
			if r.IntN(20) == 0 {
				out.Append(text())
			} else {
				out.Append(v)
			}
		}
	case "runs", "low-cardinality":
		alpha := make([][]byte, 50)
		for i := range alpha {
			alpha[i] = text()
		}
		v := alpha[0]
		for i := 0; i < rows; i++ {
			if shape == "low-cardinality" || r.IntN(8) == 0 {
				v = alpha[r.IntN(len(alpha))]
			}
			out.Append(v)
		}
	case "text":
		for i := 0; i < rows; i++ {
			out.Append(text())
		}
	case "sorted":
		vals := make([]string, rows)
		for i := range vals {
			vals[i] = string(text())
		}
		slices.Sort(vals)
		for _, v := range vals {
			out.Append([]byte(v))
		}
	case "hex":
		// hex digits of one case in groups of eight between dashes,
		// avgLen bytes (UUIDs, hashes, hex ids)
		n := max(avgLen, 1)
		for i := 0; i < rows; i++ {
			v := make([]byte, n)
			for j := range v {
				if j%9 == 8 {
					v[j] = '-'
				} else {
					v[j] = "0123456789abcdef"[r.IntN(16)]
				}
			}
			out.Append(v)
		}
	case "fields":
		// text with numbers inside it (log lines, paths with ids):
		// about avgLen/8 numbers of up to five digits a value (at least
		// one), each after a word, so that the number of fields varies
		// from one length to another and the cost of a field can be told
		// from that of a value. The k-th word is one of two, so a chunk
		// has few skeletons, as a column of one log format has.
		words := []string{"GET /", "id=", " of ", "/users/", " took ", " ms", "x", "/"}
		nf := min(max(avgLen/8, 1), 8)
		for i := 0; i < rows; i++ {
			var v []byte
			for k := range nf {
				v = append(v, words[(k+r.IntN(2))%len(words)]...)
				v = strconv.AppendUint(v, r.Uint64N(100000), 10)
			}
			out.Append(v)
		}
	case "decimal":
		width, limit := max(avgLen/2, 1), 100000
		if fixed > 0 {
			width, limit = fixed, 1
			for k := 0; k < min(fixed, 5); k++ {
				limit *= 10
			}
		}
		for i := 0; i < rows; i++ {
			out.Append(fmt.Appendf(nil, "%0*d", width, r.IntN(limit)))
		}
	case "numbers":
		// signed amounts with grouping commas, about avgLen bytes long
		// (one length only by chance, so not for fixed lengths)
		if fixed > 0 {
			return nil
		}
		digits := max(1, min(avgLen*3/4, 18)) // 10^18 fits an int64
		limit := int64(1)
		for k := 0; k < digits; k++ {
			limit *= 10
		}
		for i := 0; i < rows; i++ {
			v := r.Int64N(limit)
			if r.IntN(4) == 0 {
				v = -v
			}
			out.Append(encoding.AppendNumber(nil, v, true))
		}
	case "fractions":
		// signed decimal fractions of three quarters of avgLen digits
		// (at most 12, so that scaled to 6 fraction digits they fit
		// NumText's 18), 1 to 6 of them after the point: coordinates,
		// prices, readings kept as text
		if fixed > 0 {
			return nil
		}
		digits := max(2, min(avgLen*3/4, 12))
		for i := 0; i < rows; i++ {
			s := 1 + r.IntN(min(6, digits-1))
			limit := int64(1)
			for k := 0; k < digits; k++ {
				limit *= 10
			}
			m := r.Int64N(limit)
			if r.IntN(4) == 0 {
				m = -m
			}
			out.Append(encoding.AppendDecimal(nil, m, s))
		}
	case "random":
		for i := 0; i < rows; i++ {
			n := avgLen - 3 + r.IntN(7)
			if fixed > 0 {
				n = fixed
			}
			v := make([]byte, n)
			for k := range v {
				v[k] = byte(r.Uint32())
			}
			out.Append(v)
		}
	default:
		return nil
	}
	return out
}
