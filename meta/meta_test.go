package meta

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"strata/encoding"
	"strata/stats"
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

// sampleStripes returns stripe statistics of an int64 stream 1 and a
// binary stream 4, a stripe with neither, and inline bloom filters on
// stream 4 in the last stripe, as files written before stats.bloom hold.
func sampleStripes() []StripeStats {
	i64 := func(lo, hi int64) stats.ColumnStats {
		return stats.ColumnStats{Type: encoding.Int64, Rows: 3, Min: stats.Int(encoding.Int64, lo), Max: stats.Int(encoding.Int64, hi), HasMinMax: true}
	}
	str := func(lo, hi string) stats.ColumnStats {
		return stats.ColumnStats{Type: encoding.Binary, Rows: 3, Nulls: 1, Min: stats.Bytes([]byte(lo)), Max: stats.Bytes([]byte(hi)), HasMinMax: true}
	}
	return []StripeStats{
		{Rows: 3, Columns: map[int]stats.ColumnStats{1: i64(-5, 9), 4: str("a", "k")}, Blooms: map[int][]byte{}},
		{Rows: 0, Columns: map[int]stats.ColumnStats{}, Blooms: map[int][]byte{}},
		{Rows: 3, Columns: map[int]stats.ColumnStats{1: i64(10, 10), 4: str("m", "z")}, Blooms: map[int][]byte{4: {1, 2, 3}, 7: {9}}},
	}
}

// TestStripeStatsSection: the section kept encoded answers each stripe's
// statistics and inline filters as the decoded maps do, and a cut
// section is refused when it is parsed.
func TestStripeStatsSection(t *testing.T) {
	want := sampleStripes()
	b := MarshalStripeStats(want)
	sec, err := ParseStripeStats(b)
	if err != nil {
		t.Fatal(err)
	}
	if sec.Len() != len(want) {
		t.Fatalf("%d stripes, want %d", sec.Len(), len(want))
	}
	for i, w := range want {
		got, err := sec.Stripe(i)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, w) {
			t.Fatalf("stripe %d: %+v, want %+v", i, got, w)
		}
		for id := 0; id < 9; id++ {
			cs, ok, err := sec.Column(i, id)
			wcs, wok := w.Columns[id]
			if err != nil || ok != wok || !reflect.DeepEqual(cs, wcs) {
				t.Fatalf("stripe %d, stream %d: %+v %v %v, want %+v %v", i, id, cs, ok, err, wcs, wok)
			}
			bl, ok, err := sec.Bloom(i, id)
			wbl, wok := w.Blooms[id]
			if err != nil || ok != wok || !bytes.Equal(bl, wbl) {
				t.Fatalf("stripe %d, bloom of stream %d: %v %v %v, want %v %v", i, id, bl, ok, err, wbl, wok)
			}
		}
	}
	if all, err := UnmarshalStripeStats(b); err != nil || !reflect.DeepEqual(all, want) {
		t.Fatalf("UnmarshalStripeStats: %v, %v", all, err)
	}
	for n := 0; n < len(b); n++ {
		if _, err := ParseStripeStats(b[:n]); !errors.Is(err, encoding.ErrCorrupt) {
			t.Fatalf("section cut to %d of %d bytes: %v", n, len(b), err)
		}
	}
	// Stream ids must ascend within a stripe: lookups stop past the id.
	unsorted := Counted(1, []byte{1, 2, 4, 2, 0, 0, 1, 2, 0, 0, 0})
	if _, err := ParseStripeStats(unsorted); !errors.Is(err, encoding.ErrCorrupt) || !strings.Contains(err.Error(), "stream 1 after stream 4") {
		t.Fatalf("ids out of order: %v", err)
	}
}

// TestStripeStatsDamagedBlob: a ColumnStats blob that does not decode in
// a well-framed section is found when that stripe's statistics are asked
// for, as an error naming the stripe and stream; the other stripes and
// streams still answer.
func TestStripeStatsDamagedBlob(t *testing.T) {
	ss := sampleStripes()
	good := ss[2].Columns[1]
	blob := good.AppendBinary(nil)
	// Swap min and max: the blob keeps its length, framing stays valid.
	bad := stats.ColumnStats{Type: encoding.Int64, Rows: 3, Min: stats.Int(encoding.Int64, 11), Max: stats.Int(encoding.Int64, 10), HasMinMax: true}
	badBlob := bad.AppendBinary(nil)
	if len(badBlob) != len(blob) {
		t.Fatalf("blobs of %d and %d bytes", len(badBlob), len(blob))
	}
	b := MarshalStripeStats(ss)
	at := bytes.LastIndex(b, blob)
	copy(b[at:], badBlob)
	sec, err := ParseStripeStats(b)
	if err != nil {
		t.Fatalf("framing is intact: %v", err)
	}
	if _, _, err := sec.Column(2, 1); !errors.Is(err, encoding.ErrCorrupt) || !strings.Contains(err.Error(), "stripe 2 stats, stream 1") {
		t.Fatalf("damaged blob: %v", err)
	}
	if _, err := sec.Stripe(2); !errors.Is(err, encoding.ErrCorrupt) || !strings.Contains(err.Error(), "stripe 2 stats, stream 1") {
		t.Fatalf("damaged blob, whole stripe: %v", err)
	}
	if _, err := UnmarshalStripeStats(b); !errors.Is(err, encoding.ErrCorrupt) {
		t.Fatalf("UnmarshalStripeStats of a damaged blob: %v", err)
	}
	if cs, ok, err := sec.Column(2, 4); err != nil || !ok || !reflect.DeepEqual(cs, ss[2].Columns[4]) {
		t.Fatalf("the intact stream of the damaged stripe: %+v %v %v", cs, ok, err)
	}
	if cs, ok, err := sec.Column(0, 1); err != nil || !ok || !reflect.DeepEqual(cs, ss[0].Columns[1]) {
		t.Fatalf("an intact stripe: %+v %v %v", cs, ok, err)
	}
}

// FuzzStripeStats: any bytes parse to an error or to a section whose
// every stripe decodes (or fails with ErrCorrupt or ErrUnsupported, for a
// blob of its own) to what its lookups answer, and what decodes
// re-encodes to a section that parses to the same.
//
//	go test -run='^$' -fuzz=FuzzStripeStats -fuzztime=60s ./meta
func FuzzStripeStats(f *testing.F) {
	f.Add(MarshalStripeStats(sampleStripes()))
	f.Add([]byte{1, 1, 1, 1, 2, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		sec, err := ParseStripeStats(b)
		if err != nil {
			if !errors.Is(err, encoding.ErrCorrupt) {
				t.Fatalf("error %v is not ErrCorrupt", err)
			}
			return
		}
		var all []StripeStats
		for i := 0; i < sec.Len(); i++ {
			s, err := sec.Stripe(i)
			if err != nil {
				if !errors.Is(err, encoding.ErrCorrupt) && !errors.Is(err, encoding.ErrUnsupported) {
					t.Fatalf("stripe %d: error %v is neither ErrCorrupt nor ErrUnsupported", i, err)
				}
				return
			}
			for id, want := range s.Columns {
				if got, ok, err := sec.Column(i, id); err != nil || !ok || !reflect.DeepEqual(got, want) {
					t.Fatalf("stripe %d, stream %d: %+v %v %v, want %+v", i, id, got, ok, err, want)
				}
			}
			for id, want := range s.Blooms {
				if got, ok, err := sec.Bloom(i, id); err != nil || !ok || !bytes.Equal(got, want) {
					t.Fatalf("stripe %d, bloom of stream %d: %v %v %v", i, id, got, ok, err)
				}
			}
			all = append(all, s)
		}
		again, err := UnmarshalStripeStats(MarshalStripeStats(all))
		if err != nil || len(again) != len(all) {
			t.Fatalf("re-encoding %d stripes: %d, %v", len(all), len(again), err)
		}
		for i := range all {
			if again[i].Rows != all[i].Rows || !reflect.DeepEqual(again[i].Blooms, all[i].Blooms) || len(again[i].Columns) != len(all[i].Columns) {
				t.Fatalf("stripe %d re-encoded: %+v, want %+v", i, again[i], all[i])
			}
		}
	})
}

// TestBloomIndexRef: the index kept encoded answers each (stripe,
// stream) as the decoded maps do, and refuses ids out of order.
func TestBloomIndexRef(t *testing.T) {
	refs := []map[int]BloomRef{
		{3: {Off: 0, Len: 40, Sum: 7}, 9: {Off: 40, Len: 1000, Sum: 0xffffffff}},
		{},
		{3: {Off: 1040, Len: 8, Sum: 1}},
	}
	x, err := ParseBloomIndex(MarshalBloomIndex(refs), 1048)
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range refs {
		for id := 0; id < 11; id++ {
			got, ok := x.Ref(i, id)
			want, wok := m[id]
			if ok != wok || got != want {
				t.Fatalf("stripe %d, stream %d: %+v %v, want %+v %v", i, id, got, ok, want, wok)
			}
		}
	}
	unsorted := Counted(1, AppendBloomIndex(nil, nil))
	unsorted = append(unsorted[:1], 2, 9, 0, 1, 0, 0, 0, 0, 3, 1, 1, 0, 0, 0, 0)
	if _, err := ParseBloomIndex(unsorted, 10); !errors.Is(err, encoding.ErrCorrupt) || !strings.Contains(err.Error(), "stream 3 after stream 9") {
		t.Fatalf("ids out of order: %v", err)
	}
}
