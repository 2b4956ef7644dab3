package fsst

import (
	"encoding/binary"
	"fmt"
	"math"

	"strata/encoding"
	"strata/encoding/internal/cascade"
)

// SharedFSST (kind 21) stores one FSST symbol table per stripe and stream
// instead of one per chunk. A node of this kind takes one of two forms:
//
//	definition: form=0:u8 | counts: 8 × u8 | symbols                     node rows = 0
//	reference:  form=1:u8 | chunk:uvarint | rawLen:uvarint |
//	            code lengths node (uint32, rows rows) | codes
//
// The counts and symbols are an FSST table (kind 12), and everything after
// the chunk number is an FSST body after its table. A definition is the
// payload of a chunk of 0 rows, written as the stream's first chunk in the
// stripe; a reference decodes its codes with the table defined by chunk
// `chunk` of the same stream and stripe, and sits where the stream's own
// values would (a chunk's root).
//
// Why: a chunk of FSST text of the default 64 KiB target carries a table
// of about 1.2 KiB (TPC-H l_comment: 3 % of the chunk), learned again from
// each chunk although the chunks of a stream's stripe are alike. Readers
// resolve the definition through encoding.Options.Resolver, which parses
// the table once per stripe; decoding a reference is FSST's kernel.
//
// Selection never offers SharedFSST: the writer learns the table when a
// chunk of a stripe first chooses FSST (SharedTable), weighs a reference
// against what selection chose for each chunk it selects, replays the
// winner, replaces the remaining FSST chunks by references where that is
// smaller, and stores the table when at least two chunks refer to it.
var SharedCodec = &encoding.Codec{
	Kind:       encoding.KindSharedFSST,
	Types:      encoding.TypesOf(encoding.Binary),
	Open:       openShared,
	Decode:     Codec.Decode,
	BuildTable: func(vals *encoding.Bytes) encoding.ChunkTable { return NewSharedTable(vals) },
	Replaces:   encoding.KindFSST,
}

// Node forms of SharedFSST.
const (
	formDefinition = 0
	formReference  = 1
)

// sharedSample and sharedFracs are how a stripe's table is learned: from
// a larger sample and in more generations than a chunk's own table, since
// it is built once per stripe and serves every chunk (on TPC-H l_comment
// this table codes about 4 % smaller than one learned as a chunk's).
const sharedSample = 64 << 10

var sharedFracs = [...]int{4, 8, 16, 24, 32, 48, 64, 96, 128}

// SharedTable is a symbol table learned from a stream's values of one
// stripe, on the writing side.
type SharedTable struct {
	syms []symbol
	def  []byte
}

// NewSharedTable learns a table from vals (a stream's values of a stripe,
// or the chunks of it that chose FSST).
func NewSharedTable(vals *encoding.Bytes) *SharedTable {
	bd := builders.Get().(*builder)
	defer builders.Put(bd)
	bd.buildWith(vals, sharedSample, sharedFracs[:])
	st := &SharedTable{syms: append([]symbol(nil), bd.syms...)}
	st.def = encoding.AppendHeader(nil, encoding.KindSharedFSST, encoding.Binary, 0)
	st.def = append(st.def, formDefinition)
	st.def = bd.appendTable(st.def)
	return st
}

// Definition returns the node that defines the table, to be stored as a
// chunk of no rows of the stream.
func (s *SharedTable) Definition() []byte { return s.def }

// EncodeReference appends a reference node for vals to dst: their codes
// under the table, which chunk `chunk` of the stream defines. The code
// lengths child is selected by p, or replays the code lengths subtree of
// replaced when that is an FSST or SharedFSST tree. It returns the node's
// tree, with the decode estimate of an FSST node of the same values (the
// same kernel decodes both).
func (s *SharedTable) EncodeReference(p *encoding.Policy, dst []byte, vals *encoding.Bytes, chunk int, replaced *encoding.Tree) ([]byte, *encoding.Tree, error) {
	bd := builders.Get().(*builder)
	defer func() {
		if cap(bd.out) > maxPooledOut {
			bd.out = nil
		}
		builders.Put(bd)
	}()
	bd.syms = append(bd.syms[:0], s.syms...)
	bd.index()
	n := vals.Len()
	dst = encoding.AppendHeader(dst, encoding.KindSharedFSST, encoding.Binary, n)
	dst = append(dst, formReference)
	dst = binary.AppendUvarint(dst, uint64(chunk))
	lens := make([]uint32, n)
	codes := bd.encodeAll(vals, lens)
	raw := 0
	if n > 0 {
		raw = int(vals.Offsets[n] - vals.Offsets[0])
	}
	dst = binary.AppendUvarint(dst, uint64(raw))
	var force *encoding.Tree
	if replaced != nil && (replaced.Kind == encoding.KindFSST || replaced.Kind == encoding.KindSharedFSST) && len(replaced.Children) == 1 {
		force = replaced.Children[0]
	}
	child, ct, err := p.EncodeSequence(nil, lens, 1, encoding.KindSharedFSST, force)
	if err != nil {
		return dst, nil, fmt.Errorf("shared fsst code lengths: %w", err)
	}
	dst = encoding.AppendChild(dst, child)
	dst = append(dst, codes...)
	return dst, encoding.NewTree(SharedCodec, encoding.Binary, n, raw, ct), nil
}

// sharedTable is a stripe's table as readers cache it (Resolver.Shared).
type sharedTable struct{ t *table }

func buildShared(payload []byte, opts *encoding.Options) (any, error) {
	h, err := encoding.ParseHeader(payload, 0, opts)
	if err != nil {
		return nil, fmt.Errorf("shared fsst definition: %w", err)
	}
	if h.Kind != encoding.KindSharedFSST || h.Type != encoding.Binary || len(h.Body) == 0 || h.Body[0] != formDefinition {
		return nil, encoding.Corruptf("shared fsst: the referenced chunk holds a %v node, not a definition", h.Kind)
	}
	t, err := definitionTable(h)
	if err != nil {
		return nil, err
	}
	return &sharedTable{t: t}, nil
}

// definitionTable parses a definition's table; nothing may follow it.
func definitionTable(h encoding.Header) (*table, error) {
	if h.Rows != 0 {
		return nil, encoding.Corruptf("shared fsst definition declares %d rows, want 0", h.Rows)
	}
	t, rest, err := parseTable(h.Body[1:])
	if err != nil {
		return nil, err
	}
	if len(rest) != 0 {
		return nil, encoding.Corruptf("shared fsst: %d trailing bytes after the table", len(rest))
	}
	return t, nil
}

func openShared(h encoding.Header, opts *encoding.Options) (encoding.Decoder, error) {
	if h.Type != encoding.Binary {
		return nil, encoding.Unsupportedf("shared fsst: type %v", h.Type)
	}
	if len(h.Body) == 0 {
		return nil, encoding.Corruptf("shared fsst: empty body")
	}
	switch h.Body[0] {
	case formDefinition:
		if _, err := definitionTable(h); err != nil {
			return nil, err
		}
		return &definition{}, nil
	case formReference:
	default:
		return nil, encoding.Unsupportedf("shared fsst: node form %d", h.Body[0])
	}
	chunk, rest, err := encoding.Uvarint(h.Body[1:], "shared fsst chunk")
	if err != nil {
		return nil, err
	}
	if opts == nil || opts.Resolver == nil {
		return nil, encoding.Unsupportedf("shared fsst: the node refers to chunk %d of its stream; open it through a file reader, which resolves references", chunk)
	}
	if chunk > math.MaxInt32 {
		return nil, encoding.Corruptf("shared fsst: chunk %d", chunk)
	}
	obj, err := opts.Resolver.Shared(int(chunk), func(p []byte) (any, error) { return buildShared(p, opts) })
	if err != nil {
		return nil, fmt.Errorf("shared fsst: %w", err)
	}
	st, ok := obj.(*sharedTable)
	if !ok {
		return nil, encoding.Corruptf("shared fsst: chunk %d does not hold a symbol table", chunk)
	}
	return openCodes(h, st.t, rest, opts, encoding.KindSharedFSST)
}

// definition is the decoder of a definition node: no rows.
type definition struct{}

func (d *definition) Kind() encoding.Kind { return encoding.KindSharedFSST }
func (d *definition) Type() encoding.Type { return encoding.Binary }
func (d *definition) Len() int            { return 0 }
func (d *definition) Pos() int            { return 0 }
func (d *definition) Reset()              {}

func (d *definition) Skip(n int) error {
	return cascade.CheckRead(encoding.KindSharedFSST, 0, n, 0)
}

func (d *definition) ReadBinary(dst *encoding.Bytes, n int) error {
	return cascade.CheckRead(encoding.KindSharedFSST, 0, n, 0)
}

func (d *definition) GatherBinary(rows []int32, dst *encoding.Bytes) error {
	return cascade.CheckGather(encoding.KindSharedFSST, rows, len(rows), 0)
}
