package shred

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// pick names value idx of source array src.
type pick struct{ src, idx int32 }

// gather builds an array of type dt whose value i is srcs[picks[i].src] at
// picks[i].idx, for the types ToArrow produces. It interleaves the per-key
// value arrays of a FlatMap into map entry order.
func gather(mem memory.Allocator, dt arrow.DataType, srcs []arrow.Array, picks []pick) (arrow.ArrayData, error) {
	n := len(picks)
	bufs := []*memory.Buffer{nil}
	defer func() { release(bufs) }()
	nulls := 0
	for _, p := range picks {
		if srcs[p.src].IsNull(int(p.idx)) {
			nulls++
		}
	}
	if nulls > 0 {
		b := memory.NewResizableBuffer(mem)
		b.Resize(int(bitutil.BytesForBits(int64(n))))
		bits := b.Bytes()
		clear(bits)
		for i, p := range picks {
			if srcs[p.src].IsValid(int(p.idx)) {
				bitutil.SetBit(bits, i)
			}
		}
		bufs[0] = b
	}
	switch dt.ID() {
	case arrow.BOOL:
		b := memory.NewResizableBuffer(mem)
		b.Resize(int(bitutil.BytesForBits(int64(n))))
		bits := b.Bytes()
		clear(bits)
		for i, p := range picks {
			if srcs[p.src].(*array.Boolean).Value(int(p.idx)) {
				bitutil.SetBit(bits, i)
			}
		}
		bufs = append(bufs, b)
		return array.NewData(dt, n, bufs, nil, nulls, 0), nil
	case arrow.STRING, arrow.BINARY:
		offs := make([][]int32, len(srcs))
		datas := make([][]byte, len(srcs))
		size := 0
		for i, s := range srcs {
			offs[i], datas[i] = rawOffsets[int32](s)
		}
		for _, p := range picks {
			o := offs[p.src]
			size += int(o[p.idx+1] - o[p.idx])
		}
		if size > math.MaxInt32 {
			return nil, fmt.Errorf("gathered strings beyond 2 GiB")
		}
		ob := memory.NewResizableBuffer(mem)
		ob.Resize(4 * (n + 1))
		out := unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(ob.Bytes()))), n+1)
		db := memory.NewResizableBuffer(mem)
		db.Resize(size)
		data := db.Bytes()[:0]
		out[0] = 0
		for i, p := range picks {
			o := offs[p.src]
			data = append(data, datas[p.src][o[p.idx]:o[p.idx+1]]...)
			out[i+1] = int32(len(data))
		}
		bufs = append(bufs, ob, db)
		return array.NewData(dt, n, bufs, nil, nulls, 0), nil
	case arrow.STRUCT:
		st := dt.(*arrow.StructType)
		children := make([]arrow.ArrayData, 0, st.NumFields())
		defer func() { releaseData(children) }()
		fs := make([]arrow.Array, len(srcs))
		for f := range st.NumFields() {
			for i, s := range srcs {
				fs[i] = s.(*array.Struct).Field(f)
			}
			c, err := gather(mem, st.Field(f).Type, fs, picks)
			if err != nil {
				return nil, err
			}
			children = append(children, c)
		}
		return array.NewData(dt, n, bufs, children, nulls, 0), nil
	case arrow.LIST, arrow.MAP:
		var child arrow.DataType
		if mt, ok := dt.(*arrow.MapType); ok {
			child = mt.Elem()
		} else {
			child = dt.(*arrow.ListType).Elem()
		}
		ob := memory.NewResizableBuffer(mem)
		ob.Resize(4 * (n + 1))
		bufs = append(bufs, ob)
		out := unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(ob.Bytes()))), n+1)
		out[0] = 0
		var sub []pick
		for i, p := range picks {
			a := srcs[p.src].(array.ListLike)
			if a.IsValid(int(p.idx)) {
				lo, hi := a.ValueOffsets(int(p.idx))
				for j := lo; j < hi; j++ {
					sub = append(sub, pick{src: p.src, idx: int32(j)})
				}
			}
			if len(sub) > math.MaxInt32 {
				return nil, fmt.Errorf("gathered lists beyond 2^31 elements")
			}
			out[i+1] = int32(len(sub))
		}
		vals := make([]arrow.Array, len(srcs))
		for i, s := range srcs {
			vals[i] = s.(array.ListLike).ListValues()
		}
		c, err := gather(mem, child, vals, sub)
		if err != nil {
			return nil, err
		}
		defer c.Release()
		return array.NewData(dt, n, bufs, []arrow.ArrayData{c}, nulls, 0), nil
	}
	fw, ok := dt.(arrow.FixedWidthDataType)
	if !ok || fw.BitWidth()%8 != 0 {
		return nil, fmt.Errorf("gather: unsupported type %s", dt)
	}
	w := fw.BitWidth() / 8
	raws := make([][]byte, len(srcs))
	for i, s := range srcs {
		d := s.Data()
		if len(d.Buffers()) > 1 && d.Buffers()[1] != nil {
			raws[i] = d.Buffers()[1].Bytes()[d.Offset()*w:]
		}
	}
	b := memory.NewResizableBuffer(mem)
	b.Resize(n * w)
	out := b.Bytes()
	for i, p := range picks {
		copy(out[i*w:(i+1)*w], raws[p.src][int(p.idx)*w:])
	}
	bufs = append(bufs, b)
	return array.NewData(dt, n, bufs, nil, nulls, 0), nil
}
