// Package stats holds the statistics Strata keeps per chunk, stripe and file
// for pruning: typed min/max values, row/null/NaN counts, and split-block
// bloom filters for equality and IN predicates.
//
// Values are kept in the column's physical domain (a date column is an Int32
// of days, a decimal(12,2) column an Int64 of cents); logical interpretation
// belongs to the schema and to package filter, which converts predicate
// literals into that domain.
package stats

import (
	"bytes"
	"fmt"
	"math"
	"strconv"

	"strata/encoding"
)

// Value is a typed scalar in a column's physical domain: signed integers
// (and dates, timestamps, decimals stored in them) as int64, unsigned
// integers as uint64, floats as float64, Binary as bytes and Bool as a bool.
// The zero Value is invalid (Type == encoding.TypeInvalid).
type Value struct {
	// Type is the physical type the value belongs to.
	Type encoding.Type
	num  uint64 // int64 bits, uint64, float64 bits or 0/1
	b    []byte
}

// Int returns a signed-integer value of type t (Int8..Int64).
func Int(t encoding.Type, v int64) Value { return Value{Type: t, num: uint64(v)} }

// Uint returns an unsigned-integer value of type t (Uint8..Uint64).
func Uint(t encoding.Type, v uint64) Value { return Value{Type: t, num: v} }

// Float returns a float value of type t (Float32 or Float64).
func Float(t encoding.Type, v float64) Value { return Value{Type: t, num: math.Float64bits(v)} }

// Bytes returns a Binary value. It does not copy v.
func Bytes(v []byte) Value { return Value{Type: encoding.Binary, b: v} }

// Bool returns a Bool value.
func Bool(v bool) Value {
	if v {
		return Value{Type: encoding.Bool, num: 1}
	}
	return Value{Type: encoding.Bool}
}

// Of returns the Value of a Go scalar of a Strata fixed type.
func Of[T encoding.Fixed](v T) Value {
	switch x := any(v).(type) {
	case bool:
		return Bool(x)
	case int8:
		return Int(encoding.Int8, int64(x))
	case int16:
		return Int(encoding.Int16, int64(x))
	case int32:
		return Int(encoding.Int32, int64(x))
	case int64:
		return Int(encoding.Int64, x)
	case uint8:
		return Uint(encoding.Uint8, uint64(x))
	case uint16:
		return Uint(encoding.Uint16, uint64(x))
	case uint32:
		return Uint(encoding.Uint32, uint64(x))
	case uint64:
		return Uint(encoding.Uint64, x)
	case float32:
		return Float(encoding.Float32, float64(x))
	case float64:
		return Float(encoding.Float64, x)
	}
	return Value{}
}

// class groups physical types by their Go representation inside Value.
type class uint8

const (
	classInvalid class = iota
	classBool
	classInt
	classUint
	classFloat
	classBytes
)

func classOf(t encoding.Type) class {
	switch {
	case t == encoding.Bool:
		return classBool
	case t.IsSigned():
		return classInt
	case t.IsInteger():
		return classUint
	case t.IsFloat():
		return classFloat
	case t == encoding.Binary:
		return classBytes
	}
	return classInvalid
}

// Valid reports whether v holds a value.
func (v Value) Valid() bool { return v.Type.Valid() }

// Int returns a signed-integer value (meaningful for Int8..Int64).
func (v Value) Int() int64 { return int64(v.num) }

// Uint returns an unsigned-integer value (meaningful for Uint8..Uint64).
func (v Value) Uint() uint64 { return v.num }

// Float returns a float value (meaningful for Float32 and Float64).
func (v Value) Float() float64 { return math.Float64frombits(v.num) }

// Bytes returns a Binary value without copying.
func (v Value) Bytes() []byte { return v.b }

// Bool returns a Bool value.
func (v Value) Bool() bool { return v.num != 0 }

// IsNaN reports whether v is a float NaN.
func (v Value) IsNaN() bool { return classOf(v.Type) == classFloat && math.IsNaN(v.Float()) }

// Clone returns v with its bytes copied.
func (v Value) Clone() Value {
	if v.b != nil {
		v.b = bytes.Clone(v.b)
	}
	return v
}

// Compare orders v against o: -1, 0 or +1. Values of the same class compare
// naturally (signed and unsigned integers compare mathematically, -0.0
// equals 0.0, Binary bytewise, false < true). NaN sorts after every other
// float and equals itself, which makes Compare a total order; predicate
// matching does not use it for NaN (see package filter). Values of classes
// that do not compare (a string and a number) order by class so the result
// is still deterministic.
func (v Value) Compare(o Value) int {
	cv, co := classOf(v.Type), classOf(o.Type)
	if cv == classFloat || co == classFloat {
		if (cv == classFloat || cv == classInt || cv == classUint) &&
			(co == classFloat || co == classInt || co == classUint) {
			return cmpFloat(v.asFloat(), o.asFloat())
		}
	}
	if cv != co {
		if cv == classInt && co == classUint {
			if v.Int() < 0 {
				return -1
			}
			return cmpOrdered(v.num, o.num)
		}
		if cv == classUint && co == classInt {
			if o.Int() < 0 {
				return 1
			}
			return cmpOrdered(v.num, o.num)
		}
		return cmpOrdered(cv, co)
	}
	switch cv {
	case classInt:
		return cmpOrdered(v.Int(), o.Int())
	case classUint, classBool:
		return cmpOrdered(v.num, o.num)
	case classBytes:
		return bytes.Compare(v.b, o.b)
	}
	return 0
}

// Equal reports whether Compare(v, o) == 0.
func (v Value) Equal(o Value) bool { return v.Compare(o) == 0 }

func (v Value) asFloat() float64 {
	switch classOf(v.Type) {
	case classInt:
		return float64(v.Int())
	case classUint:
		return float64(v.num)
	}
	return v.Float()
}

func cmpFloat(a, b float64) int {
	an, bn := math.IsNaN(a), math.IsNaN(b)
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpOrdered[T int64 | uint64 | class](a, b T) int {
	if a < b {
		return -1
	}
	if a > b {
		return 1
	}
	return 0
}

// String formats v for messages and debugging.
func (v Value) String() string {
	switch classOf(v.Type) {
	case classBool:
		return strconv.FormatBool(v.Bool())
	case classInt:
		return strconv.FormatInt(v.Int(), 10)
	case classUint:
		return strconv.FormatUint(v.num, 10)
	case classFloat:
		bits := 64
		if v.Type == encoding.Float32 {
			bits = 32
		}
		return strconv.FormatFloat(v.Float(), 'g', -1, bits)
	case classBytes:
		return strconv.Quote(string(v.b))
	}
	return fmt.Sprintf("<invalid %v>", v.Type)
}

// Hash returns the value's bloom-filter hash (see HashInt and friends): all
// integer widths hash their 64-bit value, floats their float64 bits with
// -0.0 folded into 0.0, Binary its raw bytes, Bool as the integer 0 or 1.
func (v Value) Hash() uint64 {
	switch classOf(v.Type) {
	case classBool, classInt, classUint:
		return HashUint(v.num)
	case classFloat:
		return HashFloat(v.Float())
	}
	return HashBytes(v.b)
}
