// Package encoding holds the contracts shared by every Strata encoding: the
// node prefix, kind ids, physical types, the decoder cursor, its optional
// selective capabilities and views (runs, dictionary ids), the registry of
// codecs and the traits they declare, decode limits, and the selection
// policy that builds cascading encoding trees. Selection compares every
// candidate tree on estimated bytes and measured decode time, weighed as
// Policy.Optimize says (see Optimize).
//
// A node is the unit of encoded data:
//
//	kind:u8 | type:u8 | flags:u8 | rows:uvarint | [rawLen:uvarint if compressed] | body
//
// The body's layout belongs to the encoding named by kind. Encodings that
// nest other sequences (dictionary ids, run lengths, validity) store each child
// node inside their body, prefixed by its length as a uvarint.
package encoding

import (
	"errors"
	"fmt"
	"slices"
)

// Type is the physical type of the values of a sequence.
type Type uint8

// Physical types. The numeric values are part of the file format.
const (
	TypeInvalid Type = 0
	Bool        Type = 1
	Int8        Type = 2
	Int16       Type = 3
	Int32       Type = 4
	Int64       Type = 5
	Uint8       Type = 6
	Uint16      Type = 7
	Uint32      Type = 8
	Uint64      Type = 9
	Float32     Type = 10
	Float64     Type = 11
	Binary      Type = 12
	typeCount        = 13
)

var typeNames = [...]string{"invalid", "bool", "int8", "int16", "int32", "int64",
	"uint8", "uint16", "uint32", "uint64", "float32", "float64", "binary"}

func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return fmt.Sprintf("type(%d)", uint8(t))
}

// Valid reports whether t is a known physical type.
func (t Type) Valid() bool { return t >= Bool && t <= Binary }

// Size is the width of one value in bytes (1 for Bool, 0 for Binary).
func (t Type) Size() int {
	switch t {
	case Bool, Int8, Uint8:
		return 1
	case Int16, Uint16:
		return 2
	case Int32, Uint32, Float32:
		return 4
	case Int64, Uint64, Float64:
		return 8
	}
	return 0
}

// IsInteger reports whether t is a signed or unsigned integer type.
func (t Type) IsInteger() bool { return t >= Int8 && t <= Uint64 }

// IsSigned reports whether t is a signed integer type.
func (t Type) IsSigned() bool { return t >= Int8 && t <= Int64 }

// IsFloat reports whether t is float32 or float64.
func (t Type) IsFloat() bool { return t == Float32 || t == Float64 }

// Kind identifies an encoding. Kind ids are part of the file format and are
// fixed forever: a retired encoding keeps its id unused.
type Kind uint8

// Encoding kinds.
const (
	KindInvalid        Kind = 0
	KindConstant       Kind = 1
	KindTrivial        Kind = 2
	KindFixedBitWidth  Kind = 3
	KindBlockFOR       Kind = 4
	KindVarint         Kind = 5
	KindDelta          Kind = 6
	KindRLE            Kind = 7
	KindDictionary     Kind = 8
	KindMainlyConstant Kind = 9
	KindSparseBool     Kind = 10
	KindNullable       Kind = 11
	KindFSST           Kind = 12
	KindALP            Kind = 13
	KindALPRD          Kind = 14
	KindFrontCoding    Kind = 15
	KindDigitText      Kind = 16
	// KindSharedDictionary nodes define a stripe-scoped alphabet or encode
	// ids into one; KindCorrelated nodes store a column as its difference
	// from another column of the stripe. Both resolve what they refer to
	// through Options.Resolver.
	KindSharedDictionary Kind = 17
	KindCorrelated       Kind = 18
	KindDeltaOfDelta     Kind = 19
	KindChimp            Kind = 20
	// KindSharedFSST nodes define a stripe-scoped FSST symbol table or
	// encode values with one (resolved through Options.Resolver).
	KindSharedFSST Kind = 21
	KindLagDelta   Kind = 22
	KindNumText    Kind = 23
	KindScaled     Kind = 24
	KindHexText    Kind = 25
	KindFieldText  Kind = 26
)

var kindNames = map[Kind]string{
	KindConstant: "Constant", KindTrivial: "Trivial", KindFixedBitWidth: "FixedBitWidth",
	KindBlockFOR: "BlockFOR", KindVarint: "Varint", KindDelta: "Delta", KindRLE: "RLE",
	KindDictionary: "Dictionary", KindMainlyConstant: "MainlyConstant",
	KindSparseBool: "SparseBool", KindNullable: "Nullable", KindFSST: "FSST", KindALP: "ALP",
	KindFrontCoding: "FrontCoding", KindDigitText: "DigitText",
	KindALPRD: "ALP-RD", KindChimp: "Chimp", KindDeltaOfDelta: "DeltaOfDelta",
	KindSharedDictionary: "SharedDictionary", KindCorrelated: "Correlated",
	KindSharedFSST: "SharedFSST",
	KindLagDelta:   "LagDelta",
	KindNumText:    "NumText",
	KindScaled:     "Scaled",
	KindHexText:    "HexText",
	KindFieldText:  "FieldText",
}

func (k Kind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Sentinel errors. Every decode error wraps one of them.
var (
	// ErrCorrupt reports bytes that do not form a valid node.
	ErrCorrupt = errors.New("corrupt data")
	// ErrUnsupported reports a valid but unknown kind, type or feature.
	ErrUnsupported = errors.New("unsupported")
	// ErrLimit reports a declared size beyond the configured decode limits.
	ErrLimit = errors.New("over decode limit")
)

// ErrInvalidArgument reports an argument no data could satisfy: a negative
// offset or limit, a row outside the file, a malformed aggregate, a schema
// with two fields of one name. Readers and writers wrap it; no decoder
// returns it.
var ErrInvalidArgument = errors.New("invalid argument")

// Corruptf returns an error wrapping ErrCorrupt.
func Corruptf(format string, args ...any) error {
	return fmt.Errorf(format+": %w", append(args, ErrCorrupt)...)
}

// Unsupportedf returns an error wrapping ErrUnsupported.
func Unsupportedf(format string, args ...any) error {
	return fmt.Errorf(format+": %w", append(args, ErrUnsupported)...)
}

// Limitf returns an error wrapping ErrLimit.
func Limitf(format string, args ...any) error {
	return fmt.Errorf(format+": %w", append(args, ErrLimit)...)
}

// Integer is the set of Go integer types Strata stores.
type Integer interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

// Number is the set of Go numeric types Strata stores.
type Number interface {
	Integer | ~float32 | ~float64
}

// Fixed is the set of fixed-width Go types a Reader may decode into.
type Fixed interface {
	Number | ~bool
}

// Bytes holds variable-length values in Arrow layout: value i is
// Data[Offsets[i]:Offsets[i+1]]. len(Offsets) is the value count plus one;
// Offsets[0] need not be zero, but Data ends at the last offset, so that
// values appended later start where it says.
type Bytes struct {
	Offsets []int32
	Data    []byte
}

// Len returns the number of values.
func (b *Bytes) Len() int {
	if len(b.Offsets) == 0 {
		return 0
	}
	return len(b.Offsets) - 1
}

// Value returns value i without copying.
func (b *Bytes) Value(i int) []byte { return b.Data[b.Offsets[i]:b.Offsets[i+1]] }

// Append adds one value.
func (b *Bytes) Append(v []byte) {
	if len(b.Offsets) == 0 {
		b.Offsets = append(b.Offsets, int32(len(b.Data)))
	}
	b.Data = append(b.Data, v...)
	b.Offsets = append(b.Offsets, int32(len(b.Data)))
}

// AppendRepeated adds n copies of v: the offsets by arithmetic, the bytes
// by copies that double what is already written, so a decoder of runs or
// constants pays a few memmoves rather than a call a value. Callers that
// check decode limits reserve the capacity first; AppendRepeated grows b
// only if they did not.
func (b *Bytes) AppendRepeated(v []byte, n int) {
	if n <= 0 {
		return
	}
	if len(b.Offsets) == 0 {
		b.Offsets = append(b.Offsets, int32(len(b.Data)))
	}
	no, w0 := len(b.Offsets), len(b.Data)
	total := n * len(v)
	b.Offsets = slices.Grow(b.Offsets, n)[:no+n]
	b.Data = slices.Grow(b.Data, total)[:w0+total]
	o, l := int32(w0), int32(len(v))
	for i := range b.Offsets[no:] {
		o += l
		b.Offsets[no+i] = o
	}
	out := b.Data[w0:]
	done := copy(out, v)
	for done < total {
		done += copy(out[done:], out[:done])
	}
}

// Reset empties b, keeping its capacity.
func (b *Bytes) Reset() { b.Offsets = b.Offsets[:0]; b.Data = b.Data[:0] }

// Slice returns values [i, j) sharing memory with b.
func (b *Bytes) Slice(i, j int) Bytes { return Bytes{Offsets: b.Offsets[i : j+1], Data: b.Data} }

// BinaryValues returns the binary values a value sequence holds (a Bytes or
// a *Bytes), and false for a sequence of any other type.
func BinaryValues(vals any) (*Bytes, bool) {
	switch v := vals.(type) {
	case Bytes:
		return &v, true
	case *Bytes:
		return v, true
	}
	return nil, false
}

// TypeOf returns the physical type of a value sequence: a []T of a Fixed type,
// a Bytes or a *Bytes. It returns TypeInvalid for anything else.
func TypeOf(vals any) Type {
	switch vals.(type) {
	case []bool:
		return Bool
	case []int8:
		return Int8
	case []int16:
		return Int16
	case []int32:
		return Int32
	case []int64:
		return Int64
	case []uint8:
		return Uint8
	case []uint16:
		return Uint16
	case []uint32:
		return Uint32
	case []uint64:
		return Uint64
	case []float32:
		return Float32
	case []float64:
		return Float64
	case Bytes, *Bytes:
		return Binary
	}
	return TypeInvalid
}

// LenOf returns the number of values in a sequence accepted by TypeOf.
func LenOf(vals any) int {
	switch v := vals.(type) {
	case []bool:
		return len(v)
	case []int8:
		return len(v)
	case []int16:
		return len(v)
	case []int32:
		return len(v)
	case []int64:
		return len(v)
	case []uint8:
		return len(v)
	case []uint16:
		return len(v)
	case []uint32:
		return len(v)
	case []uint64:
		return len(v)
	case []float32:
		return len(v)
	case []float64:
		return len(v)
	case Bytes:
		return v.Len()
	case *Bytes:
		return v.Len()
	}
	return 0
}

// TypeFor returns the physical type of Go type T.
func TypeFor[T Fixed]() Type {
	var z T
	switch any(z).(type) {
	case bool:
		return Bool
	case int8:
		return Int8
	case int16:
		return Int16
	case int32:
		return Int32
	case int64:
		return Int64
	case uint8:
		return Uint8
	case uint16:
		return Uint16
	case uint32:
		return Uint32
	case uint64:
		return Uint64
	case float32:
		return Float32
	case float64:
		return Float64
	}
	return TypeInvalid
}
