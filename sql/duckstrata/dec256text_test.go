package duckstrata_test

import (
	"context"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata"
	"strata/interop"
	"strata/sql/duckstrata"
)

// TestPushdownDecimal256Text: a decimal256 of over 38 digits is stored
// as its decimal text, which DuckDB reads as VARCHAR and compares as text,
// while Strata's filters compare such a column by number (=, != and IN)
// or refuse (<, >, LIKE, ...). Pushdown leaves its comparisons to DuckDB
// (IS NULL excepted), so each query gives DuckDB's own rows without
// error: e50_2 != '05.00' keeps 5.00, e50_2 > '5' compares text.
func TestPushdownDecimal256Text(t *testing.T) {
	dir := t.TempDir()
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "e50_2", Type: &arrow.Decimal256Type{Precision: 50, Scale: 2}, Nullable: true},
	}, nil)
	minV, _ := new(big.Int).SetString("-"+strings.Repeat("9", 50), 10)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	for i, v := range []*big.Int{minV, big.NewInt(-1), big.NewInt(500), big.NewInt(1234), nil} {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		if v == nil {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.Decimal256Builder).Append(decimal256.FromBigInt(v))
		}
	}
	rec := b.NewRecord()
	defer rec.Release()
	src := filepath.Join(dir, "e.arrow")
	out, err := os.Create(src)
	if err != nil {
		t.Fatal(err)
	}
	w, err := ipc.NewFileWriter(out, ipc.WithSchema(sch))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	out.Close()
	// stored as import stores it
	r, err := interop.Open(src, interop.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	md, err := interop.SourceMetadata(r)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "e.strata")
	sw, err := strata.Create(p, r.Schema(), &strata.WriteOptions{Metadata: md})
	if err != nil {
		t.Fatal(err)
	}
	for {
		rb, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := sw.Write(rb); err != nil {
			t.Fatal(err)
		}
	}
	if err := sw.Close(); err != nil {
		t.Fatal(err)
	}

	_, conn := openDB(t)
	ctx := context.Background()
	for _, c := range []struct {
		where string
		push  bool
	}{
		{"e50_2 > '5'", false},
		{"e50_2 < '-1'", false},
		{"e50_2 = '5.00'", false},
		{"e50_2 != '05.00'", false},
		{"e50_2 IN ('5', '12.34')", false},
		{"e50_2 = 'abc'", false},
		{"e50_2 LIKE '-0%'", false},
		{"e50_2 IS NULL", true},
	} {
		q := "SELECT id, e50_2 FROM " + quoted(p) + " WHERE " + c.where + " ORDER BY id"
		want, wantErr := tryRows(conn, q)
		if wantErr != nil {
			t.Fatalf("%s: %v", q, wantErr)
		}
		rq, pu, err := duckstrata.Pushdown(ctx, conn, q, duckstrata.WithPushAll())
		if err != nil {
			t.Fatalf("%s: %v", c.where, err)
		}
		got, err := tryRows(conn, rq)
		if err != nil {
			t.Errorf("%s\n=> %s\n%v", c.where, rq, err)
			continue
		}
		sameRows(t, c.where+"\n=> "+rq, got, want)
		if pushed := len(pu) == 1 && pu[0].Filter != ""; pushed != c.push {
			t.Errorf("%s: pushed %+v, want pushed %v", c.where, pu, c.push)
		}
	}
}
