package node_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"strata/encoding"
	"strata/encoding/all"
	"strata/specreader/node"
)

// Differential tests against Strata's own reader, used as a black box
// through its public API (encoding.Open, NewValues, ReadPart): hand-made
// nodes ask it the questions the document leaves open, and mutated oracle
// nodes check that wherever both readers accept a node they agree on every
// value.

// goResolver adapts ftResolver to encoding.Resolver for the Go reader.
type goResolver struct{ r *ftResolver }

func (g goResolver) Shared(chunk int, build func([]byte) (any, error)) (any, error) {
	p, rows, err := g.r.Chunk(chunk)
	if err != nil {
		return nil, fmt.Errorf("%v: %w", err, encoding.ErrCorrupt)
	}
	if rows != 0 {
		return nil, fmt.Errorf("chunk %d holds %d rows: %w", chunk, rows, encoding.ErrCorrupt)
	}
	return build(p)
}

func (g goResolver) Reference(stream int, typ encoding.Type) (encoding.Decoder, error) {
	v, ok := g.r.refs[stream]
	if !ok {
		return nil, fmt.Errorf("no stream %d: %w", stream, encoding.ErrCorrupt)
	}
	if encoding.Type(v.Type) != typ {
		return nil, fmt.Errorf("stream %d is %v: %w", stream, v.Type, encoding.ErrCorrupt)
	}
	var vals any
	switch v.Type {
	case node.Int32:
		x := make([]int32, v.Len)
		for i := range x {
			x[i] = int32(v.Int[i])
		}
		vals = x
	case node.Int64:
		vals = v.Int
	default:
		return nil, fmt.Errorf("goResolver: type %v: %w", v.Type, encoding.ErrUnsupported)
	}
	q := *all.Policy()
	q.Force = &encoding.Tree{Kind: encoding.KindTrivial}
	enc, _, err := q.Encode(nil, vals)
	if err != nil {
		return nil, err
	}
	return encoding.Open(enc, all.Options())
}

// goDecode decodes a node with the Go reader into the second reader's
// Values layout (floats, binary, signed and unsigned integers).
func goDecode(b []byte, r *ftResolver) (node.Values, error) {
	opts := *all.Options()
	if r != nil {
		opts.Resolver = goResolver{r}
	}
	d, err := encoding.Open(b, &opts)
	if err != nil {
		return node.Values{}, err
	}
	buf, err := encoding.NewValues(d.Type(), d.Len())
	if err != nil {
		return node.Values{}, err
	}
	if err := encoding.ReadPart(d, buf, 0, d.Len(), nil, false); err != nil {
		return node.Values{}, err
	}
	v := node.Make(node.Type(d.Type()), d.Len())
	switch x := buf.(type) {
	case []float64:
		copy(v.F64, x)
	case []float32:
		copy(v.F32, x)
	case *encoding.Bytes:
		for i := range v.Len {
			v.Bin[i] = x.Value(i)
		}
	case []int64:
		copy(v.Int, x)
	case []int32:
		for i, y := range x {
			v.Int[i] = int64(y)
		}
	case []uint64:
		copy(v.Uint, x)
	default:
		return node.Values{}, fmt.Errorf("goDecode: %T not handled", buf)
	}
	return v, nil
}

// ftSame compares two decodings value by value (floats by bits).
func ftSame(a, b node.Values) error {
	if a.Type != b.Type || a.Len != b.Len {
		return fmt.Errorf("%d %v values against %d %v", a.Len, a.Type, b.Len, b.Type)
	}
	for i := range a.Len {
		if a.Type == node.Binary {
			if string(a.Bin[i]) != string(b.Bin[i]) {
				return fmt.Errorf("row %d: %q against %q", i, a.Bin[i], b.Bin[i])
			}
		} else if a.Bits(i) != b.Bits(i) {
			return fmt.Errorf("row %d: %#x against %#x", i, a.Bits(i), b.Bits(i))
		}
	}
	return nil
}

// TestFloatTextGoReaderQuestions asks the Go reader about hand-made nodes
// at the points where FORMAT.md is silent or unclear (gaps/floattext.md)
// and checks the second reader gives the same verdict (accept with the same
// values, or reject).
func TestFloatTextGoReaderQuestions(t *testing.T) {
	f64 := func(vals ...float64) []byte {
		var b []byte
		for _, f := range vals {
			u := math.Float64bits(f)
			for k := range 8 {
				b = append(b, byte(u>>(8*k)))
			}
		}
		return b
	}
	i64 := func(vals ...int64) []byte {
		var b []byte
		for _, x := range vals {
			for k := range 8 {
				b = append(b, byte(uint64(x)>>(8*k)))
			}
		}
		return ftNode(2, 5, len(vals), b)
	}
	bounds := func(lo, hi float64) []byte { return append([]byte{1}, f64(lo, hi)...) }
	alp := func(b []byte, ef []byte, digits ...int64) []byte {
		return ftNode(13, 11, len(digits), []byte{8}, b, ef, ftChildNode(i64(digits...)), []byte{0})
	}
	// A float64 Chimp block of two rows, 1.5 then 1.5: u0 in 64 bits, then
	// flag 0 with s 0 (9 bits): 73 bits, 10 bytes.
	chimpStream := append(f64(1.5), 0, 0)
	chimp := func(stream []byte) []byte {
		return ftNode(20, 11, 2, []byte{0, 8, byte(len(stream))}, stream)
	}
	padded := append([]byte{}, chimpStream...)
	padded[9] = 0x80
	nullDigits := ftNode(11, 5, 2, ftChildNode(ftNode(2, 1, 2, []byte{1})), ftChildNode(i64(15)))
	shared := ftNode(17, 12, 0, []byte{0}, ftChildNode(ftTrivialBinary("AIR", "RAIL")))
	sharedR := &ftResolver{chunks: map[int][]byte{0: shared}, rows: map[int]int{0: 0}}
	fsstDef := ftNode(21, 12, 0, []byte{0, 1, 0, 0, 0, 0, 0, 0, 0, 'a'})
	fsstR := &ftResolver{chunks: map[int][]byte{0: fsstDef}, rows: map[int]int{0: 0}}
	corR := &ftResolver{refs: map[int]node.Values{10: {Type: node.Int32, Len: 2, Int: []int64{5, 6}}}}
	cor := ftNode(18, 4, 2, []byte{0x0a}, ftChildNode(ftNode(2, 4, 2, []byte{1, 0, 0, 0, 2, 0, 0, 0})))
	// Known disagreement, explained: the Go reader refuses the reference
	// decoder this fake resolver hands it (a harness limit: the container
	// tests cover Correlated end to end).
	known := map[string]bool{"correlated": true}
	cases := []struct {
		name string
		node []byte
		r    *ftResolver
	}{
		{"alp exact bounds", alp(bounds(1.5, 2.5), []byte{1, 0}, 15, 25), nil},
		{"alp loose bounds", alp(bounds(1, 3), []byte{1, 0}, 15, 25), nil},
		{"alp bounds exclude a value", alp(bounds(1.5, 2), []byte{1, 0}, 15, 25), nil},
		{"alp flag 0 without NaN", alp([]byte{0}, []byte{1, 0}, 15, 25), nil},
		{"alp flag 1 on empty node", alp(bounds(1, 1), []byte{}), nil},
		{"alp bounds +0 for -0", alp(bounds(0, 0), []byte{0, 0}, 0, 0), nil},
		{"alp infinite bounds", alp(bounds(math.Inf(-1), math.Inf(1)), []byte{1, 0}, 15, 25), nil},
		{"alp narrow f 1", alp([]byte{0}, []byte{0x82, 1, 3}, 15, 25), nil},
		{"alp narrow f above e", alp([]byte{0}, []byte{0x81, 2, 3}, 15, 25), nil},
		{"alp narrow e 10 k 18", alp([]byte{0}, []byte{0x8a, 0, 18}, 15, 25), nil},
		{"alp float32 narrow", ftNode(13, 10, 1, []byte{8, 0, 0x81, 0}, ftChildNode(ftNode(2, 4, 1, []byte{15, 0, 0, 0})), []byte{0}), nil},
		{"alp nullable digits", ftNode(13, 11, 2, []byte{8, 0, 1, 0}, ftChildNode(nullDigits), []byte{0}), nil},
		{"alp exceptions as ALP", ftNode(13, 11, 1, []byte{8, 0, 1, 0}, ftChildNode(i64(15)), []byte{1}, ftChildNode(ftTrivialUint32(0)), ftChildNode(alp([]byte{0}, []byte{1, 0}, 25))), nil},
		{"chimp exact stream", chimp(chimpStream), nil},
		{"chimp extra stream byte", chimp(append(append([]byte{}, chimpStream...), 0)), nil},
		{"chimp nonzero padding", chimp(padded), nil},
		{"alprd extra dict entry unused", ftNode(14, 10, 1, []byte{0, 24, 2, 0, 0, 1, 0, 0, 0, 0, 0, 0}), nil},
		{"alprd exception left in dict", ftNode(14, 10, 1, []byte{0, 24, 1, 0, 0, 0, 0, 0, 1, 0, 0}), nil},
		{"fsst duplicate symbols", ftNode(12, 12, 1, []byte{2, 0, 0, 0, 0, 0, 0, 0, 'a', 'a', 2}, ftChildNode(ftTrivialUint32(2)), []byte{0, 1}), nil},
		{"fsst int type", ftNode(12, 5, 0, []byte{0, 0, 0, 0, 0, 0, 0, 0, 0}, ftChildNode(ftTrivialUint32())), nil},
		{"digittext int type", ftNode(16, 5, 0, []byte{0}, ftChildNode(ftNode(2, 9, 0)), ftChildNode(ftNode(2, 6, 0))), nil},
		{"shareddict form 2", ftNode(17, 12, 0, []byte{2}), nil},
		{"shareddict bool", ftNode(17, 1, 0, []byte{0}, ftChildNode(ftNode(2, 1, 1, []byte{1}))), nil},
		{"shareddict def trailing", append(append([]byte{}, shared...), 0), nil},
		{"shareddict ref 0 rows", ftNode(17, 12, 0, []byte{1, 0}, ftChildNode(ftTrivialUint32())), sharedR},
		{"shareddict ref", ftNode(17, 12, 2, []byte{1, 0}, ftChildNode(ftTrivialUint32(1, 0))), sharedR},
		{"shareddict ref trailing", ftNode(17, 12, 2, []byte{1, 0}, ftChildNode(ftTrivialUint32(1, 0)), []byte{0}), sharedR},
		{"sharedfsst ref", ftNode(21, 12, 1, []byte{1, 0, 2}, ftChildNode(ftTrivialUint32(2)), []byte{0, 0}), fsstR},
		{"sharedfsst ref 0 rows", ftNode(21, 12, 0, []byte{1, 0, 0}, ftChildNode(ftTrivialUint32())), fsstR},
		{"sharedfsst form 2", ftNode(21, 12, 0, []byte{2}), nil},
		{"correlated", cor, corR},
		{"correlated under nullable", ftNode(11, 4, 3, ftChildNode(ftNode(2, 1, 3, []byte{5})), ftChildNode(cor)), corR},
		{"correlated float", ftNode(18, 11, 0, []byte{0x0a}, ftChildNode(ftNode(2, 5, 0))), corR},
		{"alp narrow k 0", alp([]byte{0}, []byte{0x81, 0, 0}, 15, 25), nil},
		{"alp vs 65537", ftNode(13, 11, 0, []byte{0x81, 0x80, 0x04, 0}, ftChildNode(i64()), []byte{0}), nil},
		{"chimp empty block stream", ftNode(20, 11, 1, []byte{0, 8, 0}), nil},
		{"fc sorted, unsorted inside a block", ftNode(15, 12, 2, []byte{4, 1}, ftChildNode(ftTrivialUint32(0, 0)), ftChildNode(ftTrivialUint32(1, 1)), ftChildNode(ftNode(2, 6, 2, []byte{'b', 'a'}))), nil},
		{"fc sorted, unsorted restarts", ftNode(15, 12, 2, []byte{1, 1}, ftChildNode(ftTrivialUint32(0, 0)), ftChildNode(ftTrivialUint32(1, 1)), ftChildNode(ftNode(2, 6, 2, []byte{'b', 'a'}))), nil},
		{"fc K above rows", ftNode(15, 12, 1, []byte{0x80, 0x80, 0x04, 0}, ftChildNode(ftTrivialUint32(0)), ftChildNode(ftTrivialUint32(1)), ftChildNode(ftNode(2, 6, 1, []byte{'a'}))), nil},
		{"dt mode 1 zero", ftNode(16, 12, 1, []byte{1}, ftChildNode(ftNode(2, 9, 1, make([]byte, 8))), ftChildNode(ftNode(2, 6, 1, []byte{0}))), nil},
		{"numtext grouped+decimal", ftNode(23, 12, 0, []byte{3, 0}, ftChildNode(i64()), ftChildNode(ftNode(2, 6, 0))), nil},
		{"numtext MinInt64 decimal", ftNode(23, 12, 1, []byte{2, 18}, ftChildNode(i64(math.MinInt64)), ftChildNode(ftNode(2, 6, 1, []byte{18}))), nil},
		{"chimp j < 0", ftNode(20, 10, 2, []byte{0, 8, 6, 0, 0, 0, 0, 0x04, 0}), nil},
		{"chimp flag 2 before a flag 3", ftNode(20, 10, 2, []byte{0, 8, 9, 0, 0, 0, 0, 2, 0, 0, 0, 0}), nil},
		{"chimp flag 1 with m 0", ftNode(20, 10, 2, []byte{0, 8, 7, 0, 0, 0, 0, 1, 0, 0}), nil},
		{"fsst escape at a value's end", ftNode(12, 12, 2, []byte{0, 0, 0, 0, 0, 0, 0, 0, 2}, ftChildNode(ftTrivialUint32(1, 2)), []byte{0xff, 0xff, 'a'}), nil},
		{"fsst raw above 8 x codes", ftNode(12, 12, 1, []byte{1, 0, 0, 0, 0, 0, 0, 0, 'a', 9}, ftChildNode(ftTrivialUint32(1)), []byte{0}), nil},
		{"dt mode 0 value too wide", ftNode(16, 12, 1, []byte{0}, ftChildNode(ftNode(2, 9, 1, []byte{100, 0, 0, 0, 0, 0, 0, 0})), ftChildNode(ftNode(2, 6, 1, []byte{2}))), nil},
		{"numtext not a multiple", ftNode(23, 12, 1, []byte{2, 2}, ftChildNode(i64(15)), ftChildNode(ftNode(2, 6, 1, []byte{1}))), nil},
		{"numtext scale 19", ftNode(23, 12, 1, []byte{2, 19}, ftChildNode(i64(1)), ftChildNode(ftNode(2, 6, 1, []byte{0}))), nil},
		{"numtext S 0 decimal", ftNode(23, 12, 1, []byte{2, 0}, ftChildNode(i64(5)), ftChildNode(ftNode(2, 6, 1, []byte{0}))), nil},
	}
	for _, c := range cases {
		var res node.Resolver
		if c.r != nil {
			res = c.r
		}
		mine, errMine := node.Decode(c.node, res)
		gov, errGo := goDecode(c.node, c.r)
		verdict := func(err error) string {
			switch {
			case err == nil:
				return "accepts"
			case errors.Is(err, encoding.ErrUnsupported) || errors.Is(err, node.ErrUnsupported):
				return "unsupported"
			case errors.Is(err, encoding.ErrLimit):
				return "limit"
			}
			return "corrupt"
		}
		t.Logf("%-32s Go reader %-11s second reader %-11s | %v | %v", c.name, verdict(errGo), verdict(errMine), errGo, errMine)
		if known[c.name] {
			continue
		}
		if (errMine == nil) != (errGo == nil) {
			t.Errorf("%s: the readers disagree: Go %v, second %v", c.name, errGo, errMine)
		} else if errMine == nil {
			if err := ftSame(mine, gov); err != nil {
				t.Errorf("%s: values differ: %v", c.name, err)
			}
		}
	}
}

// TestFloatTextDifferentialMutations mutates oracle nodes of this part's
// kinds (byte flips, set bytes, cuts, insertions) and decodes each with both
// readers: where both accept, every value must agree; nodes accepted by one
// reader only are reported.
func TestFloatTextDifferentialMutations(t *testing.T) {
	p := all.Policy()
	nozstd := *p
	nozstd.Zstd = false
	var seeds [][]byte
	for _, n := range []int{1, 2, 5, 40} {
		for _, sh := range ftShapes(n) {
			for _, k := range ftForcedKinds {
				for _, q := range []*encoding.Policy{p, &nozstd} {
					if enc, tree, err := q.EncodeWith(nil, sh.vals, k); err == nil && tree.Kind == k {
						seeds = append(seeds, enc)
					}
				}
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	iters := 200000
	if testing.Short() {
		iters = 20000
	}
	var bothOK, bothErr int
	onlyMine, onlyGo := map[byte]int{}, map[byte]int{}
	shown := 0
	for range iters {
		b := append([]byte{}, seeds[r.IntN(len(seeds))]...)
		for range 1 + r.IntN(3) {
			if len(b) == 0 {
				break
			}
			i := r.IntN(len(b))
			switch r.IntN(5) {
			case 0:
				b[i] ^= 1 << r.IntN(8)
			case 1:
				b[i] = byte(r.IntN(256))
			case 2:
				b = b[:i]
			case 3:
				b = append(b[:i], append([]byte{byte(r.IntN(256))}, b[i:]...)...)
			case 4:
				b = append(b[:i], b[i+1:]...)
			}
		}
		if len(b) >= 4 && (b[1] == 0 || b[0] == 0) {
			continue
		}
		mine, errMine := node.Decode(b, nil)
		gov, errGo := goDecode(b, nil)
		switch {
		case errMine == nil && errGo == nil:
			bothOK++
			if err := ftSame(mine, gov); err != nil {
				t.Errorf("both accept %x, values differ: %v", b, err)
			}
		case errMine != nil && errGo != nil:
			bothErr++
		case errMine == nil:
			onlyMine[b[0]]++
			if shown < 20 {
				shown++
				t.Logf("only the second reader accepts kind %d (Go: %v): %x", b[0], errGo, b)
			}
		default:
			onlyGo[b[0]]++
			if k := ftInnermostKind(errMine); ftMine[k] && !strings.Contains(errMine.Error(), "zstd") {
				t.Errorf("only the Go reader accepts %x: this part's kind %d rejects it: %v", b, k, errMine)
			}
			if shown < 20 {
				shown++
				t.Logf("only the Go reader accepts kind %d (second: %v): %x", b[0], errMine, b)
			}
		}
	}
	t.Logf("%d mutations: both accept %d, both reject %d, only second reader accepts %v, only Go reader accepts %v", iters, bothOK, bothErr, onlyMine, onlyGo)
	if len(onlyMine) > 0 {
		t.Errorf("the second reader accepts nodes the Go reader rejects: %v", onlyMine)
	}
}

// ftMine are this part's kinds.
var ftMine = map[int]bool{12: true, 13: true, 14: true, 15: true, 16: true, 17: true, 18: true, 20: true, 21: true, 23: true, 25: true, 26: true}

var ftKindRE = regexp.MustCompile(`kind (\d+) <`)

// ftInnermostKind is the kind of the innermost node an error of the second
// reader names (its decoders prefix "kind N <type>:" at every level), so
// that a rejection made by a child of another kind (the integer kinds'
// stricter header checks, gaps/integer.md) is told from one of this part.
func ftInnermostKind(err error) int {
	m := ftKindRE.FindAllStringSubmatch(err.Error(), -1)
	if len(m) == 0 {
		return 0
	}
	k, _ := strconv.Atoi(m[len(m)-1][1])
	return k
}
