package main

// `go run . ts --real SPEC,...`: the real series. For each Parquet file,
// Strata's time-series writer (series keys and time column named in SPEC)
// and DuckDB's zstd Parquet of the same rows sorted by (keys, time) are
// written, and their sizes compared (the size target); then the
// latest point of every series is read from Strata's metadata, with the
// data bytes that read touched (the target: none).

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"
)

// tsRealSpec is one --real entry: PATH@TIME[@KEY+KEY...].
type tsRealSpec struct {
	path string
	time string
	keys []string
}

func parseTSReal(list string) ([]tsRealSpec, error) {
	var out []tsRealSpec
	for _, s := range strings.Split(list, ",") {
		if s == "" {
			continue
		}
		parts := strings.Split(s, "@")
		if len(parts) < 2 || len(parts) > 3 || parts[0] == "" || parts[1] == "" {
			return nil, fmt.Errorf("--real %q: want PATH@TIME or PATH@TIME@KEY+KEY", s)
		}
		sp := tsRealSpec{path: parts[0], time: parts[1]}
		if len(parts) == 3 && parts[2] != "" {
			sp.keys = strings.Split(parts[2], "+")
		}
		out = append(out, sp)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--real: no sets")
	}
	return out, nil
}

// tsRealResult is what one set measured.
type tsRealResult struct {
	name                  string
	rows                  int64
	series                int
	srcBytes              int64
	strataBytes, duckByte int64
	lastMS                float64
	lastDataBytes         int64
	err                   error
}

func runTSReal(list, dir string, threads int, stdout, stderr io.Writer) int {
	specs, err := parseTSReal(list)
	if err != nil {
		fmt.Fprintln(stderr, "bench ts:", err)
		return 2
	}
	var res []tsRealResult
	for _, sp := range specs {
		r := tsRealSet(sp, dir, threads)
		if r.err != nil {
			fmt.Fprintf(stderr, "bench ts: %s: %v\n", sp.path, r.err)
		}
		res = append(res, r)
	}
	tw := tabwriter.NewWriter(stdout, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "set\trows\tseries\tsource parquet\tduckdb zstd parquet (sorted)\tstrata\tstrata / duckdb\tlast ms\tlast data bytes\t\n")
	failed := false
	for _, r := range res {
		if r.err != nil {
			failed = true
			fmt.Fprintf(tw, "%s\tERROR %v\t\t\t\t\t\t\t\t\n", r.name, r.err)
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%.2f\t%.3f\t%d\t\n", r.name, r.rows, r.series, r.srcBytes, r.duckByte,
			r.strataBytes, float64(r.strataBytes)/float64(r.duckByte), r.lastMS, r.lastDataBytes)
	}
	tw.Flush()
	if failed {
		return 1
	}
	return 0
}

func tsRealSet(sp tsRealSpec, dir string, threads int) tsRealResult {
	r := tsRealResult{name: strings.TrimSuffix(filepath.Base(sp.path), ".parquet")}
	st, err := os.Stat(sp.path)
	if err != nil {
		r.err = err
		return r
	}
	r.srcBytes = st.Size()
	src, err := readParquetSource(sp.path)
	if err != nil {
		r.err = err
		return r
	}
	defer func() {
		for _, rec := range src.Records {
			rec.Release()
		}
	}()
	if err := dateToTimestamp(src, sp.time); err != nil {
		r.err = err
		return r
	}
	r.rows = src.Rows
	setDir := filepath.Join(dir, r.name)
	if err := os.MkdirAll(setDir, 0o755); err != nil {
		r.err = err
		return r
	}
	// DuckDB: the same rows sorted by (keys, time), zstd Parquet.
	d, err := openDuck("", threads)
	if err != nil {
		r.err = err
		return r
	}
	defer d.close()
	if err := loadDuck(d, src); err != nil {
		r.err = err
		return r
	}
	var order []string
	for _, k := range append(append([]string{}, sp.keys...), sp.time) {
		order = append(order, `"`+strings.ReplaceAll(k, `"`, `""`)+`"`)
	}
	pq := filepath.Join(setDir, "duck.parquet")
	if err := d.exec("COPY (SELECT * FROM src ORDER BY " + strings.Join(order, ", ") + ") TO " + sqlString(pq) + " (FORMAT parquet, COMPRESSION zstd)"); err != nil {
		r.err = err
		return r
	}
	if r.duckByte, err = fileBytes(pq); err != nil {
		r.err = err
		return r
	}
	// Strata: the time-series writer sorts by (keys, time) itself.
	path := filepath.Join(setDir, "data.strata")
	if r.series, r.lastDataBytes, r.lastMS, err = strataTSReal(path, src, sp.keys, sp.time, threads); err != nil {
		r.err = err
		return r
	}
	r.strataBytes, r.err = fileBytes(path)
	return r
}

// msSince is the wall time since t0 in milliseconds.
func msSince(t0 time.Time) float64 { return ms(time.Since(t0)) }

// dateToTimestamp turns a date32 time column into timestamp[s] (the time
// layer wants a timestamp or int64 time column; `strata ts import` does the
// same), in place, so that both systems store the same values.
func dateToTimestamp(src *Source, col string) error {
	is := src.Schema.FieldIndices(col)
	if len(is) != 1 {
		return fmt.Errorf("no column %q", col)
	}
	i := is[0]
	if src.Schema.Field(i).Type.ID() != arrow.DATE32 {
		return nil
	}
	fields := append([]arrow.Field(nil), src.Schema.Fields()...)
	fields[i].Type = &arrow.TimestampType{Unit: arrow.Second}
	sch := arrow.NewSchema(fields, nil)
	for k, rec := range src.Records {
		b := array.NewTimestampBuilder(memory.DefaultAllocator, fields[i].Type.(*arrow.TimestampType))
		d := rec.Column(i).(*array.Date32)
		for r := 0; r < d.Len(); r++ {
			if d.IsNull(r) {
				b.AppendNull()
			} else {
				b.Append(arrow.Timestamp(int64(d.Value(r)) * 86400))
			}
		}
		ts := b.NewArray()
		b.Release()
		cols := append([]arrow.Array(nil), rec.Columns()...)
		cols[i] = ts
		src.Records[k] = array.NewRecord(sch, cols, rec.NumRows())
		ts.Release()
		rec.Release()
	}
	src.Schema = sch
	return nil
}
