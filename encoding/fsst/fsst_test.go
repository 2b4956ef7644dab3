package fsst_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/encodingtest"
	"strata/encoding/fsst"
)

const kFSST = encoding.KindFSST

func bytesOf(vs ...string) encoding.Bytes {
	var b encoding.Bytes
	b.Offsets = append(b.Offsets, 0)
	for _, v := range vs {
		b.Append([]byte(v))
	}
	return b
}

// encode encodes vals as FSST whatever its Fit says, failing the test
// otherwise.
func encode(t testing.TB, vals encoding.Bytes) []byte {
	t.Helper()
	node, tree, err := all.Policy().EncodeWith(nil, vals, kFSST)
	if err != nil {
		t.Fatal(err)
	}
	if tree.Kind != kFSST || tree.Zstd {
		t.Fatalf("encoded as %v", tree)
	}
	return node
}

// special returns value sets that stress the escape and the table: every
// byte value, empty values, long values, bytes 0xff everywhere.
func special() map[string]encoding.Bytes {
	r := rand.New(rand.NewPCG(7, 7))
	out := map[string]encoding.Bytes{}
	var all256 []string
	for b := 0; b < 256; b++ {
		all256 = append(all256, string([]byte{byte(b)}), string(bytes.Repeat([]byte{byte(b)}, 1+b%17)))
	}
	out["all-bytes"] = bytesOf(all256...)
	var rnd []string
	for i := 0; i < 3000; i++ {
		v := make([]byte, r.IntN(40))
		for k := range v {
			v[k] = byte(r.Uint32())
		}
		rnd = append(rnd, string(v))
	}
	out["random-bytes"] = bytesOf(rnd...)
	var ff []string
	for i := 0; i < 500; i++ {
		ff = append(ff, string(bytes.Repeat([]byte{0xff}, i%11)), "a\xff", "\xff\xfeb", "")
	}
	out["escapes"] = bytesOf(ff...)
	out["empty"] = bytesOf(make([]string, 1000)...)
	out["one-empty"] = bytesOf("")
	long := make([]byte, 70000)
	for i := range long {
		long[i] = "the quick brown fox jumps over the lazy dog "[i%44] ^ byte(i>>12)
	}
	out["long"] = bytesOf(string(long), "", string(long[:1234]), "x", string(long[5:70000]))
	var mixed []string
	for i := 0; i < 2000; i++ {
		n := []int{0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 300}[i%12]
		v := make([]byte, n)
		for k := range v {
			v[k] = "abcab\xffcabx"[r.IntN(10)]
		}
		mixed = append(mixed, string(v))
	}
	out["mixed-lengths"] = bytesOf(mixed...)
	return out
}

func TestSpecial(t *testing.T) {
	for name, vals := range special() {
		t.Run(name, func(t *testing.T) {
			encodingtest.Check(t, fsst.Codec, vals)
			checkInterleaved(t, encode(t, vals), vals, 3)
		})
	}
}

// checkInterleaved reads the node in random Skip/Read/Gather/Filter steps
// into destinations that already hold data, comparing value by value.
func checkInterleaved(t *testing.T, node []byte, want encoding.Bytes, seed uint64) {
	t.Helper()
	r, err := encoding.OpenBinary(node, 0, all.Options())
	if err != nil {
		t.Fatal(err)
	}
	n := want.Len()
	rng := rand.New(rand.NewPCG(seed, uint64(n)))
	g := r.(encoding.BinaryGatherer)
	f := r.(encoding.BinaryFilterer)
	for round := 0; round < 3; round++ {
		r.Reset()
		pos := 0
		for pos < n {
			k := 1 + rng.IntN(min(n-pos, []int{1, 3, 8, 100, 5000}[rng.IntN(5)]))
			switch rng.IntN(4) {
			case 0:
				if err := r.Skip(k); err != nil {
					t.Fatal(err)
				}
			case 1:
				// append after existing values
				var got encoding.Bytes
				got.Append([]byte("prefix"))
				if err := r.ReadBinary(&got, k); err != nil {
					t.Fatalf("ReadBinary(%d) at %d: %v", k, pos, err)
				}
				if got.Len() != k+1 || string(got.Value(0)) != "prefix" {
					t.Fatalf("ReadBinary appended %d values", got.Len()-1)
				}
				for i := 0; i < k; i++ {
					if !bytes.Equal(got.Value(i+1), want.Value(pos+i)) {
						t.Fatalf("value %d = %q, want %q", pos+i, got.Value(i+1), want.Value(pos+i))
					}
				}
			case 2:
				// gather a random subset anywhere; the cursor must not move
				var rows []int32
				for i := rng.IntN(n); i < n && len(rows) < 50; i += 1 + rng.IntN(20) {
					rows = append(rows, int32(i))
				}
				var got encoding.Bytes
				if err := g.GatherBinary(rows, &got); err != nil {
					t.Fatal(err)
				}
				for i, row := range rows {
					if !bytes.Equal(got.Value(i), want.Value(int(row))) {
						t.Fatalf("gather row %d = %q, want %q", row, got.Value(i), want.Value(int(row)))
					}
				}
				if r.Pos() != pos {
					t.Fatalf("GatherBinary moved the cursor to %d", r.Pos())
				}
				continue
			case 3:
				pv := want.Value(pos + rng.IntN(k))
				p := &encoding.BytesPred{Op: []encoding.Op{encoding.OpEq, encoding.OpNe, encoding.OpLt, encoding.OpGe, encoding.OpPrefix}[rng.IntN(5)], A: pv}
				if p.Op == encoding.OpPrefix && len(pv) > 3 {
					p.A = pv[:3]
				}
				sel := encoding.NewBitmap(k, true)
				for i := 0; i < k; i++ {
					if rng.IntN(4) == 0 {
						sel.Clear(i)
					}
				}
				in := slices.Clone(sel)
				if err := f.FilterBinary(p, k, sel); err != nil {
					t.Fatal(err)
				}
				for i := 0; i < k; i++ {
					if exp := in.Get(i) && p.Match(want.Value(pos+i)); sel.Get(i) != exp {
						t.Fatalf("filter %v %q row %d: got %v", p.Op, p.A, pos+i, sel.Get(i))
					}
				}
			}
			pos += k
			if r.Pos() != pos {
				t.Fatalf("Pos = %d, want %d", r.Pos(), pos)
			}
		}
	}
	if n > 0 {
		if err := r.Skip(1); err == nil {
			t.Fatal("Skip past the end: no error")
		}
		if err := g.GatherBinary([]int32{int32(n)}, &encoding.Bytes{}); err == nil {
			t.Fatal("Gather past the end: no error")
		}
	}
}

func TestGolden(t *testing.T) {
	vals := bytesOf("furiously regular deposits", "", "carefully final packages", "\xff\x00",
		"regular deposits sleep furiously", "final", "packages cajole carefully")
	force := encodingtest.T(kFSST, encodingtest.T(encoding.KindFixedBitWidth))
	node, tree, err := encodingtest.GoldenPolicy(fsst.Codec, force).Encode(nil, vals)
	if err != nil {
		t.Fatal(err)
	}
	if tree.String() != force.String() {
		t.Fatalf("tree %v, want %v", tree, force)
	}
	encodingtest.Golden(t, "fsst-binary", node)
	r, err := encoding.OpenBinary(node, 0, all.Options())
	if err != nil {
		t.Fatal(err)
	}
	encodingtest.CheckBinaryReader(t, r, vals, 1)
}

// parts splits an FSST node into its sections for hand-made hostile
// variants: prefix, symbol table (counts and symbols), raw length, child
// (length-prefixed) and codes.
type parts struct {
	prefix, table, raw, child, codes []byte
	rows                             int
}

func split(t *testing.T, node []byte) parts {
	t.Helper()
	h, err := encoding.ParseHeader(node, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	body := h.Body
	tl := 8
	for l, c := range body[:8] {
		tl += int(c) * (l + 1)
	}
	p := parts{prefix: node[:len(node)-len(body)], table: body[:tl], rows: h.Rows}
	rest := body[tl:]
	_, n := binary.Uvarint(rest)
	p.raw, rest = rest[:n], rest[n:]
	cl, n := binary.Uvarint(rest)
	p.child, p.codes = rest[:n+int(cl)], rest[n+int(cl):]
	return p
}

func (p parts) join() []byte {
	return slices.Concat(p.prefix, p.table, p.raw, p.child, p.codes)
}

// wantError checks that opening or fully decoding node fails with an error
// wrapping want.
func wantError(t *testing.T, name string, node []byte, want error) {
	t.Helper()
	err := encodingtest.Exercise(node, all.Options())
	if err == nil {
		t.Fatalf("%s: decoded without error", name)
	}
	if !errors.Is(err, want) {
		t.Fatalf("%s: error %v does not wrap %v", name, err, want)
	}
}

func TestHostile(t *testing.T) {
	vals := bytesOf("abcabcabc", "xyz\xff", "", "abcxyzabc", "\xff\xff", "cab")
	node := encode(t, vals)
	if err := encodingtest.Exercise(node, all.Options()); err != nil {
		t.Fatal(err)
	}
	// Truncation at every byte (and one extra byte) must fail cleanly.
	for i := 0; i < len(node); i++ {
		if err := encodingtest.Exercise(node[:i], all.Options()); err == nil {
			t.Fatalf("truncated to %d of %d bytes: no error", i, len(node))
		}
	}
	wantError(t, "extra code byte", append(slices.Clone(node), 'x'), encoding.ErrCorrupt)

	p := split(t, node)
	if p.table[0]+p.table[1]+p.table[2] == 0 {
		t.Fatalf("table %v has no short symbols", p.table)
	}
	// symbol counts beyond 255 in all
	q := p
	q.table = slices.Clone(p.table)
	q.table[7] = 250
	q.table[6] = 10
	wantError(t, "256+ symbols", q.join(), encoding.ErrCorrupt)
	// symbol bytes missing: a count promising more symbols than there are
	q = p
	q.table = slices.Clone(p.table)
	q.table[7]++
	wantError(t, "count past the symbols", q.join(), encoding.ErrCorrupt)
	// raw length larger than 8 per code
	q = p
	q.raw = binary.AppendUvarint(nil, uint64(8*len(p.codes)+1))
	wantError(t, "raw length too large", q.join(), encoding.ErrCorrupt)
	// raw length smaller than the values
	q = p
	q.raw = binary.AppendUvarint(nil, 1)
	wantError(t, "raw length too small", q.join(), encoding.ErrCorrupt)
	// codes shorter or longer than the code lengths say
	q = p
	q.codes = p.codes[:len(p.codes)-1]
	wantError(t, "codes short", q.join(), encoding.ErrCorrupt)
	q.codes = append(slices.Clone(p.codes), 0)
	wantError(t, "codes long", q.join(), encoding.ErrCorrupt)
	// a code beyond the table, at every position
	nsym := 0
	for _, c := range p.table[:8] {
		nsym += int(c)
	}
	for i := range p.codes {
		if p.codes[i] == 0xff || (i > 0 && p.codes[i-1] == 0xff) {
			continue
		}
		q = p
		q.codes = slices.Clone(p.codes)
		q.codes[i] = byte(nsym)
		wantError(t, fmt.Sprintf("code %d at %d", nsym, i), q.join(), encoding.ErrCorrupt)
	}
	// a trailing escape: the last code of a value replaced by 0xff
	q = p
	q.codes = slices.Clone(p.codes)
	q.codes[len(q.codes)-1] = 0xff
	if q.codes[len(q.codes)-2] != 0xff {
		wantError(t, "trailing escape", q.join(), encoding.ErrCorrupt)
	}
	// code lengths child of the wrong type or row count
	q = p
	q.child = encodingtest.Child(t, []uint64{1, 2, 3, 4, 5, 6}, encodingtest.T(encoding.KindTrivial))
	wantError(t, "uint64 code lengths", q.join(), encoding.ErrCorrupt)
	q.child = encodingtest.Child(t, []uint32{1, 2, 3}, encodingtest.T(encoding.KindTrivial))
	wantError(t, "3 code lengths", q.join(), encoding.ErrCorrupt)
	// a binary node of another physical type
	q = p
	q.prefix = slices.Clone(p.prefix)
	q.prefix[1] = byte(encoding.Int32)
	if _, err := encoding.Open(q.join(), all.Options()); err == nil {
		t.Fatal("int32 FSST node opened")
	}
}

// TestHostileTrailingEscape builds values whose code strings end in runs
// of 0xff of every length: even runs are escape pairs, odd ones dangle.
func TestHostileTrailingEscape(t *testing.T) {
	for run := 1; run <= 6; run++ {
		for _, lead := range [][]byte{nil, {0}, {0xff, 'a'}} {
			codes := append(slices.Clone(lead), bytes.Repeat([]byte{0xff}, run)...)
			var table [8]byte
			table[0] = 1 // one symbol "a"
			body := append(table[:], 'a')
			body = binary.AppendUvarint(body, 0)
			body = append(body, encodingtest.Child(t, []uint32{uint32(len(codes))}, encodingtest.T(encoding.KindTrivial))...)
			body = append(body, codes...)
			node := encodingtest.Node(kFSST, encoding.Binary, 1, body)
			// fix the raw length: decode what the codes would give
			err := encodingtest.Exercise(node, all.Options())
			dangling := run%2 == 1
			if dangling {
				if !errors.Is(err, encoding.ErrCorrupt) {
					t.Fatalf("codes %x: got %v, want ErrCorrupt", codes, err)
				}
				continue
			}
			// even runs decode; only the raw length (0 here) is wrong
			if !errors.Is(err, encoding.ErrCorrupt) {
				t.Fatalf("codes %x: got %v, want the raw length mismatch", codes, err)
			}
		}
	}
}

func TestLimits(t *testing.T) {
	vals := encodingtest.GenBytes(encodingtest.ShapeRandom, 5000, 1)
	node := encode(t, vals)
	opts := all.Options()
	opts.MaxBytes = 10_000
	_, err := encoding.Open(node, opts)
	if !errors.Is(err, encoding.ErrLimit) {
		t.Fatalf("MaxBytes 10000: got %v, want ErrLimit", err)
	}
}

// TestSelection checks what the default policy picks for typical binary
// columns.
func TestSelection(t *testing.T) {
	words := []string{"furiously", "carefully", "quickly", "blithely", "regular", "final", "ironic",
		"pending", "express", "packages", "deposits", "accounts", "requests", "theodolites", "sleep",
		"haggle", "nag", "cajole", "among", "the", "about", "above", "slyly", "fluffily", "bold"}
	r := rand.New(rand.NewPCG(1, 2))
	text := func(n int) encoding.Bytes {
		var b encoding.Bytes
		for i := 0; i < n; i++ {
			var s []byte
			for j := 0; j < 2+r.IntN(5); j++ {
				if j > 0 {
					s = append(s, ' ')
				}
				s = append(s, words[r.IntN(len(words))]...)
			}
			b.Append(s)
		}
		return b
	}
	modes := []string{"AIR", "REG AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"}
	lowCard := func(n int) encoding.Bytes {
		var b encoding.Bytes
		for i := 0; i < n; i++ {
			b.Append([]byte(modes[r.IntN(len(modes))]))
		}
		return b
	}
	cases := []struct {
		name string
		vals encoding.Bytes
		want encoding.Kind
	}{
		{"text-8192", text(8192), kFSST},
		{"text-1000", text(1000), kFSST},
		{"shipmode-8192", lowCard(8192), encoding.KindDictionary},
		// Bigrams of 26 letters give FSST codes shorter than the bytes, and
		// on 1.9 KB zstd's frame setup costs more than it saves.
		{"short-random", encodingtest.GenBytes(encodingtest.ShapeRandom, 100, 1), kFSST},
	}
	for _, c := range cases {
		node, tree, err := all.Policy().Encode(nil, c.vals)
		if err != nil {
			t.Fatal(err)
		}
		if tree.Kind != c.want {
			t.Errorf("%s: chose %v, want %v", c.name, tree, c.want)
		}
		if tree.Kind == kFSST && tree.Zstd {
			t.Errorf("%s: FSST node compressed", c.name)
		}
		rd, err := encoding.OpenBinary(node, 0, all.Options())
		if err != nil {
			t.Fatal(err)
		}
		encodingtest.CheckBinaryReader(t, rd, c.vals, 1)
	}
	// FSST is never chosen below the root (here: as a dictionary alphabet).
	p := all.Policy()
	p.Allow = map[encoding.Kind]bool{kFSST: true, encoding.KindTrivial: true, encoding.KindFixedBitWidth: true}
	_, tree, err := p.EncodeSequence(nil, text(3000), 1, encoding.KindDictionary, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tree.Kind == kFSST {
		t.Errorf("FSST chosen at depth 1 under a dictionary: %v", tree)
	}
	// ... but it is for the values of a Nullable root.
	_, tree, err = p.EncodeSequence(nil, text(3000), 1, encoding.KindNullable, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tree.Kind != kFSST {
		t.Errorf("values of a Nullable root encoded as %v, want FSST", tree)
	}
	// Optimizing for size, the smaller of FSST and Trivial+zstd keeps the
	// text; for speed, FSST does.
	vals := text(8192)
	sizeOf := func(force *encoding.Tree) int {
		p := all.Policy()
		p.Optimize = encoding.OptimizeSize
		p.Force = force
		node, tree, err := p.Encode(nil, vals)
		if err != nil || tree.Kind != force.Kind {
			t.Fatalf("forced %v: %v, %v", force, tree, err)
		}
		return len(node)
	}
	smaller := kFSST
	if sizeOf(&encoding.Tree{Kind: encoding.KindTrivial, Zstd: true}) < sizeOf(&encoding.Tree{Kind: kFSST}) {
		smaller = encoding.KindTrivial
	}
	for _, c := range []struct {
		opt  encoding.Optimize
		want encoding.Kind
	}{{encoding.OptimizeSize, smaller}, {encoding.OptimizeSpeed, kFSST}} {
		p = all.Policy()
		p.Optimize = c.opt
		_, tree, err = p.Encode(nil, vals)
		if err != nil {
			t.Fatal(err)
		}
		if tree.Kind != c.want {
			t.Errorf("%v: chose %v, want %v", c.opt, tree, c.want)
		}
	}
}

// TestFilterOperands checks FilterBinary (which compares on the codes)
// against BytesPred.Match with operands next to the values: equal,
// shortened, extended, one byte off, empty.
func TestFilterOperands(t *testing.T) {
	for name, vals := range special() {
		t.Run(name, func(t *testing.T) {
			node := encode(t, vals)
			r, err := encoding.OpenBinary(node, 0, all.Options())
			if err != nil {
				t.Fatal(err)
			}
			f := r.(encoding.BinaryFilterer)
			n := vals.Len()
			rng := rand.New(rand.NewPCG(9, uint64(n)))
			var ops [][]byte
			ops = append(ops, nil, []byte{0xff, 0xff, 0xff}, []byte{0})
			for i := 0; i < 12 && n > 0; i++ {
				v := vals.Value(rng.IntN(n))
				ops = append(ops, v, append(slices.Clone(v), 'a'), append(slices.Clone(v), 0))
				if len(v) > 0 {
					k := rng.IntN(len(v))
					up, down := slices.Clone(v), slices.Clone(v)
					up[k]++
					down[k]--
					ops = append(ops, v[:len(v)-1], v[:k], up, down)
				}
			}
			for _, a := range ops {
				for _, b := range ops[:4] {
					for op := encoding.OpEq; op <= encoding.OpPrefix; op++ {
						p := &encoding.BytesPred{Op: op, A: a, B: b}
						if op == encoding.OpIn {
							p.Set = [][]byte{a}
						}
						sel := encoding.NewBitmap(n, true)
						r.Reset()
						if err := f.FilterBinary(p, n, sel); err != nil {
							t.Fatal(err)
						}
						for i := 0; i < n; i++ {
							if sel.Get(i) != p.Match(vals.Value(i)) {
								t.Fatalf("%v %q %q on %q: got %v", op, a, b, vals.Value(i), sel.Get(i))
							}
						}
					}
				}
			}
		})
	}
}

// TestTightBuffers reads into destinations whose capacity is exactly the
// values' size (plus a little): the last values, which do not fit the
// kernel's worst case, go through scratch, and the buffer is not replaced.
func TestTightBuffers(t *testing.T) {
	for name, vals := range special() {
		t.Run(name, func(t *testing.T) {
			node := encode(t, vals)
			r, err := encoding.OpenBinary(node, 0, all.Options())
			if err != nil {
				t.Fatal(err)
			}
			n := vals.Len()
			for _, extra := range []int{0, 1, 64, 1000} {
				r.Reset()
				out := encoding.Bytes{Offsets: make([]int32, 0, n+1), Data: make([]byte, 0, len(vals.Data)+extra)}
				data := unsafe.SliceData(out.Data)
				if err := r.ReadBinary(&out, n); err != nil {
					t.Fatal(err)
				}
				for i := 0; i < n; i++ {
					if !bytes.Equal(out.Value(i), vals.Value(i)) {
						t.Fatalf("value %d = %q, want %q", i, out.Value(i), vals.Value(i))
					}
				}
				if n > 0 && len(vals.Data) > 0 && unsafe.SliceData(out.Data) != data {
					t.Fatalf("extra %d: the output buffer was replaced", extra)
				}
			}
		})
	}
}
