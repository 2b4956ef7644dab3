package duckstrata

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/interop"
)

// duckRecord returns rec as the scan hands it to DuckDB: list and map
// columns, and lists and maps inside structs, become their JSON text (as
// `strata cat --format csv` prints them); structs stay structs, so SQL
// reaches their fields.
func duckRecord(rec arrow.Record, mem memory.Allocator) (arrow.Record, error) {
	cols := make([]arrow.Array, rec.NumCols())
	fields := make([]arrow.Field, rec.NumCols())
	defer func() {
		for _, a := range cols {
			if a != nil {
				a.Release()
			}
		}
	}()
	for i := range cols {
		a, err := duckArray(rec.Column(i), mem)
		if err != nil {
			return nil, err
		}
		cols[i] = a
		fields[i] = rec.Schema().Field(i)
		fields[i].Type = a.DataType()
	}
	return array.NewRecord(arrow.NewSchema(fields, nil), cols, rec.NumRows()), nil
}

// duckArray is duckRecord for one array (a reference the caller releases).
func duckArray(a arrow.Array, mem memory.Allocator) (arrow.Array, error) {
	switch t := a.DataType().(type) {
	case *arrow.StructType:
		if t.NumFields() == 0 {
			return textArray(a, mem)
		}
		s := a.(*array.Struct)
		kids := make([]arrow.Array, t.NumFields())
		names := make([]string, t.NumFields())
		defer func() {
			for _, k := range kids {
				if k != nil {
					k.Release()
				}
			}
		}()
		changed := false
		for k := range kids {
			kid, err := duckArray(s.Field(k), mem)
			if err != nil {
				return nil, err
			}
			kids[k], names[k] = kid, t.Field(k).Name
			changed = changed || kid != s.Field(k)
		}
		if !changed {
			a.Retain()
			return a, nil
		}
		valid := memory.NewResizableBuffer(mem)
		defer valid.Release()
		valid.Resize(int(bitutil.BytesForBits(int64(a.Len()))))
		for i := range a.Len() {
			bitutil.SetBitTo(valid.Bytes(), i, a.IsValid(i))
		}
		return array.NewStructArrayWithNulls(kids, names, valid, a.NullN(), 0)
	case *arrow.ListType, *arrow.MapType, *arrow.LargeListType, *arrow.FixedSizeListType:
		return textArray(a, mem)
	}
	a.Retain()
	return a, nil
}

// textArray renders a as the JSON text of its values (nulls stay null).
func textArray(a arrow.Array, mem memory.Allocator) (arrow.Array, error) {
	rec := array.NewRecord(arrow.NewSchema([]arrow.Field{{Name: "v", Type: a.DataType(), Nullable: true}}, nil), []arrow.Array{a}, int64(a.Len()))
	defer rec.Release()
	conv, err := interop.CSVRecord(rec, mem)
	if err != nil {
		return nil, err
	}
	defer conv.Release()
	out := conv.Column(0)
	out.Retain()
	return out, nil
}
