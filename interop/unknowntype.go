package interop

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/thrift/lib/go/thrift"
)

// A logical type newer than the reader is forward compatible: the Parquet
// format asks a reader that does not know a logical type to read the
// column as its physical type and to ignore its statistics (parquet-format
// GH-607; arrow C++ and parquet-java do so). arrow-go 18 instead panics
// ("invalid logical type") while parsing such a footer. openParquetFile
// then parses the footer again without the unknown annotations
// (rewriteFooter), so the columns read as their physical types.

// Field ids of the Parquet footer's Thrift structures (parquet.thrift).
const (
	fileMetaDataSchema         = 2  // FileMetaData.schema: list<SchemaElement>
	fileMetaDataRowGroups      = 4  // FileMetaData.row_groups: list<RowGroup>
	schemaElementConvertedType = 6  // SchemaElement.converted_type: ConvertedType
	schemaElementLogicalType   = 10 // SchemaElement.logicalType: LogicalType
	rowGroupColumns            = 1  // RowGroup.columns: list<ColumnChunk>
	columnChunkMetaData        = 3  // ColumnChunk.meta_data: ColumnMetaData
	columnMetaDataStatistics   = 12 // ColumnMetaData.statistics: Statistics
)

// knownLogicalTypes are the members of the LogicalType union that arrow-go
// 18 parses (schema.getLogicalType): STRING 1, MAP 2, LIST 3, ENUM 4,
// DECIMAL 5, DATE 6, TIME 7, TIMESTAMP 8, INTEGER 10, UNKNOWN (null) 11,
// JSON 12, BSON 13, UUID 14, FLOAT16 15, VARIANT 16, GEOMETRY 17,
// GEOGRAPHY 18. A union setting none of them is unknown to it.
var knownLogicalTypes = map[int16]bool{1: true, 2: true, 3: true, 4: true, 5: true, 6: true, 7: true, 8: true,
	10: true, 11: true, 12: true, 13: true, 14: true, 15: true, 16: true, 17: true, 18: true}

// thriftMaxDepth bounds the nesting of Thrift structures and containers
// walked in a footer, as Thrift's own Skip does, so that a hostile footer
// cannot exhaust the stack.
const thriftMaxDepth = 64

// errUnknownLogicalType is the panic value text of arrow-go's footer
// parser for a logical type it does not know.
const errUnknownLogicalType = "invalid logical type"

// openParquetFile opens f with arrow-go; a footer with a logical type
// arrow-go does not know is read again without it (see above), and one
// with a MAP whose key is optional is read again with that map annotated
// as a LIST (mapkeys.go).
func openParquetFile(f parquet.ReaderAtSeeker, props *parquet.ReaderProperties) (*file.Reader, error) {
	pf, err := newParquetReader(f, props, nil)
	var p unknownTypePanic
	unknown := errors.As(err, &p)
	if err != nil && !unknown {
		return nil, err
	}
	if unknown {
		md, err := readFooterRewritten(f, nil)
		if err != nil {
			return nil, fmt.Errorf("footer with a logical type arrow-go does not know (%v): %w", p.v, err)
		}
		if pf, err = newParquetReader(f, props, md); err != nil {
			return nil, err
		}
	}
	relabel := findOptionalKeyMaps(pf.MetaData().Schema)
	if relabel == nil {
		return pf, nil
	}
	// pf is dropped, not closed: closing it would close f
	md, err := readFooterRewritten(f, relabel)
	if err != nil {
		return nil, fmt.Errorf("footer with a MAP whose key is optional: %w", err)
	}
	return newParquetReader(f, props, md)
}

// unknownTypePanic is arrow-go's panic on a logical type it does not know.
type unknownTypePanic struct{ v any }

func (p unknownTypePanic) Error() string { return fmt.Sprint(p.v) }

// newParquetReader is file.NewParquetReader (with md as the footer if not
// nil) that returns a panic as an error: unknownTypePanic for an unknown
// logical type, and for any other the text "malformed parquet file".
func newParquetReader(f parquet.ReaderAtSeeker, props *parquet.ReaderProperties, md *metadata.FileMetaData) (pf *file.Reader, err error) {
	defer func() {
		if r := recover(); r != nil {
			pf = nil
			if strings.Contains(fmt.Sprint(r), errUnknownLogicalType) {
				err = unknownTypePanic{r}
				return
			}
			err = fmt.Errorf("malformed parquet file: %v", r)
		}
	}()
	opts := []file.ReadOption{file.WithReadProps(props)}
	if md != nil {
		opts = append(opts, file.WithMetadata(md))
	}
	return file.NewParquetReader(f, opts...)
}

// readFooterRewritten reads the plaintext footer of a Parquet file and
// parses it without the logical types arrow-go does not know, and without
// the statistics of their columns, which were ordered by the unknown
// type; the schema elements relabel names get the annotations it gives
// (relabelKind).
func readFooterRewritten(f parquet.ReaderAtSeeker, relabel map[int]relabelKind) (*metadata.FileMetaData, error) {
	size, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return nil, err
	}
	var tail [8]byte
	if size < 12 {
		return nil, fmt.Errorf("file of %d bytes is too small for Parquet", size)
	}
	if _, err := f.ReadAt(tail[:], size-8); err != nil {
		return nil, err
	}
	if string(tail[4:]) != "PAR1" {
		return nil, errors.New("no plaintext Parquet footer (an encrypted footer is not rewritten)")
	}
	n := int64(binary.LittleEndian.Uint32(tail[:4]))
	if n > size-12 {
		return nil, fmt.Errorf("footer of %d bytes in a file of %d", n, size)
	}
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, size-8-n); err != nil {
		return nil, err
	}
	out, err := rewriteFooter(buf, relabel)
	if err != nil {
		return nil, err
	}
	md, err := metadata.NewFileMetaData(out, nil)
	if err != nil {
		return nil, err
	}
	md.SetSourceFileSize(size - 8 - n)
	return md, nil
}

// rewriteFooter returns a copy of the Thrift compact encoding of a
// FileMetaData without the logicalType of every schema element whose type
// is not in knownLogicalTypes, nor the statistics of those leaf columns,
// and with the schema elements relabel names annotated as it says. It
// fails if there is nothing to change.
func rewriteFooter(footer []byte, relabel map[int]relabelKind) ([]byte, error) {
	ctx := context.Background()
	// first pass: which schema elements have an unknown type
	w := &footerWalk{in: compactReader(footer)}
	if err := w.copyStruct(ctx, 0, fileMetaDataPath); err != nil {
		return nil, fmt.Errorf("parsing the footer: %w", err)
	}
	if len(w.unknown) == 0 && len(relabel) == 0 {
		return nil, errors.New("no logical type unknown to arrow-go found in the footer")
	}
	drop := w.unknown
	leaves := w.unknownLeaves
	// second pass: copy without them
	mem := thrift.NewTMemoryBufferLen(len(footer))
	w = &footerWalk{in: compactReader(footer), out: thrift.NewTCompactProtocolConf(mem, &thrift.TConfiguration{}), drop: drop, dropStats: leaves, relabel: relabel}
	if err := w.copyStruct(ctx, 0, fileMetaDataPath); err != nil {
		return nil, fmt.Errorf("rewriting the footer: %w", err)
	}
	if err := w.out.Flush(ctx); err != nil {
		return nil, err
	}
	return bytes.Clone(mem.Bytes()), nil
}

func compactReader(b []byte) *thrift.TCompactProtocol {
	mem := thrift.NewTMemoryBufferLen(len(b))
	mem.Write(b)
	// the footer's own size bounds what its fields may claim
	return thrift.NewTCompactProtocolConf(mem, &thrift.TConfiguration{MaxMessageSize: int32(min(int64(len(b))+1, math.MaxInt32))})
}

// Where a structure sits in the footer, for the fields footerWalk
// watches.
type footerPath int

const (
	otherPath footerPath = iota
	fileMetaDataPath
	schemaElementPath
	logicalTypePath
	rowGroupPath
	columnChunkPath
	columnMetaDataPath
)

// footerWalk copies a Thrift compact value from in to out (out nil: reads
// only), noting the schema elements with an unknown logical type and
// leaving out the fields drop and dropStats name.
type footerWalk struct {
	in  *thrift.TCompactProtocol
	out *thrift.TCompactProtocol

	element int // schema elements seen
	leaf    int // leaf schema elements seen (elements without children)
	column  int // column chunks seen in the current row group

	unknown       map[int]bool // schema elements with an unknown logical type
	unknownLeaves map[int]bool // of those, the leaf columns

	drop      map[int]bool // schema elements whose logical type is left out
	dropStats map[int]bool // leaf columns whose statistics are left out

	relabel map[int]relabelKind // schema elements whose annotations are replaced

	// per schema element
	children bool
	members  []int16 // field ids set in a LogicalType union
	hasType  bool
}

func (w *footerWalk) copyStruct(ctx context.Context, depth int, path footerPath) error {
	if depth > thriftMaxDepth {
		return errors.New("structures nested too deeply")
	}
	if _, err := w.in.ReadStructBegin(ctx); err != nil {
		return err
	}
	if w.out != nil {
		if err := w.out.WriteStructBegin(ctx, ""); err != nil {
			return err
		}
	}
	if path == schemaElementPath {
		w.children, w.members, w.hasType = false, nil, false
	}
	for {
		_, typ, id, err := w.in.ReadFieldBegin(ctx)
		if err != nil {
			return err
		}
		if typ == thrift.STOP {
			break
		}
		child := otherPath
		switch {
		case path == fileMetaDataPath && id == fileMetaDataSchema && typ == thrift.LIST:
			child = schemaElementPath
		case path == fileMetaDataPath && id == fileMetaDataRowGroups && typ == thrift.LIST:
			child = rowGroupPath
		case path == schemaElementPath && id == schemaElementLogicalType && typ == thrift.STRUCT:
			child = logicalTypePath
			w.hasType = true
		case path == rowGroupPath && id == rowGroupColumns && typ == thrift.LIST:
			child = columnChunkPath
			w.column = 0
		case path == columnChunkPath && id == columnChunkMetaData && typ == thrift.STRUCT:
			child = columnMetaDataPath
		case path == logicalTypePath:
			w.members = append(w.members, id)
		}
		if w.skipped(path, id) || w.out == nil {
			if err := w.readValue(ctx, typ, depth+1, path, id, child); err != nil {
				return err
			}
			continue
		}
		if err := w.out.WriteFieldBegin(ctx, "", typ, id); err != nil {
			return err
		}
		if err := w.readValue(ctx, typ, depth+1, path, id, child); err != nil {
			return err
		}
		if err := w.out.WriteFieldEnd(ctx); err != nil {
			return err
		}
	}
	if path == schemaElementPath && w.out != nil && w.relabel[w.element] != 0 {
		if err := writeAnnotation(ctx, w.out, w.relabel[w.element]); err != nil {
			return err
		}
	}
	if path == schemaElementPath {
		if w.hasType && !slicesAnyKnown(w.members) {
			if w.unknown == nil {
				w.unknown, w.unknownLeaves = map[int]bool{}, map[int]bool{}
			}
			w.unknown[w.element] = true
			if !w.children {
				w.unknownLeaves[w.leaf] = true
			}
		}
		w.element++
		if !w.children {
			w.leaf++
		}
	}
	if path == columnChunkPath {
		w.column++
	}
	if err := w.in.ReadStructEnd(ctx); err != nil {
		return err
	}
	if w.out == nil {
		return nil
	}
	if err := w.out.WriteFieldStop(ctx); err != nil {
		return err
	}
	return w.out.WriteStructEnd(ctx)
}

// skipped tells whether field id of a structure at path is read but not
// copied.
func (w *footerWalk) skipped(path footerPath, id int16) bool {
	switch path {
	case schemaElementPath:
		return id == schemaElementLogicalType && (w.drop[w.element] || w.relabel[w.element] != 0) ||
			id == schemaElementConvertedType && w.relabel[w.element] != 0
	case columnMetaDataPath:
		return id == columnMetaDataStatistics && w.dropStats[w.column]
	}
	return false
}

// slicesAnyKnown tells whether one of the union members ids is a logical
// type arrow-go knows.
func slicesAnyKnown(ids []int16) bool {
	for _, id := range ids {
		if knownLogicalTypes[id] {
			return true
		}
	}
	return false
}

// SchemaElement.num_children, which readValue notes.
const schemaElementNumChildren = 5

// readValue copies one value of type typ; parent and id are the structure
// and field holding it, and child the path of the structures it holds.
func (w *footerWalk) readValue(ctx context.Context, typ thrift.TType, depth int, parent footerPath, id int16, child footerPath) error {
	if depth > thriftMaxDepth {
		return errors.New("structures nested too deeply")
	}
	out := w.out
	if w.skipped(parent, id) {
		out = nil // read, not copied
	}
	switch typ {
	case thrift.STRUCT:
		saved := w.out
		w.out = out
		err := w.copyStruct(ctx, depth, child)
		w.out = saved
		return err
	case thrift.LIST, thrift.SET:
		var et thrift.TType
		var n int
		var err error
		if typ == thrift.LIST {
			et, n, err = w.in.ReadListBegin(ctx)
		} else {
			et, n, err = w.in.ReadSetBegin(ctx)
		}
		if err != nil {
			return err
		}
		if out != nil {
			if typ == thrift.LIST {
				err = out.WriteListBegin(ctx, et, n)
			} else {
				err = out.WriteSetBegin(ctx, et, n)
			}
			if err != nil {
				return err
			}
		}
		saved := w.out
		w.out = out
		for range n {
			if err := w.readValue(ctx, et, depth+1, otherPath, 0, child); err != nil {
				w.out = saved
				return err
			}
		}
		w.out = saved
		if typ == thrift.LIST {
			err = w.in.ReadListEnd(ctx)
		} else {
			err = w.in.ReadSetEnd(ctx)
		}
		if err != nil || out == nil {
			return err
		}
		if typ == thrift.LIST {
			return out.WriteListEnd(ctx)
		}
		return out.WriteSetEnd(ctx)
	case thrift.MAP:
		kt, vt, n, err := w.in.ReadMapBegin(ctx)
		if err != nil {
			return err
		}
		if out != nil {
			if err := out.WriteMapBegin(ctx, kt, vt, n); err != nil {
				return err
			}
		}
		saved := w.out
		w.out = out
		for range n {
			if err := w.readValue(ctx, kt, depth+1, otherPath, 0, otherPath); err != nil {
				w.out = saved
				return err
			}
			if err := w.readValue(ctx, vt, depth+1, otherPath, 0, otherPath); err != nil {
				w.out = saved
				return err
			}
		}
		w.out = saved
		if err := w.in.ReadMapEnd(ctx); err != nil || out == nil {
			return err
		}
		return out.WriteMapEnd(ctx)
	case thrift.BOOL:
		v, err := w.in.ReadBool(ctx)
		if err != nil || out == nil {
			return err
		}
		return out.WriteBool(ctx, v)
	case thrift.BYTE:
		v, err := w.in.ReadByte(ctx)
		if err != nil || out == nil {
			return err
		}
		return out.WriteByte(ctx, v)
	case thrift.I16:
		v, err := w.in.ReadI16(ctx)
		if err != nil || out == nil {
			return err
		}
		return out.WriteI16(ctx, v)
	case thrift.I32:
		v, err := w.in.ReadI32(ctx)
		if err != nil {
			return err
		}
		if parent == schemaElementPath && id == schemaElementNumChildren && v > 0 {
			w.children = true
		}
		if out == nil {
			return nil
		}
		return out.WriteI32(ctx, v)
	case thrift.I64:
		v, err := w.in.ReadI64(ctx)
		if err != nil || out == nil {
			return err
		}
		return out.WriteI64(ctx, v)
	case thrift.DOUBLE:
		v, err := w.in.ReadDouble(ctx)
		if err != nil || out == nil {
			return err
		}
		return out.WriteDouble(ctx, v)
	case thrift.STRING:
		v, err := w.in.ReadBinary(ctx)
		if err != nil {
			return err
		}
		if out == nil {
			return nil
		}
		return out.WriteBinary(ctx, v)
	case thrift.UUID:
		v, err := w.in.ReadUUID(ctx)
		if err != nil || out == nil {
			return err
		}
		return out.WriteUUID(ctx, v)
	}
	return fmt.Errorf("unknown Thrift type %d", typ)
}
