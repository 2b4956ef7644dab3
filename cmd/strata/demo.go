package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"strata"
	"strata/interop"
	"strata/tpch"
)

// runDemo generates TPC-H lineitem, writes it as Strata and as Parquet+zstd
// (arrow-go), and runs the same reads on both, printing sizes, times and
// ratios. It needs no network and no data on disk.
func runDemo(args []string) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	sf := fs.Float64("sf", 0.1, "TPC-H scale factor")
	keep := fs.String("keep", "", "write the files into this directory and keep them")
	runs := fs.Int("runs", 3, "runs per measurement (median reported)")
	if _, err := parseInterspersed(fs, args); err != nil {
		return err
	}
	// (a median of no runs indexed an empty slice; --runs -1 panicked
	// making it)
	if *runs < 1 {
		return usagef("--runs %d: want 1 or more", *runs)
	}
	if !(*sf > 0 && *sf <= tpch.MaxScaleFactor) {
		return usagef("--sf %v: want a scale factor in (0, %d]", *sf, tpch.MaxScaleFactor)
	}
	dir := *keep
	if dir == "" {
		d, err := os.MkdirTemp("", "strata-demo-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	fmt.Printf("Strata demo: TPC-H lineitem at scale factor %g, generated in memory (seed 1)\n\n", *sf)

	// Generate once into memory so both writers see identical batches.
	t0 := time.Now()
	var recs []arrow.Record
	gen := tpch.NewLineitem(*sf, 1, 64<<10)
	var rows int64
	for {
		rec, err := gen.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		rows += rec.NumRows()
		recs = append(recs, rec)
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	fmt.Printf("generated %d rows in %v\n\n", rows, time.Since(t0).Round(time.Millisecond))

	sPath := filepath.Join(dir, "lineitem.strata")
	pPath := filepath.Join(dir, "lineitem.parquet")
	sWrite, err := timeIt(1, func() error {
		w, err := strata.Create(sPath, tpch.Schema(), &strata.WriteOptions{RowsHint: rows})
		if err != nil {
			return err
		}
		for _, r := range recs {
			if err := w.Write(r); err != nil {
				w.Abort()
				return err
			}
		}
		return w.Close()
	})
	if err != nil {
		return fmt.Errorf("writing Strata: %w", err)
	}
	pWrite, err := timeIt(1, func() error {
		s, err := interop.Create(pPath, tpch.Schema(), interop.WriteOptions{})
		if err != nil {
			return err
		}
		for _, r := range recs {
			if err := s.Write(r); err != nil {
				return err
			}
		}
		return s.Close()
	})
	if err != nil {
		return fmt.Errorf("writing Parquet: %w", err)
	}
	sSize, pSize := fileSize(sPath), fileSize(pPath)

	f, err := strata.Open(sPath)
	if err != nil {
		return err
	}
	defer f.Close()

	// Full scan.
	var sRows, pRows int64
	sScan, err := timeIt(*runs, func() error {
		sRows = 0
		sc, err := f.Scan(strata.ScanOptions{})
		if err != nil {
			return err
		}
		for {
			rec, err := sc.Next()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
			sRows += rec.NumRows()
			rec.Release()
		}
	})
	if err != nil {
		return fmt.Errorf("Strata scan: %w", err)
	}
	pScan, err := timeIt(*runs, func() error {
		var err error
		pRows, err = parquetScan(pPath, nil, nil)
		return err
	})
	if err != nil {
		return fmt.Errorf("Parquet scan: %w", err)
	}
	if sRows != pRows {
		return fmt.Errorf("full scan: Strata returned %d rows, Parquet %d", sRows, pRows)
	}

	// Selective query: shipped in January 1995.
	const where = "l_shipdate BETWEEN DATE '1995-01-01' AND DATE '1995-01-31'"
	lo, hi := int32(daysOf(1995, 1, 1)), int32(daysOf(1995, 1, 31))
	var sSel, pSel int64
	var selStats strata.ScanStats
	sQ, err := timeIt(*runs, func() error {
		sSel = 0
		sc, err := f.Scan(strata.ScanOptions{Columns: []string{"l_orderkey", "l_extendedprice"}, Where: where})
		if err != nil {
			return err
		}
		for {
			rec, err := sc.Next()
			if err == io.EOF {
				selStats = sc.Stats()
				return nil
			}
			if err != nil {
				return err
			}
			sSel += rec.NumRows()
			rec.Release()
		}
	})
	if err != nil {
		return fmt.Errorf("Strata query: %w", err)
	}
	pQ, err := timeIt(*runs, func() error {
		var err error
		pSel, err = parquetScan(pPath, []string{"l_shipdate", "l_orderkey", "l_extendedprice"}, func(rec arrow.Record) int64 {
			d := rec.Column(0).(*array.Date32)
			n := int64(0)
			for i := 0; i < d.Len(); i++ {
				if v := int32(d.Value(i)); v >= lo && v <= hi {
					n++
				}
			}
			return n
		})
		return err
	})
	if err != nil {
		return fmt.Errorf("Parquet query: %w", err)
	}
	if sSel != pSel {
		return fmt.Errorf("selective query: Strata returned %d rows, Parquet %d", sSel, pSel)
	}

	// Aggregate with the same filter.
	var aggVals []strata.AggValue
	sAgg, err := timeIt(*runs, func() error {
		var err error
		aggVals, _, err = f.Aggregate(strata.AggregateOptions{Aggs: []strata.Agg{strata.CountAll(), strata.Sum("l_quantity")}, Where: where})
		return err
	})
	if err != nil {
		return fmt.Errorf("Strata aggregate: %w", err)
	}
	var pCount, pSum int64
	pAgg, err := timeIt(*runs, func() error {
		pCount, pSum = 0, 0
		_, err := parquetScan(pPath, []string{"l_shipdate", "l_quantity"}, func(rec arrow.Record) int64 {
			d := rec.Column(0).(*array.Date32)
			q := rec.Column(1).(*array.Int64)
			for i := 0; i < d.Len(); i++ {
				if v := int32(d.Value(i)); v >= lo && v <= hi {
					pCount++
					pSum += q.Value(i)
				}
			}
			return 0
		})
		return err
	})
	if err != nil {
		return fmt.Errorf("Parquet aggregate: %w", err)
	}
	if len(aggVals) == 2 && (aggVals[0].Int() != pCount || aggVals[1].Int() != pSum) {
		return fmt.Errorf("aggregate: Strata %v/%v, Parquet %d/%d", aggVals[0], aggVals[1], pCount, pSum)
	}

	// Point lookups: 100 random whole rows.
	r := rand.New(rand.NewPCG(7, 7))
	look := make([]int64, 100)
	for i := range look {
		look[i] = r.Int64N(rows)
	}
	sTake, err := timeIt(*runs, func() error {
		for _, row := range look {
			rec, err := f.Take([]int64{row}, nil)
			if err != nil {
				return err
			}
			rec.Release()
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("Strata take: %w", err)
	}
	pTake, err := timeIt(1, func() error {
		for _, row := range look[:10] {
			if err := parquetTake(pPath, row); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("Parquet take: %w", err)
	}
	sTakeRow, pTakeRow := sTake/time.Duration(len(look)), pTake/10

	fmt.Printf("%-44s %14s %14s %9s\n", "", "Strata", "Parquet+zstd", "ratio")
	line := func(name string, s, p float64, unit string, lowerBetter bool) {
		ratio := p / s
		fmt.Printf("%-44s %11.2f %-2s %11.2f %-2s %8.2fx\n", name, s, unit, p, unit, ratio)
	}
	line("file size", float64(sSize)/1e6, float64(pSize)/1e6, "MB", true)
	line("write", ms(sWrite), ms(pWrite), "ms", true)
	line("full scan, all 16 columns", ms(sScan), ms(pScan), "ms", true)
	line("shipdate in Jan 1995 → orderkey, price", ms(sQ), ms(pQ), "ms", true)
	line("count(*), sum(quantity) for that filter", ms(sAgg), ms(pAgg), "ms", true)
	line("one whole row by row number", float64(sTakeRow.Microseconds()), float64(pTakeRow.Microseconds()), "µs", true)
	fmt.Printf("\n(ratio = Parquet / Strata; above 1 means Strata is smaller or faster. Parquet is arrow-go %s with zstd,\n read with pqarrow on one goroutine; reads are medians of %d runs (Parquet's row lookup, a scan,\n is timed once, as is each write; Strata's write includes syncing the file). bench --real compares writes side by side.)\n\n", "v18", *runs)

	fmt.Printf("Why: the selective query matched %d rows. %s.\n", sSel, selStats.String())
	rep, err := f.Inspect()
	if err == nil {
		fmt.Println("Each chunk picks its own encoding tree from its data; the most used trees per column:")
		for _, c := range rep.Columns {
			tree := ""
			if len(c.Trees) > 0 {
				tree = c.Trees[0].Tree
			}
			fmt.Printf("  %-16s %9d bytes  %s\n", c.Name, c.Bytes, tree)
		}
	}
	if *keep != "" {
		fmt.Printf("\nfiles kept in %s\n", dir)
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// timeIt runs fn n times and returns the median duration.
func timeIt(n int, fn func() error) (time.Duration, error) {
	ds := make([]time.Duration, 0, n)
	for i := 0; i < n; i++ {
		t := time.Now()
		if err := fn(); err != nil {
			return 0, err
		}
		ds = append(ds, time.Since(t))
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[len(ds)/2], nil
}

func daysOf(y, m, d int) int64 {
	return time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC).Unix() / 86400
}

// parquetScan reads the named columns (all when nil) with pqarrow on one
// goroutine; count, when set, counts matching rows per batch.
func parquetScan(path string, cols []string, count func(arrow.Record) int64) (int64, error) {
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		return 0, err
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 64 << 10}, memory.DefaultAllocator)
	if err != nil {
		return 0, err
	}
	var idx []int
	if cols != nil {
		sch, _ := fr.Schema()
		for _, c := range cols {
			is := sch.FieldIndices(c)
			if len(is) == 0 {
				return 0, fmt.Errorf("no column %s", c)
			}
			idx = append(idx, is[0])
		}
	}
	rr, err := fr.GetRecordReader(context.Background(), idx, nil)
	if err != nil {
		return 0, err
	}
	defer rr.Release()
	var n int64
	for rr.Next() {
		rec := rr.Record()
		if count != nil {
			n += count(rec)
		} else {
			n += rec.NumRows()
		}
	}
	if err := rr.Err(); err != nil && err != io.EOF {
		return 0, err
	}
	return n, nil
}

// parquetTake reads one whole row: the row group holding it, sliced.
func parquetTake(path string, row int64) error {
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		return err
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 64 << 10}, memory.DefaultAllocator)
	if err != nil {
		return err
	}
	rg := 0
	for ; rg < pf.NumRowGroups(); rg++ {
		n := pf.MetaData().RowGroup(rg).NumRows()
		if row < n {
			break
		}
		row -= n
	}
	cols := make([]int, pf.MetaData().Schema.NumColumns())
	for i := range cols {
		cols[i] = i
	}
	tbl, err := fr.ReadRowGroups(context.Background(), cols, []int{rg})
	if err != nil {
		return err
	}
	defer tbl.Release()
	tr := array.NewTableReader(tbl, 64<<10)
	defer tr.Release()
	for tr.Next() {
		rec := tr.Record()
		if row < rec.NumRows() {
			s := rec.NewSlice(row, row+1)
			s.Release()
			return nil
		}
		row -= rec.NumRows()
	}
	return fmt.Errorf("row not found")
}
