package shred

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"strata/encoding"
	"strata/schema"
)

// leafAccepts reports whether an Arrow type may feed a leaf of kind k.
func leafAccepts(n *schema.Node, t arrow.DataType) bool {
	if d, ok := t.(*arrow.DictionaryType); ok {
		if n.Kind != schema.String && n.Kind != schema.Binary {
			return false
		}
		t = d.ValueType
	}
	if k, ok := leafKinds[t.ID()]; ok {
		return k == n.Kind
	}
	switch t.ID() {
	case arrow.TIMESTAMP:
		return n.Kind == schema.Timestamp
	case arrow.TIME32, arrow.TIME64:
		// The unit decides the width of a time's values, so it must match.
		return n.Kind == schema.Time && unitOf(t) == n.Unit
	case arrow.DURATION:
		return n.Kind == schema.Duration && unitOf(t) == n.Unit
	case arrow.NULL:
		return n.Kind == schema.Null
	case arrow.DECIMAL32, arrow.DECIMAL64, arrow.DECIMAL128:
		return n.Kind == schema.Decimal
	}
	return false
}

// unitOf is the unit of a time32, time64 or duration type.
func unitOf(t arrow.DataType) schema.TimeUnit {
	if u, ok := t.(arrow.TemporalWithUnit); ok {
		return schema.TimeUnit(u.TimeUnit())
	}
	return schema.TimeUnit(255)
}

// leaf appends the values of a primitive node: one entry per slot, zero at
// null slots, validity when the node is nullable.
func (sh *Shredder) leaf(n *schema.Node, arr arrow.Array, spans []span, total int, mask []bool) error {
	if !leafAccepts(n, arr.DataType()) {
		return fmt.Errorf("%s %q: arrow array %s does not match", n.Kind, n.Name, arr.DataType())
	}
	b := sh.bufs[n.StreamID(schema.RoleValues)]
	var pres []bool
	if n.Nullable {
		pres = presence(arr, spans, total, mask)
	} else {
		if err := checkNoNulls(n, arr, spans, mask); err != nil {
			return err
		}
		pres = mask
	}
	if pres != nil && allTrue(pres) {
		pres = nil
	}
	start := b.n
	var err error
	switch b.typ {
	case encoding.Bool:
		b.bools = growBy(b.bools, total)
		dst := b.bools[start:]
		a, ok := arr.(*array.Boolean)
		if !ok { // the null type: false at every slot, each of them null
			clear(dst)
			break
		}
		k := 0
		for _, sp := range spans {
			for i := sp.lo; i < sp.hi; i++ {
				dst[k] = a.Value(i)
				k++
			}
		}
	case encoding.Int8:
		b.i8 = appendSpans(b.i8, rawFixed[int8](arr), spans)
	case encoding.Int16:
		b.i16 = appendSpans(b.i16, rawFixed[int16](arr), spans)
	case encoding.Int32:
		b.i32 = appendSpans(b.i32, rawFixed[int32](arr), spans)
	case encoding.Int64:
		switch arr.DataType().ID() {
		case arrow.DECIMAL32:
			b.i64 = appendConv(b.i64, rawFixed[int32](arr), spans)
		case arrow.DECIMAL128:
			b.i64, err = appendDec128(b.i64, rawFixed[[2]uint64](arr), spans, pres, n)
		default: // int64, timestamp, decimal64
			b.i64 = appendSpans(b.i64, rawFixed[int64](arr), spans)
		}
	case encoding.Uint8:
		b.u8 = appendSpans(b.u8, rawFixed[uint8](arr), spans)
	case encoding.Uint16:
		b.u16 = appendSpans(b.u16, rawFixed[uint16](arr), spans)
	case encoding.Uint32:
		b.u32 = appendSpans(b.u32, rawFixed[uint32](arr), spans)
	case encoding.Uint64:
		b.u64 = appendSpans(b.u64, rawFixed[uint64](arr), spans)
	case encoding.Float32:
		b.f32 = appendSpans(b.f32, rawFixed[float32](arr), spans)
	case encoding.Float64:
		b.f64 = appendSpans(b.f64, rawFixed[float64](arr), spans)
	case encoding.Binary:
		if n.Kind == schema.Decimal {
			if arr.DataType().ID() != arrow.DECIMAL128 {
				err = fmt.Errorf("arrow %s for a precision-%d decimal", arr.DataType(), n.Precision)
				break
			}
			appendWideDecimal(&b.bin, rawFixed[[2]uint64](arr), spans, pres)
		} else {
			err = appendBytes(&b.bin, arr, spans, pres)
		}
	default:
		err = fmt.Errorf("stream type %s", b.typ)
	}
	if err != nil {
		return fmt.Errorf("%s %q: %w", n.Kind, n.Name, err)
	}
	b.n += total
	if pres != nil && b.typ != encoding.Binary {
		b.zeroNulls(start, pres)
	}
	if n.Nullable {
		b.appendValid(pres, total)
	}
	return nil
}

// zeroNulls stores the zero value at the entries from start whose pres is false.
func (b *sbuf) zeroNulls(start int, pres []bool) {
	for k, p := range pres {
		if p {
			continue
		}
		i := start + k
		switch b.typ {
		case encoding.Bool:
			b.bools[i] = false
		case encoding.Int8:
			b.i8[i] = 0
		case encoding.Int16:
			b.i16[i] = 0
		case encoding.Int32:
			b.i32[i] = 0
		case encoding.Int64:
			b.i64[i] = 0
		case encoding.Uint8:
			b.u8[i] = 0
		case encoding.Uint16:
			b.u16[i] = 0
		case encoding.Uint32:
			b.u32[i] = 0
		case encoding.Uint64:
			b.u64[i] = 0
		case encoding.Float32:
			b.f32[i] = 0
		case encoding.Float64:
			b.f64[i] = 0
		}
	}
}

func appendSpans[T any](dst, src []T, spans []span) []T {
	dst = reserve(dst, spanTotal(spans))
	for _, sp := range spans {
		dst = append(dst, src[sp.lo:sp.hi]...)
	}
	return dst
}

func appendConv[S int32, D int64](dst []D, src []S, spans []span) []D {
	for _, sp := range spans {
		for _, v := range src[sp.lo:sp.hi] {
			dst = append(dst, D(v))
		}
	}
	return dst
}

// appendDec128 narrows decimal128 values (lo, hi words) to int64; a present
// value that does not fit is an error.
func appendDec128(dst []int64, src [][2]uint64, spans []span, pres []bool, n *schema.Node) ([]int64, error) {
	k := 0
	for _, sp := range spans {
		for _, v := range src[sp.lo:sp.hi] {
			lo := int64(v[0])
			if int64(v[1]) != lo>>63 && (pres == nil || pres[k]) {
				return dst, fmt.Errorf("decimal value beyond 64 bits in precision-%d column", n.Precision)
			}
			dst = append(dst, lo)
			k++
		}
	}
	return dst, nil
}

// appendWideDecimal appends 16-byte little-endian two's complement values,
// 16 zero bytes at nulls.
func appendWideDecimal(dst *encoding.Bytes, src [][2]uint64, spans []span, pres []bool) {
	k := 0
	for _, sp := range spans {
		for _, v := range src[sp.lo:sp.hi] {
			if pres != nil && !pres[k] {
				v = [2]uint64{}
			}
			dst.Data = binary.LittleEndian.AppendUint64(dst.Data, v[0])
			dst.Data = binary.LittleEndian.AppendUint64(dst.Data, v[1])
			dst.Offsets = append(dst.Offsets, int32(len(dst.Data)))
			k++
		}
	}
}

// appendBytes appends string or binary values, empty at nulls.
func appendBytes(dst *encoding.Bytes, arr arrow.Array, spans []span, pres []bool) error {
	if pres == nil {
		switch arr.(type) {
		case *array.String, *array.Binary:
			offs, data := rawOffsets[int32](arr)
			return appendRuns(dst, offs, data, spans)
		case *array.LargeString, *array.LargeBinary:
			offs, data := rawOffsets[int64](arr)
			return appendRuns(dst, offs, data, spans)
		}
	}
	get, err := bytesGetter(arr)
	if err != nil {
		return err
	}
	k := 0
	for _, sp := range spans {
		for i := sp.lo; i < sp.hi; i++ {
			if pres == nil || pres[k] {
				v := get(i)
				if len(dst.Data)+len(v) > math.MaxInt32 {
					return encoding.Limitf("binary stream beyond 2 GiB")
				}
				dst.Data = append(dst.Data, v...)
			}
			dst.Offsets = append(dst.Offsets, int32(len(dst.Data)))
			k++
		}
	}
	return nil
}

// appendRuns copies whole spans of an offsets+data array at once.
func appendRuns[O int32 | int64](dst *encoding.Bytes, offs []O, data []byte, spans []span) error {
	var bytes int64
	for _, sp := range spans {
		bytes += int64(offs[sp.hi] - offs[sp.lo])
	}
	if int64(len(dst.Data))+bytes > math.MaxInt32 {
		return encoding.Limitf("binary stream beyond 2 GiB")
	}
	dst.Data = reserve(dst.Data, int(bytes))
	dst.Offsets = reserve(dst.Offsets, spanTotal(spans))
	for _, sp := range spans {
		lo, hi := offs[sp.lo], offs[sp.hi]
		base := int64(len(dst.Data)) - int64(lo)
		dst.Data = append(dst.Data, data[lo:hi]...)
		for _, o := range offs[sp.lo+1 : sp.hi+1] {
			dst.Offsets = append(dst.Offsets, int32(int64(o)+base))
		}
	}
	return nil
}
