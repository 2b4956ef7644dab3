package read

import (
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"strata/encoding"
	"strata/format"
	"strata/shred"
)

// Flat scans (every projected column row-aligned) return one batch per
// largest chunk among the projected columns (see batchEnd), rather than
// one per stripe: each column decodes only the chunks that overlap the
// batch, straight into a batch-sized buffer (or, for a binary chunk that
// covers the batch exactly, sharing the decoder's bytes), which keeps
// buffers small and cache-resident and lets offset and limit skip whole
// chunks.

// flatColumns reports whether every projected column is row-aligned.
func (f *File) flatColumns(cols []int) bool {
	for _, c := range cols {
		if f.rowAligned(c) < 0 {
			return false
		}
	}
	return len(cols) > 0
}

// batchEnd returns the end row (stripe-relative) of the batch starting at
// lo: the furthest end of the chunks holding lo among the projected
// columns. Writers nest the chunk boundaries of all columns (write/size.go),
// so the batch then covers whole chunks of every column and no chunk is
// opened twice; with other boundaries a chunk that straddles the end is
// read in parts.
func (f *File) batchEnd(infos []format.StreamInfo, stripe int, cols []int, lo int64) (int64, error) {
	end := int64(-1)
	for _, col := range cols {
		id := f.rowAligned(col)
		if id < 0 || id >= len(infos) {
			return 0, encoding.Corruptf("stripe %d: no stream %d for column %d", stripe, id, col)
		}
		info := &infos[id]
		c := info.ChunkForRow(lo)
		if c < 0 {
			return 0, encoding.Corruptf("stripe %d: row %d outside the chunks of column %d", stripe, lo, col)
		}
		ch := info.Chunks[c]
		end = max(end, ch.FirstRow+ch.Rows)
	}
	return end, nil
}

// needRange declares the chunks of the row-aligned columns cols that hold
// stripe rows [lo, hi).
func (f *File) needRows(io *stripeIO, cols []int, lo, hi int64) error {
	for _, c := range cols {
		if err := io.needRange(f.rowAligned(c), lo, hi); err != nil {
			return err
		}
	}
	return nil
}

// readRange reads rows [lo, hi) of a stripe's row-aligned columns (their
// chunks declared with needRows), the columns decoding in parallel.
func (f *File) readRange(x *exec, io *stripeIO, cols []int, lo, hi int64) (arrow.Record, error) {
	n := int(hi - lo)
	arrs := make([]arrow.Array, len(cols))
	defer releaseAll(arrs)
	err := x.w.each(x.ctx, len(cols), func(k int) error {
		c := cols[k]
		s, err := f.readStreamRange(io, f.rowAligned(c), lo, hi)
		if err != nil {
			return inStripe(io.stripe, columnWhere(f.field(c).Name), err)
		}
		a, err := shred.AssembleLeaf(f.sch, c, n, s, f.opts.Mem)
		if err != nil {
			return inStripe(io.stripe, columnWhere(f.field(c).Name), err)
		}
		arrs[k] = a
		return nil
	})
	if err != nil {
		return nil, err
	}
	return array.NewRecord(f.projectedSchema(cols), arrs, int64(n)), nil
}

// readStreamRange decodes entries [lo, hi) of a row-aligned stream.
func (f *File) readStreamRange(io *stripeIO, stream int, lo, hi int64) (*shred.Stream, error) {
	info := io.stream(stream)
	typ := f.sch.Stream(stream).Type
	n := int(hi - lo)
	first := info.ChunkForRow(lo)
	if first < 0 {
		return nil, encoding.Corruptf("stream %d: row %d outside its chunks", stream, lo)
	}
	var vals any
	var bin *encoding.Bytes
	var pooled [2]unsafe.Pointer
	var err error
	if typ == encoding.Binary {
		bin, pooled = f.pooledBytes(stream, n)
		vals = bin
	} else if vals, err = f.pooledBuf(typ, n); err != nil {
		return nil, err
	}
	var valid []bool
	at := 0
	for c := first; c < len(info.Chunks) && info.Chunks[c].FirstRow < hi; c++ {
		ch := info.Chunks[c]
		from := max(lo, ch.FirstRow) - ch.FirstRow
		to := min(hi, ch.FirstRow+ch.Rows) - ch.FirstRow
		m := int(to - from)
		err := io.use(stream, c, false, func(d encoding.Decoder) error {
			if from > 0 {
				if err := d.Skip(int(from)); err != nil {
					return err
				}
			}
			nullable := d.Kind() == encoding.KindNullable
			if nullable && valid == nil {
				valid = make([]bool, n)
				fillTrue(valid[:at])
			}
			if err := encoding.ReadPart(d, vals, at, m, valid, nullable); err != nil {
				return err
			}
			if valid != nil && !nullable {
				fillTrue(valid[at : at+m])
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		at += m
	}
	if at != n {
		return nil, encoding.Corruptf("stream %d: chunks cover %d of rows [%d, %d)", stream, at, lo, hi)
	}
	st2 := &shred.Stream{ID: stream, Type: typ, Values: vals, Valid: valid, Len: n}
	if n > 0 {
		st2.Owner = f.pool
	}
	if bin != nil {
		f.settleBytes(stream, bin, pooled, n)
	}
	return st2, nil
}

// pooledBytes returns an empty Bytes whose buffers come from the pool,
// sized for n values by the stream's last batch, so decoders append into
// them without growing.
func (f *File) pooledBytes(stream, n int) (*encoding.Bytes, [2]unsafe.Pointer) {
	b := &encoding.Bytes{}
	if n == 0 {
		return b, [2]unsafe.Pointer{}
	}
	b.Offsets = pooledBuf[int32](f.pool, n+1)[:0]
	// 12.5 % headroom over the last batch's density, and room for the
	// slot stores decoders make past the last value.
	size := int(f.binHint[stream].Load()*int64(n)/1024)*9/8 + 64
	b.Data = f.pool.Allocate(min(size, 1<<maxClass))[:0]
	return b, [2]unsafe.Pointer{unsafe.Pointer(unsafe.SliceData(b.Offsets)), unsafe.Pointer(unsafe.SliceData(b.Data))}
}

// settleBytes returns to the pool the buffers of b that decoders replaced
// instead of appending to (a value buffer that had to grow, or a decoder
// that shared its own bytes), and records the density for the next batch.
func (f *File) settleBytes(stream int, b *encoding.Bytes, pooled [2]unsafe.Pointer, n int) {
	if pooled[0] != nil && pooled[0] != unsafe.Pointer(unsafe.SliceData(b.Offsets)) {
		f.pool.Free(unsafe.Slice((*byte)(pooled[0]), 1))
	}
	if pooled[1] != nil && pooled[1] != unsafe.Pointer(unsafe.SliceData(b.Data)) {
		f.pool.Free(unsafe.Slice((*byte)(pooled[1]), 1))
	}
	if n > 0 {
		f.binHint[stream].Store(int64(len(b.Data)) * 1024 / int64(n))
	}
}

// pooledBuf allocates n values of type t from the file's buffer pool.
func (f *File) pooledBuf(t encoding.Type, n int) (any, error) {
	if err := f.dec.CheckAlloc(n, max(t.Size(), 1), "batch values"); err != nil {
		return nil, err
	}
	switch t {
	case encoding.Bool:
		return pooledBuf[bool](f.pool, n), nil
	case encoding.Int8:
		return pooledBuf[int8](f.pool, n), nil
	case encoding.Int16:
		return pooledBuf[int16](f.pool, n), nil
	case encoding.Int32:
		return pooledBuf[int32](f.pool, n), nil
	case encoding.Int64:
		return pooledBuf[int64](f.pool, n), nil
	case encoding.Uint8:
		return pooledBuf[uint8](f.pool, n), nil
	case encoding.Uint16:
		return pooledBuf[uint16](f.pool, n), nil
	case encoding.Uint32:
		return pooledBuf[uint32](f.pool, n), nil
	case encoding.Uint64:
		return pooledBuf[uint64](f.pool, n), nil
	case encoding.Float32:
		return pooledBuf[float32](f.pool, n), nil
	case encoding.Float64:
		return pooledBuf[float64](f.pool, n), nil
	}
	return encoding.NewValues(t, n)
}
