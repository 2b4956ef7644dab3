package main

import (
	"slices"
	"testing"
)

// TestEncodingOrderTies: inspect lists a column's encodings by bytes, most
// first, and ties by name, whatever order the map gives them in.
func TestEncodingOrderTies(t *testing.T) {
	enc := map[string]int64{"Trivial": 88, "FixedBitWidth": 926169, "Constant": 88, "SharedDictionary": 1913, "Varint": 88}
	want := []string{"FixedBitWidth", "SharedDictionary", "Constant", "Trivial", "Varint"}
	for range 50 {
		if got := encodingOrder(enc); !slices.Equal(got, want) {
			t.Fatalf("order %v, want %v", got, want)
		}
	}
}
