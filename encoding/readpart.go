package encoding

import "fmt"

// ReadPart reads the next m values of d into vals, a slice of d's type or
// a *Bytes, at positions [at, at+m) of a slice (a *Bytes gets them
// appended). When nullable is set and valid is not nil, valid[at:at+m]
// receives their validity (a decoder without nulls reports every value
// valid); otherwise nulls read as zero or empty values. It is the read
// that the reader's scans and the time-series layer share, so one type
// switch serves every buffer.
func ReadPart(d Decoder, vals any, at, m int, valid []bool, nullable bool) error {
	if b, ok := vals.(*Bytes); ok {
		r, ok := d.(BinaryReader)
		if !ok {
			return Corruptf("%v node holds %v, values are binary", d.Kind(), d.Type())
		}
		if nullable && valid != nil {
			return ReadBinaryNullable(r, b, valid[at:at+m], m)
		}
		return r.ReadBinary(b, m)
	}
	switch b := vals.(type) {
	case []bool:
		return readPart(d, b[at:at+m], valid, at, nullable)
	case []int8:
		return readPart(d, b[at:at+m], valid, at, nullable)
	case []int16:
		return readPart(d, b[at:at+m], valid, at, nullable)
	case []int32:
		return readPart(d, b[at:at+m], valid, at, nullable)
	case []int64:
		return readPart(d, b[at:at+m], valid, at, nullable)
	case []uint8:
		return readPart(d, b[at:at+m], valid, at, nullable)
	case []uint16:
		return readPart(d, b[at:at+m], valid, at, nullable)
	case []uint32:
		return readPart(d, b[at:at+m], valid, at, nullable)
	case []uint64:
		return readPart(d, b[at:at+m], valid, at, nullable)
	case []float32:
		return readPart(d, b[at:at+m], valid, at, nullable)
	case []float64:
		return readPart(d, b[at:at+m], valid, at, nullable)
	}
	return fmt.Errorf("encoding: read into a buffer of %T", vals)
}

func readPart[T Fixed](d Decoder, dst []T, valid []bool, at int, nullable bool) error {
	r, ok := d.(Reader[T])
	if !ok {
		return Corruptf("%v node holds %v, values are %v", d.Kind(), d.Type(), TypeFor[T]())
	}
	if nullable && valid != nil {
		return ReadNullable(r, dst, valid[at:at+len(dst)])
	}
	return r.Read(dst)
}

// NewValues allocates a buffer for n values of type t that ReadPart fills:
// a slice of the type, or an empty *Bytes with room for n offsets.
func NewValues(t Type, n int) (any, error) {
	switch t {
	case Bool:
		return make([]bool, n), nil
	case Int8:
		return make([]int8, n), nil
	case Int16:
		return make([]int16, n), nil
	case Int32:
		return make([]int32, n), nil
	case Int64:
		return make([]int64, n), nil
	case Uint8:
		return make([]uint8, n), nil
	case Uint16:
		return make([]uint16, n), nil
	case Uint32:
		return make([]uint32, n), nil
	case Uint64:
		return make([]uint64, n), nil
	case Float32:
		return make([]float32, n), nil
	case Float64:
		return make([]float64, n), nil
	case Binary:
		return &Bytes{Offsets: make([]int32, 1, n+1)}, nil
	}
	return nil, Unsupportedf("values of type %v", t)
}
