package specreader

import (
	"fmt"
	"math"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata"
	"strata/encoding"
)

// column is one generated column: its field and a function appending row i
// to its builder.
type column struct {
	field arrow.Field
	add   func(b array.Builder, i int)
}

var words = strings.Fields("the quick brown fox jumps over lazy dog lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua")

// nullEvery makes a column nullable with a null at every k-th row (k = 0:
// no nulls but still nullable).
func nullEvery(c column, k int) column {
	c.field.Nullable = true
	add := c.add
	c.add = func(b array.Builder, i int) {
		if k > 0 && (i*7919)%k == 0 {
			b.AppendNull()
			return
		}
		add(b, i)
	}
	return c
}

// columns returns the generated table's columns for n rows.
func columns(n int, seed int64) []column {
	rng := rand.New(rand.NewSource(seed))
	rnd := make([]uint64, n)
	for i := range rnd {
		rnd[i] = rng.Uint64()
	}
	sortedKeys := make([]string, n)
	for i := range sortedKeys {
		sortedKeys[i] = fmt.Sprintf("key-%08d", i*3)
	}
	var cs []column
	add := func(name string, t arrow.DataType, f func(b array.Builder, i int)) {
		cs = append(cs, column{arrow.Field{Name: name, Type: t}, f})
	}
	i64 := func(f func(i int) int64) func(b array.Builder, i int) {
		return func(b array.Builder, i int) {
			switch bb := b.(type) {
			case *array.Int8Builder:
				bb.Append(int8(f(i)))
			case *array.Int16Builder:
				bb.Append(int16(f(i)))
			case *array.Int32Builder:
				bb.Append(int32(f(i)))
			case *array.Int64Builder:
				bb.Append(f(i))
			case *array.Uint8Builder:
				bb.Append(uint8(f(i)))
			case *array.Uint16Builder:
				bb.Append(uint16(f(i)))
			case *array.Uint32Builder:
				bb.Append(uint32(f(i)))
			case *array.Uint64Builder:
				bb.Append(uint64(f(i)))
			}
		}
	}
	shapes := map[string]func(i int) int64{
		"sorted":   func(i int) int64 { return int64(i/3) + 100 },
		"random":   func(i int) int64 { return int64(rnd[i]) },
		"runs":     func(i int) int64 { return int64((i / 500) % 7 * 13) },
		"few":      func(i int) int64 { return []int64{3, 17, -4, 120, 99}[rnd[i]%5] },
		"constant": func(i int) int64 { return 42 },
		"small":    func(i int) int64 { return int64(rnd[i]%1000) - 300 },
		"mostly": func(i int) int64 {
			if rnd[i]%50 == 0 {
				return int64(rnd[i] % 100000)
			}
			return 7
		},
		"ts":      func(i int) int64 { return 1_700_000_000_000_000 + int64(i)*1_000_000 + int64(rnd[i]%1000) },
		"regular": func(i int) int64 { return 1_600_000_000 + int64(i)*60 },
	}
	ints := []arrow.DataType{arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64,
		arrow.PrimitiveTypes.Uint8, arrow.PrimitiveTypes.Uint16, arrow.PrimitiveTypes.Uint32, arrow.PrimitiveTypes.Uint64}
	for _, shape := range []string{"sorted", "random", "runs", "few", "constant", "small", "mostly", "ts", "regular"} {
		for _, t := range ints {
			c := column{arrow.Field{Name: shape + "_" + t.String(), Type: t}, i64(shapes[shape])}
			if shape == "random" || shape == "few" {
				c = nullEvery(c, 10)
			}
			cs = append(cs, c)
		}
	}
	// Correlated candidates: a base and columns near it.
	base := func(i int) int64 { return 1_000_000 + int64(i)*37 + int64(rnd[i]%100000) }
	add("corr_base", arrow.PrimitiveTypes.Int64, i64(base))
	add("corr_near", arrow.PrimitiveTypes.Int64, i64(func(i int) int64 { return base(i) + int64(rnd[(i+1)%n]%5) }))
	add("corr_below", arrow.PrimitiveTypes.Int64, i64(func(i int) int64 { return base(i) - 2 - int64(rnd[(i+2)%n]%3) }))
	ubase := func(i int) int64 { return int64(rnd[i] % (1 << 30)) }
	add("ucorr_base", arrow.PrimitiveTypes.Uint32, i64(ubase))
	add("ucorr_near", arrow.PrimitiveTypes.Uint32, i64(func(i int) int64 { return ubase(i) + int64(rnd[(i+3)%n]%4) }))
	// Floats.
	f64 := func(f func(i int) float64) func(b array.Builder, i int) {
		return func(b array.Builder, i int) {
			switch bb := b.(type) {
			case *array.Float32Builder:
				bb.Append(float32(f(i)))
			case *array.Float64Builder:
				bb.Append(f(i))
			}
		}
	}
	fshapes := map[string]func(i int) float64{
		"price":  func(i int) float64 { return float64(rnd[i]%1000000) / 100 },
		"random": func(i int) float64 { return math.Float64frombits(rnd[i]>>2 | 0x3000000000000000) },
		"sensor": func(i int) float64 { return 20 + 5*math.Sin(float64(i)/100) + float64(rnd[i]%100)/1000 },
		"coord":  func(i int) float64 { return -73.9 + float64(i%80)*0.0125 },
		"mixed": func(i int) float64 {
			switch rnd[i] % 40 {
			case 0:
				return math.NaN()
			case 1:
				return math.Inf(1)
			case 2:
				return math.Copysign(0, -1)
			}
			return float64(int64(rnd[i]%20000)-10000) / 8
		},
		"quarter": func(i int) float64 { return float64(rnd[i]%400) * 0.25 },
		"smooth":  func(i int) float64 { return 1000.0 + float64(i)*0.001 },
	}
	for _, shape := range []string{"price", "random", "sensor", "coord", "mixed", "quarter", "smooth"} {
		for _, t := range []arrow.DataType{arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Float64} {
			c := column{arrow.Field{Name: shape + "_" + t.String(), Type: t}, f64(fshapes[shape])}
			if shape == "price" || shape == "sensor" {
				c = nullEvery(c, 13)
			}
			cs = append(cs, c)
		}
	}
	// Bools.
	add("bool_mostly_false", arrow.FixedWidthTypes.Boolean, func(b array.Builder, i int) { b.(*array.BooleanBuilder).Append(rnd[i]%97 == 0) })
	add("bool_random", arrow.FixedWidthTypes.Boolean, func(b array.Builder, i int) { b.(*array.BooleanBuilder).Append(rnd[i]%2 == 0) })
	cs = append(cs, nullEvery(column{arrow.Field{Name: "bool_null", Type: arrow.FixedWidthTypes.Boolean}, func(b array.Builder, i int) { b.(*array.BooleanBuilder).Append(i%3 == 0) }}, 5))
	// Time kinds.
	add("ts_us_utc", &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, func(b array.Builder, i int) {
		b.(*array.TimestampBuilder).Append(arrow.Timestamp(shapes["ts"](i)))
	})
	cs = append(cs, nullEvery(column{arrow.Field{Name: "ts_ns", Type: &arrow.TimestampType{Unit: arrow.Nanosecond}}, func(b array.Builder, i int) {
		b.(*array.TimestampBuilder).Append(arrow.Timestamp(shapes["ts"](i)*1000 + int64(rnd[i]%1000)))
	}}, 17))
	add("ts_s", &arrow.TimestampType{Unit: arrow.Second, TimeZone: "America/New_York"}, func(b array.Builder, i int) {
		b.(*array.TimestampBuilder).Append(arrow.Timestamp(shapes["regular"](i)))
	})
	add("date", arrow.FixedWidthTypes.Date32, func(b array.Builder, i int) { b.(*array.Date32Builder).Append(arrow.Date32(18000 + i/100)) })
	add("time_ms", arrow.FixedWidthTypes.Time32ms, func(b array.Builder, i int) { b.(*array.Time32Builder).Append(arrow.Time32(rnd[i] % 86_400_000)) })
	add("time_us", arrow.FixedWidthTypes.Time64us, func(b array.Builder, i int) {
		b.(*array.Time64Builder).Append(arrow.Time64(int64(i) * 1000 % 86_400_000_000))
	})
	add("dur_ms", arrow.FixedWidthTypes.Duration_ms, func(b array.Builder, i int) { b.(*array.DurationBuilder).Append(arrow.Duration(rnd[i] % 100000)) })
	// Decimals.
	cs = append(cs, nullEvery(column{arrow.Field{Name: "dec_10_2", Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}}, func(b array.Builder, i int) {
		b.(*array.Decimal128Builder).Append(decimal128.FromI64(int64(rnd[i]%10000000) - 5000000))
	}}, 11))
	add("dec_30_4", &arrow.Decimal128Type{Precision: 30, Scale: 4}, func(b array.Builder, i int) {
		b.(*array.Decimal128Builder).Append(decimal128.New(int64(rnd[i]%1000)-500, rnd[(i+5)%n]))
	})
	// Strings.
	str := func(f func(i int) string) func(b array.Builder, i int) {
		return func(b array.Builder, i int) { b.(*array.StringBuilder).Append(f(i)) }
	}
	add("s_words", arrow.BinaryTypes.String, str(func(i int) string {
		k := int(rnd[i]%6) + 1
		var sb strings.Builder
		for j := 0; j < k; j++ {
			if j > 0 {
				sb.WriteByte(' ')
			}
			sb.WriteString(words[(rnd[i]>>(8*j))%uint64(len(words))])
		}
		return sb.String()
	}))
	add("s_url", arrow.BinaryTypes.String, str(func(i int) string {
		return fmt.Sprintf("https://www.example.com/%s/%s?id=%d", words[rnd[i]%9], words[(rnd[i]>>9)%uint64(len(words))], rnd[i]%100000)
	}))
	add("s_numtext", arrow.BinaryTypes.String, str(func(i int) string { return fmt.Sprintf("%08d", rnd[i]%1000000) }))
	add("s_decimaltext", arrow.BinaryTypes.String, str(func(i int) string { return strconv.FormatFloat(float64(rnd[i]%100000)/100, 'f', 2, 64) }))
	cs = append(cs, nullEvery(column{arrow.Field{Name: "s_names", Type: arrow.BinaryTypes.String}, str(func(i int) string {
		return strings.Repeat("Bartholomew-", 3) + []string{"Alexander", "Maximilian", "Christopher", "Elizabeth"}[rnd[i]%4] + " of " + words[rnd[i]%5]
	})}, 9))
	add("s_sorted", arrow.BinaryTypes.String, str(func(i int) string { return sortedKeys[i] }))
	add("s_few", arrow.BinaryTypes.String, str(func(i int) string { return []string{"AIR", "RAIL", "SHIP", "TRUCK", "MAIL"}[rnd[i]%5] }))
	add("s_const", arrow.BinaryTypes.String, str(func(i int) string { return "constant" }))
	add("s_empty_mostly", arrow.BinaryTypes.String, str(func(i int) string {
		if rnd[i]%30 == 0 {
			return "rare"
		}
		return ""
	}))
	add("s_comment", arrow.BinaryTypes.String, str(func(i int) string {
		var sb strings.Builder
		for j := 0; j < 8; j++ {
			sb.WriteString(words[(rnd[(i+j)%n]>>j)%uint64(len(words))])
			sb.WriteByte(' ')
		}
		return sb.String()
	}))
	add("bin_random", arrow.BinaryTypes.Binary, func(b array.Builder, i int) {
		v := make([]byte, rnd[i]%12)
		for j := range v {
			v[j] = byte(rnd[(i+j)%n] >> 3)
		}
		b.(*array.BinaryBuilder).Append(v)
	})
	add("nothing", arrow.Null, func(b array.Builder, i int) { b.AppendNull() })
	// Nested.
	listInt := arrow.ListOf(arrow.PrimitiveTypes.Int32)
	cs = append(cs, nullEvery(column{arrow.Field{Name: "l_int", Type: listInt}, func(b array.Builder, i int) {
		lb := b.(*array.ListBuilder)
		lb.Append(true)
		vb := lb.ValueBuilder().(*array.Int32Builder)
		for j := 0; j < int(rnd[i]%5); j++ {
			if j == 2 && i%4 == 0 {
				vb.AppendNull()
				continue
			}
			vb.Append(int32(i + j))
		}
	}}, 8))
	listStr := arrow.ListOfField(arrow.Field{Name: "element", Type: arrow.BinaryTypes.String, Nullable: true})
	add("l_str", listStr, func(b array.Builder, i int) {
		lb := b.(*array.ListBuilder)
		lb.Append(true)
		vb := lb.ValueBuilder().(*array.StringBuilder)
		for j := 0; j < int(rnd[i]%3); j++ {
			if rnd[(i+j)%n]%6 == 0 {
				vb.AppendNull()
			} else {
				vb.Append(words[(rnd[i]>>j)%uint64(len(words))])
			}
		}
	})
	stType := arrow.StructOf(
		arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32},
		arrow.Field{Name: "b", Type: arrow.BinaryTypes.String, Nullable: true},
		arrow.Field{Name: "c", Type: arrow.ListOf(arrow.PrimitiveTypes.Float64), Nullable: true},
		arrow.Field{Name: "d", Type: arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Uint16, Nullable: true}), Nullable: true},
	)
	cs = append(cs, nullEvery(column{arrow.Field{Name: "st", Type: stType}, func(b array.Builder, i int) {
		sb := b.(*array.StructBuilder)
		sb.Append(true)
		sb.FieldBuilder(0).(*array.Int32Builder).Append(int32(i % 1000))
		if i%5 == 0 {
			sb.FieldBuilder(1).AppendNull()
		} else {
			sb.FieldBuilder(1).(*array.StringBuilder).Append(words[i%len(words)])
		}
		cb := sb.FieldBuilder(2).(*array.ListBuilder)
		if i%7 == 0 {
			cb.AppendNull()
		} else {
			cb.Append(true)
			for j := 0; j < i%3; j++ {
				cb.ValueBuilder().(*array.Float64Builder).Append(float64(i) / 4)
			}
		}
		db := sb.FieldBuilder(3).(*array.StructBuilder)
		if i%11 == 0 {
			db.AppendNull()
		} else {
			db.Append(true)
			if i%3 == 0 {
				db.FieldBuilder(0).AppendNull()
			} else {
				db.FieldBuilder(0).(*array.Uint16Builder).Append(uint16(i))
			}
		}
	}}, 6))
	mapType := arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64)
	cs = append(cs, nullEvery(column{arrow.Field{Name: "m", Type: mapType}, func(b array.Builder, i int) {
		mb := b.(*array.MapBuilder)
		mb.Append(true)
		for j := 0; j < int(rnd[i]%4); j++ {
			mb.KeyBuilder().(*array.StringBuilder).Append(fmt.Sprintf("k%d", j))
			if j == 1 && i%3 == 0 {
				mb.ItemBuilder().AppendNull()
			} else {
				mb.ItemBuilder().(*array.Int64Builder).Append(int64(i * j))
			}
		}
	}}, 12))
	fmType := arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Float64)
	cs = append(cs, nullEvery(column{arrow.Field{Name: "fm", Type: fmType}, func(b array.Builder, i int) {
		mb := b.(*array.MapBuilder)
		mb.Append(true)
		for j := 0; j < 6; j++ {
			// Keys appear gradually, so later stripes discover new keys.
			if (rnd[i]>>j)%3 != 0 || j*n/6 > i*2 {
				continue
			}
			mb.KeyBuilder().(*array.StringBuilder).Append(fmt.Sprintf("attr%d", j))
			if j == 4 && i%5 == 0 {
				mb.ItemBuilder().AppendNull()
			} else {
				mb.ItemBuilder().(*array.Float64Builder).Append(float64(i%100) + float64(j)/4)
			}
		}
	}}, 10))
	fmIntType := arrow.MapOf(arrow.PrimitiveTypes.Int32, arrow.BinaryTypes.String)
	add("fm_int", fmIntType, func(b array.Builder, i int) {
		mb := b.(*array.MapBuilder)
		mb.Append(true)
		for _, k := range []int32{-5, 0, 7, 1000} {
			if rnd[i]>>uint(k&15)%2 == 0 {
				continue
			}
			mb.KeyBuilder().(*array.Int32Builder).Append(k)
			mb.ItemBuilder().(*array.StringBuilder).Append(words[(int(k)+i)&15])
		}
	})
	fmStruct := arrow.MapOf(arrow.BinaryTypes.String, arrow.StructOf(
		arrow.Field{Name: "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		arrow.Field{Name: "tags", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true}))
	add("fm_struct", fmStruct, func(b array.Builder, i int) {
		mb := b.(*array.MapBuilder)
		mb.Append(true)
		for j := 0; j < 3; j++ {
			if (rnd[i]>>(j+20))%2 == 0 {
				continue
			}
			mb.KeyBuilder().(*array.StringBuilder).Append(fmt.Sprintf("g%d", j))
			sb := mb.ItemBuilder().(*array.StructBuilder)
			sb.Append(true)
			sb.FieldBuilder(0).(*array.Int64Builder).Append(int64(i - j))
			lb := sb.FieldBuilder(1).(*array.ListBuilder)
			lb.Append(true)
			for k := 0; k < j; k++ {
				lb.ValueBuilder().(*array.StringBuilder).Append(words[k])
			}
		}
	})
	return cs
}

// buildRecords builds the table in record batches of at most batch rows.
func buildRecords(cs []column, n, batch int) (*arrow.Schema, []arrow.Record) {
	fields := make([]arrow.Field, len(cs))
	for i, c := range cs {
		fields[i] = c.field
	}
	sch := arrow.NewSchema(fields, nil)
	mem := memory.NewGoAllocator()
	var recs []arrow.Record
	for lo := 0; lo < n; lo += batch {
		hi := min(n, lo+batch)
		rb := array.NewRecordBuilder(mem, sch)
		for j, c := range cs {
			b := rb.Field(j)
			for i := lo; i < hi; i++ {
				c.add(b, i)
			}
		}
		recs = append(recs, rb.NewRecord())
		rb.Release()
	}
	return sch, recs
}

// TestOracle writes generated tables with the Strata writer under many
// options and compares what this reader reads with what was written.
func TestOracle(t *testing.T) {
	cases := []struct {
		name  string
		rows  int
		batch int
		opts  *strata.WriteOptions
	}{
		{"default", 5000, 5000, nil},
		{"size-small-stripes", 6000, 1000, &strata.WriteOptions{Optimize: encoding.OptimizeSize, StripeBytes: 96 << 10, StripeGroup: 2, FlatMap: []string{"fm", "fm_int", "fm_struct"}}},
		{"speed-nozstd-chunks", 5000, 2500, &strata.WriteOptions{Optimize: encoding.OptimizeSpeed, NoZstd: true, ChunkValues: 700, FlatMap: []string{"fm"}}},
		{"flatmap-bloom", 4000, 1000, &strata.WriteOptions{StripeBytes: 64 << 10, FlatMap: []string{"fm", "fm_int", "fm_struct"}, Bloom: []string{"s_few", "sorted_int64"}}},
		{"large-balanced", 70000, 10000, &strata.WriteOptions{FlatMap: []string{"fm"}}},
		{"large-size", 70000, 35000, &strata.WriteOptions{Optimize: encoding.OptimizeSize, ChunkTarget: 16 << 10}},
		{"large-stripes", 70000, 7000, &strata.WriteOptions{StripeBytes: 1 << 20, StripeGroup: 3, ChunkValues: 4096, FlatMap: []string{"fm", "fm_int"}}},
	}
	if testing.Short() {
		cases = cases[:4]
	}
	for ci, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cs := columns(c.rows, int64(ci+1))
			sch, recs := buildRecords(cs, c.rows, c.batch)
			data := writeStrata(t, sch, recs, c.opts)
			f, err := Open(data)
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			if err := f.VerifyFileChecksum(); err != nil {
				t.Errorf("%v", err)
			}
			cols, err := f.ReadAll()
			addKinds(f.Kinds)
			if err != nil {
				t.Fatalf("read: %v", err)
			}
			compareTable(t, c.name, cols, sch, recs)
			rep, err := f.VerifyStats()
			if err != nil {
				t.Errorf("stats: %v", err)
			}
			t.Logf("stats checked: %+v", rep)
			if got := f.Properties["rows"]; got != strconv.Itoa(c.rows) {
				t.Errorf("properties rows = %q, want %d", got, c.rows)
			}
			t.Logf("%d bytes, %d stripes, %d groups, %d sections; roots:%s", len(data), len(f.Stripes), len(f.Groups), len(f.Sections), formatTally(f.Kinds.Root))
		})
	}
}
