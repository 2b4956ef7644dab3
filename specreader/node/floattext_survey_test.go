package node

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"strata/encoding"
	"strata/encoding/all"
)

// TestFloatTextSurvey looks inside the oracle's nodes for the facts the
// gaps list (gaps/floattext.md) rests on: which bounds flag the writer
// sets, which zero it stores for a zero bound, whether narrow ALP vectors
// and every Chimp flag occur, whether Chimp pads its streams with zero
// bits, how an empty ALP-RD node looks. Facts that contradict FORMAT.md
// fail the test; the others are logged.
func TestFloatTextSurvey(t *testing.T) {
	p := all.Policy()
	r := rand.New(rand.NewPCG(7, 8))
	parse := func(s string) float64 { f, _ := strconv.ParseFloat(s, 64); return f }
	negZero := math.Copysign(0, -1)
	sets := map[string][]float64{
		"empty":       {},
		"negzeromin":  {negZero, 1.5, 2.25, 3},
		"poszeromin":  {0, 1.5, negZero, 3},
		"negzeroonly": {negZero, negZero},
		"zeromax":     {-1.5, negZero, -2},
		"nan":         {1.5, math.NaN(), 2},
		"inf":         {1.5, math.Inf(1), 2},
	}
	var printed, walk, prices []float64
	x := 0.0
	for range 3000 {
		printed = append(printed, parse(fmt.Sprintf("%f", float32(r.Float64()*2000-1000))))
		x += r.NormFloat64()
		walk = append(walk, x)
		prices = append(prices, float64(r.IntN(100000))/100)
	}
	sets["printed"], sets["walk"], sets["prices"] = printed, walk, prices
	kinds := []encoding.Kind{encoding.KindALP, encoding.KindALPRD, encoding.KindChimp}
	narrow, chimpFlags := 0, [4]int{}
	for name, vals := range sets {
		for _, k := range kinds {
			enc, tree, err := p.EncodeWith(nil, vals, k)
			if err != nil || tree.Kind != k {
				t.Logf("%s %v: refused (%v)", name, k, err)
				continue
			}
			h, err := ParseHeader(enc)
			if err != nil {
				t.Fatal(err)
			}
			body := h.Body
			if k == encoding.KindALP {
				_, body, _ = Uvarint(body)
			}
			bd, rest, err := ftParseBounds(body, h.Type)
			if err != nil {
				t.Fatalf("%s %v: %v", name, k, err)
			}
			hasNaN := false
			for _, v := range vals {
				hasNaN = hasNaN || math.IsNaN(v)
			}
			if bd.known == (len(vals) == 0 || hasNaN) {
				t.Errorf("%s %v: bounds flag %v on %d values (NaN %v)", name, k, bd.known, len(vals), hasNaN)
			}
			if bd.known {
				t.Logf("%s %v: bounds lo %#x hi %#x", name, k, bd.lo, bd.hi)
			}
			switch k {
			case encoding.KindALP:
				vs, _, _ := Uvarint(h.Body)
				nv := (len(vals) + int(vs) - 1) / int(vs)
				for range nv {
					if rest[0]&0x80 != 0 {
						narrow++
						t.Logf("%s: narrow vector e %d f %d k %d", name, rest[0]&0x7f, rest[1], rest[2])
						rest = rest[3:]
					} else {
						rest = rest[2:]
					}
				}
			case encoding.KindALPRD:
				if len(vals) == 0 && fmt.Sprintf("% x", rest) != "3f 01 00 00 00" {
					t.Errorf("empty ALP-RD body after bounds: % x", rest)
				}
			case encoding.KindChimp:
				bs, rest, _ := Uvarint(rest)
				nb := (len(vals) + int(bs) - 1) / int(bs)
				lens := make([]int, nb)
				for b := range lens {
					var l uint64
					l, rest, _ = Uvarint(rest)
					lens[b] = int(l)
				}
				for b, l := range lens {
					s := rest[:l]
					rest = rest[l:]
					rows := min(len(vals)-b*int(bs), int(bs))
					used, flags := chimpSurvey(s, rows)
					for f, c := range flags {
						chimpFlags[f] += c
					}
					if used%8 != 0 && s[len(s)-1]>>(used%8) != 0 {
						t.Errorf("%s: chimp block %d padding bits %#x", name, b, s[len(s)-1]>>(used%8))
					}
				}
			}
		}
	}
	t.Logf("narrow ALP vectors: %d; chimp flags 0..3: %v", narrow, chimpFlags)
	if narrow == 0 {
		t.Errorf("no narrow ALP vector in the oracle's output")
	}
}

// chimpSurvey walks a float64 Chimp block stream of rows values and
// returns the bits it takes and the count of each flag.
func chimpSurvey(s []byte, rows int) (int, [4]int) {
	r := ftBitReader{b: s}
	var flags [4]int
	r.read(64)
	z := 0
	for i := 1; i < rows; i++ {
		f, _ := r.read(2)
		flags[f]++
		switch f {
		case 0:
			r.read(7)
		case 1:
			r.read(7)
			r.read(3)
			m, _ := r.read(6)
			r.read(int(m))
		case 2:
			r.read(64 - z)
		case 3:
			c, _ := r.read(3)
			z = chimpLead[c]
			r.read(64 - z)
		}
	}
	return r.pos, flags
}
