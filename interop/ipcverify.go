package interop

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Arrow IPC metadata is FlatBuffers, which arrow-go reads without checking
// it: it sizes slices by the vector lengths it finds (custom metadata,
// fields, children, variadic buffer counts) and buffers by the length a
// compressed body buffer declares, and it follows child fields without a
// bound on their depth. A few flipped bytes can so make it allocate tens
// of gigabytes, which ends the process (running out of memory is not a
// panic that a recover catches), or recurse until the stack overflows.
// The checks below walk what arrow-go will read, before it reads it:
// every offset and vector lies inside the metadata, nesting is bounded,
// body buffers lie inside the body, and what decompression would allocate
// is bounded.

// errIPCMeta marks malformed Arrow IPC metadata.
var errIPCMeta = errors.New("malformed Arrow IPC metadata")

// errNeedBody is what a check returns that needs a message's body before
// it has been read (verifyIPCMessage with no body reader).
var errNeedBody = errors.New("the check needs the message body")

const (
	// ipcMaxDepth bounds the nesting of fields (Strata's schemas nest far
	// less deeply; arrow-go recurses once a level).
	ipcMaxDepth = 64
	// ipcMaxBatchBytes bounds what the compressed buffers of one record
	// batch may declare they inflate to, all together.
	ipcMaxBatchBytes = 1 << 30
	// ipcMaxRatio bounds how far one compressed buffer may inflate (zstd's
	// bound; LZ4's is lower).
	ipcMaxRatio = 1 << 15
)

// Arrow's MessageHeader union and the Type union members that hold more
// than scalars.
const (
	ipcHeaderSchema          = 1
	ipcHeaderDictionaryBatch = 2
	ipcHeaderRecordBatch     = 3
	ipcTypeTimestamp         = 10
	ipcTypeUnion             = 14
)

// fbTable is a FlatBuffers table inside b whose vtable has been checked.
type fbTable struct {
	b      []byte
	pos    int // the table's start
	vt     int // its vtable's start
	vtLen  int
	tblLen int
}

func fbErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errIPCMeta, fmt.Sprintf(format, args...))
}

func fbU32(b []byte, pos int) (uint32, error) {
	if pos < 0 || pos > len(b)-4 {
		return 0, fbErr("read of 4 bytes at %d past the end (%d bytes)", pos, len(b))
	}
	return binary.LittleEndian.Uint32(b[pos:]), nil
}

// fbTableAt checks the table at pos and its vtable.
func fbTableAt(b []byte, pos int) (fbTable, error) {
	so, err := fbU32(b, pos)
	if err != nil {
		return fbTable{}, err
	}
	vt := pos - int(int32(so))
	if vt < 0 || vt > len(b)-4 {
		return fbTable{}, fbErr("vtable of the table at %d out of range", pos)
	}
	vtLen := int(binary.LittleEndian.Uint16(b[vt:]))
	tblLen := int(binary.LittleEndian.Uint16(b[vt+2:]))
	if vtLen < 4 || vtLen%2 != 0 || vt+vtLen > len(b) || tblLen < 4 || pos+tblLen > len(b) {
		return fbTable{}, fbErr("vtable of the table at %d malformed", pos)
	}
	return fbTable{b: b, pos: pos, vt: vt, vtLen: vtLen, tblLen: tblLen}, nil
}

// fbRoot returns the root table of b.
func fbRoot(b []byte) (fbTable, error) {
	off, err := fbU32(b, 0)
	if err != nil {
		return fbTable{}, err
	}
	return fbTableAt(b, int(off))
}

// field returns the position of field i's value holding size bytes, or
// false when the field is absent.
func (t fbTable) field(i, size int) (int, bool, error) {
	o := 4 + 2*i
	if o+2 > t.vtLen {
		return 0, false, nil
	}
	off := int(binary.LittleEndian.Uint16(t.b[t.vt+o:]))
	if off == 0 {
		return 0, false, nil
	}
	if off+size > t.tblLen {
		return 0, false, fbErr("field %d of the table at %d out of the table", i, t.pos)
	}
	return t.pos + off, true, nil
}

// ref follows the offset field i holds.
func (t fbTable) ref(i int) (int, bool, error) {
	p, ok, err := t.field(i, 4)
	if !ok || err != nil {
		return 0, ok, err
	}
	return fbFollow(t.b, p)
}

// fbFollow follows the offset stored at p.
func fbFollow(b []byte, p int) (int, bool, error) {
	off, err := fbU32(b, p)
	if err != nil {
		return 0, false, err
	}
	to := uint64(p) + uint64(off)
	if to >= uint64(len(b)) {
		return 0, false, fbErr("offset at %d points past the end", p)
	}
	return int(to), true, nil
}

// table returns the table field i points to.
func (t fbTable) table(i int) (fbTable, bool, error) {
	p, ok, err := t.ref(i)
	if !ok || err != nil {
		return fbTable{}, ok, err
	}
	s, err := fbTableAt(t.b, p)
	return s, err == nil, err
}

// vector returns where the elements of the vector field i points to start
// and how many there are, each elem bytes long, checked to lie inside b.
func (t fbTable) vector(i, elem int) (start, n int, err error) {
	p, ok, err := t.ref(i)
	if !ok || err != nil {
		return 0, 0, err
	}
	u, err := fbU32(t.b, p)
	if err != nil {
		return 0, 0, err
	}
	start = p + 4
	if uint64(u)*uint64(elem) > uint64(len(t.b)-start) {
		return 0, 0, fbErr("vector of %d elements at %d runs past the end (%d bytes)", u, p, len(t.b))
	}
	return start, int(u), nil
}

// tables calls f on each table of the vector of tables field i holds.
func (t fbTable) tables(i int, f func(fbTable) error) error {
	start, n, err := t.vector(i, 4)
	if err != nil {
		return err
	}
	for j := range n {
		p, _, err := fbFollow(t.b, start+4*j)
		if err != nil {
			return err
		}
		s, err := fbTableAt(t.b, p)
		if err != nil {
			return err
		}
		if err := f(s); err != nil {
			return err
		}
	}
	return nil
}

func (t fbTable) int64(i int) (int64, error) {
	p, ok, err := t.field(i, 8)
	if !ok || err != nil {
		return 0, err
	}
	return int64(binary.LittleEndian.Uint64(t.b[p:])), nil
}

func (t fbTable) uint8(i int) (uint8, error) {
	p, ok, err := t.field(i, 1)
	if !ok || err != nil {
		return 0, err
	}
	return t.b[p], nil
}

// ipcCheck walks one metadata buffer, counting the fields it visits so
// that offsets shared or looping back cannot make the walk (or arrow-go's)
// unbounded.
type ipcCheck struct {
	fields, maxFields int
}

func newIPCCheck(b []byte) *ipcCheck {
	// a field table takes at least 12 bytes; shared ones may be counted
	// again, which a legitimate writer does not do
	return &ipcCheck{maxFields: len(b)/4 + 16}
}

// keyValues checks the custom metadata field i holds.
func (c *ipcCheck) keyValues(t fbTable, i int) error {
	return t.tables(i, func(kv fbTable) error {
		if _, _, err := kv.vector(0, 1); err != nil {
			return err
		}
		_, _, err := kv.vector(1, 1)
		return err
	})
}

// schema checks a Schema table: its fields, custom metadata and features.
func (c *ipcCheck) schema(t fbTable) error {
	if err := t.tables(1, func(f fbTable) error { return c.field(f, 1) }); err != nil {
		return err
	}
	if err := c.keyValues(t, 2); err != nil {
		return err
	}
	_, _, err := t.vector(3, 8)
	return err
}

// field checks a Field table and its children, depth levels deep.
func (c *ipcCheck) field(t fbTable, depth int) error {
	c.fields++
	if c.fields > c.maxFields {
		return fbErr("more fields than the metadata can hold (offsets loop back)")
	}
	if depth > ipcMaxDepth {
		return fbErr("fields nested more than %d deep", ipcMaxDepth)
	}
	if _, _, err := t.vector(0, 1); err != nil { // name
		return err
	}
	kind, err := t.uint8(2)
	if err != nil {
		return err
	}
	typ, ok, err := t.table(3)
	if err != nil {
		return err
	}
	if ok {
		switch kind {
		case ipcTypeTimestamp:
			_, _, err = typ.vector(1, 1) // time zone
		case ipcTypeUnion:
			_, _, err = typ.vector(1, 4) // type ids
		}
		if err != nil {
			return err
		}
	}
	dict, ok, err := t.table(4)
	if err != nil {
		return err
	}
	if ok {
		if _, _, err := dict.table(1); err != nil { // index type
			return err
		}
	}
	if err := t.tables(5, func(ch fbTable) error { return c.field(ch, depth+1) }); err != nil {
		return err
	}
	return c.keyValues(t, 6)
}

// bodyReader reads n bytes of a message body at off.
type bodyReader func(off, n int64) ([]byte, error)

// recordBatch checks a RecordBatch table whose body is bodyLen bytes:
// counts, buffers inside the body, variadic counts within the buffers,
// and what compressed buffers declare they inflate to (read through
// body).
func (c *ipcCheck) recordBatch(t fbTable, bodyLen int64, body bodyReader) error {
	rows, err := t.int64(0)
	if err != nil {
		return err
	}
	if rows < 0 {
		return fbErr("record batch of %d rows", rows)
	}
	start, n, err := t.vector(1, 16) // field nodes
	if err != nil {
		return err
	}
	for j := range n {
		p := start + 16*j
		length := int64(binary.LittleEndian.Uint64(t.b[p:]))
		nulls := int64(binary.LittleEndian.Uint64(t.b[p+8:]))
		if length < 0 || nulls < 0 || nulls > length {
			return fbErr("field node %d: %d rows, %d nulls", j, length, nulls)
		}
	}
	bstart, nbuf, err := t.vector(2, 16)
	if err != nil {
		return err
	}
	comp, compressed, err := t.table(3)
	if err != nil {
		return err
	}
	if compressed {
		if _, err := comp.uint8(0); err != nil {
			return err
		}
	}
	vstart, nvar, err := t.vector(4, 8)
	if err != nil {
		return err
	}
	for j := range nvar {
		if v := int64(binary.LittleEndian.Uint64(t.b[vstart+8*j:])); v < 0 || v > int64(nbuf) {
			return fbErr("variadic buffer count %d of %d buffers", v, nbuf)
		}
	}
	var inflated int64
	for j := range nbuf {
		p := bstart + 16*j
		off := int64(binary.LittleEndian.Uint64(t.b[p:]))
		length := int64(binary.LittleEndian.Uint64(t.b[p+8:]))
		if off < 0 || length < 0 || off > bodyLen || length > bodyLen-off {
			return fbErr("buffer %d at %d of %d bytes outside a body of %d bytes", j, off, length, bodyLen)
		}
		if !compressed || length == 0 {
			continue
		}
		if length < 8 {
			return fbErr("compressed buffer %d of %d bytes has no length", j, length)
		}
		if body == nil {
			return errNeedBody
		}
		h, err := body(off, 8)
		if err != nil {
			return err
		}
		raw := int64(binary.LittleEndian.Uint64(h))
		if raw == -1 { // stored uncompressed
			continue
		}
		if raw < 0 || raw > (length-8)*ipcMaxRatio+64 {
			return fbErr("compressed buffer %d of %d bytes declares %d bytes", j, length, raw)
		}
		if inflated += raw; inflated > ipcMaxBatchBytes {
			return fbErr("compressed buffers of one batch declare over %d bytes", int64(ipcMaxBatchBytes))
		}
	}
	return nil
}

// verifyIPCMessage checks the metadata of one IPC message (the Message
// flatbuffer, without its length prefix) whose body of bodyLen bytes body
// reads (bodyLen < 0: the message's own declared length is checked
// against -bodyLen-1, the most the file holds after the metadata).
// It returns the body length the message declares.
func verifyIPCMessage(meta []byte, bodyLen int64, body bodyReader) (int64, error) {
	m, err := fbRoot(meta)
	if err != nil {
		return 0, err
	}
	declared, err := m.int64(3)
	if err != nil {
		return 0, err
	}
	switch {
	case declared < 0:
		return 0, fbErr("message body of %d bytes", declared)
	case bodyLen >= 0 && declared != bodyLen:
		return 0, fbErr("message body of %d bytes where the file's index says %d", declared, bodyLen)
	case bodyLen < 0 && declared > -bodyLen-1:
		return 0, fbErr("message body of %d bytes where %d remain", declared, -bodyLen-1)
	}
	c := newIPCCheck(meta)
	if err := c.keyValues(m, 4); err != nil {
		return 0, err
	}
	kind, err := m.uint8(1)
	if err != nil {
		return 0, err
	}
	h, ok, err := m.table(2)
	if err != nil || !ok {
		return declared, err
	}
	switch kind {
	case ipcHeaderSchema:
		err = c.schema(h)
	case ipcHeaderRecordBatch:
		err = c.recordBatch(h, declared, body)
	case ipcHeaderDictionaryBatch:
		var data fbTable
		if data, ok, err = h.table(1); err == nil && ok {
			err = c.recordBatch(data, declared, body)
		}
	}
	return declared, err
}

// readFullAt fills b from r at off; an io.ReaderAt may report io.EOF
// along with the last bytes of its data.
func readFullAt(r io.ReaderAt, b []byte, off int64) error {
	n, err := r.ReadAt(b, off)
	if n == len(b) {
		return nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return err
}

// ipcBlock is one entry of an IPC file footer's index.
type ipcBlock struct {
	offset int64
	meta   int32
	body   int64
}

// verifyIPCFile checks the footer of the IPC file of size bytes r reads,
// its schema and its dictionary messages, before arrow-go reads any of
// them, and returns the record batch blocks with their places checked
// (their metadata is checked as each is read: ipcBlocks.load). Bytes that
// do not end in the file magic are no IPC file: nil, nil leaves them to
// the stream reader, which checks each message itself (ipcMessages).
func verifyIPCFile(r io.ReaderAt, size int64) ([]ipcBlock, error) {
	const tail = 10 // footer length and "ARROW1"
	if size < tail+8 {
		return nil, nil
	}
	var t [tail]byte
	if err := readFullAt(r, t[:], size-tail); err != nil {
		return nil, fmt.Errorf("reading the footer: %w", err)
	}
	if string(t[4:]) != "ARROW1" {
		return nil, nil
	}
	n := int64(binary.LittleEndian.Uint32(t[:4]))
	if n <= 0 || n > size-tail-8 {
		return nil, fbErr("footer of %d bytes in a file of %d", n, size)
	}
	footer := make([]byte, n)
	if err := readFullAt(r, footer, size-tail-n); err != nil {
		return nil, fmt.Errorf("reading the footer: %w", err)
	}
	f, err := fbRoot(footer)
	if err != nil {
		return nil, fmt.Errorf("footer: %w", err)
	}
	c := newIPCCheck(footer)
	if err := c.keyValues(f, 4); err != nil {
		return nil, fmt.Errorf("footer: %w", err)
	}
	if s, ok, err := f.table(1); err != nil {
		return nil, fmt.Errorf("footer: %w", err)
	} else if ok {
		if err := c.schema(s); err != nil {
			return nil, fmt.Errorf("footer schema: %w", err)
		}
	}
	end := size - tail - n // where the messages end
	blocks := func(field int) ([]ipcBlock, error) {
		start, k, err := f.vector(field, 24)
		if err != nil {
			return nil, fmt.Errorf("footer: %w", err)
		}
		out := make([]ipcBlock, k)
		for j := range out {
			p := start + 24*j
			b := ipcBlock{
				offset: int64(binary.LittleEndian.Uint64(footer[p:])),
				meta:   int32(binary.LittleEndian.Uint32(footer[p+8:])),
				body:   int64(binary.LittleEndian.Uint64(footer[p+16:])),
			}
			if b.offset < 0 || b.meta < 8 || b.body < 0 || b.offset > end || int64(b.meta) > end-b.offset || b.body > end-b.offset-int64(b.meta) {
				return nil, fbErr("message %d at %d (%d + %d bytes) outside the file's %d bytes of messages", j, b.offset, b.meta, b.body, end)
			}
			out[j] = b
		}
		return out, nil
	}
	dicts, err := blocks(2)
	if err != nil {
		return nil, err
	}
	for j, b := range dicts {
		if _, err := verifyIPCBlock(r, b); err != nil {
			return nil, fmt.Errorf("dictionary %d: %w", j, err)
		}
	}
	return blocks(3)
}

// verifyIPCBlock reads and checks the message a footer block indexes,
// returning the bytes it read: the metadata as stored (length prefix
// included), followed by the body when the check had to read it
// (compressed buffers declare their inflated length in their first bytes).
func verifyIPCBlock(r io.ReaderAt, b ipcBlock) ([]byte, error) {
	meta, body, err := readIPCBlock(r, b)
	if body != nil {
		meta = meta[:len(meta)+len(body)] // body follows meta in one buffer
	}
	return meta, err
}

// readIPCBlock is verifyIPCBlock, the body (if read) returned apart; it
// lies in meta's buffer right after meta.
func readIPCBlock(r io.ReaderAt, b ipcBlock) (meta, body []byte, err error) {
	meta = make([]byte, b.meta)
	if err := readFullAt(r, meta, b.offset); err != nil {
		return nil, nil, fmt.Errorf("reading message metadata: %w", err)
	}
	// the metadata is prefixed by its length, after a continuation marker
	// in files since Arrow 0.15
	skip := 4
	if binary.LittleEndian.Uint32(meta) == 0xFFFFFFFF {
		skip = 8
	}
	l, err := fbU32(meta, skip-4)
	if err != nil {
		return nil, nil, err
	}
	if int64(l) > int64(len(meta)-skip) {
		return nil, nil, fbErr("message metadata of %d bytes in a block of %d", l, b.meta)
	}
	_, err = verifyIPCMessage(meta[skip:skip+int(l)], b.body, func(off, n int64) ([]byte, error) {
		if body == nil {
			all := make([]byte, int64(b.meta)+b.body)
			copy(all, meta)
			meta, body = all[:b.meta], all[b.meta:]
			if err := readFullAt(r, body, b.offset+int64(b.meta)); err != nil {
				return nil, fmt.Errorf("reading a message body: %w", err)
			}
		}
		return body[off : off+n], nil
	})
	return meta, body, err
}

// ipcBlocks is what arrow-go's file reader reads through: the file, and
// the message of the record batch about to be read, checked and held so
// that arrow-go's reads of it cost no second request.
type ipcBlocks struct {
	input
	blocks []ipcBlock
	at     int64  // where held starts
	held   []byte // metadata, then the body when the check read it
}

// load checks record batch i's message and holds what the check read.
func (c *ipcBlocks) load(i int) error {
	c.held = nil
	if i >= len(c.blocks) {
		return nil // arrow-go refuses the index itself
	}
	b := c.blocks[i]
	held, err := verifyIPCBlock(c.input, b)
	if err != nil {
		return err
	}
	c.at, c.held = b.offset, held
	return nil
}

// ReadAt serves reads inside the held message from it.
func (c *ipcBlocks) ReadAt(p []byte, off int64) (int, error) {
	if off >= c.at && off-c.at <= int64(len(c.held)) && int64(len(p)) <= int64(len(c.held))-(off-c.at) {
		return copy(p, c.held[off-c.at:]), nil
	}
	return c.input.ReadAt(p, off)
}

// ipcMessages reads the messages of an IPC stream for arrow-go's reader
// (ipc.NewReaderFromMessageReader), checking each one's metadata and body
// length against the bytes the stream still holds before allocating for
// it or letting arrow-go parse it.
type ipcMessages struct {
	r       io.Reader
	left    int64 // bytes of the stream not read yet
	mem     memory.Allocator
	refs    atomic.Int64
	msg     *ipc.Message
	scratch [4]byte
}

func newIPCMessages(r io.Reader, size int64, mem memory.Allocator) *ipcMessages {
	m := &ipcMessages{r: r, left: size, mem: mem}
	m.refs.Add(1)
	return m
}

func (m *ipcMessages) read(b []byte) error {
	if int64(len(b)) > m.left {
		return fbErr("message runs past the end of the stream")
	}
	if _, err := io.ReadFull(m.r, b); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return err
	}
	m.left -= int64(len(b))
	return nil
}

// Message returns the next message, or io.EOF at the end of the stream
// (its end-of-stream marker, or no more bytes).
func (m *ipcMessages) Message() (*ipc.Message, error) {
	if m.left == 0 {
		return nil, io.EOF
	}
	if err := m.read(m.scratch[:]); err != nil {
		return nil, err
	}
	n := binary.LittleEndian.Uint32(m.scratch[:])
	if n == 0xFFFFFFFF { // continuation marker, then the length
		if err := m.read(m.scratch[:]); err != nil {
			return nil, err
		}
		n = binary.LittleEndian.Uint32(m.scratch[:])
	}
	if n == 0 {
		return nil, io.EOF
	}
	if int64(n) > m.left {
		return nil, fbErr("message metadata of %d bytes where %d remain", n, m.left)
	}
	meta := make([]byte, n)
	if err := m.read(meta); err != nil {
		return nil, err
	}
	bodyLen, err := verifyIPCMessage(meta, -m.left-1, nil)
	if errors.Is(err, errNeedBody) {
		err = nil // the body is checked once read, below
	}
	if err != nil {
		return nil, err
	}
	body := memory.NewResizableBuffer(m.mem)
	defer body.Release()
	body.Resize(int(bodyLen))
	if err := m.read(body.Bytes()); err != nil {
		return nil, err
	}
	bb := body.Bytes()
	if _, err := verifyIPCMessage(meta, bodyLen, func(off, n int64) ([]byte, error) { return bb[off : off+n], nil }); err != nil {
		return nil, err
	}
	if m.msg != nil {
		m.msg.Release()
	}
	m.msg = ipc.NewMessage(memory.NewBufferBytes(meta), body)
	return m.msg, nil
}

func (m *ipcMessages) Retain() { m.refs.Add(1) }

func (m *ipcMessages) Release() {
	if m.refs.Add(-1) == 0 && m.msg != nil {
		m.msg.Release()
		m.msg = nil
	}
}
