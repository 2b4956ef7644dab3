package encoding

import (
	"bytes"
	"testing"
)

// TestAppendRepeated checks AppendRepeated against Append, value by value,
// after earlier values, with and without reserved capacity.
func TestAppendRepeated(t *testing.T) {
	for _, v := range [][]byte{nil, []byte("x"), []byte("abc"), bytes.Repeat([]byte("0123456789"), 30)} {
		for _, n := range []int{0, 1, 2, 3, 17, 1000} {
			for _, reserve := range []bool{false, true} {
				var got, want Bytes
				got.Append([]byte("earlier"))
				want.Append([]byte("earlier"))
				if reserve {
					got.Data = append(make([]byte, 0, len(got.Data)+n*len(v)), got.Data...)
					got.Offsets = append(make([]int32, 0, len(got.Offsets)+n), got.Offsets...)
				}
				got.AppendRepeated(v, n)
				for range n {
					want.Append(v)
				}
				if got.Len() != want.Len() || !bytes.Equal(got.Data, want.Data) {
					t.Fatalf("len %d, n %d: %d values, %q", len(v), n, got.Len(), got.Data)
				}
				for i := range want.Len() {
					if !bytes.Equal(got.Value(i), want.Value(i)) {
						t.Fatalf("len %d, n %d: value %d = %q, want %q", len(v), n, i, got.Value(i), want.Value(i))
					}
				}
			}
		}
	}
}
