package interop

import (
	"encoding/binary"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// validateBatch checks that every column of a record batch read from an
// Arrow IPC file is consistent with itself: buffers long enough for the
// rows, offsets ascending and inside the data or child they index,
// dictionary indices inside the dictionary. arrow-go builds arrays over
// the file's buffers as they are, so a corrupt file would otherwise reach
// the writer as offsets past their data (a panic in an encoder, or an
// allocation sized by a bogus offset). Text is not checked for UTF-8, as
// no other import checks it.
func validateBatch(rec arrow.Record) error {
	for i, col := range rec.Columns() {
		if int64(col.Len()) != rec.NumRows() {
			return fmt.Errorf("column %s: %d values in a batch of %d rows", rec.ColumnName(i), col.Len(), rec.NumRows())
		}
		if err := validateData(col.Data(), 0); err != nil {
			return fmt.Errorf("column %s: %w", rec.ColumnName(i), err)
		}
	}
	return nil
}

func validateData(d arrow.ArrayData, depth int) error {
	if depth > ipcMaxDepth {
		return fmt.Errorf("nested more than %d deep", ipcMaxDepth)
	}
	off, n := d.Offset(), d.Len()
	if off < 0 || n < 0 {
		return fmt.Errorf("offset %d, length %d", off, n)
	}
	end := off + n
	bufs := d.Buffers()
	buf := func(i int) []byte {
		if i < len(bufs) && bufs[i] != nil {
			return bufs[i].Bytes()
		}
		return nil
	}
	if d.NullN() != 0 && d.DataType().ID() != arrow.NULL && len(bufs) > 0 && bufs[0] != nil && len(buf(0)) < (end+7)/8 {
		return fmt.Errorf("validity bitmap of %d bytes for %d values", len(buf(0)), end)
	}
	dt := d.DataType()
	switch dt.ID() {
	case arrow.NULL:
		return nil
	case arrow.BOOL:
		if len(buf(1)) < (end+7)/8 {
			return fmt.Errorf("%d bytes of booleans for %d values", len(buf(1)), end)
		}
	case arrow.STRING, arrow.BINARY:
		_, err := checkOffsets(buf(1), 4, off, n, len(buf(2)))
		return err
	case arrow.LARGE_STRING, arrow.LARGE_BINARY:
		_, err := checkOffsets(buf(1), 8, off, n, len(buf(2)))
		return err
	case arrow.LIST, arrow.MAP, arrow.LARGE_LIST:
		w := 4
		if dt.ID() == arrow.LARGE_LIST {
			w = 8
		}
		ch := d.Children()
		if len(ch) != 1 {
			return fmt.Errorf("%v with %d children", dt, len(ch))
		}
		if _, err := checkOffsets(buf(1), w, off, n, ch[0].Len()); err != nil {
			return err
		}
		return validateData(ch[0], depth+1)
	case arrow.FIXED_SIZE_LIST:
		ch := d.Children()
		size := dt.(*arrow.FixedSizeListType).Len()
		if len(ch) != 1 || size < 0 || int64(ch[0].Len()) < int64(end)*int64(size) {
			return fmt.Errorf("%v of %d values with too few elements", dt, end)
		}
		return validateData(ch[0], depth+1)
	case arrow.STRUCT:
		for i, ch := range d.Children() {
			if ch.Len() < end {
				return fmt.Errorf("field %d: %d values under a struct of %d", i, ch.Len(), end)
			}
			if err := validateData(ch, depth+1); err != nil {
				return fmt.Errorf("field %d: %w", i, err)
			}
		}
	case arrow.DICTIONARY:
		dd := d.Dictionary()
		if dd == nil {
			return fmt.Errorf("dictionary column without a dictionary")
		}
		if err := validateData(dd, depth+1); err != nil {
			return fmt.Errorf("dictionary: %w", err)
		}
		id := array.NewData(dt.(*arrow.DictionaryType).IndexType, n, bufs, nil, d.NullN(), off)
		defer id.Release()
		if err := validateData(id, depth+1); err != nil {
			return fmt.Errorf("indices: %w", err)
		}
		idx := array.MakeFromData(id)
		defer idx.Release()
		return checkIndices(idx, dd.Len())
	case arrow.SPARSE_UNION, arrow.DENSE_UNION:
		return validateUnion(d, dt.(arrow.UnionType), buf(1), buf(2), depth)
	case arrow.STRING_VIEW, arrow.BINARY_VIEW, arrow.LIST_VIEW, arrow.LARGE_LIST_VIEW, arrow.RUN_END_ENCODED:
		a := array.MakeFromData(d)
		defer a.Release()
		if v, ok := a.(interface{ ValidateFull() error }); ok {
			if err := v.ValidateFull(); err != nil {
				return err
			}
		}
		for _, ch := range d.Children() {
			if err := validateData(ch, depth+1); err != nil {
				return err
			}
		}
	default:
		if fw, ok := dt.(arrow.FixedWidthDataType); ok {
			if w := fw.BitWidth(); w >= 8 && int64(len(buf(1))) < int64(end)*int64(w/8) {
				return fmt.Errorf("%d bytes of %v for %d values", len(buf(1)), dt, end)
			}
		}
	}
	return nil
}

// validateUnion checks union data: a type code a value (codes), each
// naming a member; for a dense union an offset a value (offs) inside the
// member its code names, for a sparse one members of a value a row; and
// the members themselves. Unchecked, a corrupt member (string offsets
// running backwards) or a code naming no member made the union's
// conversion to its struct stand-in (coerce.go) panic outside any
// recover, ending the process.
func validateUnion(d arrow.ArrayData, ut arrow.UnionType, codes, offs []byte, depth int) error {
	off, end := d.Offset(), d.Offset()+d.Len()
	ch := d.Children()
	if len(ch) != len(ut.Fields()) {
		return fmt.Errorf("%v with %d children", ut, len(ch))
	}
	if len(codes) < end {
		return fmt.Errorf("%d bytes of union type codes for %d values", len(codes), end)
	}
	dense := ut.Mode() == arrow.DenseMode
	if dense && int64(len(offs)) < 4*int64(end) {
		return fmt.Errorf("%d bytes of union offsets for %d values", len(offs), end)
	}
	if !dense {
		for k, c := range ch {
			if c.Len() < end {
				return fmt.Errorf("member %d: %d values under a sparse union of %d", k, c.Len(), end)
			}
		}
	}
	ids := ut.ChildIDs()
	for i := off; i < end; i++ {
		code := int8(codes[i])
		if code < 0 || int(code) >= len(ids) || ids[code] < 0 || ids[code] >= len(ch) {
			return fmt.Errorf("union type code %d at value %d names no member", code, i-off)
		}
		if dense {
			m := ch[ids[code]]
			if o := int32(binary.LittleEndian.Uint32(offs[4*i:])); o < 0 || int(o) >= m.Len() {
				return fmt.Errorf("union offset %d at value %d outside member %d of %d values", o, i-off, ids[code], m.Len())
			}
		}
	}
	for k, c := range ch {
		if err := validateData(c, depth+1); err != nil {
			return fmt.Errorf("member %d: %w", k, err)
		}
	}
	return nil
}

// checkOffsets checks the n+1 offsets of width w (4 or 8 bytes) from
// index off in b: ascending, from 0 or more, and at most limit.
func checkOffsets(b []byte, w, off, n, limit int) (int64, error) {
	if n == 0 {
		return 0, nil
	}
	if int64(len(b)) < (int64(off)+int64(n)+1)*int64(w) {
		return 0, fmt.Errorf("%d bytes of offsets for %d values", len(b), off+n)
	}
	at := func(i int) int64 {
		if w == 4 {
			return int64(int32(binary.LittleEndian.Uint32(b[4*i:])))
		}
		return int64(binary.LittleEndian.Uint64(b[8*i:]))
	}
	prev := at(off)
	if prev < 0 {
		return 0, fmt.Errorf("offset %d at value %d", prev, 0)
	}
	for i := off + 1; i <= off+n; i++ {
		v := at(i)
		if v < prev {
			return 0, fmt.Errorf("offsets descend at value %d (%d after %d)", i-off, v, prev)
		}
		prev = v
	}
	if prev > int64(limit) {
		return 0, fmt.Errorf("offset %d past the %d bytes or elements it indexes", prev, limit)
	}
	return prev, nil
}

// checkIndices checks that every non-null dictionary index lies in
// [0, size).
func checkIndices(idx arrow.Array, size int) error {
	get, ok := indexGetter(idx)
	if !ok {
		return fmt.Errorf("dictionary indices of type %v", idx.DataType())
	}
	for i := range idx.Len() {
		if idx.IsNull(i) {
			continue
		}
		if v := get(i); v < 0 || v >= int64(size) {
			return fmt.Errorf("dictionary index %d at value %d outside a dictionary of %d", v, i, size)
		}
	}
	return nil
}

func indexGetter(a arrow.Array) (func(int) int64, bool) {
	switch a := a.(type) {
	case *array.Int8:
		return func(i int) int64 { return int64(a.Value(i)) }, true
	case *array.Int16:
		return func(i int) int64 { return int64(a.Value(i)) }, true
	case *array.Int32:
		return func(i int) int64 { return int64(a.Value(i)) }, true
	case *array.Int64:
		return func(i int) int64 { return a.Value(i) }, true
	case *array.Uint8:
		return func(i int) int64 { return int64(a.Value(i)) }, true
	case *array.Uint16:
		return func(i int) int64 { return int64(a.Value(i)) }, true
	case *array.Uint32:
		return func(i int) int64 { return int64(a.Value(i)) }, true
	case *array.Uint64:
		return func(i int) int64 {
			if v := a.Value(i); v <= 1<<62 {
				return int64(v)
			}
			return -1
		}, true
	}
	return nil, false
}
