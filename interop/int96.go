package interop

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/big"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"strata/encoding"
)

// INT96 timestamps (Spark, Impala, Hive) are a nanosecond of the day and
// a Julian day. arrow-go reads them as timestamp[ns] only (it has no
// counterpart of Arrow C++'s coerce_int96_timestamp_unit), so a value
// before 1677-09-21 or after 2262-04-11, such as Spark's 9999-12-31
// sentinel, fails the whole read. Spark and DuckDB read such columns at
// microsecond precision, which reaches year 294,247. interop chooses the
// unit per column from the data, in a first pass over the INT96 column
// chunks before the schema is given: timestamp[ns] when every value fits
// it (arrow-go's reading, unchanged), else timestamp[us] when every value
// is a whole number of microseconds (read here, a column chunk after
// another, since arrow-go cannot), else the import is refused.

const (
	julianUnixEpoch = 2440588 // the Julian day of 1970-01-01
	microsPerDay    = 86_400_000_000
	// int96ScanValues bounds the values a pass over an INT96 column
	// holds at once (12 bytes and two levels each).
	int96ScanValues = 4096
)

// int96Micros returns v as microseconds since the Unix epoch, or why it
// is none: not a whole number of microseconds, or outside int64
// microseconds. It reads v as Spark does, the Julian day as a signed
// 32-bit and the nanoseconds of the day as a signed 64-bit number, any
// number of them (arrow-go's nanosecond reading refuses those past the
// day). Spark's writer adds the Julian epoch to the microseconds in
// int64, which wraps for an instant within 2,440,588 days of int64's last
// microsecond (from 287564-12-03): such a value, and no other past int64,
// is read back by undoing the wrap, as Spark's and DuckDB's readers do
// (the year-290000 value of int96_from_spark.parquet).
func int96Micros(v parquet.Int96) (int64, string) {
	nanos := int64(binary.LittleEndian.Uint64(v[:8]))
	days := int64(int32(binary.LittleEndian.Uint32(v[8:]))) - julianUnixEpoch
	if nanos%1000 != 0 {
		return 0, "not a whole number of microseconds"
	}
	us := days*microsPerDay + nanos/1000 // wraps past int64, as Spark's reader
	// Far within int64 (no wrap): |days| ≤ 10^8 (8.64e18 µs) and the
	// nanoseconds of the day at most 5e17 µs either way.
	if b := nanos / 1000; days >= -100_000_000 && days <= 100_000_000 && b >= -500_000_000_000_000_000 && b <= 500_000_000_000_000_000 {
		return us, ""
	}
	exact := new(big.Int).Mul(big.NewInt(days), big.NewInt(microsPerDay))
	exact.Add(exact, big.NewInt(nanos/1000))
	if exact.IsInt64() {
		return us, ""
	}
	// Spark's wrap: the instant is exactly 2^64 µs later, and late enough
	// for its writer to have wrapped.
	if exact.Sign() < 0 && us > math.MaxInt64-julianUnixEpoch*microsPerDay &&
		exact.Add(exact, new(big.Int).Lsh(big.NewInt(1), 64)).IsInt64() && exact.Int64() == us {
		return us, ""
	}
	return 0, "outside int64 microseconds (-290308-12-21 to 294247-01-10)"
}

// int96Text renders v as an RFC 3339 instant in UTC for error messages,
// read as int96Micros reads it.
func int96Text(v parquet.Int96) string {
	if us, why := int96Micros(v); why == "" {
		return time.UnixMicro(us).UTC().Format(time.RFC3339Nano)
	}
	nanos := int64(binary.LittleEndian.Uint64(v[:8]))
	days := int64(int32(binary.LittleEndian.Uint32(v[8:]))) - julianUnixEpoch
	return time.Unix(days*86400, 0).Add(time.Duration(nanos)).UTC().Format(time.RFC3339Nano)
}

// int96Scan is what a pass over one INT96 column found: the first row
// (counted from 0 over the file) holding a value outside timestamp[ns]
// and the first not held exactly by timestamp[us], -1 when none.
type int96Scan struct {
	notNs, notUs       int64
	notNsVal, notUsVal parquet.Int96
	why                string // why notUsVal is no timestamp[us]
}

// scanInt96 passes over leaf column col of every row group, int96ScanValues
// values at a time, stopping once a value outside each unit is found.
// (arrow-go's reading, ToTimestamp, decides what timestamp[ns] holds.)
func scanInt96(pf *file.Reader, col int) (s int96Scan, err error) {
	s.notNs, s.notUs = -1, -1
	descr := pf.MetaData().Schema.Column(col)
	vals := make([]parquet.Int96, int96ScanValues)
	defs := make([]int16, int96ScanValues)
	var reps []int16
	if descr.MaxRepetitionLevel() > 0 {
		reps = make([]int16, int96ScanValues)
	}
	row := int64(-1) // the row of the last level read
	for rg := 0; rg < pf.NumRowGroups(); rg++ {
		cc, err := pf.RowGroup(rg).Column(col)
		if err != nil {
			return s, fmt.Errorf("row group %d: %w", rg, err)
		}
		cr, ok := cc.(*file.Int96ColumnChunkReader)
		if !ok {
			return s, fmt.Errorf("row group %d: column chunk reader %T for an INT96 column: %w", rg, cc, encoding.ErrCorrupt)
		}
		for cr.HasNext() {
			total, nv, err := cr.ReadBatch(int96ScanValues, vals, defs, reps)
			if err != nil {
				return s, fmt.Errorf("row group %d: %w", rg, err)
			}
			if total == 0 {
				break
			}
			vi := 0
			for j := range total {
				if reps == nil || reps[j] == 0 {
					row++
				}
				if descr.MaxDefinitionLevel() > 0 && defs[j] != descr.MaxDefinitionLevel() {
					continue
				}
				if vi >= nv {
					return s, fmt.Errorf("row group %d: %d values for more levels: %w", rg, nv, encoding.ErrCorrupt)
				}
				v := vals[vi]
				vi++
				if _, err := v.ToTimestamp(); err != nil && s.notNs < 0 {
					s.notNs, s.notNsVal = row, v
				}
				if _, why := int96Micros(v); why != "" && s.notUs < 0 {
					s.notUs, s.notUsVal, s.why = row, v, why
				}
				if s.notNs >= 0 && s.notUs >= 0 {
					return s, nil
				}
			}
		}
	}
	return s, nil
}

// int96MicroColumns returns the top-level fields (by position) to read as
// timestamp[us]: INT96 columns holding a value outside timestamp[ns] whose
// every value is a whole number of microseconds. A column that fits
// neither unit, or a nested one that needs microseconds, is refused with
// the rows that rule each unit out.
func int96MicroColumns(pf *file.Reader, m *pqarrow.SchemaManifest) (map[int]bool, error) {
	sch := pf.MetaData().Schema
	var micros map[int]bool
	var check func(top int, sf pqarrow.SchemaField) error
	check = func(top int, sf pqarrow.SchemaField) error {
		for _, c := range sf.Children {
			if err := check(top, c); err != nil {
				return err
			}
		}
		if len(sf.Children) > 0 || sf.ColIndex < 0 || sf.ColIndex >= sch.NumColumns() {
			return nil
		}
		descr := sch.Column(sf.ColIndex)
		if descr.PhysicalType() != parquet.Types.Int96 {
			return nil
		}
		if ts, ok := sf.Field.Type.(*arrow.TimestampType); !ok || ts.Unit != arrow.Nanosecond {
			return nil // not arrow-go's INT96 reading: left to it
		}
		s, err := scanInt96(pf, sf.ColIndex)
		if err != nil {
			return fmt.Errorf("column %q: %w", descr.Path(), err)
		}
		switch {
		case s.notNs < 0:
			return nil
		case s.notUs == s.notNs:
			return fmt.Errorf("column %q, row %d: INT96 timestamp %s fits neither timestamp[ns] (outside 1677-09-21 to 2262-04-11) nor timestamp[us] (%s): %w",
				descr.Path(), s.notNs, int96Text(s.notNsVal), s.why, encoding.ErrUnsupported)
		case s.notUs >= 0:
			return fmt.Errorf("column %q: INT96 timestamps fit neither timestamp[ns] nor timestamp[us]: row %d, %s, is outside timestamp[ns] (1677-09-21 to 2262-04-11), and row %d, %s, is %s: %w",
				descr.Path(), s.notNs, int96Text(s.notNsVal), s.notUs, int96Text(s.notUsVal), s.why, encoding.ErrUnsupported)
		case len(m.Fields[top].Children) > 0 || descr.MaxRepetitionLevel() > 0:
			return fmt.Errorf("column %q, row %d: INT96 timestamp %s is outside timestamp[ns] (1677-09-21 to 2262-04-11); interop reads INT96 as timestamp[us] only in a top-level column: %w",
				descr.Path(), s.notNs, int96Text(s.notNsVal), encoding.ErrUnsupported)
		}
		if micros == nil {
			micros = map[int]bool{}
		}
		micros[top] = true
		return nil
	}
	for i, sf := range m.Fields {
		if err := check(i, sf); err != nil {
			return nil, err
		}
	}
	return micros, nil
}

// int96Column reads a top-level INT96 column as timestamp[us], a row group
// after another, in step with the batches of the other columns.
type int96Column struct {
	pf    *file.Reader
	col   int    // leaf column index
	path  string // for errors
	mem   memory.Allocator
	rg    int   // the next row group to open
	row   int64 // rows read
	left  int64 // rows left in the open row group
	cr    *file.Int96ColumnChunkReader
	vals  []parquet.Int96
	defs  []int16
	maxDL int16
}

// read returns the column's next n rows.
func (c *int96Column) read(n int64) (arrow.Array, error) {
	b := array.NewTimestampBuilder(c.mem, arrow.FixedWidthTypes.Timestamp_us.(*arrow.TimestampType))
	defer b.Release()
	b.Reserve(int(n))
	for got := int64(0); got < n; {
		if c.left == 0 {
			if c.rg >= c.pf.NumRowGroups() {
				return nil, fmt.Errorf("column %q ends after %d rows, before the batch's: %w", c.path, c.row, encoding.ErrCorrupt)
			}
			rgr := c.pf.RowGroup(c.rg)
			cc, err := rgr.Column(c.col)
			if err != nil {
				return nil, fmt.Errorf("column %q, row group %d: %w", c.path, c.rg, err)
			}
			cr, ok := cc.(*file.Int96ColumnChunkReader)
			if !ok {
				return nil, fmt.Errorf("column %q, row group %d: column chunk reader %T for an INT96 column: %w", c.path, c.rg, cc, encoding.ErrCorrupt)
			}
			c.cr, c.left = cr, rgr.NumRows()
			c.rg++
			continue
		}
		k := min(n-got, c.left, int64(len(c.vals)))
		total, nv, err := c.cr.ReadBatch(k, c.vals, c.defs, nil)
		if err != nil {
			return nil, fmt.Errorf("column %q, row %d: %w", c.path, c.row, err)
		}
		if total == 0 {
			return nil, fmt.Errorf("column %q: row group %d ends after row %d, before its %d rows: %w", c.path, c.rg-1, c.row, c.left, encoding.ErrCorrupt)
		}
		vi := 0
		for j := range total {
			if c.maxDL > 0 && c.defs[j] != c.maxDL {
				b.AppendNull()
				continue
			}
			if vi >= nv {
				return nil, fmt.Errorf("column %q, row %d: %d values for more levels: %w", c.path, c.row+j, nv, encoding.ErrCorrupt)
			}
			v := c.vals[vi]
			vi++
			us, why := int96Micros(v)
			if why != "" { // the first pass found none: the file changed
				return nil, fmt.Errorf("column %q, row %d: INT96 timestamp %s is %s: %w", c.path, c.row+j, int96Text(v), why, encoding.ErrCorrupt)
			}
			b.Append(arrow.Timestamp(us))
		}
		got += total
		c.row += total
		c.left -= total
	}
	return b.NewArray(), nil
}

// useMicros makes p read the top-level fields in micros as timestamp[us]
// itself, and the others through rr, which reads only those (nil when
// there are none). sch is the whole file's Arrow schema as arrow-go reads
// it; batchRows sizes batches when rr is nil.
func (p *parquetReader) useMicros(sch *arrow.Schema, m *pqarrow.SchemaManifest, micros map[int]bool, batchRows int, mem memory.Allocator) {
	fields := sch.Fields()
	p.micros = make([]*int96Column, len(fields))
	k := 0
	for i := range fields {
		if !micros[i] {
			if p.rr != nil { // its own field, as arrow-go gives it
				fields[i] = p.rr.Schema().Field(k)
			}
			k++
			continue
		}
		col := m.Fields[i].ColIndex
		fields[i].Type = arrow.FixedWidthTypes.Timestamp_us
		p.micros[i] = &int96Column{
			pf: p.pf, col: col, path: fields[i].Name, mem: mem,
			vals:  make([]parquet.Int96, int96ScanValues),
			defs:  make([]int16, int96ScanValues),
			maxDL: p.pf.MetaData().Schema.Column(col).MaxDefinitionLevel(),
		}
	}
	md := sch.Metadata()
	if p.rr != nil {
		md = p.rr.Schema().Metadata()
	}
	p.sch = arrow.NewSchema(fields, &md)
	p.batchRows = int64(batchRows)
}

// otherLeaves returns the leaf column indices of the top-level fields not
// in micros, for arrow-go to read.
func otherLeaves(m *pqarrow.SchemaManifest, micros map[int]bool) []int {
	out := []int{}
	var leaves func(sf pqarrow.SchemaField)
	leaves = func(sf pqarrow.SchemaField) {
		if len(sf.Children) == 0 {
			if sf.ColIndex >= 0 {
				out = append(out, sf.ColIndex)
			}
			return
		}
		for _, c := range sf.Children {
			leaves(c)
		}
	}
	for i, sf := range m.Fields {
		if !micros[i] {
			leaves(sf)
		}
	}
	return out
}

// nextWithMicros returns the next batch of a reader with microsecond
// INT96 columns: arrow-go's batch of the other columns (if any) with
// those columns' rows beside it.
func (p *parquetReader) nextWithMicros() (arrow.Record, error) {
	var rec arrow.Record
	n := min(p.batchRows, p.pf.NumRows()-p.done)
	if p.rr != nil {
		var err error
		if rec, err = p.rr.Read(); err != nil {
			return nil, err // (the caller explains it)
		}
		n = rec.NumRows()
	} else if n <= 0 {
		return nil, io.EOF
	}
	cols := make([]arrow.Array, len(p.micros))
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	k := 0
	for i, mc := range p.micros {
		if mc == nil {
			cols[i] = rec.Column(k)
			cols[i].Retain()
			k++
			continue
		}
		a, err := mc.read(n)
		if err != nil {
			return nil, err
		}
		cols[i] = a
	}
	return array.NewRecord(p.sch, cols, n), nil
}
