package strata_test

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata"
	"strata/encoding"
)

// TestNegativeWriteOptions: a negative StripeBytes, ChunkValues,
// ChunkBytes, Parallel or StripeGroup is refused by Create and NewWriter,
// naming the option, and Create leaves no file, where the value took the
// default without a word; 0 and small positive values write files that
// read back, and a negative ChunkTarget keeps its meaning (every chunk
// cut at ChunkValues).
func TestNegativeWriteOptions(t *testing.T) {
	cases := []struct {
		name string
		set  func(*strata.WriteOptions, int)
	}{
		{"StripeBytes", func(o *strata.WriteOptions, v int) { o.StripeBytes = v }},
		{"ChunkValues", func(o *strata.WriteOptions, v int) { o.ChunkValues = v }},
		{"ChunkBytes", func(o *strata.WriteOptions, v int) { o.ChunkBytes = v }},
		{"Parallel", func(o *strata.WriteOptions, v int) { o.Parallel = v }},
		{"StripeGroup", func(o *strata.WriteOptions, v int) { o.StripeGroup = v }},
	}
	sch := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64}, {Name: "s", Type: arrow.BinaryTypes.String}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	want := make([]int64, 3000)
	for i := range want {
		want[i] = int64(i)
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.StringBuilder).Append(strings.Repeat("x", i%7))
	}
	rec := b.NewRecord()
	defer rec.Release()
	dir := t.TempDir()
	write := func(name string, o strata.WriteOptions) {
		t.Helper()
		path := filepath.Join(dir, "ok.strata")
		w, err := strata.Create(path, sch, &o)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := w.Write(rec); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := w.Close(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		f, err := strata.Open(path)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		defer f.Close()
		if got := scanA(t, f, strata.ScanOptions{Columns: []string{"a"}}); !slices.Equal(got, want) {
			t.Errorf("%s: read %d values, want 0..2999 in order", name, len(got))
		}
	}
	for _, c := range cases {
		for _, v := range []int{-1, math.MinInt} {
			var o strata.WriteOptions
			c.set(&o, v)
			path := filepath.Join(dir, "bad.strata")
			_, err := strata.Create(path, sch, &o)
			if !errors.Is(err, encoding.ErrInvalidArgument) || !strings.Contains(err.Error(), "Options."+c.name+" is -") {
				t.Errorf("Create, %s %d: %v, want an invalid argument naming it", c.name, v, err)
			}
			if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("Create, %s %d: a refused file is left behind (%v)", c.name, v, err)
			}
			_, err = strata.NewWriter(&bytes.Buffer{}, sch, &o)
			if !errors.Is(err, encoding.ErrInvalidArgument) || !strings.Contains(err.Error(), "Options."+c.name+" is -") {
				t.Errorf("NewWriter, %s %d: %v, want an invalid argument naming it", c.name, v, err)
			}
		}
		for _, v := range []int{0, 1, 1000} {
			var o strata.WriteOptions
			c.set(&o, v)
			write(c.name, o)
		}
	}
	write("ChunkTarget -1", strata.WriteOptions{ChunkTarget: -1, ChunkValues: 100})
	write("ChunkTarget MinInt", strata.WriteOptions{ChunkTarget: math.MinInt})
}
