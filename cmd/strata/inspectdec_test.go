package main

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestInspectDecimalBounds inspects a decimal of 9 digits and one of 25:
// the narrow one's bounds print with their scale, and the wide one has
// none. (Its statistics are the least and greatest 16-byte little-endian
// encodings in byte order, not in the numbers' order: the column below,
// -2.50 to 24.00, gave the hex of 18.00 and -2.50 as its bounds.)
func TestInspectDecimalBounds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dec.strata")
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "narrow", Type: &arrow.Decimal128Type{Precision: 9, Scale: 2}, Nullable: true},
		{Name: "wide", Type: &arrow.Decimal128Type{Precision: 25, Scale: 2}, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	for _, v := range []int64{100, 1800, 2400, -250, 2300} {
		b.Field(0).(*array.Decimal128Builder).Append(decimal128.FromI64(v))
		b.Field(1).(*array.Decimal128Builder).Append(decimal128.FromI64(v))
	}
	rec := b.NewRecord()
	defer rec.Release()
	writeStrata(t, path, rec)
	out, stderr, err := capture(t, "inspect", path, "--json")
	if err != nil {
		t.Fatalf("inspect: %v\n%s", err, stderr)
	}
	var rep struct {
		Columns []struct {
			Name    string
			Stripes []struct{ Min, Max *string }
			Chunks  []struct{ Min, Max *string } `json:"chunk_list"`
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("inspect --json: %v\n%s", err, out)
	}
	for _, c := range rep.Columns {
		type bounds = struct{ Min, Max *string }
		all := append(append([]bounds(nil), c.Stripes...), c.Chunks...)
		if len(all) == 0 {
			t.Fatalf("column %s: no stripes or chunks in\n%s", c.Name, out)
		}
		for _, s := range all {
			switch c.Name {
			case "narrow":
				if s.Min != nil && *s.Min != "-2.50" || s.Max != nil && *s.Max != "24.00" {
					t.Errorf("narrow: bounds %v %v, want -2.50 and 24.00", *s.Min, *s.Max)
				}
			case "wide":
				if s.Min != nil || s.Max != nil {
					t.Errorf("wide: bounds %q %q, want none", deref(s.Min), deref(s.Max))
				}
			}
		}
	}
}

func deref(s *string) string {
	if s == nil {
		return "<none>"
	}
	return *s
}
