package strata_test

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata"
	"strata/iox"
)

// TestFSSTColumns writes comment-like text columns, one without and one
// with nulls, checks the writer chose FSST for them, and compares full
// scans, filtered scans (decided on FSST's codes) and row lookups with the
// values written.
func TestFSSTColumns(t *testing.T) {
	words := strings.Fields("furiously carefully quickly blithely regular final ironic pending express " +
		"packages deposits accounts requests theodolites instructions sleep haggle nag cajole among the " +
		"about above slyly fluffily bold even special unusual silent ideas foxes pinto beans asymptotes")
	r := rand.New(rand.NewPCG(5, 6))
	const rows = 30000
	text := make([]string, rows)
	valid := make([]bool, rows)
	for i := range text {
		var sb strings.Builder
		for j := 0; j < 2+r.IntN(6); j++ {
			if j > 0 {
				sb.WriteByte(' ')
			}
			sb.WriteString(words[r.IntN(len(words))])
		}
		text[i] = sb.String()
		valid[i] = r.IntN(10) != 0
	}
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "comment", Type: arrow.BinaryTypes.String},
		{Name: "note", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	var buf bytes.Buffer
	w, err := strata.NewWriter(&buf, sch, nil)
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.NewGoAllocator()
	for start := 0; start < rows; start += 7000 {
		end := min(rows, start+7000)
		ib := array.NewInt64Builder(mem)
		cb := array.NewStringBuilder(mem)
		nb := array.NewStringBuilder(mem)
		for i := start; i < end; i++ {
			ib.Append(int64(i))
			cb.Append(text[i])
			if valid[i] {
				nb.Append(text[rows-1-i])
			} else {
				nb.AppendNull()
			}
		}
		rec := array.NewRecord(sch, []arrow.Array{ib.NewArray(), cb.NewArray(), nb.NewArray()}, int64(end-start))
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := strata.OpenSource(iox.Bytes(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := f.Inspect()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range rep.Columns {
		if c.Name != "id" && c.Encodings["FSST"]+c.Encodings["SharedFSST"] == 0 {
			t.Errorf("column %s not FSST-encoded: %v", c.Name, c.Trees)
		}
	}
	note := func(i int) (string, bool) { return text[rows-1-i], valid[i] }

	// scan collects (id, comment, note) rows matching where.
	scan := func(where string) map[int64][2]string {
		sc, err := f.Scan(strata.ScanOptions{Where: where})
		if err != nil {
			t.Fatal(err)
		}
		got := map[int64][2]string{}
		for {
			rec, err := sc.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			ids := rec.Column(0).(*array.Int64)
			cs := rec.Column(1).(*array.String)
			ns := rec.Column(2).(*array.String)
			for i := 0; i < int(rec.NumRows()); i++ {
				// (Value aliases the batch's buffer, which Release recycles)
				n := "<null>"
				if ns.IsValid(i) {
					n = strings.Clone(ns.Value(i))
				}
				got[ids.Value(i)] = [2]string{strings.Clone(cs.Value(i)), n}
			}
			rec.Release()
		}
		return got
	}
	pivot := text[rows/2]
	cases := []struct {
		where string
		match func(i int) bool
	}{
		{"", func(int) bool { return true }},
		{fmt.Sprintf("comment = '%s'", pivot), func(i int) bool { return text[i] == pivot }},
		{fmt.Sprintf("comment < '%s'", pivot), func(i int) bool { return text[i] < pivot }},
		{"comment LIKE 'furiously%'", func(i int) bool { return strings.HasPrefix(text[i], "furiously") }},
		{"comment BETWEEN 'c' AND 'f'", func(i int) bool { return text[i] >= "c" && text[i] <= "f" }},
		{"note LIKE 'the%'", func(i int) bool { n, ok := note(i); return ok && strings.HasPrefix(n, "the") }},
		{"note IS NULL", func(i int) bool { return !valid[i] }},
		{fmt.Sprintf("note != '%s'", pivot), func(i int) bool { n, ok := note(i); return ok && n != pivot }},
	}
	for _, c := range cases {
		got := scan(c.where)
		want := 0
		for i := 0; i < rows; i++ {
			if !c.match(i) {
				continue
			}
			want++
			g, ok := got[int64(i)]
			n, nv := note(i)
			if !nv {
				n = "<null>"
			}
			if !ok || g[0] != text[i] || g[1] != n {
				t.Fatalf("%q: row %d = %q (present %v), want %q, %q", c.where, i, g, ok, text[i], n)
			}
		}
		if len(got) != want {
			t.Fatalf("%q: %d rows, want %d", c.where, len(got), want)
		}
	}
	take := []int64{0, 1, 4242, 7000, 15001, rows - 1}
	rec, err := f.Take(take, []string{"comment", "note"})
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	cs, ns := rec.Column(0).(*array.String), rec.Column(1).(*array.String)
	for k, row := range take {
		n, nv := note(int(row))
		if cs.Value(k) != text[row] || ns.IsValid(k) != nv || (nv && ns.Value(k) != n) {
			t.Fatalf("take row %d: %q, %q", row, cs.Value(k), ns.Value(k))
		}
	}
}
