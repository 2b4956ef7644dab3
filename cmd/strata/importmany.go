package main

import (
	"context"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"strata"
	"strata/interop"
)

// importFiles imports several tables (the files one or more patterns
// name, in order) into one Strata file. They must hold the same columns,
// by name and type; a column is nullable in the file when it is in any of
// them. CSV files whose column types are inferred get the types inference
// gives their samples taken together (a column of integers in one file
// and of decimals in another is float64 in all), and are read with them.
// The first table's source metadata (the types export restores) is kept.
// Each table is opened twice: once for its columns and row count, once to
// read it. byName imports them by column name instead (UnionByName): the
// file has every column of any table, null in the rows of a table that
// lacks it; CSV files with inferred types are read with the types their
// samples give together, column by column name, other tables with their
// own.
func importFiles(srcs []string, dst string, sf *storeFlags, opts *strata.WriteOptions, p *progress, ro interop.ReadOptions, byName bool) (int64, error) {
	ctx := context.Background()
	ro.Parallel, ro.Threads = opts.Parallel != 1, opts.Parallel
	var sch *arrow.Schema
	var meta map[string]string
	var rows int64
	// Every table must hold the first one's columns (strictErr says where
	// one does not), unless all are CSV files with inferred types, which
	// need only the same names (csvInf merges their samples).
	var csvInf interop.CSVInference
	var strictErr error
	allCSV := true
	var schemas []*arrow.Schema // byName: every table's
	for i, src := range srcs {
		rr, err := openTable(ctx, src, sf, ro)
		if err != nil {
			return 0, err
		}
		s := rr.Schema()
		inf, isCSV := interop.InferredCSV(rr)
		allCSV = allCSV && isCSV
		schemas = append(schemas, s)
		if i == 0 {
			sch, csvInf = s, inf
			meta, err = sourceMetadata(rr)
		} else if byName {
			// the union is taken below; CSV samples merge by name
			if allCSV {
				csvInf = csvInf.MergeByName(inf)
			}
		} else {
			if strictErr == nil {
				if w, err := widenSchema(sch, s); err != nil {
					strictErr = fmt.Errorf("%s and %s hold different columns: %w", srcs[0], src, err)
				} else {
					sch = w
				}
			}
			if allCSV {
				if csvInf, err = csvInf.Merge(inf); err != nil {
					err = fmt.Errorf("%s and %s hold different columns: %w", srcs[0], src, err)
				}
			} else if strictErr != nil {
				err = strictErr
			}
		}
		if _, total, unit, ok := interop.ExtentOf(rr); ok && unit == "rows" && total > 0 && rows >= 0 {
			rows += total
		} else {
			rows = -1 // unknown for one table: unknown in all
		}
		rr.Close()
		if err != nil {
			return 0, err
		}
	}
	// with byName, each CSV file is read with its own columns under the
	// types of all the samples (csvSchemas)
	var csvSchemas []*arrow.Schema
	switch {
	case byName && allCSV:
		for _, s := range schemas {
			names := make([]string, s.NumFields())
			for j, f := range s.Fields() {
				names[j] = f.Name
			}
			cs, err := csvInf.SchemaFor(names)
			if err != nil {
				return 0, err
			}
			csvSchemas = append(csvSchemas, cs)
		}
		sch = csvInf.Schema()
	case byName:
		u, err := strata.UnionByName(schemas...)
		if tc, ok := err.(*strata.TypeConflict); ok {
			return 0, fmt.Errorf("column %q is %s in %s and %s in %s", tc.Column, tc.FirstType, srcs[tc.First], tc.OtherType, srcs[tc.Other])
		}
		if err != nil {
			return 0, err
		}
		sch = u
	case allCSV && strictErr != nil:
		// read every file with the types of all the samples
		sch = csvInf.Schema()
		ro.CSVSchema = sch
		ro.CSVSchemaSampled = ro.CSVInferRows >= 0
	}
	o := *opts
	if rows > 0 && o.RowsHint == 0 {
		o.RowsHint = rows
	}
	o.Metadata = withMetadata(o.Metadata, meta)
	if p != nil && rows > 0 {
		p.setTotal(rows, "rows")
	}
	w, err := createStrata(ctx, dst, sf, sch, &o)
	if err != nil {
		return 0, err
	}
	var n int64
	for i, src := range srcs {
		ro := ro
		if csvSchemas != nil {
			ro.CSVSchema = csvSchemas[i]
			ro.CSVSchemaSampled = ro.CSVInferRows >= 0
		}
		if err := importInto(ctx, w, sch, src, sf, ro, p, &n, byName); err != nil {
			w.Abort()
			return n, err
		}
	}
	return n, w.Close()
}

// importInto writes every record of one table into w, under the writer's
// schema (whose columns may be nullable where the table's are not; byName:
// the union of the tables', which each record is conformed to).
func importInto(ctx context.Context, w *strata.Writer, sch *arrow.Schema, src string, sf *storeFlags, ro interop.ReadOptions, p *progress, n *int64, byName bool) error {
	rr, err := openTable(ctx, src, sf, ro)
	if err != nil {
		return err
	}
	defer rr.Close()
	if !byName {
		if _, err := widenSchema(sch, rr.Schema()); err != nil {
			return fmt.Errorf("%s: %w", src, err) // changed since it was first opened
		}
	}
	for {
		rec, err := rr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", src, err)
		}
		switch {
		case byName:
			c, err := strata.Conform(rec, sch)
			rec.Release()
			if err != nil {
				return fmt.Errorf("%s: %w", src, err) // changed since it was first opened
			}
			rec = c
		case !rec.Schema().Equal(sch):
			relabeled := array.NewRecord(sch, rec.Columns(), rec.NumRows())
			rec.Release()
			rec = relabeled
		}
		*n += rec.NumRows()
		err = w.Write(rec)
		rec.Release()
		if err != nil {
			return fmt.Errorf("%s: %w", src, err)
		}
		if p != nil {
			p.update(*n)
		}
	}
}

// widenSchema returns a with each column nullable where it is in a or b,
// or an error naming the first column whose name or type differs.
func widenSchema(a, b *arrow.Schema) (*arrow.Schema, error) {
	if a.NumFields() != b.NumFields() {
		return nil, fmt.Errorf("%d columns against %d", a.NumFields(), b.NumFields())
	}
	fields := make([]arrow.Field, a.NumFields())
	for i, fa := range a.Fields() {
		fb := b.Field(i)
		if fa.Name != fb.Name || !arrow.TypeEqual(fa.Type, fb.Type) {
			return nil, fmt.Errorf("column %d is %s %s against %s %s", i+1, fa.Name, fa.Type, fb.Name, fb.Type)
		}
		fields[i] = fa
		fields[i].Nullable = fa.Nullable || fb.Nullable
	}
	md := a.Metadata()
	return arrow.NewSchema(fields, &md), nil
}

// withMetadata returns the file metadata md with the source's pairs added
// (a new map; md is left as it is).
func withMetadata(md, source map[string]string) map[string]string {
	if len(source) == 0 {
		return md
	}
	out := make(map[string]string, len(md)+len(source))
	for k, v := range md {
		out[k] = v
	}
	for k, v := range source {
		out[k] = v
	}
	return out
}
