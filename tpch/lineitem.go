// Package tpch generates the TPC-H lineitem table as a deterministic stream
// of Arrow record batches, and writes it as Parquet or CSV.
//
// The generator follows the column definitions and distributions of the
// TPC-H specification (clause 4.2.3) but is not the official dbgen: values
// differ from dbgen's while their distributions agree. Output is a pure
// function of (scale factor, seed): every order draws from its own random
// stream, so the rows do not depend on the batch size, and memory use is one
// batch whatever the scale factor.
package tpch

import (
	"fmt"
	"io"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// DefaultBatchRows is the batch size used when NewLineitem gets batchRows <= 0.
const DefaultBatchRows = 64 << 10

// MaxScaleFactor is the largest scale factor whose order keys fit the int32
// l_orderkey column (the sparse keys reach 4 × 1,500,000 × SF).
const MaxScaleFactor = 300

// Dates as days since 1970-01-01 (Arrow date32).
const (
	startDate   = 8035  // 1992-01-01
	currentDate = 9298  // 1995-06-17
	endDate     = 10591 // 1998-12-31
	// Orders are dated uniformly in [startDate, endDate-151] so that every
	// line's dates stay before endDate.
	lastOrderDate = endDate - 151
)

var (
	shipInstructs = [...]string{"DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"}
	shipModes     = [...]string{"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"}
)

// Column indexes in Schema order.
const (
	colOrderKey = iota
	colPartKey
	colSuppKey
	colLineNumber
	colQuantity
	colExtendedPrice
	colDiscount
	colTax
	colReturnFlag
	colLineStatus
	colShipDate
	colCommitDate
	colReceiptDate
	colShipInstruct
	colShipMode
	colComment
	numCols
)

var schema = arrow.NewSchema([]arrow.Field{
	{Name: "l_orderkey", Type: arrow.PrimitiveTypes.Int32},
	{Name: "l_partkey", Type: arrow.PrimitiveTypes.Int32},
	{Name: "l_suppkey", Type: arrow.PrimitiveTypes.Int32},
	{Name: "l_linenumber", Type: arrow.PrimitiveTypes.Int32},
	{Name: "l_quantity", Type: arrow.PrimitiveTypes.Int64},
	{Name: "l_extendedprice", Type: arrow.PrimitiveTypes.Int64},
	{Name: "l_discount", Type: arrow.PrimitiveTypes.Int64},
	{Name: "l_tax", Type: arrow.PrimitiveTypes.Int64},
	{Name: "l_returnflag", Type: arrow.BinaryTypes.String},
	{Name: "l_linestatus", Type: arrow.BinaryTypes.String},
	{Name: "l_shipdate", Type: arrow.FixedWidthTypes.Date32},
	{Name: "l_commitdate", Type: arrow.FixedWidthTypes.Date32},
	{Name: "l_receiptdate", Type: arrow.FixedWidthTypes.Date32},
	{Name: "l_shipinstruct", Type: arrow.BinaryTypes.String},
	{Name: "l_shipmode", Type: arrow.BinaryTypes.String},
	{Name: "l_comment", Type: arrow.BinaryTypes.String},
}, nil)

// Schema returns the lineitem schema: keys and l_linenumber int32; the
// decimal columns l_quantity, l_extendedprice, l_discount and l_tax int64 in
// cents (0.01 units, so quantity 17 is 1700); dates date32; text utf8. All
// columns are non-nullable. The schema is shared; do not modify it.
func Schema() *arrow.Schema { return schema }

// Generator streams lineitem rows in (l_orderkey, l_linenumber) order as
// Arrow record batches. It is not safe for concurrent use.
type Generator struct {
	seed      uint64
	batchRows int
	orders    int64 // number of orders, SF × 1,500,000
	parts     int64 // number of parts, SF × 200,000
	supps     int64 // number of suppliers, SF × 10,000
	err       error

	// Cursor: the next row is line `line` (1-based) of order `order`
	// (1-based), which has `lines` lines; r and text continue that order's
	// random stream.
	order     int64
	line      int
	lines     int
	orderDate int32
	r         rng
	text      textStream
	done      bool
}

// NewLineitem returns a generator for scale factor sf (0 < sf <=
// MaxScaleFactor; fractional values such as 0.01 are fine) with the given
// seed, producing batches of batchRows rows (DefaultBatchRows if <= 0). An
// invalid sf is reported by the first call to Next.
func NewLineitem(sf float64, seed uint64, batchRows int) *Generator {
	if batchRows <= 0 {
		batchRows = DefaultBatchRows
	}
	g := &Generator{seed: seed, batchRows: batchRows}
	if math.IsNaN(sf) || sf <= 0 || sf > MaxScaleFactor {
		g.err = fmt.Errorf("tpch: scale factor %v out of range (0, %d]", sf, MaxScaleFactor)
		return g
	}
	// Round, not truncate: 0.3 × 1,500,000 must give 450,000 whatever the
	// binary representation of 0.3.
	g.orders = max(1, int64(math.Round(sf*1_500_000)))
	g.parts = max(1, int64(math.Round(sf*200_000)))
	g.supps = max(1, int64(math.Round(sf*10_000)))
	g.startOrder(1)
	return g
}

// Rows returns the expected number of rows: 4 lines per order on average
// (1..7 uniform). The actual count differs by well under 1% for SF >= 0.01.
func (g *Generator) Rows() int64 { return g.orders * 4 }

// Schema returns the schema of the batches, the same as the package-level
// Schema.
func (g *Generator) Schema() *arrow.Schema { return schema }

// Orders returns the number of orders, SF × 1,500,000.
func (g *Generator) Orders() int64 { return g.orders }

// orderKey maps order index i (1-based) to its sparse key: only the first 8
// of every 32 keys are used, i.e. the low 3 bits of i are kept and the rest
// is shifted up by 2 bits.
func orderKey(i int64) int32 {
	return int32(i>>3<<5 | i&7)
}

// retailPrice is P_RETAILPRICE of part key pk in cents.
func retailPrice(pk int64) int64 {
	return 90000 + (pk/10)%20001 + 100*(pk%1000)
}

// suppKey is the i-th (0..3) supplier of part pk among s suppliers.
func suppKey(pk, i, s int64) int64 {
	return (pk+i*(s/4+(pk-1)/s))%s + 1
}

// startOrder positions the cursor at the first line of order i and draws the
// order-level values from the order's own stream.
func (g *Generator) startOrder(i int64) {
	g.order = i
	g.line = 1
	if i > g.orders {
		g.done = true
		return
	}
	g.r = orderRNG(g.seed, i)
	g.lines = int(g.r.between(1, 7))
	g.orderDate = int32(g.r.between(startDate, lastOrderDate))
	g.text.reset()
}

// batch holds the column buffers of one record batch; they are handed to
// Arrow without copying.
type batch struct {
	orderKey, partKey, suppKey, lineNumber []int32
	quantity, extPrice, discount, tax      []int64
	ship, commit, receipt                  []int32 // date32 days
	flag, status                           []byte  // one byte per row
	instruct, mode                         strCol
	comment                                strCol
}

type strCol struct {
	offsets []int32
	data    []byte
}

func newStrCol(n, avg int) strCol {
	c := strCol{offsets: make([]int32, 1, n+1), data: make([]byte, 0, n*avg)}
	return c
}

func (c *strCol) add(s []byte) {
	c.data = append(c.data, s...)
	c.offsets = append(c.offsets, int32(len(c.data)))
}

func (c *strCol) addString(s string) {
	c.data = append(c.data, s...)
	c.offsets = append(c.offsets, int32(len(c.data)))
}

// Next returns the next batch of at most batchRows rows, or io.EOF after the
// last one. The caller owns the batch (Release is optional: the buffers are
// Go memory).
func (g *Generator) Next() (arrow.RecordBatch, error) {
	if g.err != nil {
		return nil, g.err
	}
	if g.done {
		return nil, io.EOF
	}
	n := g.batchRows
	if rest := g.Rows()*2 + 8; int64(n) > rest {
		n = int(rest) // never allocate far more than the table can hold
	}
	b := batch{
		orderKey:   make([]int32, n),
		partKey:    make([]int32, n),
		suppKey:    make([]int32, n),
		lineNumber: make([]int32, n),
		quantity:   make([]int64, n),
		extPrice:   make([]int64, n),
		discount:   make([]int64, n),
		tax:        make([]int64, n),
		ship:       make([]int32, n),
		commit:     make([]int32, n),
		receipt:    make([]int32, n),
		flag:       make([]byte, n),
		status:     make([]byte, n),
		instruct:   newStrCol(n, 12),
		mode:       newStrCol(n, 5),
		comment:    newStrCol(n, (commentMin+commentMax+1)/2+1),
	}
	rows := g.fill(&b, n)
	return b.record(rows), nil
}

// fill generates up to n rows into b and returns how many it produced.
func (g *Generator) fill(b *batch, n int) int {
	parts, supps := g.parts, g.supps
	k := 0
	for ; k < n && !g.done; k++ {
		r := &g.r
		pk := r.between(1, parts)
		sk := suppKey(pk, r.between(0, 3), supps)
		qty := r.between(1, 50)
		disc := r.between(0, 10)
		tax := r.between(0, 8)
		ship := g.orderDate + int32(r.between(1, 121))
		commit := g.orderDate + int32(r.between(30, 90))
		receipt := ship + int32(r.between(1, 30))
		flag := byte('N')
		if receipt <= currentDate {
			flag = "RA"[r.intn(2)]
		}
		status := byte('F')
		if ship > currentDate {
			status = 'O'
		}
		b.orderKey[k] = orderKey(g.order)
		b.partKey[k] = int32(pk)
		b.suppKey[k] = int32(sk)
		b.lineNumber[k] = int32(g.line)
		b.quantity[k] = qty * 100
		b.extPrice[k] = qty * retailPrice(pk)
		b.discount[k] = disc
		b.tax[k] = tax
		b.flag[k] = flag
		b.status[k] = status
		b.ship[k] = ship
		b.commit[k] = commit
		b.receipt[k] = receipt
		b.instruct.addString(shipInstructs[r.intn(uint64(len(shipInstructs)))])
		b.mode.addString(shipModes[r.intn(uint64(len(shipModes)))])
		gap := commentGap
		if g.line == 1 {
			gap = firstGap
		}
		skip := int(r.intn(uint64(gap)))
		length := int(r.between(commentMin, commentMax))
		b.comment.add(g.text.comment(r, skip, length))

		if g.line++; g.line > g.lines {
			g.startOrder(g.order + 1)
		}
	}
	return k
}

func int32Array(dt arrow.DataType, v []int32, n int) arrow.Array {
	buf := memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(v[:n]))
	return array.MakeFromData(array.NewData(dt, n, []*memory.Buffer{nil, buf}, nil, 0, 0))
}

func int64Array(v []int64, n int) arrow.Array {
	buf := memory.NewBufferBytes(arrow.Int64Traits.CastToBytes(v[:n]))
	return array.MakeFromData(array.NewData(arrow.PrimitiveTypes.Int64, n, []*memory.Buffer{nil, buf}, nil, 0, 0))
}

func stringArray(offsets []int32, data []byte, n int) arrow.Array {
	bufs := []*memory.Buffer{nil,
		memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(offsets[:n+1])),
		memory.NewBufferBytes(data),
	}
	return array.MakeFromData(array.NewData(arrow.BinaryTypes.String, n, bufs, nil, 0, 0))
}

// charArray builds a utf8 array whose values are the single bytes of v.
func charArray(v []byte, n int) arrow.Array {
	offsets := make([]int32, n+1)
	for i := range offsets {
		offsets[i] = int32(i)
	}
	return stringArray(offsets, v[:n], n)
}

func (b *batch) record(n int) arrow.RecordBatch {
	cols := make([]arrow.Array, numCols)
	cols[colOrderKey] = int32Array(arrow.PrimitiveTypes.Int32, b.orderKey, n)
	cols[colPartKey] = int32Array(arrow.PrimitiveTypes.Int32, b.partKey, n)
	cols[colSuppKey] = int32Array(arrow.PrimitiveTypes.Int32, b.suppKey, n)
	cols[colLineNumber] = int32Array(arrow.PrimitiveTypes.Int32, b.lineNumber, n)
	cols[colQuantity] = int64Array(b.quantity, n)
	cols[colExtendedPrice] = int64Array(b.extPrice, n)
	cols[colDiscount] = int64Array(b.discount, n)
	cols[colTax] = int64Array(b.tax, n)
	cols[colReturnFlag] = charArray(b.flag, n)
	cols[colLineStatus] = charArray(b.status, n)
	cols[colShipDate] = int32Array(arrow.FixedWidthTypes.Date32, b.ship, n)
	cols[colCommitDate] = int32Array(arrow.FixedWidthTypes.Date32, b.commit, n)
	cols[colReceiptDate] = int32Array(arrow.FixedWidthTypes.Date32, b.receipt, n)
	cols[colShipInstruct] = stringArray(b.instruct.offsets, b.instruct.data, n)
	cols[colShipMode] = stringArray(b.mode.offsets, b.mode.data, n)
	cols[colComment] = stringArray(b.comment.offsets, b.comment.data, n)
	rec := array.NewRecordBatch(schema, cols, int64(n))
	for _, c := range cols {
		c.Release() // the record holds its own reference
	}
	return rec
}
