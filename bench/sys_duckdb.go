package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/duckdb/duckdb-go/v2/mapping"
)

// duckSys is DuckDB through duckdb-go's C API mapping (the same calls
// database/sql goes through, minus the per-value boxing): queries in SQL,
// results fetched as DuckDB data chunks and read in place.
//
// Both variants load the source records once into an in-memory DuckDB table
// (untimed, via the appender's data-chunk API) and write from there:
//   - parquet-zstd: COPY src TO file (FORMAT parquet, COMPRESSION zstd);
//     queries read it through a view over read_parquet; take uses
//     read_parquet(..., file_row_number = true) WHERE file_row_number = ?.
//   - native: CREATE TABLE AS into an attached database file, then DETACH
//     (which checkpoints); queries run on the file opened as a database; take
//     uses a prepared SELECT * FROM t WHERE rowid = ?.
type duckSys struct {
	variant string
	cfg     config
	loader  *duckDB // holds table src
	db      *duckDB // reads
	take    mapping.PreparedStatement
	path    string
}

type duckDB struct {
	db   mapping.Database
	conn mapping.Connection
}

func openDuck(path string, threads int) (*duckDB, error) {
	d := &duckDB{}
	if mapping.Open(path, &d.db) == mapping.StateError {
		return nil, fmt.Errorf("duckdb: cannot open %q", path)
	}
	if mapping.Connect(d.db, &d.conn) == mapping.StateError {
		mapping.Close(&d.db)
		return nil, errors.New("duckdb: cannot connect")
	}
	if err := d.exec(fmt.Sprintf("PRAGMA threads=%d", threads)); err != nil {
		d.close()
		return nil, err
	}
	return d, nil
}

func (d *duckDB) close() {
	mapping.Disconnect(&d.conn)
	mapping.Close(&d.db)
}

func (d *duckDB) exec(sql string) error {
	var res mapping.Result
	st := mapping.Query(d.conn, sql, &res)
	defer mapping.DestroyResult(&res)
	if st == mapping.StateError {
		return fmt.Errorf("duckdb: %s: %s", sql, mapping.ResultError(&res))
	}
	return nil
}

// query runs sql and consumes the result (see consume).
func (d *duckDB) query(sql string, verify bool) (Out, error) {
	var res mapping.Result
	st := mapping.Query(d.conn, sql, &res)
	defer mapping.DestroyResult(&res)
	if st == mapping.StateError {
		return Out{}, fmt.Errorf("duckdb: %s: %s", sql, mapping.ResultError(&res))
	}
	var out Out
	if verify {
		out.Sum = newChecksum()
	}
	err := consume(&res, &out)
	return out, err
}

func newDuckSys(variant string, cfg config) *duckSys { return &duckSys{variant: variant, cfg: cfg} }

func (s *duckSys) Name() string    { return "duckdb" }
func (s *duckSys) Variant() string { return s.variant }

func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func (s *duckSys) Write(dir string, src *Source) (string, error) {
	if s.loader == nil {
		d, err := openDuck("", s.cfg.threads)
		if err != nil {
			return "", err
		}
		if err := loadDuck(d, src); err != nil {
			d.close()
			return "", err
		}
		s.loader = d
	}
	if s.variant == "native" {
		path := filepath.Join(dir, "data.duckdb")
		os.Remove(path)
		os.Remove(path + ".wal")
		for _, q := range []string{
			"ATTACH " + sqlString(path) + " AS nat",
			"CREATE TABLE nat.t AS SELECT * FROM src",
			"DETACH nat",
		} {
			if err := s.loader.exec(q); err != nil {
				return "", err
			}
		}
		return path, nil
	}
	path := filepath.Join(dir, "data.parquet")
	err := s.loader.exec("COPY src TO " + sqlString(path) + " (FORMAT parquet, COMPRESSION zstd)")
	return path, err
}

func (s *duckSys) Open(path string) error {
	if s.loader != nil {
		s.loader.close()
		s.loader = nil
	}
	s.path = path
	var err error
	if s.variant == "native" {
		s.db, err = openDuck(path, s.cfg.threads)
		if err != nil {
			return err
		}
		return s.prepare("SELECT * FROM t WHERE rowid = $1")
	}
	if s.db, err = openDuck("", s.cfg.threads); err != nil {
		return err
	}
	if err := s.db.exec("CREATE VIEW t AS SELECT * FROM read_parquet(" + sqlString(path) + ")"); err != nil {
		return err
	}
	return s.prepare("SELECT * EXCLUDE (file_row_number) FROM read_parquet(" + sqlString(path) +
		", file_row_number = true) WHERE file_row_number = $1")
}

func (s *duckSys) prepare(sql string) error {
	if mapping.Prepare(s.db.conn, sql, &s.take) == mapping.StateError {
		err := fmt.Errorf("duckdb: prepare %s: %s", sql, mapping.PrepareError(s.take))
		mapping.DestroyPrepare(&s.take)
		s.take = mapping.PreparedStatement{}
		return err
	}
	return nil
}

func (s *duckSys) Close() error {
	if s.take.Ptr != nil {
		mapping.DestroyPrepare(&s.take)
		s.take = mapping.PreparedStatement{}
	}
	if s.db != nil {
		s.db.close()
		s.db = nil
	}
	if s.loader != nil {
		s.loader.close()
		s.loader = nil
	}
	return nil
}

func (s *duckSys) Scan(verify bool) (Out, error) { return s.db.query("SELECT * FROM t", verify) }

func (s *duckSys) QRange(w *Workload, verify bool) (Out, error) {
	return s.db.query(fmt.Sprintf("SELECT * FROM t WHERE l_orderkey BETWEEN %d AND %d", w.RangeLo, w.RangeHi), verify)
}

func monthWhere(w *Workload) string {
	return fmt.Sprintf("l_shipdate BETWEEN DATE '%s' AND DATE '%s'", dateString(w.MonthLo), dateString(w.MonthHi))
}

func (s *duckSys) QMonth(w *Workload, verify bool) (Out, error) {
	return s.db.query("SELECT l_orderkey, l_extendedprice FROM t WHERE "+monthWhere(w), verify)
}

func (s *duckSys) QAgg(w *Workload) (Out, error) {
	var res mapping.Result
	sql := "SELECT count(*)::BIGINT, coalesce(sum(l_quantity), 0)::BIGINT FROM t WHERE " + monthWhere(w)
	st := mapping.Query(s.db.conn, sql, &res)
	defer mapping.DestroyResult(&res)
	if st == mapping.StateError {
		return Out{}, fmt.Errorf("duckdb: %s: %s", sql, mapping.ResultError(&res))
	}
	chunk := mapping.FetchChunk(res)
	if chunk.Ptr == nil || mapping.DataChunkGetSize(chunk) != 1 {
		return Out{}, errors.New("duckdb: aggregate returned no row")
	}
	defer mapping.DestroyDataChunk(&chunk)
	cnt := *(*int64)(mapping.VectorGetData(mapping.DataChunkGetVector(chunk, 0)))
	sum := *(*int64)(mapping.VectorGetData(mapping.DataChunkGetVector(chunk, 1)))
	return Out{Rows: cnt, AggCount: cnt, AggSum: sum}, nil
}

func (s *duckSys) Take(rows []int64, verify bool) (Out, error) {
	var out Out
	if verify {
		out.Sum = newChecksum()
	}
	for _, r := range rows {
		if mapping.BindInt64(s.take, 1, r) == mapping.StateError {
			return out, errors.New("duckdb: bind failed")
		}
		var res mapping.Result
		st := mapping.ExecutePrepared(s.take, &res)
		if st == mapping.StateError {
			err := fmt.Errorf("duckdb: take row %d: %s", r, mapping.ResultError(&res))
			mapping.DestroyResult(&res)
			return out, err
		}
		before := out.Rows
		err := consume(&res, &out)
		mapping.DestroyResult(&res)
		if err != nil {
			return out, err
		}
		if out.Rows != before+1 {
			return out, fmt.Errorf("duckdb: take row %d returned %d rows", r, out.Rows-before)
		}
	}
	return out, nil
}
