package shred

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/encoding"
	"strata/schema"
)

// Assemble builds the Arrow array of top-level column col from complete
// stream data: every stream of the column (schema.ColumnStreams) holds the
// entries of the same range of rows, starting at that range's first row.
// The row count is the length of the column's first row-aligned stream.
//
// Numeric, date, timestamp and string/binary values (and decimals with
// precision > 18) are shared with the streams' buffers, not copied: keep the
// streams' slices alive and unmodified while the array is in use. Bool
// values, validity and list offsets are built in buffers from mem.
//
// A stream of a FlatMap key missing from streams means the key is absent
// from every row (the stripe predates the key). Any other missing stream,
// a stream of the wrong type, or lengths that do not add up returns an
// error wrapping encoding.ErrCorrupt.
func Assemble(s *schema.Schema, col int, streams map[int]*Stream, mem memory.Allocator) (arrow.Array, error) {
	return AssembleRows(s, col, -1, streams, mem)
}

// AssembleRows is Assemble with an explicit row count (rows < 0: infer it).
// It is needed for columns without row-aligned streams: a non-nullable
// struct without fields or a non-nullable FlatMap whose keys are all absent.
func AssembleRows(s *schema.Schema, col int, rows int, streams map[int]*Stream, mem memory.Allocator) (arrow.Array, error) {
	if col < 0 || col >= s.NumColumns() {
		return nil, fmt.Errorf("shred: column %d out of range [0, %d)", col, s.NumColumns())
	}
	return assembleTop(s, s.Column(col), nil, rows, streams, nil, mem)
}

// AssembleLeaf is AssembleRows for a column that is a single leaf stored
// in one stream (a primitive top-level column), without a stream map:
// what single-row lookups assemble once per column.
func AssembleLeaf(s *schema.Schema, col int, rows int, st *Stream, mem memory.Allocator) (arrow.Array, error) {
	if col < 0 || col >= s.NumColumns() {
		return nil, fmt.Errorf("shred: column %d out of range [0, %d)", col, s.NumColumns())
	}
	if st == nil {
		return nil, fmt.Errorf("shred: AssembleLeaf of column %d without a stream", col)
	}
	return assembleTop(s, s.Column(col), nil, rows, nil, st, mem)
}

// AssembleNode builds the array of any node n over rows of its own slots,
// starting at the first entry of each stream of its subtree. For a node
// reached from its column through structs only, slots are rows (ancestor
// nulls are already part of the node's own nulls). For list elements or map
// keys/values the slots are the flattened entries. The in-map stream of a
// FlatMap key node is not read. rows < 0 infers the count.
func AssembleNode(s *schema.Schema, n *schema.Node, rows int, streams map[int]*Stream, mem memory.Allocator) (arrow.Array, error) {
	return assembleTop(s, n, nil, rows, streams, nil, mem)
}

// AssemblePath builds top-level column containing the node at path with
// only that node's subtree kept: structs keep just the field on the path,
// FlatMaps just the key on the path, map keys are always kept. The result's
// type is ProjectedType(s, path). It needs the streams of
// s.PathStreams(node).
func AssemblePath(s *schema.Schema, path string, streams map[int]*Stream, mem memory.Allocator) (arrow.Array, error) {
	col, keep, err := pathKeep(s, path)
	if err != nil {
		return nil, err
	}
	return assembleTop(s, col, keep, -1, streams, nil, mem)
}

// ProjectedType is the Arrow type AssemblePath returns for path.
func ProjectedType(s *schema.Schema, path string) (arrow.DataType, error) {
	col, keep, err := pathKeep(s, path)
	if err != nil {
		return nil, err
	}
	return typeOf(col, keep), nil
}

// pathKeep returns the top-level column holding path and the nodes an
// assembly of path keeps.
func pathKeep(s *schema.Schema, path string) (*schema.Node, keepSet, error) {
	n, err := s.Find(path)
	if err != nil {
		return nil, nil, fmt.Errorf("shred: %w", err)
	}
	col, _ := s.ColumnOf(n)
	if col == nil {
		return nil, nil, fmt.Errorf("shred: path %q is not inside a column", path)
	}
	keep := keepSet{}
	var all func(x *schema.Node)
	all = func(x *schema.Node) {
		keep[x] = true
		for _, c := range x.Children {
			all(c)
		}
	}
	all(n)
	for a := n.Parent(); a != nil; a = a.Parent() {
		keep[a] = true
		if a.Kind == schema.Map {
			all(a.Children[0])
		}
	}
	// A map's entries are built whole: a path to its keys keeps its values
	// too (a map cannot hold keys alone).
	for x := range keep {
		if x.Kind == schema.Map && !keep[x.Children[1]] {
			all(x.Children[1])
		}
	}
	return col, keep, nil
}

func assembleTop(s *schema.Schema, n *schema.Node, keep keepSet, rows int, streams map[int]*Stream, one *Stream, mem memory.Allocator) (arrow.Array, error) {
	as := &assembler{s: s, streams: streams, mem: mem, keep: keep}
	if one != nil {
		as.one = one
	} else {
		as.pos = make(map[int]int)
	}
	if rows < 0 {
		r, ok := as.inferRows(n)
		if !ok {
			return nil, fmt.Errorf("shred: %q: cannot infer the row count (no row-aligned stream); use AssembleRows", n.Path())
		}
		rows = r
	}
	d, err := as.build(n, rows)
	if err != nil {
		return nil, fmt.Errorf("shred: assemble %q: %w", n.Path(), err)
	}
	defer d.Release()
	return array.MakeFromData(d), nil
}

type assembler struct {
	s       *schema.Schema
	streams map[int]*Stream
	one     *Stream // the only stream, when assembling a single leaf stream
	pos     map[int]int
	onePos  int // entries of one already taken
	mem     memory.Allocator
	keep    keepSet
}

// stream returns the stream with the given id, or nil.
func (as *assembler) stream(id int) *Stream {
	if as.one != nil {
		if as.one.ID == id {
			return as.one
		}
		return nil
	}
	return as.streams[id]
}

// inferRows returns the entry count of n's first slot-aligned stream.
func (as *assembler) inferRows(n *schema.Node) (int, bool) {
	for _, r := range [...]schema.Role{schema.RoleNulls, schema.RoleLengths, schema.RoleValues} {
		if id := n.StreamID(r); id >= 0 {
			if st := as.stream(id); st != nil {
				return st.Len, true
			}
			return 0, false
		}
	}
	for _, c := range n.Children {
		if !as.keep.has(c) {
			continue
		}
		if n.Kind == schema.FlatMap {
			if st := as.stream(c.StreamID(schema.RoleInMap)); st != nil {
				return st.Len, true
			}
			continue
		}
		if r, ok := as.inferRows(c); ok {
			return r, true
		}
	}
	return 0, false
}

// take reserves count entries of stream id, checking its presence and type.
func (as *assembler) take(id int, count int) (*Stream, int, error) {
	st := as.stream(id)
	info := as.s.Stream(id)
	if st == nil {
		return nil, 0, encoding.Corruptf("stream %d (%s of %q) missing", id, info.Role, info.Node.Path())
	}
	if st.Type != info.Type || encoding.TypeOf(st.Values) != info.Type {
		return nil, 0, encoding.Corruptf("stream %d (%s of %q): type %s / %T, want %s", id, info.Role, info.Node.Path(), st.Type, st.Values, info.Type)
	}
	p := as.onePos
	if as.one == nil {
		p = as.pos[id]
	}
	if st.Len < 0 || count > st.Len-p || encoding.LenOf(st.Values) < st.Len || (st.Valid != nil && len(st.Valid) < st.Len) {
		return nil, 0, encoding.Corruptf("stream %d (%s of %q): %d entries needed at %d, has %d", id, info.Role, info.Node.Path(), count, p, st.Len)
	}
	if as.one == nil {
		as.pos[id] = p + count
	} else {
		as.onePos = p + count
	}
	return st, p, nil
}

// takeBools returns count entries of a Bool stream.
func (as *assembler) takeBools(id, count int) ([]bool, error) {
	st, p, err := as.take(id, count)
	if err != nil {
		return nil, err
	}
	return st.Values.([]bool)[p : p+count], nil
}

// bitmap packs flags into an Arrow bitmap; it returns nil and 0 nulls when all are set.
func (as *assembler) bitmap(flags []bool, onlyNulls bool) (*memory.Buffer, int) {
	nulls := 0
	for _, f := range flags {
		if !f {
			nulls++
		}
	}
	if onlyNulls && nulls == 0 {
		return nil, 0
	}
	buf := memory.NewResizableBuffer(as.mem)
	buf.Resize(int(bitutil.BytesForBits(int64(len(flags)))))
	bits := buf.Bytes()
	clear(bits)
	for i, f := range flags {
		if f {
			bits[i>>3] |= 1 << (i & 7)
		}
	}
	return buf, nulls
}

func release(bufs []*memory.Buffer) {
	for _, b := range bufs {
		if b != nil {
			b.Release()
		}
	}
}

func releaseData(ds []arrow.ArrayData) {
	for _, d := range ds {
		if d != nil {
			d.Release()
		}
	}
}

// bytesOf views a slice's memory as bytes (no copy).
func bytesOf[T any](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(z)))
}

// build assembles count slots of node n.
func (as *assembler) build(n *schema.Node, count int) (arrow.ArrayData, error) {
	if n.Kind.IsLeaf() {
		return as.leaf(n, count)
	}
	var validity *memory.Buffer
	nulls := 0
	if id := n.StreamID(schema.RoleNulls); id >= 0 {
		flags, err := as.takeBools(id, count)
		if err != nil {
			return nil, err
		}
		validity, nulls = as.bitmap(flags, true)
	}
	defer func() {
		if validity != nil {
			validity.Release()
		}
	}()
	dt := typeOf(n, as.keep)
	switch n.Kind {
	case schema.Struct:
		var children []arrow.ArrayData
		defer func() { releaseData(children) }()
		for _, c := range n.Children {
			if !as.keep.has(c) {
				continue
			}
			d, err := as.build(c, count)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", c.Name, err)
			}
			children = append(children, d)
		}
		return array.NewData(dt, count, []*memory.Buffer{validity}, children, nulls, 0), nil
	case schema.List, schema.Map:
		offsets, total, err := as.offsets(n, count)
		if err != nil {
			return nil, err
		}
		defer offsets.Release()
		var child arrow.ArrayData
		if n.Kind == schema.List {
			if child, err = as.build(n.Children[0], total); err != nil {
				return nil, fmt.Errorf("element: %w", err)
			}
		} else {
			if child, err = as.entries(n, dt.(*arrow.MapType), total); err != nil {
				return nil, err
			}
		}
		defer child.Release()
		return array.NewData(dt, count, []*memory.Buffer{validity, offsets}, []arrow.ArrayData{child}, nulls, 0), nil
	case schema.FlatMap:
		return as.flatMap(n, dt.(*arrow.MapType), count, validity, nulls)
	}
	return nil, encoding.Unsupportedf("kind %s", n.Kind)
}

// offsets turns count entries of n's lengths stream into Arrow offsets.
func (as *assembler) offsets(n *schema.Node, count int) (*memory.Buffer, int, error) {
	st, p, err := as.take(n.StreamID(schema.RoleLengths), count)
	if err != nil {
		return nil, 0, err
	}
	lens := st.Values.([]uint32)[p : p+count]
	buf := memory.NewResizableBuffer(as.mem)
	buf.Resize((count + 1) * 4)
	offs := unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(buf.Bytes()))), count+1)
	total := 0
	offs[0] = 0
	for i, l := range lens {
		total += int(l)
		if total > math.MaxInt32 {
			buf.Release()
			return nil, 0, encoding.Corruptf("%s %q: more than 2^31 elements", n.Kind, n.Name)
		}
		offs[i+1] = int32(total)
	}
	return buf, total, nil
}

// entries builds the key/value struct of a map's total entries.
func (as *assembler) entries(n *schema.Node, mt *arrow.MapType, total int) (arrow.ArrayData, error) {
	k, err := as.build(n.Children[0], total)
	if err != nil {
		return nil, fmt.Errorf("key: %w", err)
	}
	defer k.Release()
	if k.NullN() != 0 {
		return nil, encoding.Corruptf("map %q: null keys", n.Name)
	}
	v, err := as.build(n.Children[1], total)
	if err != nil {
		return nil, fmt.Errorf("value: %w", err)
	}
	defer v.Release()
	return array.NewData(mt.Elem(), total, []*memory.Buffer{nil}, []arrow.ArrayData{k, v}, 0, 0), nil
}

// leaf builds count slots of a primitive node.
func (as *assembler) leaf(n *schema.Node, count int) (arrow.ArrayData, error) {
	st, p, err := as.take(n.StreamID(schema.RoleValues), count)
	if err != nil {
		return nil, err
	}
	if n.Kind == schema.Null {
		// Every slot is null, whatever the stream holds.
		if v, ok := st.Values.([]bool); ok {
			as.done(st, bytesOf(v), p, count)
		}
		return array.NewData(arrow.Null, count, []*memory.Buffer{nil}, nil, count, 0), nil
	}
	var validity *memory.Buffer
	nulls := 0
	// A non-nullable node has no nulls, whatever Valid says: Arrow map keys
	// and entries must not contain nulls.
	if n.Nullable && st.Valid != nil {
		validity, nulls = as.bitmap(st.Valid[p:p+count], true)
	}
	bufs := []*memory.Buffer{validity, nil}
	defer release(bufs)
	dt := typeOf(n, nil)
	switch v := st.Values.(type) {
	case []bool:
		bufs[1], _ = as.bitmap(v[p:p+count], false)
		as.done(st, bytesOf(v), p, count)
	case []int8:
		bufs[1] = as.valueBuffer(st, bytesOf(v[p:p+count]), p, count)
	case []int16:
		bufs[1] = as.valueBuffer(st, bytesOf(v[p:p+count]), p, count)
	case []int32:
		bufs[1] = as.valueBuffer(st, bytesOf(v[p:p+count]), p, count)
	case []int64:
		if n.Kind == schema.Decimal {
			bufs[1] = as.widen(v[p : p+count])
			as.done(st, bytesOf(v), p, count)
		} else {
			bufs[1] = as.valueBuffer(st, bytesOf(v[p:p+count]), p, count)
		}
	case []uint8:
		bufs[1] = as.valueBuffer(st, bytesOf(v[p:p+count]), p, count)
	case []uint16:
		bufs[1] = as.valueBuffer(st, bytesOf(v[p:p+count]), p, count)
	case []uint32:
		bufs[1] = as.valueBuffer(st, bytesOf(v[p:p+count]), p, count)
	case []uint64:
		bufs[1] = as.valueBuffer(st, bytesOf(v[p:p+count]), p, count)
	case []float32:
		bufs[1] = as.valueBuffer(st, bytesOf(v[p:p+count]), p, count)
	case []float64:
		bufs[1] = as.valueBuffer(st, bytesOf(v[p:p+count]), p, count)
	case *encoding.Bytes:
		return as.binary(n, dt, st, v, p, count, bufs, nulls)
	case encoding.Bytes:
		return as.binary(n, dt, st, &v, p, count, bufs, nulls)
	}
	return array.NewData(dt, count, bufs, nil, nulls, 0), nil
}

// done returns the values of an owned stream taken whole to their
// allocator when the array was built from a converted copy of them.
func (as *assembler) done(st *Stream, b []byte, p, count int) {
	if st != nil && st.Owner != nil && p == 0 && count == st.Len && cap(b) > 0 {
		st.Owner.Free(b)
	}
}

// valueBuffer wraps the value bytes of a fixed-width leaf. A stream whose
// values came from an allocator (Stream.Owner) and are taken whole hands
// them to the array, so releasing the array returns them; otherwise the
// array only references them.
func (as *assembler) valueBuffer(st *Stream, b []byte, p, count int) *memory.Buffer {
	if st != nil && st.Owner != nil && p == 0 && count == st.Len && cap(b) > 0 {
		return memory.NewBufferWithAllocator(b, st.Owner)
	}
	return memory.NewBufferBytes(b)
}

// widen converts int64 unscaled decimals to decimal128 (lo, hi) pairs.
func (as *assembler) widen(v []int64) *memory.Buffer {
	buf := memory.NewResizableBuffer(as.mem)
	buf.Resize(16 * len(v))
	out := buf.Bytes()
	for i, x := range v {
		binary.LittleEndian.PutUint64(out[16*i:], uint64(x))
		binary.LittleEndian.PutUint64(out[16*i+8:], uint64(x>>63))
	}
	return buf
}

// binary builds a string, binary or wide-decimal leaf from a Bytes stream,
// sharing its offsets and data.
func (as *assembler) binary(n *schema.Node, dt arrow.DataType, st *Stream, v *encoding.Bytes, p, count int, bufs []*memory.Buffer, nulls int) (arrow.ArrayData, error) {
	if len(v.Offsets) < p+count+1 {
		return nil, encoding.Corruptf("%q: %d offsets for %d values", n.Name, len(v.Offsets), p+count)
	}
	offs := v.Offsets[p : p+count+1]
	prev := offs[0]
	if prev < 0 {
		return nil, encoding.Corruptf("%q: negative offset", n.Name)
	}
	short := false // a wide decimal stream may hold empty values at null slots
	if n.Kind == schema.Decimal {
		for _, o := range offs[1:] {
			if step := int64(o) - int64(prev); step != 16 {
				if step != 0 {
					return nil, encoding.Corruptf("%q: decimal value of %d bytes, want 16", n.Name, step)
				}
				short = true
			}
			prev = o
		}
	} else {
		// Decoders never append decreasing offsets (the BinaryReader
		// contract, held by the fuzz targets), so only the ends are
		// checked here.
		prev = offs[len(offs)-1]
		if prev < offs[0] {
			return nil, encoding.Corruptf("%q: offsets decrease", n.Name)
		}
	}
	if int(prev) > len(v.Data) {
		return nil, encoding.Corruptf("%q: offset %d beyond %d data bytes", n.Name, prev, len(v.Data))
	}
	if n.Kind == schema.Decimal {
		// Buffers of an owned stream that the array does not take go back
		// to their allocator once this function no longer needs them.
		defer as.done(st, bytesOf(v.Offsets), p, count)
		if !short {
			if offs[0] == 0 {
				bufs[1] = as.valueBuffer(st, v.Data[:prev], p, count)
			} else {
				defer as.done(st, v.Data, p, count)
				bufs[1] = memory.NewBufferBytes(v.Data[offs[0]:prev])
			}
			return array.NewData(dt, count, bufs, nil, nulls, 0), nil
		}
		defer as.done(st, v.Data, p, count)
		// Null slots decoded as empty values (the Nullable encoding stores
		// only present values): spread the values into 16-byte slots.
		buf := memory.NewResizableBuffer(as.mem)
		buf.Resize(16 * count)
		out := buf.Bytes()
		clear(out)
		for i := 0; i < count; i++ {
			if offs[i+1]-offs[i] == 16 {
				copy(out[16*i:16*i+16], v.Data[offs[i]:offs[i+1]])
			} else if bufs[0] == nil || bitutil.BitIsSet(bufs[0].Bytes(), i) {
				buf.Release()
				return nil, encoding.Corruptf("%q: empty decimal value at non-null slot %d", n.Name, i)
			}
		}
		bufs[1] = buf // released with the other buffers by the caller
		return array.NewData(dt, count, bufs, nil, nulls, 0), nil
	}
	ob, db := as.valueBuffer(st, bytesOf(offs), p, count), as.valueBuffer(st, v.Data, p, count)
	d := array.NewData(dt, count, []*memory.Buffer{bufs[0], ob, db}, nil, nulls, 0)
	ob.Release() // the array holds its own references
	db.Release()
	return d, nil
}

// flatMap builds a map<key, value> array from a FlatMap's in-map streams
// and per-key value subtrees. Entries of a row follow the schema's key order.
func (as *assembler) flatMap(n *schema.Node, mt *arrow.MapType, count int, validity *memory.Buffer, nulls int) (arrow.ArrayData, error) {
	type keyCol struct {
		node  *schema.Node
		inmap []bool
		vals  arrow.Array
	}
	var keys []keyCol
	defer func() {
		for _, k := range keys {
			if k.vals != nil {
				k.vals.Release()
			}
		}
	}()
	for _, c := range n.Children {
		if !as.keep.has(c) {
			continue
		}
		id := c.StreamID(schema.RoleInMap)
		if as.stream(id) == nil {
			continue // key absent from this stripe
		}
		inmap, err := as.takeBools(id, count)
		if err != nil {
			return nil, err
		}
		present := 0
		for _, b := range inmap {
			if b {
				present++
			}
		}
		d, err := as.build(c, present)
		if err != nil {
			return nil, fmt.Errorf("key %q: %w", c.Name, err)
		}
		keys = append(keys, keyCol{node: c, inmap: inmap, vals: array.MakeFromData(d)})
		d.Release()
	}
	// Offsets and the entry order: row by row, keys in schema order.
	offBuf := memory.NewResizableBuffer(as.mem)
	defer offBuf.Release()
	offBuf.Resize((count + 1) * 4)
	offs := unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(offBuf.Bytes()))), count+1)
	offs[0] = 0
	total := 0
	for r := range count {
		for _, k := range keys {
			if k.inmap[r] {
				total++
			}
		}
		if total > math.MaxInt32 {
			return nil, encoding.Corruptf("flatmap %q: more than 2^31 entries", n.Name)
		}
		offs[r+1] = int32(total)
	}
	picks := make([]pick, 0, total)
	keyIdx := make([]int32, 0, total)
	rank := make([]int32, len(keys))
	for r := range count {
		for ki, k := range keys {
			if k.inmap[r] {
				picks = append(picks, pick{src: int32(ki), idx: rank[ki]})
				keyIdx = append(keyIdx, int32(ki))
				rank[ki]++
			}
		}
	}
	kd, err := as.flatKeys(n, keys2nodes(keys, func(k keyCol) *schema.Node { return k.node }), keyIdx)
	if err != nil {
		return nil, err
	}
	defer kd.Release()
	var vd arrow.ArrayData
	if len(keys) == 1 {
		vd = keys[0].vals.Data()
		vd.Retain()
	} else {
		srcs := make([]arrow.Array, len(keys))
		for i, k := range keys {
			srcs[i] = k.vals
		}
		if vd, err = gather(as.mem, mt.ItemType(), srcs, picks); err != nil {
			return nil, fmt.Errorf("flatmap %q: %w", n.Name, err)
		}
	}
	defer vd.Release()
	ed := array.NewData(mt.Elem(), total, []*memory.Buffer{nil}, []arrow.ArrayData{kd, vd}, 0, 0)
	defer ed.Release()
	return array.NewData(mt, count, []*memory.Buffer{validity, offBuf}, []arrow.ArrayData{ed}, nulls, 0), nil
}

func keys2nodes[K any](ks []K, f func(K) *schema.Node) []*schema.Node {
	out := make([]*schema.Node, len(ks))
	for i, k := range ks {
		out[i] = f(k)
	}
	return out
}

// flatKeys builds the key column of a FlatMap's entries.
func (as *assembler) flatKeys(n *schema.Node, nodes []*schema.Node, idx []int32) (arrow.ArrayData, error) {
	if n.KeyKind == schema.String {
		offBuf := memory.NewResizableBuffer(as.mem)
		defer offBuf.Release()
		offBuf.Resize((len(idx) + 1) * 4)
		offs := unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(offBuf.Bytes()))), len(idx)+1)
		size := 0
		for _, i := range idx {
			size += len(nodes[i].Name)
		}
		if size > math.MaxInt32 {
			return nil, encoding.Corruptf("flatmap %q: key bytes beyond 2 GiB", n.Name)
		}
		dataBuf := memory.NewResizableBuffer(as.mem)
		defer dataBuf.Release()
		dataBuf.Resize(size)
		data := dataBuf.Bytes()[:0]
		offs[0] = 0
		for j, i := range idx {
			data = append(data, nodes[i].Name...)
			offs[j+1] = int32(len(data))
		}
		return array.NewData(arrow.BinaryTypes.String, len(idx), []*memory.Buffer{nil, offBuf, dataBuf}, nil, 0, 0), nil
	}
	dt := leafTypes[n.KeyKind]
	width := dt.(arrow.FixedWidthDataType).BitWidth() / 8
	vals := make([]uint64, len(nodes))
	for i, c := range nodes {
		if n.KeyKind.IsSigned() {
			v, err := strconv.ParseInt(c.Name, 10, 64)
			if err != nil {
				return nil, encoding.Corruptf("flatmap %q: key %q", n.Name, c.Name)
			}
			vals[i] = uint64(v)
		} else {
			v, err := strconv.ParseUint(c.Name, 10, 64)
			if err != nil {
				return nil, encoding.Corruptf("flatmap %q: key %q", n.Name, c.Name)
			}
			vals[i] = v
		}
	}
	buf := memory.NewResizableBuffer(as.mem)
	defer buf.Release()
	buf.Resize(len(idx) * width)
	out := buf.Bytes()
	var tmp [8]byte
	for j, i := range idx {
		binary.LittleEndian.PutUint64(tmp[:], vals[i])
		copy(out[j*width:], tmp[:width])
	}
	return array.NewData(dt, len(idx), []*memory.Buffer{nil, buf}, nil, 0, 0), nil
}
