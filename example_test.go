package strata_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata"
	"strata/iox/s3"
)

// Writing a file, then reading it back with a filter built in Go, a point
// lookup and an aggregate. (The README's Go API section is this example.)
func Example() {
	dir, _ := os.MkdirTemp("", "strata-example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "trips.strata")

	// Write: any number of Arrow record batches of one schema.
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "city", Type: arrow.BinaryTypes.String},
		{Name: "day", Type: arrow.FixedWidthTypes.Date32},
		{Name: "fare", Type: &arrow.Decimal128Type{Precision: 9, Scale: 2}, Nullable: true},
	}, nil)
	w, err := strata.Create(path, schema, nil) // nil: default options
	if err != nil {
		fmt.Println(err)
		return
	}
	rec := tripRecords(schema)
	defer rec.Release()
	if err := w.Write(rec); err != nil {
		fmt.Println(err)
		return
	}
	if err := w.Close(); err != nil { // the file appears only when complete
		fmt.Println(err)
		return
	}

	// Read: a scan with a filter built in Go (no SQL strings).
	f, err := strata.Open(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	march := func(d int) time.Time { return time.Date(2024, 3, d, 0, 0, 0, 0, time.UTC) }
	sc, err := f.Scan(strata.ScanOptions{
		Columns: []string{"id", "city", "fare"},
		Filter: strata.And(
			strata.Col("day").Between(march(2), march(4)),
			strata.Col("city").In("Lyon", "Porto"),
			strata.Col("fare").Ge(strata.Decimal("10.00")),
		),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for {
		rec, err := sc.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			fmt.Println(rec.Column(0).ValueStr(i), rec.Column(1).ValueStr(i), rec.Column(2).ValueStr(i))
		}
		rec.Release()
	}

	// Point lookup by row number, and an aggregate with a filter.
	row, err := f.Take([]int64{4}, []string{"id", "city"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("row 4:", row.Column(0).ValueStr(0), row.Column(1).ValueStr(0))
	row.Release()
	aggs, _, err := f.Aggregate(strata.AggregateOptions{
		Aggs:   []strata.Agg{strata.CountAll(), strata.Sum("fare"), strata.Max("day")},
		Filter: strata.Col("fare").IsNotNull(),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, a := range aggs {
		fmt.Println(a.Name, "=", a)
	}
	// Output:
	// 2 Lyon 12.5
	// 4 Porto 31
	// row 4: 5 Lyon
	// count(*) = 5
	// sum(fare) = 104.25
	// max(day) = 2024-03-06
}

// tripRecords builds the example's six rows.
func tripRecords(schema *arrow.Schema) arrow.Record {
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	cities := []string{"Lyon", "Lyon", "Oslo", "Porto", "Lyon", "Porto"}
	fares := []int64{950, 1250, 2000, 3100, -1, 3125} // cents; -1: null
	for i := range cities {
		b.Field(0).(*array.Int64Builder).Append(int64(i + 1))
		b.Field(1).(*array.StringBuilder).Append(cities[i])
		day := time.Date(2024, 3, i+1, 0, 0, 0, 0, time.UTC)
		b.Field(2).(*array.Date32Builder).Append(arrow.Date32FromTime(day))
		if fares[i] < 0 {
			b.Field(3).AppendNull()
		} else {
			b.Field(3).(*array.Decimal128Builder).Append(decimalCents(fares[i]))
		}
	}
	return b.NewRecord()
}

// exampleFile writes the example table and returns its path and a cleanup.
func exampleFile() (string, func()) {
	dir, _ := os.MkdirTemp("", "strata-example")
	path := filepath.Join(dir, "trips.strata")
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "city", Type: arrow.BinaryTypes.String},
		{Name: "day", Type: arrow.FixedWidthTypes.Date32},
		{Name: "fare", Type: &arrow.Decimal128Type{Precision: 9, Scale: 2}, Nullable: true},
	}, nil)
	w, err := strata.Create(path, schema, nil)
	if err != nil {
		panic(err)
	}
	rec := tripRecords(schema)
	defer rec.Release()
	if err := w.Write(rec); err != nil {
		panic(err)
	}
	if err := w.Close(); err != nil {
		panic(err)
	}
	return path, func() { os.RemoveAll(dir) }
}

// Writing record batches; the file appears under its name only when Close
// succeeds.
func ExampleCreate() {
	dir, _ := os.MkdirTemp("", "strata-example")
	defer os.RemoveAll(dir)
	schema := arrow.NewSchema([]arrow.Field{{Name: "n", Type: arrow.PrimitiveTypes.Int32}}, nil)
	w, err := strata.Create(filepath.Join(dir, "n.strata"), schema, &strata.WriteOptions{ChunkValues: 1000})
	if err != nil {
		fmt.Println(err)
		return
	}
	b := array.NewInt32Builder(memory.DefaultAllocator)
	for i := range 2500 {
		b.Append(int32(i))
	}
	col := b.NewArray()
	rec := array.NewRecord(schema, []arrow.Array{col}, 2500)
	if err := w.Write(rec); err != nil {
		fmt.Println(err)
		return
	}
	if err := w.Close(); err != nil {
		fmt.Println(err)
		return
	}
	f, err := strata.Open(filepath.Join(dir, "n.strata"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	st, _ := f.ColumnStats("n")
	fmt.Println(f.NumRows(), "rows; n from", st.Min, "to", st.Max)
	// Output: 2500 rows; n from 0 to 2499
}

// A scan with a filter built in Go: dates are time.Time values, decimals
// strata.Decimal, and a filter may be combined with a WHERE string.
func ExampleFile_Scan() {
	path, cleanup := exampleFile()
	defer cleanup()
	f, err := strata.Open(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	sc, err := f.Scan(strata.ScanOptions{
		Columns: []string{"id", "day"},
		Where:   "city != 'Oslo'",
		Filter: strata.Or(
			strata.Col("fare").IsNull(),
			strata.Col("day").Ge(time.Date(2024, 3, 6, 0, 0, 0, 0, time.UTC)),
		),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer sc.Close()
	for {
		rec, err := sc.Next()
		if err != nil {
			break
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			fmt.Println(rec.Column(0).ValueStr(i), rec.Column(1).ValueStr(i))
		}
		rec.Release()
	}
	fmt.Println(strata.Not(strata.Col("city").Prefix("Po")))
	// Output:
	// 5 2024-03-05
	// 6 2024-03-06
	// NOT city LIKE 'Po%'
}

// Whole rows by row number, in the order asked.
func ExampleFile_Take() {
	path, cleanup := exampleFile()
	defer cleanup()
	f, err := strata.Open(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	rec, err := f.Take([]int64{5, 0}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer rec.Release()
	for i := 0; i < int(rec.NumRows()); i++ {
		fmt.Println(rec.Column(0).ValueStr(i), rec.Column(1).ValueStr(i), rec.Column(3).ValueStr(i))
	}
	// Output:
	// 6 Porto 31.25
	// 1 Lyon 9.5
}

// Aggregates built in Go over the rows a filter selects.
func ExampleFile_Aggregate() {
	path, cleanup := exampleFile()
	defer cleanup()
	f, err := strata.Open(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	vals, _, err := f.Aggregate(strata.AggregateOptions{
		Aggs:   []strata.Agg{strata.CountAll(), strata.Count("fare"), strata.Sum("fare"), strata.Min("city")},
		Filter: strata.Col("city").In("Lyon", "Porto"),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, v := range vals {
		fmt.Printf("%s = %s\n", v.Name, v)
	}
	// Output:
	// count(*) = 5
	// count(fare) = 4
	// sum(fare) = 84.25
	// min(city) = Lyon
}

// Reading from object storage: importing strata/iox/s3 registers s3://,
// http:// and https:// with Open (credentials, region and endpoint from the
// AWS environment); or build the source and share one client across
// objects. Every read is a ranged GET pinned to the object's ETag.
func ExampleOpen_objectStorage() {
	ctx := context.Background()
	f, err := strata.Open("s3://bucket/lineitem.strata", strata.WithMaxMemory(1<<30))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()

	c, err := s3.NewClient(ctx, s3.Config{Endpoint: "http://127.0.0.1:7070", Region: "us-east-1"})
	if err != nil {
		fmt.Println(err)
		return
	}
	obj, err := c.Open(ctx, "bucket", "lineitem.strata") // one request: size and ETag
	if err != nil {
		fmt.Println(err)
		return
	}
	g, err := strata.OpenSource(obj)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer g.Close()
	fmt.Println(g.NumRows())
}

func decimalCents(c int64) decimal128.Num { return decimal128.FromI64(c) }

// Writing a table's files one after the other, each replaying the
// encodings the previous one chose instead of searching for them again
// (capture/replay): what makes writing many small files of one table
// cheap.
func ExampleFile_Layouts() {
	dir, _ := os.MkdirTemp("", "strata-example")
	defer os.RemoveAll(dir)
	schema := arrow.NewSchema([]arrow.Field{{Name: "reading", Type: arrow.PrimitiveTypes.Int64}}, nil)
	day := func(d int, opts *strata.WriteOptions) string {
		path := filepath.Join(dir, fmt.Sprintf("day%d.strata", d))
		w, err := strata.Create(path, schema, opts)
		if err != nil {
			panic(err)
		}
		b := array.NewInt64Builder(memory.DefaultAllocator)
		for i := range 5000 {
			b.Append(int64(1000*d + i%100))
		}
		col := b.NewArray()
		rec := array.NewRecord(schema, []arrow.Array{col}, 5000)
		if err := w.Write(rec); err != nil {
			panic(err)
		}
		rec.Release()
		col.Release()
		if err := w.Close(); err != nil {
			panic(err)
		}
		return path
	}
	trees := func(path string) string {
		f, err := strata.Open(path)
		if err != nil {
			panic(err)
		}
		defer f.Close()
		rep, err := f.Inspect()
		if err != nil {
			panic(err)
		}
		return rep.Columns[0].Trees[0].Tree
	}
	day1 := day(1, nil)
	f, err := strata.Open(day1)
	if err != nil {
		panic(err)
	}
	layouts, err := f.Layouts() // what day 1's writer chose, per column
	f.Close()
	if err != nil {
		panic(err)
	}
	day2 := day(2, &strata.WriteOptions{Layouts: layouts}) // replayed, not searched for
	fmt.Println("day 2 encoded as day 1:", trees(day2) == trees(day1))
	// Output:
	// day 2 encoded as day 1: true
}

// Two files of one table written before and after a column was added and
// an integer widened, read as one table by column name: the union of
// their columns, nulls where a file lacks one.
func ExampleUnionByName() {
	dir, _ := os.MkdirTemp("", "strata-union")
	defer os.RemoveAll(dir)
	mem := memory.DefaultAllocator
	write := func(name string, sch *arrow.Schema, cols ...arrow.Array) *strata.File {
		path := filepath.Join(dir, name)
		rec := array.NewRecordBatch(sch, cols, int64(cols[0].Len()))
		defer rec.Release()
		w, err := strata.Create(path, sch, nil)
		if err == nil {
			err = w.Write(rec)
		}
		if err == nil {
			err = w.Close()
		}
		f, err2 := strata.Open(path)
		if err != nil || err2 != nil {
			panic(fmt.Sprint(err, err2))
		}
		return f
	}
	ib := array.NewInt32Builder(mem)
	ib.AppendValues([]int32{1, 2}, nil)
	monday := write("monday.strata", arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int32}}, nil), ib.NewArray())
	defer monday.Close()
	lb := array.NewInt64Builder(mem)
	lb.AppendValues([]int64{3}, nil)
	sb := array.NewStringBuilder(mem)
	sb.AppendValues([]string{"late"}, nil)
	tuesday := write("tuesday.strata", arrow.NewSchema([]arrow.Field{
		{Name: "note", Type: arrow.BinaryTypes.String},
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	}, nil), sb.NewArray(), lb.NewArray())
	defer tuesday.Close()

	table, err := strata.UnionByName(monday.Schema(), tuesday.Schema())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(table)
	for _, f := range []*strata.File{monday, tuesday} {
		sc, _ := f.Scan(strata.ScanOptions{})
		for {
			rec, err := sc.Next()
			if err != nil {
				break
			}
			out, _ := strata.Conform(rec, table)
			fmt.Println(out.Column(0), out.Column(1))
			out.Release()
			rec.Release()
		}
		sc.Close()
	}
	// Output:
	// schema:
	//   fields: 2
	//     - id: type=int64
	//     - note: type=utf8, nullable
	// [1 2] [(null) (null)]
	// [3] ["late"]
}
