package difftest

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/iox"
	"strata/timeseries"
)

// TSSeeds is the first seed of the time-series tables (RunTimeSeries), a
// range of their own.
const TSSeeds = 30_000_000

// tsTable is one generated time-series table: series keys, a time column
// strictly increasing within each series, and measurements with nulls.
type tsTable struct {
	seed    uint64
	rec     arrow.RecordBatch // in the order written
	model   timeseries.Model
	opts    timeseries.WriterOptions
	batches int
	keyVals [][]string // per key column, the values drawn (for selectors)
	tmin    int64
	tmax    int64
	stamp   bool // the time column is a timestamp (else int64)
	// dups: series repeat times now and then (a sensor that sends twice),
	// so rows of one time come in no defined order
	dups bool
	// readDesc says how the file was opened
	readDesc string
	file     string
	parquet  string
}

func (t *tsTable) describe() string {
	return fmt.Sprintf("seed %d: %d rows, schema %s, model %+v, repeated times %v, chunk rows %d, min chunk rows %d, block size %d, sorted %v, %d writes, no zstd %v, opened %s",
		t.seed, t.rec.NumRows(), t.rec.Schema(), t.model, t.dups, t.opts.ChunkRows, t.opts.MinChunkRows, t.opts.BlockSize, t.opts.Sorted, t.batches, t.opts.Table.NoZstd, t.readDesc)
}

// newTSTable draws a table: zero to two key columns (strings or
// integers), up to 40 series of 1 to about 2,000 rows whose times step by
// one unit, by random gaps or by long jumps (before 1970 too), and one to
// four measurements (float64, int64, int32, string, bool) with nulls at a
// rate of their own.
func newTSTable(seed uint64, dir string) (*tsTable, error) {
	r := rand.New(rand.NewPCG(seed, 0x7473))
	t := &tsTable{seed: seed, stamp: r.IntN(2) == 0}
	var fields []arrow.Field
	nkeys := r.IntN(3)
	keyTypes := []arrow.DataType{arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int32}
	for k := range nkeys {
		name := fmt.Sprintf("k%d", k)
		fields = append(fields, arrow.Field{Name: name, Type: keyTypes[r.IntN(len(keyTypes))]})
		t.model.Keys = append(t.model.Keys, name)
	}
	timeType := arrow.DataType(arrow.PrimitiveTypes.Int64)
	if t.stamp {
		timeType = &arrow.TimestampType{Unit: arrow.Microsecond}
	}
	fields = append(fields, arrow.Field{Name: "time", Type: timeType})
	t.model.Time = "time"
	measTypes := []arrow.DataType{arrow.PrimitiveTypes.Float64, arrow.PrimitiveTypes.Float64, arrow.PrimitiveTypes.Int64,
		arrow.PrimitiveTypes.Int32, arrow.BinaryTypes.String, arrow.FixedWidthTypes.Boolean}
	nmeas := 1 + r.IntN(4)
	nullRate := make([]int, nmeas) // in 100
	for m := range nmeas {
		fields = append(fields, arrow.Field{Name: fmt.Sprintf("m%d", m), Type: measTypes[r.IntN(len(measTypes))], Nullable: true})
		nullRate[m] = []int{0, 0, 5, 50, 100}[r.IntN(5)]
	}
	sch := arrow.NewSchema(fields, nil)
	// the series: distinct key tuples
	nseries := 1
	if nkeys > 0 {
		nseries = 1 + r.IntN(40)
	}
	t.keyVals = make([][]string, nkeys)
	pools := make([][]string, nkeys)
	for k := range nkeys {
		n := 1 + r.IntN(8)
		for i := range n {
			switch fields[k].Type.ID() {
			case arrow.STRING:
				pools[k] = append(pools[k], []string{"", "a", "b", "host_", "ü", "a b", "zz"}[r.IntN(7)]+strconv.Itoa(i))
			default:
				pools[k] = append(pools[k], strconv.Itoa(r.IntN(2000)-1000))
			}
		}
		slices.Sort(pools[k])
		pools[k] = slices.Compact(pools[k])
	}
	seen := map[string]bool{}
	var series [][]string
	for range nseries {
		key := make([]string, nkeys)
		for k := range key {
			key[k] = pools[k][r.IntN(len(pools[k]))]
		}
		id := strings.Join(key, "\x00")
		if seen[id] {
			continue
		}
		seen[id] = true
		series = append(series, key)
		for k, v := range key {
			if !slices.Contains(t.keyVals[k], v) {
				t.keyVals[k] = append(t.keyVals[k], v)
			}
		}
	}
	// in the directory's order: by key, strings by their bytes and
	// integers by value (the order Sorted input must come in)
	slices.SortFunc(series, func(x, y []string) int {
		for k := range x {
			if fields[k].Type.ID() == arrow.STRING {
				if c := strings.Compare(x[k], y[k]); c != 0 {
					return c
				}
				continue
			}
			a, _ := strconv.ParseInt(x[k], 10, 64)
			b, _ := strconv.ParseInt(y[k], 10, 64)
			if a != b {
				return cmp.Compare(a, b)
			}
		}
		return 0
	})
	// rows
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	base := int64(1_600_000_000_000_000) // 2020 in microseconds
	if r.IntN(4) == 0 {
		base = -int64(r.IntN(1 << 40)) // before 1970
	}
	t.tmin, t.tmax = math.MaxInt64, math.MinInt64
	type row struct {
		key []string
		t   int64
	}
	var rows []row
	dr := rand.New(rand.NewPCG(seed, 0x64757073)) // (apart: tables without repeats stay as they were)
	t.dups = dr.IntN(4) == 0
	for _, key := range series {
		n := 1 + r.IntN(300)
		if r.IntN(5) == 0 {
			n = 1 + r.IntN(2000)
		}
		ts := base + int64(r.IntN(1_000_000))
		step := []int64{1, 10, 1000, 1_000_000}[r.IntN(4)]
		for range n {
			rows = append(rows, row{key, ts})
			t.tmin, t.tmax = min(t.tmin, ts), max(t.tmax, ts)
			if t.dups && dr.IntN(4) == 0 {
				continue // the same time again
			}
			switch r.IntN(20) {
			case 0:
				ts += 1 + int64(r.IntN(1_000_000_000)) // a jump
			case 1, 2:
				ts += 1 + int64(r.IntN(int(step)*3))
			default:
				ts += step
			}
		}
	}
	t.opts.Sorted = r.IntN(2) == 0
	if !t.opts.Sorted {
		r.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
	}
	for _, rw := range rows {
		for k, v := range rw.key {
			switch kb := b.Field(k).(type) {
			case *array.StringBuilder:
				kb.Append(v)
			case *array.Int64Builder:
				n, _ := strconv.ParseInt(v, 10, 64)
				kb.Append(n)
			case *array.Int32Builder:
				n, _ := strconv.ParseInt(v, 10, 32)
				kb.Append(int32(n))
			}
		}
		switch tb := b.Field(nkeys).(type) {
		case *array.TimestampBuilder:
			tb.Append(arrow.Timestamp(rw.t))
		case *array.Int64Builder:
			tb.Append(rw.t)
		}
		for m := range nmeas {
			fb := b.Field(nkeys + 1 + m)
			if r.IntN(100) < nullRate[m] {
				fb.AppendNull()
				continue
			}
			switch mb := fb.(type) {
			case *array.Float64Builder:
				mb.Append(float64(r.IntN(2_000_000)-1_000_000) / 1000)
			case *array.Int64Builder:
				mb.Append(int64(r.IntN(2_000_000) - 1_000_000))
			case *array.Int32Builder:
				mb.Append(int32(r.IntN(20_000) - 10_000))
			case *array.StringBuilder:
				mb.Append([]string{"ok", "warn", "", "fail " + strconv.Itoa(r.IntN(50))}[r.IntN(4)])
			case *array.BooleanBuilder:
				mb.Append(r.IntN(2) == 0)
			}
		}
	}
	t.rec = b.NewRecordBatch()
	t.opts.ChunkRows = []int{16, 100, 1000, 0}[r.IntN(4)]
	if r.IntN(2) == 0 {
		t.opts.MinChunkRows = 1 + r.IntN(200)
	}
	t.opts.BlockSize = []int{0, 16, 128}[r.IntN(3)]
	t.opts.Table.NoZstd = r.IntN(6) == 0
	t.batches = 1 + r.IntN(4)
	t.file = filepath.Join(dir, fmt.Sprintf("ts%d.strata", seed))
	t.parquet = filepath.Join(dir, fmt.Sprintf("ts%d.parquet", seed))
	if err := t.write(); err != nil {
		t.release()
		return nil, err
	}
	return t, nil
}

func (t *tsTable) release() {
	t.rec.Release()
	os.Remove(t.file)
	os.Remove(t.parquet)
}

// write writes the Strata time-series file in t.batches Writes and the
// Parquet file DuckDB reads.
func (t *tsTable) write() error {
	w, err := timeseries.Create(t.file, t.rec.Schema(), t.model, &t.opts)
	if err != nil {
		return err
	}
	n := t.rec.NumRows()
	for i := range t.batches {
		lo, hi := n*int64(i)/int64(t.batches), n*int64(i+1)/int64(t.batches)
		part := t.rec.NewSlice(lo, hi)
		err := w.Write(part)
		part.Release()
		if err != nil {
			return err
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	return writeParquet(t.parquet, t.rec)
}

// RunTimeSeries generates the time-series table of seed, writes it with
// package timeseries and as Parquet, and runs queries random time-range
// queries (selectors, columns, offset and limit, threads, eager or late
// materialization), bucketed aggregates (with and without statistics) and
// latest-point lookups against DuckDB on the Parquet file. Every row and
// value is compared; float aggregates within a relative 1e-9 of the
// magnitude summed.
func (r *Runner) RunTimeSeries(seed uint64, queries int) (int, []Failure, error) {
	t, err := newTSTable(seed, r.dir)
	if err != nil {
		return 0, nil, fmt.Errorf("time-series table %d: %w", seed, err)
	}
	defer t.release()
	data, err := os.ReadFile(t.file)
	if err != nil {
		return 0, nil, err
	}
	// opened as a reader might be: caches off, tiny or default, decoding
	// on one or more goroutines, through short reads or not
	rr := rand.New(rand.NewPCG(seed, readStream))
	opts := &timeseries.Options{CacheBytes: []int64{0, -1, 2048}[rr.IntN(3)], DecoderCacheBytes: []int64{0, -1, 4096}[rr.IntN(3)],
		Threads: rr.IntN(4), Gap: []int64{0, 1, 1 << 20}[rr.IntN(3)]}
	var src iox.Source = iox.Bytes(data)
	short := rr.IntN(3) == 0
	if short {
		src = shortSource{iox.Bytes(data), 1 + rr.IntN(3000)}
	}
	f, err := timeseries.OpenSource(context.Background(), src, opts)
	if err != nil {
		return 0, []Failure{{seed, -1, "open: " + err.Error() + "\n  table: " + t.describe()}}, nil
	}
	t.readDesc = fmt.Sprintf("%+v, short reads %v", *opts, short)
	defer f.Close()
	if _, err := r.db.Exec("CREATE OR REPLACE VIEW t AS SELECT * FROM read_parquet('" + t.parquet + "')"); err != nil {
		return 0, nil, fmt.Errorf("table %d: duckdb view: %w", seed, err)
	}
	var fails []Failure
	for qi := range queries {
		q := t.newTSQuery(qi)
		var err error
		var n int
		switch q.kind {
		case "query":
			r.Stats.TSQueries++
			n, err = r.tsQuery(t, f, q)
		case "agg":
			r.Stats.TSAggs++
			n, err = r.tsAgg(t, f, q)
		case "sample":
			r.Stats.TSSamples++
			n, err = r.tsSample(t, f, q)
		case "series":
			r.Stats.TSSeries++
			n, err = r.tsSeries(t, f, q)
		case "paths":
			r.Stats.TSPaths++
			n, err = r.tsPaths(t, f, q)
		default:
			r.Stats.TSLasts++
			n, err = r.tsLast(t, f, q)
		}
		if err == nil {
			r.Stats.TSRows += n
			if n == 0 {
				r.Stats.TSEmpty++
			}
		}
		if err != nil {
			fails = append(fails, Failure{seed, qi, fmt.Sprintf("%v\n  query: %s\n  table: %s", err, q, t.describe())})
		}
	}
	return queries, fails, nil
}

// tsQuery is one query of a time-series table.
type tsQuery struct {
	kind          string // "query", "agg" or "last"
	sel           timeseries.Selector
	tr            *timeseries.TimeRange
	cols          []string
	offset, limit int64
	threads       int
	eager         bool
	every         int64
	funcs         []string
	noStats       bool
	// sample: windows of length rows, drawn with seed and epoch
	windows, length int
	seed            uint64
	epoch           int
	stacked         bool
	// paths: how the series and measurements are drawn
	pick uint64
}

func (q *tsQuery) String() string {
	tr := "all time"
	if q.tr != nil {
		tr = fmt.Sprintf("[%d, %d)", q.tr.From, q.tr.To)
	}
	return fmt.Sprintf("%s series %v time %s columns %v offset %d limit %d threads %d eager %v every %d funcs %v no stats %v windows %d of %d rows (seed %d, epoch %d, stacked %v)",
		q.kind, q.sel, tr, q.cols, q.offset, q.limit, q.threads, q.eager, q.every, q.funcs, q.noStats, q.windows, q.length, q.seed, q.epoch, q.stacked)
}

func (t *tsTable) newTSQuery(qi int) *tsQuery {
	r := rand.New(rand.NewPCG(t.seed, uint64(qi)+0x7473))
	q := &tsQuery{kind: []string{"query", "query", "agg", "agg", "last"}[r.IntN(5)], threads: []int{0, 1, 3}[r.IntN(3)]}
	q.sel = timeseries.Selector{}
	for k, vals := range t.keyVals {
		if r.IntN(3) == 0 {
			v := vals[r.IntN(len(vals))]
			if r.IntN(10) == 0 {
				v += "0" // most likely no such series
			}
			key := t.model.Keys[k]
			switch r.IntN(6) {
			case 0:
				q.sel[key+"!="] = v
			case 1:
				// the value's first runes, then anything
				rs := []rune(v)
				q.sel[key+"=~"] = regexp.QuoteMeta(string(rs[:r.IntN(len(rs)+1)])) + ".*"
			case 2:
				q.sel[key+"!~"] = regexp.QuoteMeta(v) + "|" + regexp.QuoteMeta(vals[r.IntN(len(vals))])
			default:
				q.sel[key] = v
			}
		}
	}
	if r.IntN(3) > 0 {
		span := t.tmax - t.tmin + 1
		a := t.tmin - 5 + r.Int64N(span+10)
		b := a + r.Int64N(span+10)
		if r.IntN(4) == 0 {
			b = a + r.Int64N(1000) // narrow
		}
		q.tr = &timeseries.TimeRange{From: a, To: b}
	}
	sch := t.rec.Schema()
	switch q.kind {
	case "query":
		if r.IntN(3) > 0 {
			for _, fl := range sch.Fields() {
				if r.IntN(2) == 0 {
					q.cols = append(q.cols, fl.Name)
				}
			}
			r.Shuffle(len(q.cols), func(i, j int) { q.cols[i], q.cols[j] = q.cols[j], q.cols[i] })
			if len(q.cols) == 0 {
				q.cols = []string{"time"}
			}
		}
		if r.IntN(3) == 0 {
			q.offset = r.Int64N(t.rec.NumRows() + 2)
			q.limit = r.Int64N(t.rec.NumRows() + 2)
		}
		q.eager = r.IntN(4) == 0
		if t.dups {
			// rows of one time come in no defined order: a window of
			// them would be too
			q.offset, q.limit = 0, 0
		}
	case "agg":
		for _, fl := range sch.Fields()[len(t.model.Keys)+1:] {
			if numericTS(fl.Type) && r.IntN(3) > 0 {
				q.cols = append(q.cols, fl.Name)
			}
		}
		if len(q.cols) == 0 {
			q.kind = "last" // nothing numeric drawn
			break
		}
		q.every = []int64{0, 1, 7, 100, 1000, 86_400_000_000, 1 + r.Int64N(1_000_000)}[r.IntN(7)]
		for _, fn := range []string{"count", "min", "max", "sum", "avg", "first", "last"} {
			if r.IntN(2) == 0 {
				q.funcs = append(q.funcs, fn)
			}
		}
		q.noStats = r.IntN(3) == 0
	}
	if q.kind == "last" && r.IntN(2) == 0 {
		// random windows for training instead
		q.kind = "sample"
		q.tr = nil
		q.windows, q.length = r.IntN(9), 1+r.IntN(60)
		q.seed, q.epoch, q.stacked = r.Uint64(), r.IntN(3), r.IntN(2) == 0
		q.cols = nil
		if r.IntN(2) == 0 {
			for _, fl := range sch.Fields() {
				if r.IntN(2) == 0 {
					q.cols = append(q.cols, fl.Name)
				}
			}
		}
		return q
	}
	if q.kind == "last" {
		q.cols = nil
		for _, fl := range sch.Fields()[len(t.model.Keys)+1:] {
			if r.IntN(2) == 0 {
				q.cols = append(q.cols, fl.Name)
			}
		}
		// half of these list the series instead, or read tree-model
		// paths (drawn apart, so the other queries stay as they were)
		pr := rand.New(rand.NewPCG(t.seed, uint64(qi)+0x7061746873))
		switch pr.IntN(4) {
		case 0:
			q.kind = "series"
		case 1:
			q.kind = "paths"
			q.pick = pr.Uint64()
		}
	}
	return q
}

func numericTS(dt arrow.DataType) bool {
	switch dt.ID() {
	case arrow.FLOAT64, arrow.INT64, arrow.INT32:
		return true
	}
	return false
}

// where is the SQL condition of the query's selector and time range.
func (t *tsTable) where(q *tsQuery) string {
	conds := []string{"true"}
	sch := t.rec.Schema()
	for k, v := range q.sel {
		name, op := k, "="
		for _, o := range []string{"!=", "=~", "!~"} {
			if strings.HasSuffix(k, o) {
				name, op = strings.TrimSuffix(k, o), o
			}
		}
		fl := sch.Field(sch.FieldIndices(name)[0])
		lit := strings.ReplaceAll(v, "'", "''")
		switch {
		case op == "=~" || op == "!~":
			// the whole text of the value, integers in decimal
			not := map[string]string{"=~": "", "!~": "NOT "}[op]
			conds = append(conds, fmt.Sprintf("%sregexp_full_match(CAST(%s AS VARCHAR), '%s')", not, name, lit))
		case fl.Type.ID() == arrow.STRING:
			conds = append(conds, fmt.Sprintf("%s %s '%s'", name, map[string]string{"=": "=", "!=": "<>"}[op], lit))
		default:
			conds = append(conds, fmt.Sprintf("%s %s %s", name, map[string]string{"=": "=", "!=": "<>"}[op], v))
		}
	}
	if q.tr != nil {
		conds = append(conds, fmt.Sprintf("%s >= %d AND %s < %d", t.timeSQL(), q.tr.From, t.timeSQL(), q.tr.To))
	}
	return strings.Join(conds, " AND ")
}

// timeSQL is the time column as an integer in DuckDB.
func (t *tsTable) timeSQL() string {
	if t.stamp {
		return `epoch_us("time")`
	}
	return `"time"`
}

// colSQL renders a column so that DuckDB's value and Strata's compare as
// text (tsCanon): times as integers.
func (t *tsTable) colSQL(name string) string {
	if name == "time" {
		return t.timeSQL()
	}
	return name
}

// tsCanon renders value i of a Strata column as text, times as integers.
func tsCanon(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return "NULL"
	}
	switch c := a.(type) {
	case *array.String:
		return strconv.Quote(c.Value(i))
	case *array.Int64:
		return strconv.FormatInt(c.Value(i), 10)
	case *array.Int32:
		return strconv.FormatInt(int64(c.Value(i)), 10)
	case *array.Timestamp:
		return strconv.FormatInt(int64(c.Value(i)), 10)
	case *array.Float64:
		return strconv.FormatFloat(c.Value(i), 'g', -1, 64)
	case *array.Boolean:
		return strconv.FormatBool(c.Value(i))
	}
	return fmt.Sprintf("unexpected %T", a)
}

// duckCanon renders a value DuckDB returned as tsCanon does.
func duckCanon(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case string:
		return strconv.Quote(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case int32:
		return strconv.FormatInt(int64(x), 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	case time.Time:
		return strconv.FormatInt(x.UnixMicro(), 10)
	}
	return fmt.Sprintf("unexpected %T", v)
}

// duckTable runs sql and returns its rows rendered by duckCanon.
func (r *Runner) duckTable(sql string) ([][]string, error) {
	rows, err := r.db.Query(sql)
	if err != nil {
		return nil, fmt.Errorf("duckdb: %s: %w", sql, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var out [][]string
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		row := make([]string, len(vals))
		for i, v := range vals {
			row[i] = duckCanon(v)
		}
		out = append(out, row)
	}
	return out, rows.Err()
}

// orderSQL orders rows as the series directory does: by the keys (bytes
// of strings, values of integers), then time.
func (t *tsTable) orderSQL() string {
	var by []string
	for _, k := range t.model.Keys {
		by = append(by, k)
	}
	return strings.Join(append(by, t.timeSQL()), ", ")
}

// tsQuery, tsAgg and tsLast return the rows they compared.
func (r *Runner) tsQuery(t *tsTable, f *timeseries.File, q *tsQuery) (int, error) {
	cols := q.cols
	if cols == nil {
		for _, fl := range t.rec.Schema().Fields() {
			cols = append(cols, fl.Name)
		}
	}
	sel := make([]string, len(cols))
	for i, c := range cols {
		sel[i] = t.colSQL(c)
	}
	sql := "SELECT " + strings.Join(sel, ", ") + " FROM t WHERE " + t.where(q) + " ORDER BY " + t.orderSQL()
	if q.limit > 0 {
		sql += fmt.Sprintf(" LIMIT %d", q.limit)
	}
	if q.offset > 0 {
		sql += fmt.Sprintf(" OFFSET %d", q.offset)
	}
	want, err := r.duckTable(sql)
	if err != nil {
		return 0, err
	}
	rows, err := f.Query(context.Background(), timeseries.QueryOptions{Series: q.sel, Time: q.tr, Columns: q.cols,
		Offset: q.offset, Limit: q.limit, Threads: q.threads, Eager: q.eager})
	if err != nil {
		return 0, fmt.Errorf("strata query: %w", err)
	}
	defer rows.Close()
	var got [][]string
	for {
		rec, err := rows.Next()
		if err != nil {
			if err == io.EOF {
				break
			}
			return 0, fmt.Errorf("strata query: %w", err)
		}
		if int(rec.NumCols()) != len(cols) {
			rec.Release()
			return 0, fmt.Errorf("strata returned %d columns, want %d", rec.NumCols(), len(cols))
		}
		for i := range int(rec.NumRows()) {
			row := make([]string, len(cols))
			for c := range cols {
				row[c] = tsCanon(rec.Column(c), i)
			}
			got = append(got, row)
		}
		rec.Release()
	}
	if t.dups {
		sortRows(want)
		sortRows(got)
	}
	return len(want), compareTS(cols, want, got)
}

func compareTS(cols []string, want, got [][]string) error {
	for i := range min(len(want), len(got)) {
		for c := range cols {
			if want[i][c] != got[i][c] {
				return fmt.Errorf("row %d, column %s: strata %s, duckdb %s", i, cols[c], clip(got[i][c]), clip(want[i][c]))
			}
		}
	}
	if len(want) != len(got) {
		return fmt.Errorf("strata returned %d rows, duckdb %d", len(got), len(want))
	}
	return nil
}

func (r *Runner) tsAgg(t *tsTable, f *timeseries.File, q *tsQuery) (int, error) {
	funcs := q.funcs
	if funcs == nil {
		funcs = []string{"count", "min", "max", "avg"}
	}
	// DuckDB: per series and bucket, each function of each column, and
	// sum(abs(c)) to bound the rounding of float sums.
	ts := t.timeSQL()
	bucket := fmt.Sprintf("(%s - ((%s %% %d) + %d) %% %d)", ts, ts, q.every, q.every, q.every)
	if q.every == 0 {
		// one bucket per series, named by the series' first time
		bucket = "smin"
	}
	from := "(SELECT *, min(" + ts + ") OVER (PARTITION BY " + strings.Join(append(slices.Clone(t.model.Keys), "true"), ", ") + ") AS smin FROM t) AS t"
	sel := slices.Clone(t.model.Keys)
	sel = append(sel, bucket+" AS b")
	for _, c := range q.cols {
		for _, fn := range funcs {
			switch fn {
			case "count":
				sel = append(sel, "count("+c+")")
			case "first", "last":
				// the non-null value of the earliest (latest) time
				sel = append(sel, map[string]string{"first": "arg_min", "last": "arg_max"}[fn]+"("+c+"::DOUBLE, "+ts+") FILTER (WHERE "+c+" IS NOT NULL)")
			default:
				sel = append(sel, fn+"("+c+"::DOUBLE)")
			}
		}
		sel = append(sel, "sum(abs("+c+"::DOUBLE))")
	}
	group := append(slices.Clone(t.model.Keys), "b")
	sql := "SELECT " + strings.Join(sel, ", ") + " FROM " + from + " WHERE " + t.where(q) + " GROUP BY " + strings.Join(group, ", ") + " ORDER BY " + strings.Join(group, ", ")
	want, err := r.duckTable(sql)
	if err != nil {
		return 0, err
	}
	rec, _, err := f.Aggregate(context.Background(), timeseries.AggOptions{Series: q.sel, Time: q.tr, Every: q.every,
		Columns: q.cols, Funcs: q.funcs, Threads: q.threads, NoStats: q.noStats})
	if err != nil {
		return 0, fmt.Errorf("strata aggregate: %w", err)
	}
	defer rec.Release()
	nk := len(t.model.Keys)
	if int(rec.NumRows()) != len(want) {
		return 0, fmt.Errorf("strata returned %d buckets, duckdb %d", rec.NumRows(), len(want))
	}
	for i, w := range want {
		for k := range nk + 1 {
			if got := tsCanon(rec.Column(k), i); got != w[k] {
				return 0, fmt.Errorf("bucket %d, column %s: strata %s, duckdb %s", i, rec.ColumnName(k), got, w[k])
			}
		}
		wi, gi := nk+1, nk+1
		for _, c := range q.cols {
			mag, _ := strconv.ParseFloat(w[wi+len(funcs)], 64)
			for _, fn := range funcs {
				name := fn + "(" + c + ")"
				got := tsCanon(rec.Column(gi), i)
				if rec.ColumnName(gi) != name {
					return 0, fmt.Errorf("strata column %d is %s, want %s", gi, rec.ColumnName(gi), name)
				}
				if t.dups && (fn == "first" || fn == "last") {
					// the value of a time several rows share is any of theirs
				} else if err := closeTS(fn, got, w[wi], mag); err != nil {
					return 0, fmt.Errorf("bucket %d (%v), %s: %w", i, w[:nk+1], name, err)
				}
				wi++
				gi++
			}
			wi++ // sum(abs(c))
		}
	}
	return len(want), nil
}

// closeTS compares an aggregate: counts, min, max, first and last exactly; sums and
// means within 1e-9 of the magnitude summed (Strata adds in float64 in
// its own order).
func closeTS(fn, got, want string, mag float64) error {
	if got == want {
		return nil
	}
	if fn == "count" || fn == "min" || fn == "max" || fn == "first" || fn == "last" || got == "NULL" || want == "NULL" {
		return fmt.Errorf("strata %s, duckdb %s", got, want)
	}
	g, err1 := strconv.ParseFloat(got, 64)
	w, err2 := strconv.ParseFloat(want, 64)
	if err1 != nil || err2 != nil || math.Abs(g-w) > 1e-9*max(mag, 1) {
		return fmt.Errorf("strata %s, duckdb %s (magnitude %g)", got, want, mag)
	}
	return nil
}

func (r *Runner) tsLast(t *tsTable, f *timeseries.File, q *tsQuery) (int, error) {
	cols := q.cols
	if cols == nil {
		for _, fl := range t.rec.Schema().Fields()[len(t.model.Keys)+1:] {
			cols = append(cols, fl.Name)
		}
	}
	ts := t.timeSQL()
	sel := slices.Clone(t.model.Keys)
	sel = append(sel, "max("+ts+")")
	for _, c := range cols {
		sel = append(sel, "arg_max("+c+", "+ts+") FILTER (WHERE "+c+" IS NOT NULL)")
	}
	lq := *q
	lq.tr = nil // the latest point of all time
	sql := "SELECT " + strings.Join(sel, ", ") + " FROM t WHERE " + t.where(&lq)
	if len(t.model.Keys) > 0 {
		sql += " GROUP BY " + strings.Join(t.model.Keys, ", ") + " ORDER BY " + strings.Join(t.model.Keys, ", ")
	} else {
		sql += " HAVING count(*) > 0"
	}
	want, err := r.duckTable(sql)
	if err != nil {
		return 0, err
	}
	rec, _, err := f.Last(context.Background(), q.sel, q.cols)
	if err != nil {
		return 0, fmt.Errorf("strata last: %w", err)
	}
	defer rec.Release()
	names := append(slices.Clone(t.model.Keys), "time")
	names = append(names, cols...)
	if int(rec.NumCols()) != len(names) {
		return 0, fmt.Errorf("strata returned %d columns, want %d", rec.NumCols(), len(names))
	}
	var got [][]string
	for i := range int(rec.NumRows()) {
		row := make([]string, len(names))
		for c := range names {
			row[c] = tsCanon(rec.Column(c), i)
		}
		got = append(got, row)
	}
	if t.dups {
		// the latest value among rows of one time is any of theirs
		want, got = project(want, len(t.model.Keys)+1), project(got, len(t.model.Keys)+1)
		names = names[:len(t.model.Keys)+1]
	}
	return len(want), compareTS(names, want, got)
}

// sortRows orders rows by their text, for answers whose order among
// rows of one time is not defined.
func sortRows(rows [][]string) {
	slices.SortFunc(rows, func(a, b []string) int { return slices.Compare(a, b) })
}

// project keeps the first n columns of every row.
func project(rows [][]string, n int) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = r[:n]
	}
	return out
}

// tsSample compares random windows (Sample, whose draw DrawWindows
// repeats) with DuckDB's rows of the same series (by ordinal in key order)
// and positions within it.
func (r *Runner) tsSample(t *tsTable, f *timeseries.File, q *tsQuery) (int, error) {
	o := timeseries.SampleOptions{Series: q.sel, Windows: q.windows, Length: q.length, Columns: q.cols,
		Seed: q.seed, Epoch: q.epoch, Stacked: q.stacked, Threads: q.threads}
	cols := q.cols
	if cols == nil {
		cols = []string{"time"}
		for _, fl := range t.rec.Schema().Fields()[len(t.model.Keys)+1:] {
			cols = append(cols, fl.Name)
		}
	}
	ts := t.timeSQL()
	keys := strings.Join(append(slices.Clone(t.model.Keys), "true"), ", ")
	ord := "0"
	if len(t.model.Keys) > 0 {
		ord = "dense_rank() OVER (ORDER BY " + strings.Join(t.model.Keys, ", ") + ") - 1"
	}
	from := "(SELECT *, " + ord + " AS sord, row_number() OVER (PARTITION BY " + keys + " ORDER BY " + ts + ") - 1 AS rn, count(*) OVER (PARTITION BY " + keys + ") AS n FROM t) AS t"
	ws, err := f.DrawWindows(context.Background(), o)
	if err != nil {
		if q.windows > 0 && strings.Contains(err.Error(), "no selected series has") {
			// right when no series picked has length rows
			rows, err := r.duckTable(fmt.Sprintf("SELECT count(*) FROM %s WHERE %s AND n >= %d", from, t.where(q), q.length))
			if err != nil {
				return 0, err
			}
			if rows[0][0] != "0" {
				return 0, fmt.Errorf("strata drew no window of %d rows; duckdb has %s rows in series that long", q.length, rows[0][0])
			}
			return 0, nil
		}
		return 0, fmt.Errorf("strata draw: %w", err)
	}
	recs, _, err := f.Sample(context.Background(), o)
	if err != nil {
		return 0, fmt.Errorf("strata sample: %w", err)
	}
	defer func() {
		for _, rec := range recs {
			rec.Release()
		}
	}()
	sel := make([]string, len(cols))
	for i, c := range cols {
		sel[i] = t.colSQL(c)
	}
	var want, got [][]string
	for i, w := range ws {
		rows, err := r.duckTable(fmt.Sprintf("SELECT %d, %s FROM %s WHERE %s AND sord = %d AND rn >= %d AND rn < %d ORDER BY rn",
			i, strings.Join(sel, ", "), from, t.where(q), w.Series, w.Start, w.Start+int64(q.length)))
		if err != nil {
			return 0, err
		}
		if len(rows) != q.length {
			return 0, fmt.Errorf("window %d (%+v): duckdb has %d rows there, want %d", i, w, len(rows), q.length)
		}
		want = append(want, rows...)
	}
	names := append([]string{"window"}, cols...)
	if q.stacked && len(ws) > 0 {
		if len(recs) != 1 {
			return 0, fmt.Errorf("stacked sample of %d records", len(recs))
		}
		if int(recs[0].NumCols()) != len(names) {
			return 0, fmt.Errorf("strata returned %d columns, want %d", recs[0].NumCols(), len(names))
		}
		for i := range int(recs[0].NumRows()) {
			row := make([]string, len(names))
			for c := range names {
				row[c] = tsCanon(recs[0].Column(c), i)
			}
			got = append(got, row)
		}
	} else if !q.stacked {
		if len(recs) != len(ws) {
			return 0, fmt.Errorf("strata returned %d windows, drew %d", len(recs), len(ws))
		}
		for w, rec := range recs {
			if int(rec.NumCols()) != len(cols) {
				return 0, fmt.Errorf("strata returned %d columns, want %d", rec.NumCols(), len(cols))
			}
			for i := range int(rec.NumRows()) {
				row := []string{strconv.Itoa(w)}
				for c := range cols {
					row = append(row, tsCanon(rec.Column(c), i))
				}
				got = append(got, row)
			}
		}
	}
	if t.dups {
		// the values at a window's ends are any of the rows of their time:
		// the window and its times are defined
		ti := slices.Index(names, "time")
		keep := func(rows [][]string) [][]string {
			out := make([][]string, len(rows))
			for i, r := range rows {
				out[i] = []string{r[0]}
				if ti > 0 {
					out[i] = append(out[i], r[ti])
				}
			}
			return out
		}
		want, got = keep(want), keep(got)
		names = names[:1]
		if ti > 0 {
			names = append(names, "time")
		}
	}
	return len(want), compareTS(names, want, got)
}

// tsSeries compares the series a selector picks (Select) with DuckDB's
// groups: ordinal in key order, key text, first file row (the file holds
// the series one after another in key order), rows and time bounds.
func (r *Runner) tsSeries(t *tsTable, f *timeseries.File, q *tsQuery) (int, error) {
	ts := t.timeSQL()
	keys := t.model.Keys
	order := strings.Join(append(slices.Clone(keys), "true"), ", ")
	var sel, text []string
	for i, k := range keys {
		sel = append(sel, k, fmt.Sprintf("%s::VARCHAR AS s%d", k, i))
		text = append(text, fmt.Sprintf("s%d", i))
	}
	sel = append(sel, "count(*) AS n", "min("+ts+") AS tmin", "max("+ts+") AS tmax")
	groups := "SELECT " + strings.Join(sel, ", ") + " FROM t"
	if len(keys) > 0 {
		groups += " GROUP BY " + strings.Join(keys, ", ")
	}
	// ordinals and first rows over every series, then the selector
	all := "SELECT *, row_number() OVER (ORDER BY " + order + ") - 1 AS ord, " +
		"sum(n) OVER (ORDER BY " + order + " ROWS UNBOUNDED PRECEDING) - n AS first FROM (" + groups + ") AS g"
	lq := *q
	lq.tr = nil
	want, err := r.duckTable("SELECT " + strings.Join(append(append([]string{"ord"}, text...), "first::BIGINT", "n", "tmin", "tmax"), ", ") +
		" FROM (" + all + ") AS t WHERE " + t.where(&lq) + " ORDER BY ord")
	if err != nil {
		return 0, err
	}
	ss, err := f.Select(context.Background(), q.sel)
	if err != nil {
		return 0, fmt.Errorf("strata select: %w", err)
	}
	var got [][]string
	for _, s := range ss {
		row := []string{strconv.Itoa(s.Ordinal)}
		for _, k := range s.Key {
			row = append(row, strconv.Quote(k))
		}
		row = append(row, strconv.FormatInt(s.FirstRow, 10), strconv.FormatInt(s.Rows, 10), strconv.FormatInt(s.MinTime, 10), strconv.FormatInt(s.MaxTime, 10))
		got = append(got, row)
	}
	names := append(append([]string{"ordinal"}, keys...), "first row", "rows", "min time", "max time")
	return len(want), compareTS(names, want, got)
}

// tsPaths reads tree-model paths (a series' path and a measurement) over
// the query's time range and compares the merge with one made here from
// DuckDB's rows of each path: a row for every time any path has a row at,
// nulls where a path has none. Tables whose series repeat times are read
// by series instead (the merge's rows of one time have no defined order).
func (r *Runner) tsPaths(t *tsTable, f *timeseries.File, q *tsQuery) (int, error) {
	if t.dups {
		return r.tsSeries(t, f, q)
	}
	all, err := f.Select(context.Background(), nil)
	if err != nil {
		return 0, fmt.Errorf("strata select: %w", err)
	}
	meas := t.rec.Schema().Fields()[len(t.model.Keys)+1:]
	pr := rand.New(rand.NewPCG(q.pick, 0))
	var paths []string
	type pick struct {
		s timeseries.Series
		m string
	}
	var picks []pick
	for range 1 + pr.IntN(3) {
		s := all[pr.IntN(len(all))]
		m := meas[pr.IntN(len(meas))].Name
		p := m
		if s.Path != "" || len(t.model.Keys) > 0 {
			p = s.Path + "." + m
		}
		paths = append(paths, p)
		picks = append(picks, pick{s, m})
	}
	// each path's (time, value) rows from DuckDB, merged by time here
	ts := t.timeSQL()
	type point struct {
		t int64
		v string
	}
	byPath := make([][]point, len(picks))
	times := map[int64]bool{}
	for i, p := range picks {
		sel := timeseries.Selector{}
		for k, name := range t.model.Keys {
			sel[name] = p.s.Key[k]
		}
		pq := &tsQuery{sel: sel, tr: q.tr}
		rows, err := r.duckTable("SELECT " + ts + ", " + p.m + " FROM t WHERE " + t.where(pq) + " ORDER BY " + ts)
		if err != nil {
			return 0, err
		}
		for _, row := range rows {
			x, _ := strconv.ParseInt(row[0], 10, 64)
			byPath[i] = append(byPath[i], point{x, row[1]})
			times[x] = true
		}
	}
	order := slices.Sorted(maps.Keys(times))
	var want [][]string
	at := make([]int, len(picks))
	for _, x := range order {
		row := []string{strconv.FormatInt(x, 10)}
		for i := range picks {
			v := "NULL"
			if at[i] < len(byPath[i]) && byPath[i][at[i]].t == x {
				v = byPath[i][at[i]].v
				at[i]++
			}
			row = append(row, v)
		}
		want = append(want, row)
	}
	rec, _, err := f.QueryPaths(context.Background(), paths, q.tr)
	if err != nil {
		return 0, fmt.Errorf("strata paths %q: %w", paths, err)
	}
	defer rec.Release()
	if int(rec.NumCols()) != len(paths)+1 {
		return 0, fmt.Errorf("strata returned %d columns for %d paths", rec.NumCols(), len(paths))
	}
	var got [][]string
	for i := range int(rec.NumRows()) {
		row := make([]string, rec.NumCols())
		for c := range row {
			row[c] = tsCanon(rec.Column(c), i)
		}
		got = append(got, row)
	}
	return len(want), compareTS(append([]string{"time"}, paths...), want, got)
}
