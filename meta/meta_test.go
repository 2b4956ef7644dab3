package meta

import (
	"errors"
	"reflect"
	"testing"

	"strata/encoding"
)

func TestBloomIndexRoundTrip(t *testing.T) {
	refs := []map[int]BloomRef{
		{3: {Off: 0, Len: 40, Sum: 7}, 9: {Off: 40, Len: 1000, Sum: 0xffffffff}},
		{},
		{3: {Off: 1040, Len: 8, Sum: 1}},
	}
	b := MarshalBloomIndex(refs)
	got, err := UnmarshalBloomIndex(b, 1048)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, refs) {
		t.Fatalf("got %v, want %v", got, refs)
	}
	// A section one byte short: the last filter lies outside it.
	if _, err := UnmarshalBloomIndex(b, 1047); !errors.Is(err, encoding.ErrCorrupt) {
		t.Fatalf("filter beyond the section: %v", err)
	}
	for n := 0; n < len(b); n++ {
		if _, err := UnmarshalBloomIndex(b[:n], 1048); !errors.Is(err, encoding.ErrCorrupt) {
			t.Fatalf("index cut to %d of %d bytes: %v", n, len(b), err)
		}
	}
}

// FuzzBloomIndex: any bytes decode to an error or to references that all
// lie inside the section, and what decodes re-encodes to the same bytes.
//
//	go test -run='^$' -fuzz=FuzzBloomIndex -fuzztime=60s ./meta
func FuzzBloomIndex(f *testing.F) {
	f.Add(MarshalBloomIndex([]map[int]BloomRef{{1: {Off: 0, Len: 4, Sum: 9}}, {2: {Off: 4, Len: 4}}}), int64(8))
	f.Add([]byte{1, 1, 0, 0, 0, 0, 0, 0, 0}, int64(0))
	f.Fuzz(func(t *testing.T, b []byte, size int64) {
		if size < 0 {
			size = -size
		}
		refs, err := UnmarshalBloomIndex(b, size)
		if err != nil {
			if !errors.Is(err, encoding.ErrCorrupt) {
				t.Fatalf("error %v is not ErrCorrupt", err)
			}
			return
		}
		for i, m := range refs {
			for id, r := range m {
				if r.Off < 0 || r.Len < 0 || r.Off+r.Len > size {
					t.Fatalf("stripe %d, stream %d: %+v outside %d bytes", i, id, r, size)
				}
			}
		}
		if again, err := UnmarshalBloomIndex(MarshalBloomIndex(refs), size); err != nil || !reflect.DeepEqual(again, refs) {
			t.Fatalf("re-encoding %v gave %v, %v", refs, again, err)
		}
	})
}
