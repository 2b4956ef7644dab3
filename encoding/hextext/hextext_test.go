package hextext_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/encodingtest"
)

// hexShapes returns n values of each shape HexText is for: lowercase UUIDs,
// 40-digit hashes, uppercase MAC addresses of one vendor, 16-digit ids and
// ISO 8601 timestamps (digits and separators only).
func hexShapes(n int) map[string]*encoding.Bytes {
	r := rand.New(rand.NewPCG(1, 2))
	out := map[string]*encoding.Bytes{}
	add := func(name string, f func(i int) string) {
		var b encoding.Bytes
		for i := 0; i < n; i++ {
			b.Append([]byte(f(i)))
		}
		out[name] = &b
	}
	add("uuid", func(int) string {
		return fmt.Sprintf("%08x-%04x-4%03x-%04x-%012x", r.Uint32(), r.IntN(1<<16), r.IntN(1<<12),
			0x8000|r.IntN(1<<14), r.Uint64N(1<<48))
	})
	add("sha1", func(int) string { return fmt.Sprintf("%016x%016x%08x", r.Uint64(), r.Uint64(), r.Uint32()) })
	add("mac", func(int) string {
		return fmt.Sprintf("00:1B:21:%02X:%02X:%02X", r.IntN(256), r.IntN(256), r.IntN(256))
	})
	add("id16", func(int) string { return fmt.Sprintf("%016x", r.Uint64()) })
	base := time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC)
	add("isotime", func(i int) string {
		return base.Add(time.Duration(i*37+r.IntN(30)) * time.Second).Format(time.RFC3339)
	})
	return out
}

// TestShapes checks that selection for size stores each shape as HexText
// and that it round-trips, value by value.
func TestShapes(t *testing.T) {
	p := *all.Policy()
	p.Optimize = encoding.OptimizeSize
	for name, vals := range hexShapes(5000) {
		node, tree, err := p.Encode(nil, vals)
		if err != nil {
			t.Fatal(name, err)
		}
		if tree.Kind != encoding.KindHexText {
			t.Errorf("%s: chose %v", name, tree)
		}
		r, err := encoding.OpenBinary(node, 0, all.Options())
		if err != nil {
			t.Fatal(name, err)
		}
		var got encoding.Bytes
		if err := r.ReadBinary(&got, vals.Len()); err != nil {
			t.Fatal(name, err)
		}
		for i := 0; i < vals.Len(); i++ {
			if string(got.Value(i)) != string(vals.Value(i)) {
				t.Fatalf("%s: value %d is %q, want %q", name, i, got.Value(i), vals.Value(i))
			}
		}
	}
}

// BenchmarkDecode decodes 16 Ki values of each shape stored as HexText,
// FSST and Trivial+zstd, reporting ns and bytes a value:
//
//	go test -run XXX -bench Decode ./encoding/hextext
func BenchmarkDecode(b *testing.B) {
	shapes := hexShapes(16384)
	for _, name := range []string{"uuid", "sha1", "mac", "id16", "isotime"} {
		encodingtest.BenchBinaryDecode(b, name+"/", shapes[name], encoding.KindHexText, encoding.KindFSST, encoding.KindTrivial)
	}
}
