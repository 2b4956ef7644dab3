package difftest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata"
)

// unionStream is the second word of the generator that cuts a table into
// files of different columns, apart from the table's own.
const unionStream = 0x756e696f6e

// RunUnion checks tables read by column name (UnionByName): the table of
// seed is cut into two or three files of consecutive rows, each holding a
// random subset of the columns in a random order, and Strata reads the
// files as one table (strata.ScanFiles and strata.AggregateFiles,
// UnionByName) while DuckDB reads one Parquet file of the same rows with
// the columns a file lacked null in its rows: the table union by name
// describes. The aggregate queries among 0..queries-1 run, and the scans
// that project whole columns; it returns how many did and the failures
// (reproduced by the same seed and query).
func (r *Runner) RunUnion(seed uint64, queries int) (int, []Failure, error) {
	t, err := NewTable(seed, r.dir)
	if err != nil {
		return 0, nil, fmt.Errorf("table %d: %w", seed, err)
	}
	defer t.Release()
	files, ref, desc, err := r.cutByName(t)
	if err != nil {
		return 0, nil, fmt.Errorf("table %d: %w", seed, err)
	}
	defer func() {
		for _, f := range files {
			f.Close()
		}
		ref.Release()
		for i := range 3 {
			os.Remove(r.unionPath(t.Seed, i))
		}
	}()
	if _, err := r.db.Exec("CREATE OR REPLACE VIEW t AS SELECT * FROM read_parquet('" + ref.Parquet + "', file_row_number = true)"); err != nil {
		return 0, nil, fmt.Errorf("table %d: duckdb view: %w", seed, err)
	}
	n := 0
	var fails []Failure
	for qi := range queries {
		q := NewQuery(ref, qi)
		var qr queryRead // (tables of ReadSeeds: how this query reads)
		if seed >= ReadSeeds {
			qr = newQueryRead(t, qi)
			if qr.drop {
				for _, f := range files {
					f.DropCaches()
				}
			}
		}
		aggregate := func(o strata.AggregateOptions) ([]strata.AggValue, strata.ScanStats, error) {
			o.UnionByName, o.Parallelism = true, qr.parallelism
			return strata.AggregateFiles(context.Background(), files, o)
		}
		scan := func(o strata.ScanOptions) (*strata.Scanner, error) {
			o.UnionByName, o.Parallelism = true, qr.parallelism
			return strata.ScanFiles(context.Background(), files, o)
		}
		var err error
		switch {
		case q.Kind == "agg":
			r.Stats.Aggs++
			err = r.agg(ref, aggregate, q)
		case q.Kind == "scan" && !slices.ContainsFunc(q.Columns, func(c string) bool { return len(ref.Rec.Schema().FieldIndices(c)) == 0 }):
			// (by name, a scan projects whole top-level columns)
			r.Stats.Scans++
			err = r.scan(ref, scan, q)
		default:
			continue
		}
		n++
		if q.Where != "" {
			r.Stats.Filtered++
		}
		if q.FlatKeys > 0 {
			r.Stats.FlatFiltered++
		}
		if err != nil {
			if seed >= ReadSeeds {
				err = fmt.Errorf("%w\n  read: %s", err, qr)
			}
			fails = append(fails, Failure{seed, qi, fmt.Sprintf("%v\n  query: %s\n  files: %s\n  table: %s", err, q, desc, t.Describe())})
		}
	}
	return n, fails, nil
}

// unionPath is the path of file i of the table of seed cut by RunUnion.
func (r *Runner) unionPath(seed uint64, i int) string {
	return filepath.Join(r.dir, fmt.Sprintf("u%d_%d.strata", seed, i))
}

// cutByName writes t's rows as two or three Strata files of different
// columns and returns them opened, with the reference table (t's rows
// under the union of the files' columns, null where a file lacked one,
// written as Parquet) and a description of the cut.
func (r *Runner) cutByName(t *Table) ([]*strata.File, *Table, string, error) {
	rg := rand.New(rand.NewPCG(t.Seed, unionStream))
	sch := t.Rec.Schema()
	rows := t.Rec.NumRows()
	k := 2 + rg.IntN(2)
	cuts := []int64{0}
	for range k - 1 {
		cuts = append(cuts, rg.Int64N(rows+1))
	}
	cuts = append(cuts, rows)
	slices.Sort(cuts)
	cols := make([][]int, k)
	held := make([]bool, sch.NumFields())
	for i := range cols {
		for j := range sch.NumFields() {
			if rg.IntN(5) < 3 {
				cols[i] = append(cols[i], j)
				held[j] = true
			}
		}
	}
	for j, h := range held {
		if !h { // every column in some file
			i := rg.IntN(k)
			cols[i] = append(cols[i], j)
		}
	}
	var files []*strata.File
	var recs []arrow.RecordBatch
	release := func() {
		for _, f := range files {
			f.Close()
		}
		for _, rec := range recs {
			rec.Release()
		}
	}
	defer func() {
		for _, rec := range recs {
			rec.Release()
		}
	}()
	desc := ""
	for i := range k {
		rg.Shuffle(len(cols[i]), func(a, b int) { cols[i][a], cols[i][b] = cols[i][b], cols[i][a] })
		if len(cols[i]) == 0 {
			cols[i] = []int{rg.IntN(sch.NumFields())}
		}
		fields := make([]arrow.Field, len(cols[i]))
		arrs := make([]arrow.Array, len(cols[i]))
		slice := t.Rec.NewSlice(cuts[i], cuts[i+1])
		var names []string
		for c, j := range cols[i] {
			fields[c], arrs[c] = sch.Field(j), slice.Column(j)
			names = append(names, sch.Field(j).Name)
		}
		part := array.NewRecordBatch(arrow.NewSchema(fields, nil), arrs, cuts[i+1]-cuts[i])
		slice.Release()
		recs = append(recs, part)
		desc += fmt.Sprintf("[rows %d-%d: %v] ", cuts[i], cuts[i+1], names)
		opts := t.Opts
		opts.FlatMap = nil
		for _, m := range t.Opts.FlatMap {
			if slices.Contains(names, m) {
				opts.FlatMap = append(opts.FlatMap, m)
			}
		}
		path := r.unionPath(t.Seed, i)
		w, err := strata.Create(path, part.Schema(), &opts)
		if err == nil {
			err = w.Write(part)
			if err == nil {
				err = w.Close()
			} else {
				w.Abort()
			}
		}
		var f *strata.File
		if err == nil {
			if t.Seed >= ReadSeeds {
				f, err = r.openAs(path, t.read)
			} else {
				f, err = strata.Open(path)
			}
		}
		if err != nil {
			release()
			return nil, nil, "", err
		}
		files = append(files, f)
	}
	schemas := make([]*arrow.Schema, k)
	for i, rec := range recs {
		schemas[i] = rec.Schema()
	}
	union, err := strata.UnionByName(schemas...)
	if err != nil {
		release()
		return nil, nil, "", err
	}
	mem := memory.DefaultAllocator
	out := make([]arrow.Array, union.NumFields())
	for j := range out {
		var pieces []arrow.Array
		for _, rec := range recs {
			c, err := strata.Conform(rec, union)
			if err != nil {
				release()
				return nil, nil, "", err
			}
			defer c.Release()
			pieces = append(pieces, c.Column(j))
		}
		a, err := array.Concatenate(pieces, mem)
		if err != nil {
			release()
			return nil, nil, "", err
		}
		defer a.Release()
		out[j] = a
	}
	ref := &Table{Seed: t.Seed, Rec: array.NewRecordBatch(union, out, rows), Order: t.Order}
	ref.Parquet = filepath.Join(r.dir, fmt.Sprintf("u%d.parquet", t.Seed))
	if err := writeParquet(ref.Parquet, ref.Rec); err != nil {
		ref.Release()
		release()
		return nil, nil, "", err
	}
	return files, ref, desc, nil
}
