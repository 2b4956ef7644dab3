package shred

import (
	"fmt"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"math"
	"strconv"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"strata/encoding"
	"strata/schema"
)

// Stream is the buffered content of one stream.
//
// Values is a []T of the stream's physical type (Bool → []bool, ...), or a
// *encoding.Bytes for Binary streams (strings, binaries, decimals with
// precision > 18: always 16 bytes per entry, two's complement little endian).
// Valid is nil when no entry is null, else it has one flag per entry (true =
// present); null entries hold the zero value (empty for Bytes, 16 zero bytes
// for wide decimals). Only leaf values streams ever have a Valid.
//
// Owner, when set, is the allocator a fixed-width Values slice was allocated
// from (as one allocation starting at the slice's first element): the
// assembled array then owns it, and releasing the array returns it to Owner.
// The reader sets it so scans reuse released batch buffers.
type Stream struct {
	ID     int
	Type   encoding.Type
	Values any
	Valid  []bool
	Len    int
	Owner  memory.Allocator
}

// Shredder splits Arrow record batches into per-stream buffers.
//
// The Shredder may extend its schema: an Arrow map value stored as a FlatMap
// whose key is new adds the key with schema.AddFlatMapKey, which gives the
// key's streams ids after every existing stream; ids never change, so
// streams already written keep their meaning. A key added in the middle of
// a stripe gets in-map entries false for the slots appended before it. A
// stream that did not exist when an earlier stripe was written is absent from
// that stripe; for a FlatMap key this means the key is absent from every slot
// of the stripe. Write the schema (s.Marshal) after the last Append.
type Shredder struct {
	// MaxFlatMapKeys bounds the keys one FlatMap may have (0 = no bound);
	// Append fails with an error wrapping encoding.ErrLimit beyond it.
	MaxFlatMapKeys int

	s    *schema.Schema
	bufs []*sbuf
	fms  map[*schema.Node]*fmState

	// rollback bookkeeping for a failed Append
	markBufs int

	// the buffers of a stripe handed out by Swap (lent) until Return, and
	// the second set Swap continues into (spare)
	lent, spare []*sbuf
}

// NewShredder returns a Shredder writing the streams of s. The Shredder
// extends s with FlatMap keys it discovers.
func NewShredder(s *schema.Schema) *Shredder {
	sh := &Shredder{s: s, fms: make(map[*schema.Node]*fmState)}
	sh.grow()
	return sh
}

// Schema returns the (possibly extended) schema.
func (sh *Shredder) Schema() *schema.Schema { return sh.s }

// sbuf buffers one stream. Exactly one typed slice is used, chosen by typ.
type sbuf struct {
	typ     encoding.Type
	role    schema.Role
	owner   *schema.Node // the FlatMap of an in-map stream
	n       int
	hasNull bool
	valid   []bool

	bools []bool
	i8    []int8
	i16   []int16
	i32   []int32
	i64   []int64
	u8    []uint8
	u16   []uint16
	u32   []uint32
	u64   []uint64
	f32   []float32
	f64   []float64
	bin   encoding.Bytes

	// state at the start of the current Append
	markN, markData int
	markNull        bool
}

type fmState struct {
	slots, markSlots int
	str              map[string]int
	ints             map[int64]int
	stamp            []int     // per key: last batch slot that had it, for duplicates
	entries          [][]int32 // per key: entry indices in this batch
	hits             [][]int32 // per key: batch slots where present
}

func (sh *Shredder) grow() {
	infos := sh.s.Streams()
	for id := len(sh.bufs); id < len(infos); id++ {
		in := infos[id]
		b := &sbuf{typ: in.Type, role: in.Role}
		if in.Role == schema.RoleInMap {
			b.owner = in.Node.Parent()
		}
		if b.typ == encoding.Binary {
			b.bin.Offsets = append(b.bin.Offsets, 0)
		}
		sh.bufs = append(sh.bufs, b)
	}
}

// Reset empties every stream, keeping capacity, to start a new stripe.
func (sh *Shredder) Reset() {
	for _, b := range sh.bufs {
		b.truncate(0, 0, false)
	}
	for _, st := range sh.fms {
		st.slots = 0
	}
}

func (b *sbuf) truncate(n, data int, hasNull bool) {
	b.n = n
	b.hasNull = hasNull
	if hasNull {
		b.valid = b.valid[:n]
	} else {
		b.valid = b.valid[:0]
	}
	switch b.typ {
	case encoding.Bool:
		b.bools = b.bools[:n]
	case encoding.Int8:
		b.i8 = b.i8[:n]
	case encoding.Int16:
		b.i16 = b.i16[:n]
	case encoding.Int32:
		b.i32 = b.i32[:n]
	case encoding.Int64:
		b.i64 = b.i64[:n]
	case encoding.Uint8:
		b.u8 = b.u8[:n]
	case encoding.Uint16:
		b.u16 = b.u16[:n]
	case encoding.Uint32:
		b.u32 = b.u32[:n]
	case encoding.Uint64:
		b.u64 = b.u64[:n]
	case encoding.Float32:
		b.f32 = b.f32[:n]
	case encoding.Float64:
		b.f64 = b.f64[:n]
	case encoding.Binary:
		b.bin.Offsets = b.bin.Offsets[:n+1]
		b.bin.Data = b.bin.Data[:data]
	}
}

// Streams returns the buffered streams indexed by id, one per schema
// stream. The slices alias the Shredder's buffers: they are valid until the
// next Append or Reset.
func (sh *Shredder) Streams() []Stream {
	out := make([]Stream, len(sh.bufs))
	for id, b := range sh.bufs {
		st := Stream{ID: id, Type: b.typ, Len: b.n}
		switch b.typ {
		case encoding.Bool:
			st.Values = b.bools
		case encoding.Int8:
			st.Values = b.i8
		case encoding.Int16:
			st.Values = b.i16
		case encoding.Int32:
			st.Values = b.i32
		case encoding.Int64:
			st.Values = b.i64
		case encoding.Uint8:
			st.Values = b.u8
		case encoding.Uint16:
			st.Values = b.u16
		case encoding.Uint32:
			st.Values = b.u32
		case encoding.Uint64:
			st.Values = b.u64
		case encoding.Float32:
			st.Values = b.f32
		case encoding.Float64:
			st.Values = b.f64
		case encoding.Binary:
			st.Values = &b.bin
		}
		if b.hasNull {
			st.Valid = b.valid[:b.n]
		}
		out[id] = st
	}
	return out
}

// Swap hands the buffered streams to the caller and continues into a
// second set of buffers, so that a writer can encode one stripe while it
// shreds the next. The returned streams stay valid until Return, which
// must come before the next Swap; Append and Reset do not touch them.
// The second set starts with the capacity the first one needed, so a
// stripe of the same size does not grow it again. A FlatMap key that
// Append discovers extends the schema, which a caller reading the schema
// while it encodes the lent streams must rule out (write does not swap
// when the schema has a FlatMap).
func (sh *Shredder) Swap() ([]Stream, error) {
	if sh.lent != nil {
		return nil, fmt.Errorf("shred: Swap before the lent streams were returned")
	}
	out := sh.Streams()
	next := sh.spare
	for id := len(next); id < len(sh.bufs); id++ {
		b := sh.bufs[id]
		nb := &sbuf{typ: b.typ, role: b.role, owner: b.owner}
		nb.reserveLike(b)
		next = append(next, nb)
	}
	sh.lent, sh.spare, sh.bufs = sh.bufs, nil, next
	for _, st := range sh.fms {
		st.slots = 0
	}
	return out, nil
}

// Return takes back the streams handed out by Swap, whose buffers become
// the set the next Swap continues into.
func (sh *Shredder) Return() {
	for _, b := range sh.lent {
		b.truncate(0, 0, false)
	}
	sh.spare, sh.lent = sh.lent, nil
}

// reserveLike gives an empty buffer the capacity of o's contents.
func (b *sbuf) reserveLike(o *sbuf) {
	if o.hasNull {
		b.valid = make([]bool, 0, o.n)
	}
	switch b.typ {
	case encoding.Bool:
		b.bools = make([]bool, 0, o.n)
	case encoding.Int8:
		b.i8 = make([]int8, 0, o.n)
	case encoding.Int16:
		b.i16 = make([]int16, 0, o.n)
	case encoding.Int32:
		b.i32 = make([]int32, 0, o.n)
	case encoding.Int64:
		b.i64 = make([]int64, 0, o.n)
	case encoding.Uint8:
		b.u8 = make([]uint8, 0, o.n)
	case encoding.Uint16:
		b.u16 = make([]uint16, 0, o.n)
	case encoding.Uint32:
		b.u32 = make([]uint32, 0, o.n)
	case encoding.Uint64:
		b.u64 = make([]uint64, 0, o.n)
	case encoding.Float32:
		b.f32 = make([]float32, 0, o.n)
	case encoding.Float64:
		b.f64 = make([]float64, 0, o.n)
	case encoding.Binary:
		b.bin.Offsets = append(make([]int32, 0, o.n+1), 0)
		b.bin.Data = make([]byte, 0, len(o.bin.Data))
	}
}

// RawSize returns the bytes buffered: values at their physical width (data
// plus 4-byte offsets for Binary), plus one byte per validity flag.
func (sh *Shredder) RawSize() int {
	total := 0
	for _, b := range sh.bufs {
		total += rawSize(b.typ, b.n, len(b.bin.Data), b.hasNull)
	}
	return total
}

// EachLen calls f with the id, buffered entries, binary data bytes and
// raw size (Stream.RawSize) of every stream, in id order, without
// building Streams: the writer bounds the chunks a stripe will make by
// them after every append.
func (sh *Shredder) EachLen(f func(id, n, data, raw int)) {
	for id, b := range sh.bufs {
		f(id, b.n, len(b.bin.Data), rawSize(b.typ, b.n, len(b.bin.Data), b.hasNull))
	}
}

// RawSize is the stream's share of Shredder.RawSize.
func (s *Stream) RawSize() int {
	data := 0
	if b, ok := s.Values.(*encoding.Bytes); ok {
		data = len(b.Data)
	}
	return rawSize(s.Type, s.Len, data, s.Valid != nil)
}

// rawSize is the raw size of n values of type t: their physical width,
// or for binary values their data bytes and offsets, plus a byte a value
// for validity when the stream has nulls.
func rawSize(t encoding.Type, n, data int, nulls bool) int {
	size := t.Size() * n
	if t == encoding.Binary {
		size = data + 4*n
	}
	if nulls {
		size += n
	}
	return size
}

// Append shreds every row of rec into the streams. The record's columns
// must match the schema's top-level columns by position and name. On error
// the streams are rolled back to their state before the call (FlatMap keys
// discovered by the failed call stay in the schema, with no entries).
func (sh *Shredder) Append(rec arrow.RecordBatch) (err error) {
	cols := sh.s.Root.Children
	if int(rec.NumCols()) != len(cols) {
		return fmt.Errorf("shred: record has %d columns, schema %d", rec.NumCols(), len(cols))
	}
	for i, c := range cols {
		if rec.ColumnName(i) != c.Name {
			return fmt.Errorf("shred: record column %d is %q, schema has %q", i, rec.ColumnName(i), c.Name)
		}
	}
	sh.mark()
	defer func() {
		if err != nil {
			sh.rollback()
		}
	}()
	rows := int(rec.NumRows())
	spans := []span{{0, rows}}
	for i, c := range cols {
		col := rec.Column(i)
		if col.Len() != rows {
			return fmt.Errorf("shred: column %q has %d rows, record %d", c.Name, col.Len(), rows)
		}
		if err := sh.column(c, col, spans, rows); err != nil {
			return fmt.Errorf("shred: column %q: %w", c.Name, err)
		}
	}
	return nil
}

// column shreds one top-level column. Arrow arrays are not checked
// before they are read, and one whose offsets or lengths disagree with its
// buffers (a malformed Arrow IPC batch, a caller's hand-built array) makes
// arrow-go or the shredder index out of range: that is reported as an
// error, and Append rolls the streams back.
func (sh *Shredder) column(c *schema.Node, col arrow.Array, spans []span, rows int) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("malformed Arrow %s array: %v", col.DataType(), r)
		}
	}()
	return sh.node(c, col, spans, rows, nil)
}

func (sh *Shredder) mark() {
	sh.markBufs = len(sh.bufs)
	for _, b := range sh.bufs {
		b.markN, b.markData, b.markNull = b.n, len(b.bin.Data), b.hasNull
	}
	for _, st := range sh.fms {
		st.markSlots = st.slots
	}
}

func (sh *Shredder) rollback() {
	for _, st := range sh.fms {
		st.slots = st.markSlots
	}
	for id, b := range sh.bufs {
		switch {
		case id < sh.markBufs:
			b.truncate(b.markN, b.markData, b.markNull)
		case b.role == schema.RoleInMap:
			// A key created by this call: false for the slots that remain.
			n := 0
			if st := sh.fms[b.owner]; st != nil {
				n = st.slots
			}
			b.truncate(n, 0, false)
		default:
			b.truncate(0, 0, false)
		}
	}
}

// span is a range [lo, hi) of indices of an Arrow array.
type span struct{ lo, hi int }

// addSpan appends [lo, hi) to spans, merging it with the last span when adjacent.
func addSpan(spans []span, lo, hi int) []span {
	if lo == hi {
		return spans
	}
	if k := len(spans) - 1; k >= 0 && spans[k].hi == lo {
		spans[k].hi = hi
		return spans
	}
	return append(spans, span{lo, hi})
}

// presence returns per-slot presence of the concatenated spans of arr
// (mask && valid), or nil when every slot is present.
func presence(arr arrow.Array, spans []span, total int, mask []bool) []bool {
	if arr.NullN() == 0 {
		return mask
	}
	out := make([]bool, total)
	if arr.DataType().ID() == arrow.NULL {
		return out // arrow-go's null arrays have no bitmap and report IsValid
	}
	k := 0
	for _, sp := range spans {
		for i := sp.lo; i < sp.hi; i++ {
			out[k] = arr.IsValid(i) && (mask == nil || mask[k])
			k++
		}
	}
	return out
}

// checkNoNulls fails if arr has a null at a slot the mask marks present.
func checkNoNulls(n *schema.Node, arr arrow.Array, spans []span, mask []bool) error {
	if arr.NullN() == 0 {
		return nil
	}
	k := 0
	for _, sp := range spans {
		for i := sp.lo; i < sp.hi; i++ {
			if arr.IsNull(i) && (mask == nil || mask[k]) {
				return fmt.Errorf("null in non-nullable %s %q", n.Kind, n.Name)
			}
			k++
		}
	}
	return nil
}

func allTrue(bs []bool) bool {
	for _, b := range bs {
		if !b {
			return false
		}
	}
	return true
}

// appendFlags appends a Bool stream entry per slot: pres, or all true when nil.
func (b *sbuf) appendFlags(pres []bool, total int) {
	if pres != nil {
		b.bools = append(b.bools, pres...)
	} else {
		b.bools = appendN(b.bools, true, total)
	}
	b.n += total
}

// appendValid records the validity of the last total entries (already counted in b.n).
func (b *sbuf) appendValid(pres []bool, total int) {
	if pres == nil || allTrue(pres) {
		if b.hasNull {
			b.valid = appendN(b.valid, true, total)
		}
		return
	}
	if !b.hasNull {
		b.hasNull = true
		b.valid = appendN(b.valid[:0], true, b.n-total)
	}
	b.valid = append(b.valid, pres...)
}

func appendN[T any](dst []T, v T, n int) []T {
	dst = growBy(dst, n)
	for i := len(dst) - n; i < len(dst); i++ {
		dst[i] = v
	}
	return dst
}

// Reserve sizes every stream's buffers for want rows, judged from the
// have rows they hold (values, validity flags and binary bytes per row so
// far), so that a stripe whose size the caller knows fills its buffers
// without regrowing them: each regrowth copies a buffer and, in a heap
// that reuses memory, clears the new one, which for a stripe of tens of
// MiB was a tenth of a large write. Buffers already large enough are left
// alone, and any that the estimate falls short of still grow by doubling.
func (sh *Shredder) Reserve(have, want int) {
	if have <= 0 || want <= have {
		return
	}
	scale := func(n int) int { return int((int64(n)*int64(want) + int64(have) - 1) / int64(have)) }
	for _, b := range sh.bufs {
		if b.n == 0 {
			continue
		}
		n := scale(b.n)
		if b.hasNull {
			b.valid = reserve(b.valid, n-len(b.valid))
		}
		switch b.typ {
		case encoding.Bool:
			b.bools = reserve(b.bools, n-len(b.bools))
		case encoding.Int8:
			b.i8 = reserve(b.i8, n-len(b.i8))
		case encoding.Int16:
			b.i16 = reserve(b.i16, n-len(b.i16))
		case encoding.Int32:
			b.i32 = reserve(b.i32, n-len(b.i32))
		case encoding.Int64:
			b.i64 = reserve(b.i64, n-len(b.i64))
		case encoding.Uint8:
			b.u8 = reserve(b.u8, n-len(b.u8))
		case encoding.Uint16:
			b.u16 = reserve(b.u16, n-len(b.u16))
		case encoding.Uint32:
			b.u32 = reserve(b.u32, n-len(b.u32))
		case encoding.Uint64:
			b.u64 = reserve(b.u64, n-len(b.u64))
		case encoding.Float32:
			b.f32 = reserve(b.f32, n-len(b.f32))
		case encoding.Float64:
			b.f64 = reserve(b.f64, n-len(b.f64))
		case encoding.Binary:
			b.bin.Offsets = reserve(b.bin.Offsets, n+1-len(b.bin.Offsets))
			b.bin.Data = reserve(b.bin.Data, scale(len(b.bin.Data))-len(b.bin.Data))
		}
	}
}

// reserve returns dst with room for n more values, doubling its capacity
// when it must grow: a stripe's buffers grow from empty to tens of MiB over
// many batches, and append's growth of a quarter at that size copies and
// clears each buffer several times over.
func reserve[T any](dst []T, n int) []T {
	if cap(dst)-len(dst) >= n {
		return dst
	}
	nd := make([]T, len(dst), max(2*cap(dst), len(dst)+n))
	copy(nd, dst)
	return nd
}

// spanTotal is the number of values the spans cover.
func spanTotal(spans []span) int {
	t := 0
	for _, sp := range spans {
		t += sp.hi - sp.lo
	}
	return t
}

// growBy extends dst by n (uninitialized-as-zero or stale) entries.
func growBy[T any](dst []T, n int) []T {
	if cap(dst)-len(dst) < n {
		nd := make([]T, len(dst), 2*cap(dst)+n)
		copy(nd, dst)
		dst = nd
	}
	return dst[:len(dst)+n]
}

func (sh *Shredder) node(n *schema.Node, arr arrow.Array, spans []span, total int, mask []bool) error {
	if d, ok := arr.(*array.Dictionary); ok && !n.Kind.IsLeaf() {
		return fmt.Errorf("dictionary array %s for %s %q", d.DataType(), n.Kind, n.Name)
	}
	switch n.Kind {
	case schema.Struct:
		return sh.structNode(n, arr, spans, total, mask)
	case schema.List, schema.Map:
		return sh.listNode(n, arr, spans, total, mask)
	case schema.FlatMap:
		return sh.flatMapNode(n, arr, spans, total, mask)
	}
	return sh.leaf(n, arr, spans, total, mask)
}

// ownPresence computes the presence of a nested node's slots and appends
// its nulls stream when nullable.
func (sh *Shredder) ownPresence(n *schema.Node, arr arrow.Array, spans []span, total int, mask []bool) ([]bool, error) {
	if !n.Nullable {
		if err := checkNoNulls(n, arr, spans, mask); err != nil {
			return nil, err
		}
		return mask, nil
	}
	pres := presence(arr, spans, total, mask)
	sh.bufs[n.StreamID(schema.RoleNulls)].appendFlags(pres, total)
	return pres, nil
}

func (sh *Shredder) structNode(n *schema.Node, arr arrow.Array, spans []span, total int, mask []bool) error {
	a, ok := arr.(*array.Struct)
	if !ok || a.NumField() != len(n.Children) {
		return fmt.Errorf("struct %q: arrow array %s does not match %s", n.Name, arr.DataType(), n.TypeString())
	}
	// Fields are matched by position, so their names must agree, as the
	// record's columns' must: a field renamed, or two of one type swapped,
	// would otherwise be stored under the schema's other name.
	st := a.DataType().(*arrow.StructType)
	for k, c := range n.Children {
		if name := st.Field(k).Name; name != c.Name {
			return fmt.Errorf("struct %q: field %d is %q, schema has %q", n.Name, k, name, c.Name)
		}
	}
	pres, err := sh.ownPresence(n, arr, spans, total, mask)
	if err != nil {
		return err
	}
	for k, c := range n.Children {
		if err := sh.node(c, a.Field(k), spans, total, pres); err != nil {
			return fmt.Errorf("%s: %w", c.Name, err)
		}
	}
	return nil
}

func (sh *Shredder) listNode(n *schema.Node, arr arrow.Array, spans []span, total int, mask []bool) error {
	a, ok := arr.(array.ListLike)
	if !ok || (n.Kind == schema.Map) != (arr.DataType().ID() == arrow.MAP) {
		return fmt.Errorf("%s %q: arrow array %s does not match", n.Kind, n.Name, arr.DataType())
	}
	pres, err := sh.ownPresence(n, arr, spans, total, mask)
	if err != nil {
		return err
	}
	lb := sh.bufs[n.StreamID(schema.RoleLengths)]
	lb.u32 = growBy(lb.u32, total)
	lens := lb.u32[lb.n:]
	lb.n += total
	var child []span
	childTotal, k := 0, 0
	for _, sp := range spans {
		for i := sp.lo; i < sp.hi; i++ {
			if pres != nil && !pres[k] {
				lens[k] = 0
				k++
				continue
			}
			lo, hi := a.ValueOffsets(i)
			if hi-lo > math.MaxUint32 || hi < lo {
				return fmt.Errorf("%s %q: entry of %d elements", n.Kind, n.Name, hi-lo)
			}
			lens[k] = uint32(hi - lo)
			child = addSpan(child, int(lo), int(hi))
			childTotal += int(hi - lo)
			k++
		}
	}
	if n.Kind == schema.List {
		return sh.node(n.Children[0], a.ListValues(), child, childTotal, nil)
	}
	entries, ok := a.ListValues().(*array.Struct)
	if !ok || entries.NumField() != 2 {
		return fmt.Errorf("map %q: entries are not a 2-field struct", n.Name)
	}
	if err := sh.node(n.Children[0], entries.Field(0), child, childTotal, nil); err != nil {
		return fmt.Errorf("key: %w", err)
	}
	if err := sh.node(n.Children[1], entries.Field(1), child, childTotal, nil); err != nil {
		return fmt.Errorf("value: %w", err)
	}
	return nil
}

func (sh *Shredder) fmState(n *schema.Node) *fmState {
	st := sh.fms[n]
	if st == nil {
		st = &fmState{str: map[string]int{}, ints: map[int64]int{}, markSlots: 0}
		for i, c := range n.Children {
			sh.indexKey(n, st, c.Name, i)
		}
		sh.fms[n] = st
	}
	return st
}

func (sh *Shredder) indexKey(n *schema.Node, st *fmState, key string, i int) {
	switch {
	case n.KeyKind == schema.String:
		st.str[key] = i
	case n.KeyKind.IsSigned():
		v, _ := strconv.ParseInt(key, 10, 64)
		st.ints[v] = i
	default:
		v, _ := strconv.ParseUint(key, 10, 64)
		st.ints[int64(v)] = i
	}
}

// addKey adds a FlatMap key discovered while appending.
func (sh *Shredder) addKey(n *schema.Node, st *fmState, key string) (int, error) {
	if sh.MaxFlatMapKeys > 0 && len(n.Children) >= sh.MaxFlatMapKeys {
		return 0, encoding.Limitf("flatmap %q: more than %d keys", n.Name, sh.MaxFlatMapKeys)
	}
	c, err := sh.s.AddFlatMapKey(n, key)
	if err != nil {
		return 0, err
	}
	sh.grow()
	// In-map entries for the slots already appended in this stripe.
	ib := sh.bufs[c.StreamID(schema.RoleInMap)]
	ib.bools = appendN(ib.bools[:0], false, st.slots)
	ib.n = st.slots
	i := len(n.Children) - 1
	sh.indexKey(n, st, key, i)
	return i, nil
}

func (sh *Shredder) flatMapNode(n *schema.Node, arr arrow.Array, spans []span, total int, mask []bool) error {
	a, ok := arr.(*array.Map)
	if !ok {
		return fmt.Errorf("flatmap %q: arrow array %s is not a map", n.Name, arr.DataType())
	}
	entries, ok := a.ListValues().(*array.Struct)
	if !ok || entries.NumField() != 2 {
		return fmt.Errorf("flatmap %q: entries are not a 2-field struct", n.Name)
	}
	keys, items := entries.Field(0), entries.Field(1)
	keyOf, err := keyReader(n, keys)
	if err != nil {
		return err
	}
	pres, err := sh.ownPresence(n, arr, spans, total, mask)
	if err != nil {
		return err
	}
	st := sh.fmState(n)
	for k := range st.entries {
		st.entries[k] = st.entries[k][:0]
		st.hits[k] = st.hits[k][:0]
	}
	for k := range st.stamp {
		st.stamp[k] = -1
	}
	slot := 0
	for _, sp := range spans {
		for i := sp.lo; i < sp.hi; i++ {
			if pres != nil && !pres[slot] {
				slot++
				continue
			}
			lo, hi := a.ValueOffsets(i)
			for j := int(lo); j < int(hi); j++ {
				if keys.IsNull(j) {
					return fmt.Errorf("flatmap %q: null key", n.Name)
				}
				k, err := keyOf(sh, st, j)
				if err != nil {
					return err
				}
				for len(st.stamp) <= k {
					st.stamp = append(st.stamp, -1)
					st.entries = append(st.entries, nil)
					st.hits = append(st.hits, nil)
				}
				if st.stamp[k] == slot {
					return fmt.Errorf("flatmap %q: key %q twice in one map", n.Name, n.Children[k].Name)
				}
				st.stamp[k] = slot
				st.entries[k] = append(st.entries[k], int32(j))
				st.hits[k] = append(st.hits[k], int32(slot))
			}
			slot++
		}
	}
	st.slots += total
	for k, c := range n.Children {
		ib := sh.bufs[c.StreamID(schema.RoleInMap)]
		ib.bools = appendN(ib.bools, false, total)
		base := ib.n
		ib.n += total
		if k >= len(st.entries) || len(st.entries[k]) == 0 {
			continue
		}
		for _, h := range st.hits[k] {
			ib.bools[base+int(h)] = true
		}
		var vs []span
		for _, e := range st.entries[k] {
			vs = addSpan(vs, int(e), int(e)+1)
		}
		if err := sh.node(c, items, vs, len(st.entries[k]), nil); err != nil {
			return fmt.Errorf("key %q: %w", c.Name, err)
		}
	}
	return nil
}

// keyReader returns a function mapping entry j of a FlatMap's keys array to
// the key's child index, adding new keys to the schema.
func keyReader(n *schema.Node, keys arrow.Array) (func(sh *Shredder, st *fmState, j int) (int, error), error) {
	if n.KeyKind == schema.String {
		get, err := bytesGetter(keys)
		if err != nil {
			return nil, fmt.Errorf("flatmap %q: %w", n.Name, err)
		}
		return func(sh *Shredder, st *fmState, j int) (int, error) {
			b := get(j)
			if k, ok := st.str[string(b)]; ok {
				return k, nil
			}
			return sh.addKey(n, st, string(b))
		}, nil
	}
	var get func(j int) int64
	switch a := keys.(type) {
	case *array.Int8:
		get = func(j int) int64 { return int64(a.Value(j)) }
	case *array.Int16:
		get = func(j int) int64 { return int64(a.Value(j)) }
	case *array.Int32:
		get = func(j int) int64 { return int64(a.Value(j)) }
	case *array.Int64:
		get = func(j int) int64 { return a.Value(j) }
	case *array.Uint8:
		get = func(j int) int64 { return int64(a.Value(j)) }
	case *array.Uint16:
		get = func(j int) int64 { return int64(a.Value(j)) }
	case *array.Uint32:
		get = func(j int) int64 { return int64(a.Value(j)) }
	case *array.Uint64:
		get = func(j int) int64 { return int64(a.Value(j)) }
	}
	if get == nil || leafKinds[keys.DataType().ID()] != n.KeyKind {
		return nil, fmt.Errorf("flatmap %q: key array %s, want %s", n.Name, keys.DataType(), n.KeyKind)
	}
	signed := n.KeyKind.IsSigned()
	return func(sh *Shredder, st *fmState, j int) (int, error) {
		v := get(j)
		if k, ok := st.ints[v]; ok {
			return k, nil
		}
		key := strconv.FormatUint(uint64(v), 10)
		if signed {
			key = strconv.FormatInt(v, 10)
		}
		return sh.addKey(n, st, key)
	}, nil
}

// bytesGetter returns value j of a string-like or binary-like array.
func bytesGetter(arr arrow.Array) (func(j int) []byte, error) {
	switch a := arr.(type) {
	case *array.String, *array.Binary:
		offs, data := rawOffsets[int32](arr)
		return func(j int) []byte { return data[offs[j]:offs[j+1]] }, nil
	case *array.LargeString, *array.LargeBinary:
		offs, data := rawOffsets[int64](arr)
		return func(j int) []byte { return data[offs[j]:offs[j+1]] }, nil
	case *array.StringView:
		return func(j int) []byte { return unsafe.Slice(unsafe.StringData(a.Value(j)), len(a.Value(j))) }, nil
	case *array.BinaryView:
		return func(j int) []byte { return a.Value(j) }, nil
	case *array.Dictionary:
		get, err := bytesGetter(a.Dictionary())
		if err != nil {
			return nil, err
		}
		return func(j int) []byte { return get(a.GetValueIndex(j)) }, nil
	}
	return nil, fmt.Errorf("arrow array %s is not string or binary", arr.DataType())
}

// rawOffsets returns the offsets (len+1 entries, absolute into data) and the
// data buffer of a string or binary array.
func rawOffsets[O int32 | int64](arr arrow.Array) ([]O, []byte) {
	d := arr.Data()
	bufs := d.Buffers()
	var data []byte
	if len(bufs) > 2 && bufs[2] != nil {
		data = bufs[2].Bytes()
	}
	if d.Len() == 0 || len(bufs) < 2 || bufs[1] == nil {
		return make([]O, d.Len()+1), data
	}
	return rawFixedAt[O](bufs[1].Bytes(), d.Offset(), d.Len()+1), data
}

// rawFixedAt views buffer b as []T and returns entries [off, off+n).
func rawFixedAt[T any](b []byte, off, n int) []T {
	var z T
	size := int(unsafe.Sizeof(z))
	if n == 0 || len(b) < (off+n)*size {
		return make([]T, n) // malformed or empty: never read out of bounds
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/size)[off : off+n]
}

// rawFixed returns the values of a fixed-width array as []T.
func rawFixed[T any](arr arrow.Array) []T {
	d := arr.Data()
	bufs := d.Buffers()
	if len(bufs) < 2 || bufs[1] == nil {
		return make([]T, d.Len())
	}
	return rawFixedAt[T](bufs[1].Bytes(), d.Offset(), d.Len())
}
