package dod_test

import (
	"encoding/binary"
	"fmt"
	"testing"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/dod"
	"strata/internal/bitpack"
)

// scalarDecode is a value-at-a-time DeltaOfDelta decoder written straight
// from the layout in docs/FORMAT.md: it parses one header at a time and
// extracts every second-order difference on its own with bitpack.Get. It is
// the reference the batch decoder is checked against and the baseline of
// seed experiment A (batch decode against a value-at-a-time loop).
func scalarDecode(body []byte, n int, dst []int64) {
	bs64, k := binary.Uvarint(body)
	bs := int(bs64)
	p := k
	var prevFirst, prevD1 uint64
	prevN := 0
	out := 0
	for b := 0; out < n; b++ {
		m := min(bs, n-b*bs)
		tag := body[p]
		p++
		pred := prevFirst + uint64(prevN)*prevD1
		first, d1, dmin, w := pred, prevD1, uint64(0), 0
		if tag != 0x80 {
			w = int(tag)
			v, k := binary.Varint(body[p:])
			p += k
			first = uint64(v)
			if b > 0 {
				first += pred
			}
			if m >= 2 {
				v, k = binary.Varint(body[p:])
				p += k
				d1 = prevD1 + uint64(v)
			}
			if m >= 3 {
				v, k = binary.Varint(body[p:])
				p += k
				dmin = uint64(v)
			}
			if m >= 2 {
				_, k = binary.Uvarint(body[p:])
				p += k
				_, k = binary.Varint(body[p:])
				p += k
			}
		}
		payload := body[p:]
		if m >= 3 {
			p += bitpack.Bytes(m-2, w)
		}
		val, delta := first, d1
		for i := 0; i < m; i++ {
			switch i {
			case 0:
			case 1:
				val += delta
			default:
				delta += dmin + bitpack.Get(payload, w, i-2)
				val += delta
			}
			dst[out] = int64(val)
			out++
		}
		prevFirst, prevD1, prevN = first, d1, m
	}
}

// workloads returns timestamp sequences of the three kinds experiment A
// reports: a regular interval, millisecond jitter and an irregular series.
func workloads(n int) map[string][]int64 {
	irregular := make([]int64, n)
	t := int64(1451606400_000000000)
	for i := range irregular {
		irregular[i] = t
		t += int64(1+i*7919%13) * 1e9 // steps of 1 to 13 s
	}
	return map[string][]int64{
		"regular": timestamps(n, 10e9, 0, 1),
		"jitter":  timestamps(n, 10e9, 1e6, 1),
		"irreg":   irregular,
	}
}

func TestScalarReference(t *testing.T) {
	for name, vals := range workloads(10_000) {
		body := dod.AppendBody(nil, vals, dod.DefaultBlockSize)
		got := make([]int64, len(vals))
		scalarDecode(body, len(vals), got)
		for i := range vals {
			if got[i] != vals[i] {
				t.Fatalf("%s: scalar value %d = %d, want %d", name, i, got[i], vals[i])
			}
		}
	}
}

// BenchmarkDecode is seed experiment A: the batch decoder (block-wide
// unpack kernels, then two running sums) against the value-at-a-time
// reference, on 64 Ki timestamps per op:
//
//	go test -run '^$' -bench Decode ./encoding/dod
func BenchmarkDecode(b *testing.B) {
	const n = 1 << 16
	for _, name := range []string{"regular", "jitter", "irreg"} {
		vals := workloads(n)[name]
		body := dod.AppendBody(nil, vals, dod.DefaultBlockSize)
		node := encoding.AppendHeader(nil, encoding.KindDeltaOfDelta, encoding.Int64, n)
		node = append(node, body...)
		dst := make([]int64, n)
		b.Run(fmt.Sprintf("%s/batch", name), func(b *testing.B) {
			d, err := encoding.OpenTyped[int64](node, 0, all.Options())
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(8 * n)
			b.ReportMetric(float64(8*len(node))/n, "bits/value")
			for i := 0; i < b.N; i++ {
				d.Reset()
				if err := d.Read(dst); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("%s/scalar", name), func(b *testing.B) {
			b.SetBytes(8 * n)
			for i := 0; i < b.N; i++ {
				scalarDecode(body, n, dst)
			}
		})
	}
}
