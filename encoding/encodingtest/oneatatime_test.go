package encodingtest_test

import (
	"fmt"
	"testing"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/encodingtest"
)

// TestBinaryOneAtATimeEveryShape reads text of several shapes, encoded as
// selection encodes it (FSST, Dictionary, FieldText, FrontCoding,
// DigitText, HexText, Trivial…, with and without zstd), a value per call
// into one buffer: every binary reader must grow it geometrically, as
// Constant's and RLE's did not (a file of one-value chunks scanned
// quadratically).
func TestBinaryOneAtATimeEveryShape(t *testing.T) {
	const n = 20000
	shapes := map[string]func(i int) string{
		"random":  func(i int) string { return fmt.Sprintf("%x-%d", uint64(i)*0x9e3779b97f4a7c15, i) },
		"lowcard": func(i int) string { return fmt.Sprintf("city%d", (i*7)%13) },
		"sorted":  func(i int) string { return fmt.Sprintf("prefix/common/%08d", i) },
		"digits":  func(i int) string { return fmt.Sprintf("%05d", (i*37)%99999) },
		"hex":     func(i int) string { return fmt.Sprintf("%08x-%04x", uint32(i)*2654435761, i%65536) },
		"nums":    func(i int) string { return fmt.Sprintf("-%d.%02d", i%1000, i%100) },
		"fields":  func(i int) string { return fmt.Sprintf("GET /api/%d/item/%d HTTP", i%50, i) },
	}
	for name, f := range shapes {
		var vals encoding.Bytes
		for i := range n {
			vals.Append([]byte(f(i)))
		}
		for _, z := range []bool{false, true} {
			p := all.Policy()
			p.Zstd = z
			node, tree, err := p.Encode(nil, vals)
			if err != nil {
				t.Fatal(err)
			}
			t.Run(fmt.Sprint(name, z, tree), func(t *testing.T) {
				encodingtest.CheckBinaryOneAtATime(t, node, &vals, 16<<20)
			})
		}
	}
}
