package duckstrata

/*
#include <stdint.h>
int64_t strata_assign_strings(void *vec, const char *data, const int32_t *offs, const uint8_t *valid,
                              uint64_t bit, uint64_t n);
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/duckdb/duckdb-go/v2/mapping"
)

// notUTF8 is the error of a string value DuckDB's VARCHAR refuses: DuckDB
// checks every value it is given and makes one that is not UTF-8 NULL,
// which would hand out a NULL the file does not hold (and that a filter
// Strata evaluated, such as a pushed IS NULL, did not see), so the scan
// fails instead, as DuckDB's Parquet reader does on such a value.
func notUTF8(v []byte) error {
	const show = 32
	if len(v) > show {
		return fmt.Errorf("value %q... is not valid UTF-8, which DuckDB's VARCHAR requires", v[:show])
	}
	return fmt.Errorf("value %q is not valid UTF-8, which DuckDB's VARCHAR requires", v)
}

// fillStrings assigns string or binary values (32-bit offsets) with one C
// call for the whole slice, and fails on a value DuckDB refused (see
// notUTF8).
func fillStrings(vec mapping.Vector, a arrow.Array, lo, n int) error {
	d := a.Data()
	bufs := d.Buffers()
	offs := unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(bufs[1].Bytes()))), d.Offset()+lo+n+1)[d.Offset()+lo:]
	var data *C.char
	if bufs[2] != nil && bufs[2].Len() > 0 {
		data = (*C.char)(unsafe.Pointer(unsafe.SliceData(bufs[2].Bytes())))
	} else {
		// Every value is empty: any non-nil pointer will do.
		var zero byte
		data = (*C.char)(unsafe.Pointer(&zero))
	}
	var valid *C.uint8_t
	if a.NullN() > 0 && bufs[0] != nil {
		valid = (*C.uint8_t)(unsafe.Pointer(unsafe.SliceData(bufs[0].Bytes())))
	}
	bad := int(C.strata_assign_strings(vec.Ptr, data, (*C.int32_t)(unsafe.Pointer(&offs[0])), valid, C.uint64_t(d.Offset()+lo), C.uint64_t(n)))
	if bad < 0 {
		return nil
	}
	return notUTF8(bufs[2].Bytes()[offs[bad]:offs[bad+1]])
}

// fillLargeStrings assigns values with 64-bit offsets one call at a time
// (Strata reads strings with 32-bit offsets; this serves other callers),
// and fails on a value DuckDB refused as fillStrings does.
func fillLargeStrings(vec mapping.Vector, a arrow.Array, lo, n int) error {
	mapping.VectorEnsureValidityWritable(vec)
	mask := unsafe.Slice((*uint64)(mapping.VectorGetValidity(vec)), (n+63)/64)
	for i := range n {
		if a.IsNull(lo+i) || mask[i/64]>>(i%64)&1 == 0 {
			continue
		}
		var v []byte
		switch x := a.(type) {
		case interface{ Value(int) string }:
			v = []byte(x.Value(lo + i))
		case interface{ Value(int) []byte }:
			v = x.Value(lo + i)
		}
		mapping.VectorAssignStringElementLen(vec, mapping.IdxT(i), v)
		if mask[i/64]>>(i%64)&1 == 0 {
			return notUTF8(v)
		}
	}
	return nil
}

// fillValidity marks the null rows of a[lo, lo+n) in vec's validity mask
// (and clears marks a previous batch left).
func fillValidity(vec mapping.Vector, a arrow.Array, lo, n int) {
	fillValidityUnder(vec, a, nil, lo, n)
}

// fillValidityUnder sets the validity of rows [lo, lo+n) of a, a field of
// struct parent (nil: a column): valid where both are.
func fillValidityUnder(vec mapping.Vector, a, parent arrow.Array, lo, n int) {
	if a.NullN() == 0 && (parent == nil || parent.NullN() == 0) {
		if m := mapping.VectorGetValidity(vec); m != nil {
			setAllValid(m, n)
		}
		return
	}
	mapping.VectorEnsureValidityWritable(vec)
	m := mapping.VectorGetValidity(vec)
	words := unsafe.Slice((*uint64)(m), (n+63)/64)
	for w := range words {
		var bits uint64
		for b := 0; b < 64 && w*64+b < n; b++ {
			if i := lo + w*64 + b; a.IsValid(i) && (parent == nil || parent.IsValid(i)) {
				bits |= 1 << b
			}
		}
		words[w] = bits
	}
}

func setAllValid(m unsafe.Pointer, n int) {
	words := unsafe.Slice((*uint64)(m), (n+63)/64)
	for w := range words {
		words[w] = ^uint64(0)
	}
}

// fillNull makes rows [0, n) of vec NULL (for columns DuckDB asks for that
// the file does not have, such as rowid).
func fillNull(vec mapping.Vector, n int) {
	mapping.VectorEnsureValidityWritable(vec)
	words := unsafe.Slice((*uint64)(mapping.VectorGetValidity(vec)), (n+63)/64)
	for w := range words {
		words[w] = 0
	}
}
