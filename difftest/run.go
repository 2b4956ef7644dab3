package difftest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/duckdb/duckdb-go/v2"

	"strata"
)

// Runner runs cases against one DuckDB connection.
type Runner struct {
	db   *sql.DB
	dir  string
	http server // serves dir to the tables read over HTTP (ReadSeeds)
	// Stats counts what the cases compared.
	Stats Stats
}

// Stats counts cases by kind and the values they compared.
type Stats struct {
	Scans, Takes, Aggs int
	Filtered           int // cases with a WHERE
	FlatFiltered       int // of Filtered, those comparing values of FlatMap keys
	EmptyResults       int // scans whose answer had no row
	Rows, Values       int // rows and values compared
	AggValues          int
	Means              int // of AggValues, avg results
	// time-series cases (RunTimeSeries): queries, aggregates and latest
	// points, the rows, buckets and series they compared, and how many
	// answered nothing
	TSQueries, TSAggs, TSLasts, TSSamples, TSSeries, TSPaths int
	TSRows, TSEmpty                                          int
	// ConcurrentReads counts the lookups, scans and cache drops of the
	// readers that ran beside the queries (ReadSeeds)
	ConcurrentReads int
}

func (s Stats) String() string {
	if s.TSQueries+s.TSAggs+s.TSLasts+s.TSSamples+s.TSSeries+s.TSPaths > 0 {
		return fmt.Sprintf("%d time-series queries, %d aggregates, %d latest-point lookups, %d samples, %d series listings, %d path merges (%d with no row); %d rows, buckets, series and window rows compared",
			s.TSQueries, s.TSAggs, s.TSLasts, s.TSSamples, s.TSSeries, s.TSPaths, s.TSEmpty, s.TSRows)
	}
	out := fmt.Sprintf("%d scans (%d with no row), %d takes, %d aggregate queries; %d with a filter; %d rows, %d values, %d aggregates (%d means) compared",
		s.Scans, s.EmptyResults, s.Takes, s.Aggs, s.Filtered, s.Rows, s.Values, s.AggValues, s.Means)
	if s.FlatFiltered > 0 {
		out += fmt.Sprintf("; %d filters on FlatMap keys", s.FlatFiltered)
	}
	if s.ConcurrentReads > 0 {
		out += fmt.Sprintf("; %d concurrent reads checked against the tables", s.ConcurrentReads)
	}
	return out
}

// NewRunner opens an in-memory DuckDB; dir holds the tables' files.
func NewRunner(dir string) (*Runner, error) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	for _, s := range []string{"SET threads = 1", "SET TimeZone = 'UTC'"} {
		if _, err := db.Exec(s); err != nil {
			db.Close()
			return nil, fmt.Errorf("duckdb: %s: %w", s, err)
		}
	}
	return &Runner{db: db, dir: dir}, nil
}

// Close closes DuckDB and the HTTP server, if one was started.
func (r *Runner) Close() error {
	if r.http.srv != nil {
		r.http.srv.Close()
	}
	return r.db.Close()
}

// Failure is one case whose answers differ (or that failed to run).
type Failure struct {
	Seed  uint64
	Query int
	Msg   string
}

func (f Failure) Error() string { return fmt.Sprintf("case %d/%d: %s", f.Seed, f.Query, f.Msg) }

// RunTable generates the table of seed and runs the queries listed (all of
// 0..queries-1 when only is nil). It returns the number of cases run and
// the failures.
func (r *Runner) RunTable(seed uint64, queries int, only []int) (int, []Failure, error) {
	t, err := NewTable(seed, r.dir)
	if err != nil {
		return 0, nil, fmt.Errorf("table %d: %w", seed, err)
	}
	defer t.Release()
	f, err := r.open(t)
	if err != nil {
		return 0, []Failure{{seed, -1, "open: " + err.Error() + "\n  table: " + t.Describe()}}, nil
	}
	defer f.Close()
	if _, err := r.db.Exec("CREATE OR REPLACE VIEW t AS SELECT * FROM read_parquet('" + t.Parquet + "', file_row_number = true)"); err != nil {
		return 0, nil, fmt.Errorf("table %d: duckdb view: %w", seed, err)
	}
	if only == nil {
		for qi := range queries {
			only = append(only, qi)
		}
	}
	var fails []Failure
	var stop chan struct{}
	var found <-chan noiseResult
	if seed >= ReadSeeds && t.read.noise > 0 {
		stop = make(chan struct{})
		found = noise(t, f, stop)
	}
	for _, qi := range only {
		q := NewQuery(t, qi)
		var err error
		if seed >= ReadSeeds {
			qr := newQueryRead(t, qi)
			if err = r.runRead(t, f, q, qr); err != nil {
				err = fmt.Errorf("%w\n  read: %s", err, qr)
			}
		} else {
			err = r.runQuery(t, f, q)
		}
		if err != nil {
			fails = append(fails, Failure{seed, qi, fmt.Sprintf("%v\n  query: %s\n  table: %s", err, q, t.Describe())})
		}
	}
	if stop != nil {
		close(stop)
		res := <-found
		r.Stats.ConcurrentReads += res.reads
		for _, msg := range res.wrong {
			fails = append(fails, Failure{seed, -2, msg + "\n  table: " + t.Describe()})
		}
	}
	return len(only), fails, nil
}

func (r *Runner) runQuery(t *Table, f *strata.File, q *Query) error {
	if q.Where != "" {
		r.Stats.Filtered++
	}
	if q.FlatKeys > 0 {
		r.Stats.FlatFiltered++
	}
	switch q.Kind {
	case "scan":
		r.Stats.Scans++
		return r.scan(t, f.Scan, q)
	case "take":
		r.Stats.Takes++
		return r.take(t, f, q, 0)
	}
	r.Stats.Aggs++
	return r.agg(t, f.Aggregate, q)
}

// fields returns the Arrow fields of the projected columns.
func projected(t *Table, cols []string) []arrow.Field {
	sch := t.Rec.Schema()
	if cols == nil {
		return sch.Fields()
	}
	out := make([]arrow.Field, len(cols))
	for i, c := range cols {
		out[i] = sch.Field(sch.FieldIndices(c)[0])
	}
	return out
}

func selectList(fields []arrow.Field) string {
	s := "file_row_number"
	for _, f := range fields {
		s += ", " + quoteIdent(f.Name)
	}
	return s
}

// duckRows runs sql and renders each row (after its leading row number) in
// canonical form; it returns the row numbers too.
func (r *Runner) duckRows(query string, fields []arrow.Field) ([]int64, [][]string, error) {
	rows, err := r.db.Query(query)
	if err != nil {
		return nil, nil, fmt.Errorf("duckdb: %s: %w", query, err)
	}
	defer rows.Close()
	var nums []int64
	var out [][]string
	vals := make([]any, len(fields)+1)
	ptrs := make([]any, len(vals))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, nil, fmt.Errorf("duckdb: scan: %w", err)
		}
		nums = append(nums, vals[0].(int64))
		row := make([]string, len(fields))
		for i, f := range fields {
			row[i] = canonDuck(f, vals[i+1])
		}
		out = append(out, row)
	}
	return nums, out, rows.Err()
}

func strataRows(rec arrow.RecordBatch, fields []arrow.Field, out [][]string) ([][]string, error) {
	if int(rec.NumCols()) != len(fields) {
		return nil, fmt.Errorf("strata returned %d columns, want %d", rec.NumCols(), len(fields))
	}
	for i := range int(rec.NumRows()) {
		row := make([]string, len(fields))
		for c := range fields {
			if rec.Schema().Field(c).Name != fields[c].Name {
				return nil, fmt.Errorf("strata column %d is %q, want %q", c, rec.Schema().Field(c).Name, fields[c].Name)
			}
			row[c] = canonArrow(rec.Schema().Field(c), rec.Column(c), i)
		}
		out = append(out, row)
	}
	return out, nil
}

// scan compares a scan query of DuckDB's on view t with Strata's answer
// through scan (of one file, or of several read as one).
func (r *Runner) scan(t *Table, scan func(strata.ScanOptions) (*strata.Scanner, error), q *Query) error {
	fields, nums, want, err := r.duckScan(t, q)
	if err != nil {
		return err
	}
	got, err := scanRows(scan, strata.ScanOptions{Columns: q.Columns, Where: q.Where, Offset: q.Offset, Limit: q.Limit}, fields, nil)
	if err != nil {
		return err
	}
	if len(want) == 0 {
		r.Stats.EmptyResults++
	}
	return r.compareRows(fields, nums, want, got)
}

// duckScan runs a scan query in DuckDB: the projected fields, and the
// file row numbers and canonical values of the rows it returns.
func (r *Runner) duckScan(t *Table, q *Query) ([]arrow.Field, []int64, [][]string, error) {
	fields := projected(t, q.Columns)
	sqlq := "SELECT " + selectList(fields) + " FROM t"
	if q.SQL != "" {
		sqlq += " WHERE " + q.SQL
	}
	sqlq += " ORDER BY file_row_number"
	if q.Limit > 0 {
		sqlq += fmt.Sprintf(" LIMIT %d", q.Limit)
	}
	if q.Offset > 0 {
		sqlq += fmt.Sprintf(" OFFSET %d", q.Offset)
	}
	nums, want, err := r.duckRows(sqlq, fields)
	return fields, nums, want, err
}

// scanRows runs a Strata scan and appends its rows, in canonical form,
// to out.
func scanRows(scan func(strata.ScanOptions) (*strata.Scanner, error), opts strata.ScanOptions, fields []arrow.Field, out [][]string) ([][]string, error) {
	sc, err := scan(opts)
	if err != nil {
		return nil, fmt.Errorf("strata scan: %w", err)
	}
	defer sc.Close()
	for {
		rec, err := sc.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("strata scan: %w", err)
		}
		out, err = strataRows(rec, fields, out)
		rec.Release()
		if err != nil {
			return nil, err
		}
	}
}

func (r *Runner) compareRows(fields []arrow.Field, nums []int64, want, got [][]string) error {
	for i := range min(len(want), len(got)) {
		for c := range fields {
			if want[i][c] != got[i][c] {
				return fmt.Errorf("row %d (file row %d), column %s: strata %s, duckdb %s", i, nums[i], fields[c].Name, clip(got[i][c]), clip(want[i][c]))
			}
		}
	}
	if len(want) != len(got) {
		return fmt.Errorf("strata returned %d rows, duckdb %d", len(got), len(want))
	}
	r.Stats.Rows += len(want)
	r.Stats.Values += len(want) * len(fields)
	return nil
}

func clip(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

// take compares a lookup; parallelism overrides the file's when not 0.
func (r *Runner) take(t *Table, f *strata.File, q *Query, parallelism int) error {
	fields := projected(t, q.Columns)
	if len(q.Rows) == 0 {
		return nil
	}
	list := make([]string, len(q.Rows))
	for i, x := range q.Rows {
		list[i] = strconv.FormatInt(x, 10)
	}
	nums, rows, err := r.duckRows("SELECT "+selectList(fields)+" FROM t WHERE file_row_number IN ("+strings.Join(list, ",")+")", fields)
	if err != nil {
		return err
	}
	byNum := map[int64][]string{}
	for i, n := range nums {
		byNum[n] = rows[i]
	}
	want := make([][]string, len(q.Rows))
	for i, x := range q.Rows {
		want[i] = byNum[x]
		if want[i] == nil {
			return fmt.Errorf("duckdb has no row %d", x)
		}
	}
	rec, _, err := f.TakeContext(context.Background(), q.Rows, strata.TakeOptions{Columns: q.Columns, Parallelism: parallelism})
	if err != nil {
		return fmt.Errorf("strata take: %w", err)
	}
	defer rec.Release()
	got, err := strataRows(rec, fields, nil)
	if err != nil {
		return err
	}
	return r.compareRows(fields, q.Rows, want, got)
}

// agg compares an aggregate query of DuckDB's on view t with Strata's
// answer through aggregate (one file's, or several files' read as one).
func (r *Runner) agg(t *Table, aggregate func(strata.AggregateOptions) ([]strata.AggValue, strata.ScanStats, error), q *Query) error {
	sch := t.Rec.Schema()
	exprs := make([]string, len(q.Aggs))
	sqlExprs := make([]string, len(q.Aggs))
	// the column each aggregate folds: a top-level one or a leaf by path
	targets := make([]leafCol, len(q.Aggs))
	var leaves map[string]leafCol
	for i, a := range q.Aggs {
		switch {
		case a.Path != "":
			if leaves == nil {
				leaves = map[string]leafCol{}
				for _, c := range leafCols(t.Rec) {
					leaves[c.path] = c
				}
			}
			c, ok := leaves[a.Path]
			if !ok {
				return fmt.Errorf("aggregate over %q: no such leaf", a.Path)
			}
			targets[i] = c
			exprs[i] = a.Fn + "(" + c.path + ")"
			sqlExprs[i] = a.Fn + "(" + c.sql + ")"
		case a.Col < 0:
			exprs[i], sqlExprs[i] = "count(*)", "count(*)"
		default:
			name := sch.Field(a.Col).Name
			targets[i] = leafCol{path: name, sql: quoteIdent(name), f: sch.Field(a.Col), vals: t.Rec.Column(a.Col)}
			exprs[i] = a.Fn + "(" + name + ")"
			sqlExprs[i] = a.Fn + "(" + quoteIdent(name) + ")"
		}
	}
	sqlq := "SELECT " + strings.Join(sqlExprs, ", ") + " FROM t"
	if q.SQL != "" {
		sqlq += " WHERE " + q.SQL
	}
	vals := make([]any, len(q.Aggs))
	ptrs := make([]any, len(vals))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := r.db.QueryRow(sqlq).Scan(ptrs...); err != nil {
		return fmt.Errorf("duckdb: %s: %w", sqlq, err)
	}
	got, _, err := aggregate(strata.AggregateOptions{Exprs: strings.Join(exprs, ", "), Where: q.Where})
	if err != nil {
		return fmt.Errorf("strata aggregate: %w", err)
	}
	if len(got) != len(q.Aggs) {
		return fmt.Errorf("strata returned %d aggregates, want %d", len(got), len(q.Aggs))
	}
	var selected []int64 // rows DuckDB selects, for exact float sums
	for i, a := range q.Aggs {
		var want, have string
		c := targets[i]
		if a.Fn == "avg" {
			if err := closeAvg(vals[i], got[i]); err != nil {
				return fmt.Errorf("%s: strata %v, duckdb %v: %w", exprs[i], got[i], vals[i], err)
			}
			r.Stats.AggValues++
			r.Stats.Means++
			continue
		}
		if c.vals != nil && a.Fn == "sum" && isFloat(c.f.Type) {
			if selected == nil {
				sel := "SELECT file_row_number FROM t"
				if q.SQL != "" {
					sel += " WHERE " + q.SQL
				}
				if selected, err = r.rowNumbers(sel); err != nil {
					return err
				}
			}
			want = exactFloatSum(c, selected)
			have = canonAggFloat(got[i])
			// DuckDB adds in its own order: only close to the exact sum.
			if err := closeFloat(vals[i], want); err != nil {
				return fmt.Errorf("%s: duckdb %v, exact %s: %w", exprs[i], vals[i], want, err)
			}
		} else {
			want = canonAggDuck(c.f, a, vals[i])
			have = canonAgg(c.f, a, got[i])
		}
		if want != have {
			return fmt.Errorf("%s: strata %s, duckdb %s", exprs[i], clip(have), clip(want))
		}
		r.Stats.AggValues++
	}
	return nil
}

func (r *Runner) rowNumbers(query string) ([]int64, error) {
	rows, err := r.db.Query(query)
	if err != nil {
		return nil, fmt.Errorf("duckdb: %s: %w", query, err)
	}
	defer rows.Close()
	out := []int64{}
	for rows.Next() {
		var n int64
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// exactFloatSum is the correctly rounded sum of the selected non-null
// values (IEEE for NaN and infinities), "NULL" when there are none.
func exactFloatSum(c leafCol, rows []int64) string {
	col := c.vals
	sum := new(big.Float).SetPrec(4000)
	n := 0
	nan, pos, neg := false, false, false
	for _, i := range rows {
		if c.isNull(int(i)) {
			continue
		}
		var v float64
		switch c := col.(type) {
		case *array.Float32:
			v = float64(c.Value(int(i)))
		case *array.Float64:
			v = c.Value(int(i))
		}
		n++
		switch {
		case math.IsNaN(v):
			nan = true
		case math.IsInf(v, 1):
			pos = true
		case math.IsInf(v, -1):
			neg = true
		default:
			sum.Add(sum, big.NewFloat(v))
		}
	}
	switch {
	case n == 0:
		return nullText
	case nan || pos && neg:
		return "NaN"
	case pos:
		return "+Inf"
	case neg:
		return "-Inf"
	}
	v, _ := sum.Float64()
	return zeroless(canonFloat(v, 64))
}

// zeroless folds -0 into 0: the sign of a zero sum or extreme depends on
// the order values meet, which neither system fixes.
func zeroless(s string) string {
	if s == "-0" {
		return "0"
	}
	return s
}

func closeFloat(v any, exact string) error {
	if exact == nullText {
		if v != nil {
			return errors.New("want NULL")
		}
		return nil
	}
	d, ok := v.(float64)
	if !ok {
		return fmt.Errorf("type %T", v)
	}
	e, _ := strconv.ParseFloat(exact, 64)
	switch {
	case math.IsNaN(e) || math.IsInf(e, 0) || math.IsNaN(d) || math.IsInf(d, 0):
		// A naive sum overflows where an exact one need not (and the
		// reverse); only NaN must agree.
		if math.IsNaN(e) != math.IsNaN(d) && !math.IsInf(d, 0) && !math.IsInf(e, 0) {
			return errors.New("NaN disagrees")
		}
		return nil
	}
	return nil // the magnitude of the rounding error depends on the terms; the exact check is Strata's
}

// closeAvg compares Strata's mean of integers or decimals (the exact sum
// over the count, rounded once) with DuckDB's: both NULL, or within a
// few units in the last place (DuckDB may round the sum and the division
// separately).
func closeAvg(duck any, v strata.AggValue) error {
	if duck == nil || v.Null {
		if (duck == nil) != v.Null {
			return errors.New("NULL disagrees")
		}
		return nil
	}
	var d float64
	switch x := duck.(type) {
	case float64:
		d = x
	case float32:
		d = float64(x)
	default:
		return fmt.Errorf("duckdb returned %T", duck)
	}
	if !v.Float {
		return errors.New("not a float")
	}
	if math.Abs(v.F-d) > 1e-12*math.Max(math.Abs(d), 1e-300) {
		return errors.New("means differ")
	}
	return nil
}

func canonAggFloat(v strata.AggValue) string {
	if v.Null {
		return nullText
	}
	if !v.Float {
		return "<not a float: " + v.String() + ">"
	}
	return zeroless(canonFloat(v.F, 64))
}

// canonAgg renders a Strata aggregate of column type t.
func canonAgg(f arrow.Field, a Agg, v strata.AggValue) string {
	if v.Null {
		return nullText
	}
	if a.Fn == "count" {
		return strconv.FormatInt(v.I, 10)
	}
	t := f.Type
	switch t.ID() {
	case arrow.FLOAT32:
		if !v.Float {
			return "<not a float: " + v.String() + ">"
		}
		if a.Fn == "sum" {
			return zeroless(canonFloat(v.F, 64))
		}
		return zeroless(canonFloat(v.F, 32))
	case arrow.FLOAT64:
		if !v.Float {
			return "<not a float: " + v.String() + ">"
		}
		return zeroless(canonFloat(v.F, 64))
	case arrow.UINT64:
		if a.Fn != "sum" {
			return strconv.FormatUint(uint64(v.I), 10)
		}
	case arrow.BOOL:
		return strconv.FormatBool(v.I != 0)
	case arrow.STRING:
		return strconv.Quote(v.Text)
	case arrow.BINARY:
		return "x" + fmt.Sprintf("%x", v.Text)
	case arrow.TIMESTAMP:
		return canonInstant(tsInstant(arrow.Timestamp(v.I), t.(*arrow.TimestampType).Unit))
	case arrow.TIME32, arrow.TIME64:
		return canonMicros(v.I, t.(arrow.TemporalWithUnit).TimeUnit())
	}
	// Decimals, wide ones included, as their unscaled integer.
	if b := v.Big(); b != nil {
		return b.String()
	}
	return v.String()
}

// canonAggDuck renders a DuckDB aggregate of column type t.
func canonAggDuck(f arrow.Field, a Agg, v any) string {
	if v == nil {
		return nullText
	}
	if a.Fn == "count" {
		return canonScalar(v)
	}
	switch f.Type.ID() {
	case arrow.FLOAT32, arrow.FLOAT64:
		switch x := v.(type) {
		case float32:
			return zeroless(canonFloat(float64(x), 32))
		case float64:
			return zeroless(canonFloat(x, 64))
		}
	case arrow.DECIMAL128:
		if d, ok := v.(duckdb.Decimal); ok {
			return rescale(d.Value, int(d.Scale), int(f.Type.(*arrow.Decimal128Type).Scale)).String()
		}
	}
	return canonDuck(f, v)
}
