package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
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

// consume walks every chunk of a materialized result, counting rows and, when
// out.Sum is set, hashing each value in place.
func consume(res *mapping.Result, out *Out) error {
	ncol := int(mapping.ColumnCount(res))
	names := make([]string, ncol)
	types := make([]mapping.Type, ncol)
	for i := range ncol {
		names[i] = mapping.ColumnName(res, mapping.IdxT(i))
		types[i] = mapping.ColumnType(res, mapping.IdxT(i))
	}
	for {
		chunk := mapping.FetchChunk(*res)
		if chunk.Ptr == nil {
			break
		}
		n := int(mapping.DataChunkGetSize(chunk))
		if n == 0 {
			mapping.DestroyDataChunk(&chunk)
			break
		}
		out.Rows += int64(n)
		if out.Sum != nil {
			out.Sum.Rows += int64(n)
			for c := range ncol {
				vec := mapping.DataChunkGetVector(chunk, mapping.IdxT(c))
				h, err := hashDuckVector(vec, types[c], n)
				if err != nil {
					mapping.DestroyDataChunk(&chunk)
					return fmt.Errorf("column %s: %w", names[c], err)
				}
				out.Sum.Cols[names[c]] += h
			}
		}
		mapping.DestroyDataChunk(&chunk)
	}
	return nil
}

// duckString reads a duckdb_string_t (16 bytes: uint32 length, then either the
// bytes inline when length <= 12, or a 4-byte prefix and a pointer).
func duckString(p unsafe.Pointer) []byte {
	n := *(*uint32)(p)
	if n <= 12 {
		return unsafe.Slice((*byte)(unsafe.Add(p, 4)), n)
	}
	ptr := *(*unsafe.Pointer)(unsafe.Add(p, 8))
	return unsafe.Slice((*byte)(ptr), n)
}

func hashDuckVector(vec mapping.Vector, t mapping.Type, n int) (uint64, error) {
	data := mapping.VectorGetData(vec)
	validity := (*uint64)(mapping.VectorGetValidity(vec))
	var mask []uint64
	if validity != nil {
		mask = unsafe.Slice(validity, (n+63)/64)
	}
	var s uint64
	for i := range n {
		if mask != nil && mask[i/64]>>(uint(i)%64)&1 == 0 {
			s += nullHash
			continue
		}
		switch t {
		case mapping.TypeBoolean:
			s += hashInt(int64(*(*uint8)(unsafe.Add(data, i))))
		case mapping.TypeTinyInt:
			s += hashInt(int64(*(*int8)(unsafe.Add(data, i))))
		case mapping.TypeSmallInt:
			s += hashInt(int64(*(*int16)(unsafe.Add(data, 2*i))))
		case mapping.TypeInteger, mapping.TypeDate:
			s += hashInt(int64(*(*int32)(unsafe.Add(data, 4*i))))
		case mapping.TypeBigInt, mapping.TypeTimestamp, mapping.TypeTimestampMS, mapping.TypeTimestampNS, mapping.TypeTimestampS:
			s += hashInt(*(*int64)(unsafe.Add(data, 8*i)))
		case mapping.TypeUTinyInt:
			s += hashInt(int64(*(*uint8)(unsafe.Add(data, i))))
		case mapping.TypeUSmallInt:
			s += hashInt(int64(*(*uint16)(unsafe.Add(data, 2*i))))
		case mapping.TypeUInteger:
			s += hashInt(int64(*(*uint32)(unsafe.Add(data, 4*i))))
		case mapping.TypeUBigInt:
			s += hashInt(int64(*(*uint64)(unsafe.Add(data, 8*i))))
		case mapping.TypeFloat:
			s += hashFloat(float64(*(*float32)(unsafe.Add(data, 4*i))))
		case mapping.TypeDouble:
			s += hashFloat(*(*float64)(unsafe.Add(data, 8*i)))
		case mapping.TypeVarchar, mapping.TypeBlob:
			s += hashBytes(duckString(unsafe.Add(data, 16*i)))
		default:
			return 0, fmt.Errorf("duckdb type %d: %w", t, errUnsupported)
		}
	}
	return s, nil
}

// duckType maps an Arrow field to a DuckDB column type.
func duckType(f arrow.Field) (string, mapping.Type, error) {
	switch f.Type.ID() {
	case arrow.BOOL:
		return "BOOLEAN", mapping.TypeBoolean, nil
	case arrow.INT8:
		return "TINYINT", mapping.TypeTinyInt, nil
	case arrow.INT16:
		return "SMALLINT", mapping.TypeSmallInt, nil
	case arrow.INT32:
		return "INTEGER", mapping.TypeInteger, nil
	case arrow.INT64:
		return "BIGINT", mapping.TypeBigInt, nil
	case arrow.UINT8:
		return "UTINYINT", mapping.TypeUTinyInt, nil
	case arrow.UINT16:
		return "USMALLINT", mapping.TypeUSmallInt, nil
	case arrow.UINT32:
		return "UINTEGER", mapping.TypeUInteger, nil
	case arrow.UINT64:
		return "UBIGINT", mapping.TypeUBigInt, nil
	case arrow.FLOAT32:
		return "FLOAT", mapping.TypeFloat, nil
	case arrow.FLOAT64:
		return "DOUBLE", mapping.TypeDouble, nil
	case arrow.DATE32:
		return "DATE", mapping.TypeDate, nil
	case arrow.TIMESTAMP:
		if f.Type.(*arrow.TimestampType).Unit == arrow.Microsecond {
			return "TIMESTAMP", mapping.TypeTimestamp, nil
		}
	case arrow.STRING, arrow.LARGE_STRING:
		return "VARCHAR", mapping.TypeVarchar, nil
	case arrow.BINARY:
		return "BLOB", mapping.TypeBlob, nil
	}
	return "", 0, fmt.Errorf("duckdb: unsupported column type %s for %s: %w", f.Type, f.Name, errUnsupported)
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// loadDuck creates table src and appends every record through data chunks.
func loadDuck(d *duckDB, src *Source) error {
	fields := src.Schema.Fields()
	var cols []string
	var lts []mapping.LogicalType
	defer func() {
		for i := range lts {
			mapping.DestroyLogicalType(&lts[i])
		}
	}()
	for _, f := range fields {
		name, t, err := duckType(f)
		if err != nil {
			return err
		}
		null := " NOT NULL"
		if f.Nullable {
			null = ""
		}
		cols = append(cols, quoteIdent(f.Name)+" "+name+null)
		lts = append(lts, mapping.CreateLogicalType(t))
	}
	if err := d.exec("CREATE TABLE src (" + strings.Join(cols, ", ") + ")"); err != nil {
		return err
	}
	var app mapping.Appender
	if mapping.AppenderCreate(d.conn, "", "src", &app) == mapping.StateError {
		err := fmt.Errorf("duckdb: appender: %s", mapping.AppenderError(app))
		mapping.AppenderDestroy(&app)
		return err
	}
	defer mapping.AppenderDestroy(&app)
	chunk := mapping.CreateDataChunk(lts)
	defer mapping.DestroyDataChunk(&chunk)
	cap := int(mapping.VectorSize())
	for _, rec := range src.Records {
		total := int(rec.NumRows())
		for off := 0; off < total; off += cap {
			n := min(cap, total-off)
			mapping.DataChunkReset(chunk)
			for c := range fields {
				vec := mapping.DataChunkGetVector(chunk, mapping.IdxT(c))
				if err := fillDuckVector(vec, rec.Column(c), off, n); err != nil {
					return fmt.Errorf("column %s: %w", fields[c].Name, err)
				}
			}
			mapping.DataChunkSetSize(chunk, mapping.IdxT(n))
			if mapping.AppendDataChunk(app, chunk) == mapping.StateError {
				return fmt.Errorf("duckdb: append: %s", mapping.AppenderError(app))
			}
		}
	}
	if mapping.AppenderFlush(app) == mapping.StateError {
		return fmt.Errorf("duckdb: flush: %s", mapping.AppenderError(app))
	}
	return nil
}

func copyFixed[T any](data unsafe.Pointer, vals []T) {
	copy(unsafe.Slice((*T)(data), len(vals)), vals)
}

func fillDuckVector(vec mapping.Vector, a arrow.Array, off, n int) error {
	data := mapping.VectorGetData(vec)
	if a.NullN() > 0 {
		mapping.VectorEnsureValidityWritable(vec)
		mask := mapping.VectorGetValidity(vec)
		for i := range n {
			mapping.ValiditySetRowValidity(mask, mapping.IdxT(i), a.IsValid(off+i))
		}
	}
	switch a := a.(type) {
	case *array.Boolean:
		b := unsafe.Slice((*uint8)(data), n)
		for i := range n {
			b[i] = uint8(b2i(a.Value(off + i)))
		}
	case *array.Int8:
		copyFixed(data, a.Int8Values()[off:off+n])
	case *array.Int16:
		copyFixed(data, a.Int16Values()[off:off+n])
	case *array.Int32:
		copyFixed(data, a.Int32Values()[off:off+n])
	case *array.Int64:
		copyFixed(data, a.Int64Values()[off:off+n])
	case *array.Uint8:
		copyFixed(data, a.Uint8Values()[off:off+n])
	case *array.Uint16:
		copyFixed(data, a.Uint16Values()[off:off+n])
	case *array.Uint32:
		copyFixed(data, a.Uint32Values()[off:off+n])
	case *array.Uint64:
		copyFixed(data, a.Uint64Values()[off:off+n])
	case *array.Float32:
		copyFixed(data, a.Float32Values()[off:off+n])
	case *array.Float64:
		copyFixed(data, a.Float64Values()[off:off+n])
	case *array.Date32:
		copyFixed(data, a.Date32Values()[off:off+n])
	case *array.Timestamp:
		copyFixed(data, a.TimestampValues()[off:off+n])
	case *array.String:
		for i := range n {
			if a.IsValid(off + i) {
				mapping.VectorAssignStringElementLen(vec, mapping.IdxT(i), []byte(a.Value(off+i)))
			}
		}
	case *array.LargeString:
		for i := range n {
			if a.IsValid(off + i) {
				mapping.VectorAssignStringElementLen(vec, mapping.IdxT(i), []byte(a.Value(off+i)))
			}
		}
	case *array.Binary:
		for i := range n {
			if a.IsValid(off + i) {
				mapping.VectorAssignStringElementLen(vec, mapping.IdxT(i), a.Value(off+i))
			}
		}
	default:
		return fmt.Errorf("duckdb: unsupported array %s: %w", a.DataType(), errUnsupported)
	}
	return nil
}
