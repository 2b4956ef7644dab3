// Package randtable generates random nested Arrow schemas and record batches
// for tests, and compares Arrow arrays logically (nulls, NaNs, unordered
// maps), so the shredder, the writer and the reader can all be checked
// against the same random tables.
//
// Values are not uniform noise: every leaf gets a data shape (random,
// low-cardinality, constant, sorted, runs, extremes) and a null rate (none,
// some, mostly, all), so the writer's encoding selection meets the shapes
// its encodings are built for. Everything is deterministic for a seed.
package randtable

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Leaves lists the primitive Arrow types the generator picks from: every
// integer width, floats, bool, string, binary, date, timestamps of all four
// units with and without a time zone, and decimals stored as int64
// (precision <= 18) and as 16-byte values (precision > 18).
var Leaves = []arrow.DataType{
	arrow.FixedWidthTypes.Boolean,
	arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64,
	arrow.PrimitiveTypes.Uint8, arrow.PrimitiveTypes.Uint16, arrow.PrimitiveTypes.Uint32, arrow.PrimitiveTypes.Uint64,
	arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Float64,
	arrow.BinaryTypes.String, arrow.BinaryTypes.Binary,
	arrow.FixedWidthTypes.Date32,
	&arrow.TimestampType{Unit: arrow.Second},
	&arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"},
	&arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "America/New_York"},
	&arrow.TimestampType{Unit: arrow.Nanosecond},
	&arrow.Decimal128Type{Precision: 9, Scale: 2},
	&arrow.Decimal128Type{Precision: 18, Scale: 0},
	&arrow.Decimal128Type{Precision: 19, Scale: 4},
	&arrow.Decimal128Type{Precision: 38, Scale: 10},
}

// TimeLeaves are times of day of all four units and durations, which
// tests add to Leaves where every reader involved knows them (Leaves
// stays as it was so that seeds keep their schemas).
var TimeLeaves = []arrow.DataType{
	arrow.FixedWidthTypes.Time32s, arrow.FixedWidthTypes.Time32ms,
	arrow.FixedWidthTypes.Time64us, arrow.FixedWidthTypes.Time64ns,
	arrow.FixedWidthTypes.Duration_s, arrow.FixedWidthTypes.Duration_ns,
}

// Options shape the generated schemas.
type Options struct {
	// MaxDepth bounds nesting: 0 gives only leaf columns.
	MaxDepth int
	// FlatMapKey, when set, marks some generated map fields as FlatMaps by
	// giving them this metadata key with value "true".
	FlatMapKey string
	// Leaves are the primitive types to draw from (default Leaves).
	Leaves []arrow.DataType
	// MapKeys are the key types of generated maps (default string, int32,
	// int64). FlatMaps use only string and integer keys from this list.
	MapKeys []arrow.DataType
	// SQLSafe keeps values inside what SQL engines and Parquet represent
	// without loss: dates and timestamps in years 1..9999 (nanosecond
	// timestamps in their int64 range), times of day within a day and
	// strings valid UTF-8. Integer, float and decimal extremes stay.
	SQLSafe bool
	// LongStrings makes about one string or binary value in 40 long
	// (200 to 3000 bytes, multi-byte runes included).
	LongStrings bool
	// NumberText makes about half the string leaves numbers kept as
	// text, one form a column (textForms): the text the writer stores as
	// integers (DigitText, NumText). A quarter of those columns hold a
	// stray value of another form now and then, which rules the integer
	// encodings out of the chunks it falls in.
	NumberText bool
	// Related adds what independent random values never show: top-level
	// integer, date and timestamp columns that follow an earlier column of
	// their type (its value plus a small difference, as a receipt date
	// follows a ship date: Correlated), integer leaves on a common step
	// (Scaled) or repeating with a period (LagDelta), and floats that walk
	// (Chimp, ALP-RD). The follower's field carries FollowsKey.
	Related bool
	// HexText makes about a third of the string leaves that are not
	// number text hex text, one template a column (hexTemplates: UUIDs,
	// MAC addresses, ISO times, hex ids, digests): the text the writer
	// stores as integers or packed bytes (HexText). A quarter of those
	// columns hold a stray number text now and then.
	HexText bool
	// FieldText makes about a third of the string leaves that are
	// neither number text nor hex text text with numbers inside it, one
	// template a column (fieldTemplates: request lines, JSON, dates
	// written out, place names with distances, log lines, versions,
	// order numbers, addresses with ports): the text the writer stores
	// as a skeleton and integer columns (FieldText). About one value in
	// ten is of the edges: empty, without numbers, with a run of more
	// than 19 digits or with more than 16 numbers; a quarter of the
	// columns hold a stray number text now and then.
	FieldText bool
}

// fieldTemplates name the shapes of Options.FieldText columns, which
// fieldText fills; fieldPlain holds a value of each without numbers.
var (
	fieldTemplates = []string{
		"GET /api/v%d/users/%d HTTP/1.1",
		`{"id":%d,"v":"%d.%d.%d","ok":true}`,
		"Jan 02 2006",
		"%dkm SSW of <town>",
		"2024-05-01 09:03:07.123 [worker-3] took 12 ms",
		"v%d.%d.%d",
		"order #%d",
		"%d.%d.%d.%d:%d",
	}
	fieldPlain = []string{
		"GET /api/health HTTP/1.1",
		`{"id":null,"v":"dev","ok":false}`,
		"unknown",
		"near Ridgecrest, CA",
		"[main] shutting down",
		"vNext",
		"order pending",
		"localhost",
	}
)

// hexTemplates are the shapes of Options.HexText columns: 'X' marks an
// uppercase and 'x' a lowercase hex digit, 'd' a decimal digit; any other
// byte is kept. "" is uppercase hex numbers of 1 to 6 digits (code
// points: HexText's widths form).
var hexTemplates = []string{
	"xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx",
	"XX:XX:XX:XX:XX:XX",
	"dddd-dd-ddTdd:dd:ddZ",
	"xxxxxxxxxxxxxxxx",
	"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
	"XXXXX",
	"x-xx",
	"",
}

// FollowsKey is the field metadata key naming the earlier column a
// generated column follows (Options.Related).
const FollowsKey = "randtable.follows"

func (o Options) mapKeys() []arrow.DataType {
	if len(o.MapKeys) > 0 {
		return o.MapKeys
	}
	return []arrow.DataType{arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64}
}

// Gen generates schemas and records. It is not safe for concurrent use.
type Gen struct {
	rng    *rand.Rand
	seed   uint64
	opts   Options
	leaves map[string]*leafState
}

// New returns a generator for a seed.
func New(seed uint64, opts Options) *Gen {
	return &Gen{rng: rand.New(rand.NewPCG(seed, 0x5eed)), seed: seed, opts: opts, leaves: map[string]*leafState{}}
}

// Rand returns the generator's random source, for callers that want to draw
// their own choices from the same deterministic stream.
func (g *Gen) Rand() *rand.Rand { return g.rng }

// Schema returns a random schema of ncols top-level columns named c0, c1, ...
func (g *Gen) Schema(ncols int) *arrow.Schema {
	fields := make([]arrow.Field, ncols)
	for i := range fields {
		name := "c" + strconv.Itoa(i)
		if g.opts.Related && i > 0 && g.rng.IntN(2) == 0 {
			// a follower of an earlier column that can lead (one
			// without nulls: a writer compares with nulls as zeros)
			var leaders []int
			for j := range fields[:i] {
				if canFollow(fields[j].Type) && !fields[j].Nullable && fields[j].Metadata.FindKey(FollowsKey) < 0 {
					leaders = append(leaders, j)
				}
			}
			if len(leaders) > 0 {
				l := fields[leaders[g.rng.IntN(len(leaders))]]
				fields[i] = arrow.Field{Name: name, Type: l.Type, Metadata: arrow.NewMetadata([]string{FollowsKey}, []string{l.Name})}
				continue
			}
		}
		fields[i] = g.Field(name, g.opts.MaxDepth)
	}
	return arrow.NewSchema(fields, nil)
}

// canFollow reports whether columns of type t can lead and follow
// (Options.Related): the types whose values travel as int64.
func canFollow(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.INT32, arrow.INT64, arrow.DATE32, arrow.TIMESTAMP:
		return true
	}
	return false
}

// Field returns a random field whose nesting is at most depth levels.
func (g *Gen) Field(name string, depth int) arrow.Field {
	r := g.rng
	f := arrow.Field{Name: name, Nullable: r.IntN(4) != 0}
	if depth <= 0 || r.IntN(5) < 2 {
		leaves := g.opts.Leaves
		if len(leaves) == 0 {
			leaves = Leaves
		}
		f.Type = leaves[r.IntN(len(leaves))]
		return f
	}
	switch r.IntN(7) {
	case 0, 1:
		n := 1 + r.IntN(3)
		fs := make([]arrow.Field, n)
		for i := range fs {
			fs[i] = g.Field(name+"_"+strconv.Itoa(i), depth-1)
		}
		f.Type = arrow.StructOf(fs...)
	case 2, 3:
		f.Type = arrow.ListOfField(g.Field("item", depth-1))
	case 4, 5:
		f.Type = g.mapType(depth, false)
	case 6:
		if g.opts.FlatMapKey == "" {
			f.Type = g.mapType(depth, false)
			break
		}
		f.Type = g.mapType(depth, true)
		f.Metadata = arrow.NewMetadata([]string{g.opts.FlatMapKey}, []string{"true"})
	}
	return f
}

func (g *Gen) mapType(depth int, flat bool) arrow.DataType {
	keys := g.opts.mapKeys()
	kt := keys[g.rng.IntN(len(keys))]
	if flat && !flatKey(kt) {
		kt = arrow.BinaryTypes.String
	}
	return arrow.MapOfFields(arrow.Field{Name: "key", Type: kt}, g.Field("value", depth-1))
}

func flatKey(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.STRING, arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64,
		arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64:
		return true
	}
	return false
}

// Data shapes of a leaf.
const (
	shapeRandom = iota
	shapeLowCard
	shapeConstant
	shapeSorted
	shapeRuns
	shapeExtremes
	numShapes
)

// Null rates of a leaf.
const (
	nullsNone = iota
	nullsSome
	nullsMostly
	nullsAll
)

// leafState is what a leaf remembers between values: its shape, null rate,
// value pool, last value and counter. Lists and maps use it for lengths.
type leafState struct {
	shape   int
	nulls   int
	pool    []any
	last    any
	counter int64
	maxLen  int // lists and maps: largest length
	// string leaves with Options.NumberText: the form of their text
	// (textLetters: none), the width of digit strings, and whether a
	// stray value of another form appears now and then
	text  int
	width int
	stray bool
	// leaves with Options.Related: a shape independent values never
	// show (relStepped, relPeriodic, relWalk; 0: none), with its step
	// and period
	related int
	step    int64
	period  int
}

// Shapes of Options.Related leaves.
const (
	relNone     = iota
	relStepped  // integers base + step·k
	relPeriodic // integers repeating their value of a period earlier, ± 1
	relWalk     // floats, each the previous one plus a normal step
	numRelated
)

// Forms of number text (Options.NumberText).
const (
	textLetters  = iota
	textDigits   // "00417": digits, one width a column, leading zeros
	textPlain    // "-1234"
	textGrouped  // "-1,234,567"
	textDecimals // "-12.50", "0.005": 0 to 4 fraction digits, trailing zeros kept
	numTextForms
	textHex   = numTextForms     // Options.HexText; width is the template's index
	textField = numTextForms + 1 // Options.FieldText; width is the template's index
)

func (g *Gen) state(path string) *leafState {
	if s := g.leaves[path]; s != nil {
		return s
	}
	h := fnv.New64a()
	h.Write([]byte(path))
	r := rand.New(rand.NewPCG(g.seed, h.Sum64()))
	s := &leafState{shape: r.IntN(numShapes)}
	switch r.IntN(8) {
	case 0, 1:
		s.nulls = nullsNone
	case 2, 3, 4:
		s.nulls = nullsSome
	case 5, 6:
		s.nulls = nullsMostly
	default:
		s.nulls = nullsAll
	}
	s.maxLen = []int{0, 1, 3, 3, 3, 6, 12}[r.IntN(7)]
	if g.opts.NumberText && r.IntN(2) == 0 {
		// drawn after the rest, so that the other choices stay as
		// they are without the option
		s.text = 1 + r.IntN(numTextForms-1)
		s.width = 1 + r.IntN(9)
		s.stray = r.IntN(4) == 0
	}
	if g.opts.Related && r.IntN(3) == 0 {
		s.related = 1 + r.IntN(numRelated-1)
		s.step = []int64{3, 25, 1000, 86400}[r.IntN(4)]
		s.period = []int{2, 7, 24, 60}[r.IntN(4)]
	}
	if g.opts.HexText && s.text == textLetters && r.IntN(3) == 0 {
		s.text = textHex
		s.width = r.IntN(len(hexTemplates))
		s.stray = r.IntN(4) == 0
	}
	if g.opts.FieldText && s.text == textLetters && r.IntN(3) == 0 {
		// drawn last, so that tables without the option stay as they are
		s.text = textField
		s.width = r.IntN(len(fieldTemplates))
		s.stray = r.IntN(4) == 0
	}
	g.leaves[path] = s
	return s
}

func (g *Gen) isNull(s *leafState) bool {
	switch s.nulls {
	case nullsSome:
		return g.rng.IntN(6) == 0
	case nullsMostly:
		return g.rng.IntN(10) != 0
	case nullsAll:
		return true
	}
	return false
}

// Record returns a record of rows random rows of schema sch. Calls with the
// same generator continue each column's data shape (sorted columns keep
// increasing), so consecutive records look like one table cut in batches.
func (g *Gen) Record(mem memory.Allocator, sch *arrow.Schema, rows int) arrow.RecordBatch {
	cols := make([]arrow.Array, sch.NumFields())
	for i, f := range sch.Fields() {
		b := array.NewBuilder(mem, f.Type)
		if k := f.Metadata.FindKey(FollowsKey); k >= 0 {
			leader := cols[sch.FieldIndices(f.Metadata.Values()[k])[0]]
			g.follow(b, f, leader, rows)
		} else {
			for range rows {
				g.Append(b, f, f.Name)
			}
		}
		cols[i] = b.NewArray()
		b.Release()
	}
	rec := array.NewRecordBatch(sch, cols, int64(rows))
	for _, c := range cols {
		c.Release()
	}
	return rec
}

// follow appends rows values of a follower column (Options.Related): the
// leader's value plus a difference from a small range the column keeps
// (a random value where the leader is null); in a third of the followers
// one value in a thousand is far off.
func (g *Gen) follow(b array.Builder, f arrow.Field, leader arrow.Array, rows int) {
	s := g.state(f.Name + " follows " + f.Type.String())
	r := g.rng
	if s.pool == nil {
		lo := int64(r.IntN(20)) - 10
		s.pool = []any{lo, lo + 1 + int64(r.IntN(40))}
		s.stray = r.IntN(3) == 0
	}
	lo, hi := s.pool[0].(int64), s.pool[1].(int64)
	for i := range rows {
		var v int64
		switch {
		case leader.IsNull(i):
			v = g.random(f.Type).(int64)
		case s.stray && r.IntN(1000) == 0:
			v = g.random(f.Type).(int64) // a value that follows nothing
		default:
			v = leaderValue(leader, i) + lo + r.Int64N(hi-lo)
		}
		if f.Type.ID() == arrow.INT32 || f.Type.ID() == arrow.DATE32 {
			v = int64(int32(v)) // wrapped as the type wraps
		}
		var x any = v
		if g.opts.SQLSafe {
			x = sqlSafe(f.Type, x)
		}
		appendLeaf(b, x)
	}
}

// leaderValue is row i of a column that can lead, as an int64.
func leaderValue(a arrow.Array, i int) int64 {
	switch a := a.(type) {
	case *array.Int32:
		return int64(a.Value(i))
	case *array.Int64:
		return a.Value(i)
	case *array.Date32:
		return int64(a.Value(i))
	case *array.Timestamp:
		return int64(a.Value(i))
	}
	panic(fmt.Sprintf("randtable: %T cannot lead", a))
}

// Append appends one random value of field f to b; path names the field
// for its data shape.
func (g *Gen) Append(b array.Builder, f arrow.Field, path string) {
	s := g.state(path + " " + f.Type.String())
	if f.Nullable && g.isNull(s) {
		b.AppendNull() // a struct builder appends nulls to its children too
		return
	}
	switch bb := b.(type) {
	case *array.StructBuilder:
		bb.Append(true)
		for i, cf := range f.Type.(*arrow.StructType).Fields() {
			g.Append(bb.FieldBuilder(i), cf, path+"."+cf.Name)
		}
	case *array.ListBuilder:
		bb.Append(true)
		ef := f.Type.(*arrow.ListType).ElemField()
		for range g.length(s) {
			g.Append(bb.ValueBuilder(), ef, path+".item")
		}
	case *array.MapBuilder:
		mt := f.Type.(*arrow.MapType)
		bb.Append(true)
		n := min(g.length(s), 8)
		for _, k := range g.rng.Perm(8)[:n] {
			appendKey(bb.KeyBuilder(), k)
			g.Append(bb.ItemBuilder(), mt.ItemField(), path+".value")
		}
	default:
		v := g.value(s, f.Type)
		if g.opts.SQLSafe {
			v = sqlSafe(f.Type, v)
		}
		appendLeaf(b, v)
	}
}

// Day and second bounds of years 1..9999 (SQL's date range).
const (
	minSafeDay = -719162 // 0001-01-01
	maxSafeDay = 2932896 // 9999-12-31
)

// sqlSafe folds a value into the range SQLSafe promises.
func sqlSafe(t arrow.DataType, v any) any {
	wrap := func(x, lo, hi int64) int64 {
		if x >= lo && x <= hi {
			return x
		}
		n := uint64(hi - lo + 1)
		return lo + int64(uint64(x)%n)
	}
	switch t.ID() {
	case arrow.DATE32:
		return wrap(v.(int64), minSafeDay, maxSafeDay)
	case arrow.TIMESTAMP:
		per := map[arrow.TimeUnit]int64{arrow.Second: 1, arrow.Millisecond: 1e3, arrow.Microsecond: 1e6}[t.(*arrow.TimestampType).Unit]
		if per == 0 {
			// nanoseconds: int64 spans 1677-09-21..2262-04-11; keep to
			// the whole years 1678..2261 inside it
			return wrap(v.(int64), -106650*86400*1e9, 106651*86400*1e9-1)
		}
		return wrap(v.(int64), minSafeDay*86400*per, (maxSafeDay+1)*86400*per-1)
	case arrow.TIME32, arrow.TIME64:
		// within one day, as SQL's TIME holds
		per := map[arrow.TimeUnit]int64{arrow.Second: 1, arrow.Millisecond: 1e3, arrow.Microsecond: 1e6, arrow.Nanosecond: 1e9}[t.(arrow.TemporalWithUnit).TimeUnit()]
		return wrap(v.(int64), 0, 86400*per-1)
	case arrow.STRING:
		return strings.ToValidUTF8(v.(string), "\uFFFD")
	}
	return v
}

// length draws a list or map length: often empty, sometimes long.
func (g *Gen) length(s *leafState) int {
	if s.maxLen == 0 || g.rng.IntN(5) == 0 {
		return 0
	}
	return g.rng.IntN(s.maxLen + 1)
}

func appendKey(b array.Builder, k int) {
	switch kb := b.(type) {
	case *array.StringBuilder:
		kb.Append("key" + strconv.Itoa(k))
	case *array.Int8Builder:
		kb.Append(int8(k) - 3)
	case *array.Int16Builder:
		kb.Append(int16(k)*100 - 300)
	case *array.Int32Builder:
		kb.Append(int32(k) - 3)
	case *array.Int64Builder:
		kb.Append(int64(k)*1_000_000_007 - 3)
	case *array.Uint8Builder:
		kb.Append(uint8(k))
	case *array.Uint16Builder:
		kb.Append(uint16(k) * 1000)
	case *array.Uint32Builder:
		kb.Append(uint32(k) * 7)
	case *array.Uint64Builder:
		kb.Append(uint64(k) << 40)
	default:
		panic(fmt.Sprintf("randtable: no map key generator for %T", b))
	}
}

// value draws the next value of a leaf according to its shape.
func (g *Gen) value(s *leafState, t arrow.DataType) any {
	text := t.ID() == arrow.STRING && s.text != textLetters
	if !text && s.related != relNone {
		if v, ok := g.relatedValue(s, t); ok {
			return v
		}
	}
	r := g.rng
	// what a value of the leaf's kind is: random, or the counter's
	// sorted one; number text is drawn in its column's form
	draw := func() any { return g.random(t) }
	sorted := func() any { return sortedValue(t, s.counter) }
	if text {
		draw = func() any { return g.numberText(s, s.text) }
		sorted = func() any { return formatText(s.text, s.counter-100, s.width, int(s.counter%3)) }
	}
	switch s.shape {
	case shapeLowCard, shapeConstant:
		if s.pool == nil {
			n := 1
			if s.shape == shapeLowCard {
				n = 2 + r.IntN(6)
			}
			for range n {
				s.pool = append(s.pool, draw())
			}
		}
		return s.pool[r.IntN(len(s.pool))]
	case shapeSorted:
		s.counter += int64(r.IntN(3))
		return sorted()
	case shapeRuns:
		if s.last == nil || r.IntN(8) == 0 {
			s.last = draw()
		}
		return s.last
	case shapeExtremes:
		// for number text, the strings of other leaves: strays of
		// every kind
		if r.IntN(2) == 0 {
			return extreme(r, t)
		}
	}
	if text && s.stray && r.IntN(50) == 0 {
		return g.numberText(s, r.IntN(numTextForms))
	}
	return draw()
}

// relatedValue draws the next value of a leaf of an Options.Related
// shape, false for a type the shape does not apply to.
func (g *Gen) relatedValue(s *leafState, t arrow.DataType) (any, bool) {
	r := g.rng
	switch {
	case s.related == relStepped && (t.ID() == arrow.INT32 || t.ID() == arrow.INT64):
		v := s.step * int64(r.IntN(2000)-1000)
		if t.ID() == arrow.INT32 {
			v = int64(int32(v + 7))
		} else {
			v += 1_000_000_007
		}
		return v, true
	case s.related == relPeriodic && (t.ID() == arrow.INT32 || t.ID() == arrow.INT64):
		if len(s.pool) < s.period {
			v := int64(r.IntN(1000))
			s.pool = append(s.pool, v)
			return v, true
		}
		i := int(s.counter % int64(s.period))
		s.counter++
		v := s.pool[i].(int64) + int64(r.IntN(3)-1)
		s.pool[i] = v
		return v, true
	case s.related == relWalk && (t.ID() == arrow.FLOAT64 || t.ID() == arrow.FLOAT32):
		x, _ := s.last.(float64)
		x += r.NormFloat64() * float64(s.step) / 100
		if t.ID() == arrow.FLOAT32 {
			x = float64(float32(x))
		}
		s.last = x
		return x, true
	}
	return nil, false
}

// numberText draws a random text of one form.
func (g *Gen) numberText(s *leafState, form int) string {
	r := g.rng
	if form == textLetters {
		return g.random(arrow.BinaryTypes.String).(string)
	}
	var v int64
	switch r.IntN(3) {
	case 0:
		v = int64(r.IntN(200) - 100)
	case 1:
		v = r.Int64N(2_000_000_000) - 1_000_000_000
	default:
		v = int64(r.Uint64()) // the whole range: grouped and decimal forms at their longest
	}
	return formatText(form, v, s.width, r.IntN(5))
}

// formatText prints v in a form of number text: digits at width (of |v|,
// cut to its last width digits), the plain or grouped integer, or v·10^-frac
// as a decimal fraction.
func formatText(form int, v int64, width, frac int) string {
	u := uint64(v)
	if v < 0 {
		u = -u
	}
	switch form {
	case textHex:
		return hexText(hexTemplates[width], uint64(v))
	case textField:
		return fieldText(width, v)
	case textDigits:
		d := strconv.FormatUint(u, 10)
		if len(d) > width {
			d = d[len(d)-width:]
		}
		return strings.Repeat("0", width-len(d)) + d
	case textGrouped:
		d := strconv.FormatUint(u, 10)
		var b strings.Builder
		if v < 0 {
			b.WriteByte('-')
		}
		for i := range len(d) {
			if i > 0 && (len(d)-i)%3 == 0 {
				b.WriteByte(',')
			}
			b.WriteByte(d[i])
		}
		return b.String()
	case textDecimals:
		if frac == 0 {
			return strconv.FormatInt(v, 10)
		}
		d := strconv.FormatUint(u, 10)
		if len(d) <= frac {
			d = strings.Repeat("0", frac+1-len(d)) + d
		}
		t := d[:len(d)-frac] + "." + d[len(d)-frac:]
		if v < 0 {
			t = "-" + t
		}
		return t
	}
	return strconv.FormatInt(v, 10)
}

// hexText fills template t with digits of u, its last digit u's lowest:
// hex digits from u and, past sixteen, from a mix of u; decimal digits from
// u in base 10.
func hexText(t string, u uint64) string {
	if t == "" {
		w := 1 + int(u>>58)%6
		return fmt.Sprintf("%0*X", w, u&(1<<(4*w)-1))
	}
	b := []byte(t)
	hx, dec := u, u
	k := 0
	for i := len(b) - 1; i >= 0; i-- {
		switch c := b[i]; c {
		case 'x', 'X':
			d := hx & 15
			hx >>= 4
			if k++; k%16 == 0 {
				hx = u*0x9e3779b97f4a7c15 + uint64(k)
			}
			if c == 'x' {
				b[i] = "0123456789abcdef"[d]
			} else {
				b[i] = "0123456789ABCDEF"[d]
			}
		case 'd':
			b[i] = byte('0' + dec%10)
			dec /= 10
		}
	}
	return string(b)
}

// fieldText fills fieldTemplates[k] with numbers drawn from v: the first
// number from |v| (so that a sorted column's first numbers grow), the
// others from a mix of v. About one value in ten is of the edges: empty,
// fieldPlain[k], the template's value followed by 17 to 24 numbers, or a
// run of 20 to 49 digits (longer than a field holds).
func fieldText(k int, v int64) string {
	u := uint64(v)
	a := u
	if v < 0 {
		a = -u
	}
	h := u
	next := func(n uint64) uint64 {
		// splitmix64
		h += 0x9e3779b97f4a7c15
		z := h
		z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
		z = (z ^ z>>27) * 0x94d049bb133111eb
		return (z ^ z>>31) % n
	}
	edge := next(40)
	switch edge {
	case 0:
		return ""
	case 1:
		return fieldPlain[k]
	case 2:
		b := make([]byte, 20+next(30))
		for i := range b {
			b[i] = byte('0' + next(10))
		}
		return fieldPlain[k] + " " + string(b)
	}
	var s string
	switch k {
	case 0:
		s = fmt.Sprintf("%s /api/v%d/%s/%d HTTP/1.1", []string{"GET", "POST", "PUT", "DELETE"}[next(4)],
			1+next(3), []string{"users", "orders", "items"}[next(3)], a%100000)
	case 1:
		s = fmt.Sprintf(`{"id":%d,"v":"%d.%d.%d","ok":%v}`, a, next(4), next(20), next(100), next(8) != 0)
	case 2:
		s = time.Date(1990, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, int(a%20000)).Format("Jan 02 2006")
	case 3:
		s = fmt.Sprintf("%dkm %s of %s", 1+a%300, []string{"N", "NNE", "SSW", "W", "ESE"}[next(5)],
			[]string{"Ridgecrest, CA", "Anchorage, Alaska", "Hilo, Hawaii", "Petrolia, CA", "Tokyo, Japan"}[next(5)])
	case 4:
		t := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(a%(400*86400*1000)) * time.Millisecond)
		s = fmt.Sprintf("%s [worker-%d] took %d ms", t.Format("2006-01-02 15:04:05.000"), next(16), next(1000))
	case 5:
		s = fmt.Sprintf("v%d.%d.%d", a%20, next(30), next(200))
		if next(4) == 0 {
			s += fmt.Sprintf("-rc.%d", next(5))
		}
	case 6:
		n := a
		if next(5) == 0 {
			n = u // above 2^63 where v < 0: 19 or 20 digits
		}
		s = fmt.Sprintf("order #%d", n)
	default:
		s = fmt.Sprintf("%d.%d.%d.%d:%d", a%256, next(256), next(256), next(256), next(65536))
	}
	if edge == 3 {
		// more numbers than a value stores as fields
		for i := range 17 + next(8) {
			if i == 0 {
				s += " ["
			} else {
				s += ","
			}
			s += strconv.FormatUint(next(1000), 10)
		}
		s += "]"
	}
	return s
}

// Leaf values travel as one of: bool, int64 (signed kinds, dates,
// timestamps, decimals <= 18 digits), uint64, float64, []byte, string,
// decimal128.Num.

// random draws a value of type t from the whole domain.
func (g *Gen) random(t arrow.DataType) any {
	r := g.rng
	switch t.ID() {
	case arrow.BOOL:
		return r.IntN(2) == 0
	case arrow.INT8:
		return int64(int8(r.Uint32()))
	case arrow.INT16:
		return int64(int16(r.Uint32()))
	case arrow.INT32:
		if r.IntN(2) == 0 {
			return int64(r.IntN(1000) - 500)
		}
		return int64(int32(r.Uint32()))
	case arrow.INT64:
		if r.IntN(2) == 0 {
			return int64(r.IntN(100000) - 50000)
		}
		return int64(r.Uint64())
	case arrow.UINT8:
		return uint64(uint8(r.Uint32()))
	case arrow.UINT16:
		return uint64(uint16(r.Uint32()))
	case arrow.UINT32:
		return uint64(r.Uint32())
	case arrow.UINT64:
		if r.IntN(2) == 0 {
			return uint64(r.IntN(5000))
		}
		return r.Uint64()
	case arrow.FLOAT32, arrow.FLOAT64:
		switch r.IntN(4) {
		case 0:
			return specialFloats[r.IntN(len(specialFloats))]
		case 1:
			return float64(r.IntN(10000)) / 100
		}
		if t.ID() == arrow.FLOAT32 {
			return float64(float32(r.NormFloat64() * 1e6))
		}
		return r.NormFloat64() * 1e12
	case arrow.STRING, arrow.BINARY:
		if g.opts.LongStrings && r.IntN(40) == 0 {
			b := make([]rune, 200+r.IntN(2800))
			for i := range b {
				b[i] = []rune("abcdefgh xyzäé€𝄞")[r.IntN(16)]
			}
			if t.ID() == arrow.BINARY {
				return []byte(string(b))
			}
			return string(b)
		}
		if t.ID() == arrow.BINARY {
			b := make([]byte, r.IntN(10))
			for i := range b {
				b[i] = byte(r.Uint32())
			}
			return b
		}
		n := r.IntN(14)
		if r.IntN(3) == 0 {
			n = r.IntN(3)
		}
		b := make([]rune, n)
		for i := range b {
			if r.IntN(20) == 0 {
				b[i] = []rune("äé€𝄞\x00")[r.IntN(5)]
			} else {
				b[i] = rune('a' + r.IntN(8))
			}
		}
		return string(b)
	case arrow.DATE32:
		return int64(r.IntN(80000) - 20000)
	case arrow.TIMESTAMP:
		if r.IntN(2) == 0 {
			return int64(1_600_000_000_000) + int64(r.IntN(1_000_000))
		}
		return int64(r.Uint64())
	case arrow.TIME32:
		if r.IntN(2) == 0 {
			return int64(r.IntN(86400 * 1000)) // within a day, in ms or s
		}
		return int64(int32(r.Uint32()))
	case arrow.TIME64, arrow.DURATION:
		if r.IntN(2) == 0 {
			return int64(r.IntN(86400)) * 1_000_000
		}
		return int64(r.Uint64())
	case arrow.DECIMAL128:
		return randomDecimal(r, int(t.(*arrow.Decimal128Type).Precision))
	}
	panic(fmt.Sprintf("randtable: no generator for %s", t))
}

var specialFloats = []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1),
	1, -1, math.MaxFloat32, math.SmallestNonzeroFloat64, -math.MaxFloat64}

// randomDecimal returns an unscaled value with at most prec digits.
func randomDecimal(r *rand.Rand, prec int) any {
	digits := 1 + r.IntN(prec)
	if r.IntN(3) == 0 {
		digits = prec
	}
	b := make([]byte, 0, digits+1)
	if r.IntN(2) == 0 {
		b = append(b, '-')
	}
	for i := range digits {
		d := byte('0' + r.IntN(10))
		if i == 0 && d == '0' {
			d = '1'
		}
		b = append(b, d)
	}
	v, _ := new(big.Int).SetString(string(b), 10)
	if prec <= 18 {
		return v.Int64()
	}
	return decimal128.FromBigInt(v)
}

// extreme returns a boundary value of type t.
func extreme(r *rand.Rand, t arrow.DataType) any {
	switch t.ID() {
	case arrow.BOOL:
		return true
	case arrow.INT8:
		return []int64{math.MinInt8, math.MaxInt8, 0, -1}[r.IntN(4)]
	case arrow.INT16:
		return []int64{math.MinInt16, math.MaxInt16, 0, -1}[r.IntN(4)]
	case arrow.INT32, arrow.DATE32, arrow.TIME32:
		return []int64{math.MinInt32, math.MaxInt32, 0, -1}[r.IntN(4)]
	case arrow.INT64, arrow.TIMESTAMP, arrow.TIME64, arrow.DURATION:
		return []int64{math.MinInt64, math.MaxInt64, 0, -1}[r.IntN(4)]
	case arrow.UINT8:
		return []uint64{0, math.MaxUint8}[r.IntN(2)]
	case arrow.UINT16:
		return []uint64{0, math.MaxUint16}[r.IntN(2)]
	case arrow.UINT32:
		return []uint64{0, math.MaxUint32}[r.IntN(2)]
	case arrow.UINT64:
		return []uint64{0, math.MaxUint64, math.MaxInt64 + 1}[r.IntN(3)]
	case arrow.FLOAT32, arrow.FLOAT64:
		return specialFloats[r.IntN(len(specialFloats))]
	case arrow.STRING:
		return []string{"", "\x00", "\xff\xfe", "a long string with more than sixteen bytes"}[r.IntN(4)]
	case arrow.BINARY:
		return [][]byte{{}, {0}, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}}[r.IntN(3)]
	case arrow.DECIMAL128:
		p := int(t.(*arrow.Decimal128Type).Precision)
		m := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(p)), nil)
		m.Sub(m, big.NewInt(1))
		if r.IntN(2) == 0 {
			m.Neg(m)
		}
		if p <= 18 {
			return m.Int64()
		}
		return decimal128.FromBigInt(m)
	}
	panic(fmt.Sprintf("randtable: no extremes for %s", t))
}

// sortedValue returns the value of a non-decreasing sequence at counter c.
func sortedValue(t arrow.DataType, c int64) any {
	switch t.ID() {
	case arrow.BOOL:
		return c/16%2 == 1
	case arrow.INT8:
		return int64(int8(c/8 - 128))
	case arrow.INT16, arrow.INT32, arrow.INT64, arrow.DATE32, arrow.TIME32, arrow.TIME64, arrow.DURATION:
		return c - 100
	case arrow.TIMESTAMP:
		return 1_700_000_000_000 + c*1000
	case arrow.UINT8:
		return uint64(uint8(c / 8))
	case arrow.UINT16, arrow.UINT32, arrow.UINT64:
		return uint64(c)
	case arrow.FLOAT32, arrow.FLOAT64:
		return float64(c)*0.25 - 10
	case arrow.STRING:
		return fmt.Sprintf("s%08d", c)
	case arrow.BINARY:
		return []byte(fmt.Sprintf("b%06d", c))
	case arrow.DECIMAL128:
		if t.(*arrow.Decimal128Type).Precision <= 18 {
			return c * 3
		}
		return decimal128.FromI64(c * 3)
	}
	panic(fmt.Sprintf("randtable: no sorted values for %s", t))
}

// appendLeaf appends v (as produced by value) to a primitive builder.
func appendLeaf(b array.Builder, v any) {
	switch bb := b.(type) {
	case *array.BooleanBuilder:
		bb.Append(v.(bool))
	case *array.Int8Builder:
		bb.Append(int8(v.(int64)))
	case *array.Int16Builder:
		bb.Append(int16(v.(int64)))
	case *array.Int32Builder:
		bb.Append(int32(v.(int64)))
	case *array.Int64Builder:
		bb.Append(v.(int64))
	case *array.Uint8Builder:
		bb.Append(uint8(v.(uint64)))
	case *array.Uint16Builder:
		bb.Append(uint16(v.(uint64)))
	case *array.Uint32Builder:
		bb.Append(uint32(v.(uint64)))
	case *array.Uint64Builder:
		bb.Append(v.(uint64))
	case *array.Float32Builder:
		bb.Append(float32(v.(float64)))
	case *array.Float64Builder:
		bb.Append(v.(float64))
	case *array.StringBuilder:
		bb.Append(v.(string))
	case *array.BinaryBuilder:
		bb.Append(v.([]byte))
	case *array.Date32Builder:
		bb.Append(arrow.Date32(v.(int64)))
	case *array.TimestampBuilder:
		bb.Append(arrow.Timestamp(v.(int64)))
	case *array.Time32Builder:
		bb.Append(arrow.Time32(v.(int64)))
	case *array.Time64Builder:
		bb.Append(arrow.Time64(v.(int64)))
	case *array.DurationBuilder:
		bb.Append(arrow.Duration(v.(int64)))
	case *array.Decimal128Builder:
		switch d := v.(type) {
		case int64:
			bb.Append(decimal128.FromI64(d))
		case decimal128.Num:
			bb.Append(d)
		}
	default:
		panic(fmt.Sprintf("randtable: no leaf appender for %T", b))
	}
}
