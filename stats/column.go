package stats

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"

	"strata/encoding"
)

// MaxBinaryBound is the longest Binary min or max kept in statistics. Longer
// bounds are truncated so that they remain valid bounds (see FromValues).
const MaxBinaryBound = 64

// ColumnStats summarises the values of one column over a chunk, a stripe or
// a file.
//
// Min and Max bound the non-null, non-NaN values: every such value v has
// Min <= v <= Max. They are exact unless MinTruncated / MaxTruncated say a
// long Binary bound was shortened (a truncated bound is still a valid bound,
// only looser). HasMinMax is false when there are no such values, or when
// the bounds are unknown (a Binary max that could not be shortened); readers
// then cannot prune on values, only on counts.
type ColumnStats struct {
	// Type is the physical type of the column (TypeInvalid for an empty
	// zero value).
	Type  encoding.Type
	Rows  int64 // rows, including nulls
	Nulls int64 // null rows
	// NaNs counts float NaN values (non-null). They are excluded from Min/Max.
	NaNs int64

	Min, Max                   Value
	HasMinMax                  bool
	MinTruncated, MaxTruncated bool
}

// Ordered returns the number of values that Min/Max bound: non-null and not NaN.
func (s *ColumnStats) Ordered() int64 { return s.Rows - s.Nulls - s.NaNs }

// FromValues computes statistics of vals ([]T of a fixed type, encoding.Bytes
// or *encoding.Bytes). valid, when non-nil, has one entry per value and marks
// non-null values; the content of null slots is ignored. Binary bounds longer
// than MaxBinaryBound are truncated: the min to its prefix (smaller or equal),
// the max to its prefix with the last byte that is not 0xff incremented and
// the rest dropped (greater). If no such byte exists in the prefix the bounds
// are dropped (HasMinMax false).
func FromValues(vals any, valid []bool) ColumnStats {
	s := ColumnStats{Type: encoding.TypeOf(vals), Rows: int64(encoding.LenOf(vals))}
	switch v := vals.(type) {
	case []bool:
		fromBools(&s, v, valid)
	case []int8:
		fromInts(&s, v, valid)
	case []int16:
		fromInts(&s, v, valid)
	case []int32:
		fromInts(&s, v, valid)
	case []int64:
		fromInts(&s, v, valid)
	case []uint8:
		fromUints(&s, v, valid)
	case []uint16:
		fromUints(&s, v, valid)
	case []uint32:
		fromUints(&s, v, valid)
	case []uint64:
		fromUints(&s, v, valid)
	case []float32:
		fromFloats(&s, v, valid)
	case []float64:
		fromFloats(&s, v, valid)
	case encoding.Bytes:
		fromBytes(&s, &v, valid)
	case *encoding.Bytes:
		fromBytes(&s, v, valid)
	}
	return s
}

func countNulls(valid []bool) int64 {
	var n int64
	for _, ok := range valid {
		if !ok {
			n++
		}
	}
	return n
}

func fromBools(s *ColumnStats, v []bool, valid []bool) {
	var seen [2]bool
	for i, b := range v {
		if valid != nil && !valid[i] {
			s.Nulls++
			continue
		}
		if b {
			seen[1] = true
		} else {
			seen[0] = true
		}
	}
	if seen[0] || seen[1] {
		s.HasMinMax = true
		s.Min, s.Max = Bool(!seen[0]), Bool(seen[1])
	}
}

func fromInts[T int8 | int16 | int32 | int64](s *ColumnStats, v []T, valid []bool) {
	if lo, hi, ok := intBounds(s, v, valid); ok {
		s.HasMinMax = true
		s.Min, s.Max = Int(s.Type, int64(lo)), Int(s.Type, int64(hi))
	}
}

func fromUints[T uint8 | uint16 | uint32 | uint64](s *ColumnStats, v []T, valid []bool) {
	if lo, hi, ok := intBounds(s, v, valid); ok {
		s.HasMinMax = true
		s.Min, s.Max = Uint(s.Type, uint64(lo)), Uint(s.Type, uint64(hi))
	}
}

// intBounds returns the least and greatest valid value of v, and false if
// there is none; with valid given, it also counts s's nulls. The loop
// without a validity mask has no branch per value.
func intBounds[T int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64](s *ColumnStats, v []T, valid []bool) (lo, hi T, found bool) {
	if valid == nil {
		if len(v) == 0 {
			return lo, hi, false
		}
		lo, hi = v[0], v[0]
		for _, x := range v[1:] {
			lo = min(lo, x)
			hi = max(hi, x)
		}
		return lo, hi, true
	}
	s.Nulls = countNulls(valid[:len(v)])
	for i, x := range v {
		if !valid[i] {
			continue
		}
		if !found {
			lo, hi, found = x, x, true
		}
		lo = min(lo, x)
		hi = max(hi, x)
	}
	return lo, hi, found
}

func fromFloats[T float32 | float64](s *ColumnStats, v []T, valid []bool) {
	// Comparisons with NaN are false, so x < lo / x > hi never adopt a NaN
	// once the bounds are seeded with a real number.
	var lo, hi T
	found := false
	for i, x := range v {
		if valid != nil && !valid[i] {
			s.Nulls++
			continue
		}
		if x != x {
			s.NaNs++
			continue
		}
		if !found {
			lo, hi, found = x, x, true
			continue
		}
		if x < lo {
			lo = x
		}
		if x > hi {
			hi = x
		}
	}
	if found {
		l, h := float64(lo), float64(hi)
		// -0.0 == 0.0: widen zero bounds to the sign that makes them hold for
		// either zero under a total order too.
		if l == 0 {
			l = math.Copysign(0, -1)
		}
		if h == 0 {
			h = 0
		}
		s.HasMinMax = true
		s.Min, s.Max = Float(s.Type, l), Float(s.Type, h)
	}
}

func fromBytes(s *ColumnStats, v *encoding.Bytes, valid []bool) {
	var lo, hi []byte
	found := false
	for i := 0; i < v.Len(); i++ {
		if valid != nil && !valid[i] {
			s.Nulls++
			continue
		}
		x := v.Value(i)
		if !found {
			lo, hi, found = x, x, true
			continue
		}
		if bytes.Compare(x, lo) < 0 {
			lo = x
		}
		if bytes.Compare(x, hi) > 0 {
			hi = x
		}
	}
	if !found {
		return
	}
	s.setBinaryBounds(lo, hi)
}

// setBinaryBounds stores copies of lo and hi, truncated when long.
func (s *ColumnStats) setBinaryBounds(lo, hi []byte) {
	s.MinTruncated, s.MaxTruncated = false, false
	if len(lo) > MaxBinaryBound {
		lo = lo[:MaxBinaryBound]
		s.MinTruncated = true
	}
	if len(hi) > MaxBinaryBound {
		up, ok := truncateUp(hi, MaxBinaryBound)
		if !ok {
			s.HasMinMax = false
			s.Min, s.Max = Value{}, Value{}
			s.MinTruncated = false
			return
		}
		hi = up
		s.MaxTruncated = true
	} else {
		hi = bytes.Clone(hi)
	}
	s.HasMinMax = true
	s.Min = Bytes(append([]byte{}, lo...))
	s.Max = Bytes(append([]byte{}, hi...))
}

// truncateUp returns the shortest-at-most-n byte string greater than every
// string that has v[:n] as a prefix: v[:k] with byte k-1 incremented, where
// k-1 is the last position before n whose byte is not 0xff. ok is false if
// v[:n] is all 0xff.
func truncateUp(v []byte, n int) ([]byte, bool) {
	for k := n; k > 0; k-- {
		if v[k-1] != 0xff {
			out := append([]byte{}, v[:k]...)
			out[k-1]++
			return out, true
		}
	}
	return nil, false
}

// Merge folds o into s, for chunk → stripe → file aggregation. Both must
// describe the same physical type (a zero ColumnStats takes o's type).
func (s *ColumnStats) Merge(o ColumnStats) error {
	if o.Type != s.Type {
		if s.Type == encoding.TypeInvalid && s.Rows == 0 {
			s.Type = o.Type
		} else if !(o.Type == encoding.TypeInvalid && o.Rows == 0) {
			return fmt.Errorf("stats: merge %v statistics into %v", o.Type, s.Type)
		}
	}
	sOrd, oOrd := s.Ordered(), o.Ordered()
	sUnknown := sOrd > 0 && !s.HasMinMax
	oUnknown := oOrd > 0 && !o.HasMinMax
	s.Rows += o.Rows
	s.Nulls += o.Nulls
	s.NaNs += o.NaNs
	switch {
	case sUnknown || oUnknown:
		s.HasMinMax = false
		s.Min, s.Max = Value{}, Value{}
		s.MinTruncated, s.MaxTruncated = false, false
	case !o.HasMinMax:
		// nothing to fold
	case !s.HasMinMax:
		s.HasMinMax = true
		s.Min, s.Max = o.Min.Clone(), o.Max.Clone()
		s.MinTruncated, s.MaxTruncated = o.MinTruncated, o.MaxTruncated
	default:
		switch c := o.Min.Compare(s.Min); {
		case c < 0:
			s.Min, s.MinTruncated = o.Min.Clone(), o.MinTruncated
		case c == 0:
			s.MinTruncated = s.MinTruncated && o.MinTruncated
		}
		switch c := o.Max.Compare(s.Max); {
		case c > 0:
			s.Max, s.MaxTruncated = o.Max.Clone(), o.MaxTruncated
		case c == 0:
			s.MaxTruncated = s.MaxTruncated && o.MaxTruncated
		}
	}
	return nil
}

// Flag bits of the marshalled form.
const (
	flagMinMax       = 1 << 0
	flagMinTruncated = 1 << 1
	flagMaxTruncated = 1 << 2
	flagsKnown       = flagMinMax | flagMinTruncated | flagMaxTruncated
)

// AppendBinary appends the serialized statistics to dst (layout in
// docs/FORMAT.md, "Column statistics" and "Bloom filters").
func (s *ColumnStats) AppendBinary(dst []byte) []byte {
	var flags byte
	if s.HasMinMax {
		flags |= flagMinMax
		if s.MinTruncated {
			flags |= flagMinTruncated
		}
		if s.MaxTruncated {
			flags |= flagMaxTruncated
		}
	}
	dst = append(dst, flags, byte(s.Type))
	dst = binary.AppendUvarint(dst, uint64(s.Rows))
	dst = binary.AppendUvarint(dst, uint64(s.Nulls))
	dst = binary.AppendUvarint(dst, uint64(s.NaNs))
	if s.HasMinMax {
		dst = appendValue(dst, s.Type, s.Min)
		dst = appendValue(dst, s.Type, s.Max)
	}
	return dst
}

// MarshalBinary implements encoding.BinaryMarshaler.
func (s *ColumnStats) MarshalBinary() ([]byte, error) { return s.AppendBinary(nil), nil }

// UnmarshalBinary implements encoding.BinaryUnmarshaler; b must hold exactly
// one ColumnStats.
func (s *ColumnStats) UnmarshalBinary(b []byte) error {
	v, n, err := DecodeColumnStats(b)
	if err != nil {
		return err
	}
	if n != len(b) {
		return encoding.Corruptf("stats: %d trailing bytes after column statistics", len(b)-n)
	}
	*s = v
	return nil
}

func appendValue(dst []byte, t encoding.Type, v Value) []byte {
	switch classOf(t) {
	case classBool:
		return append(dst, byte(v.num&1))
	case classInt:
		return binary.AppendVarint(dst, v.Int())
	case classUint:
		return binary.AppendUvarint(dst, v.num)
	case classFloat:
		if t == encoding.Float32 {
			return binary.LittleEndian.AppendUint32(dst, math.Float32bits(float32(v.Float())))
		}
		return binary.LittleEndian.AppendUint64(dst, v.num)
	}
	dst = binary.AppendUvarint(dst, uint64(len(v.b)))
	return append(dst, v.b...)
}

// DecodeColumnStats decodes one ColumnStats from the front of b and returns
// it with the number of bytes consumed. Malformed input yields an error
// wrapping encoding.ErrCorrupt (or ErrUnsupported for unknown flag bits or
// types); it never panics and allocates at most the bytes of a Binary bound,
// which are checked against the input length first.
func DecodeColumnStats(b []byte) (ColumnStats, int, error) {
	var s ColumnStats
	if len(b) < 2 {
		return s, 0, encoding.Corruptf("stats: column statistics truncated (%d bytes)", len(b))
	}
	flags, t := b[0], encoding.Type(b[1])
	if flags&^flagsKnown != 0 {
		return s, 0, encoding.Unsupportedf("stats: unknown flags %#x", flags)
	}
	if t != encoding.TypeInvalid && !t.Valid() {
		return s, 0, encoding.Unsupportedf("stats: unknown type %d", b[1])
	}
	s.Type = t
	p := 2
	var counts [3]uint64
	for i := range counts {
		v, n := binary.Uvarint(b[p:])
		if n <= 0 {
			return s, 0, encoding.Corruptf("stats: bad count varint at offset %d", p)
		}
		if v > math.MaxInt64 {
			return s, 0, encoding.Corruptf("stats: count %d overflows int64", v)
		}
		counts[i] = v
		p += n
	}
	s.Rows, s.Nulls, s.NaNs = int64(counts[0]), int64(counts[1]), int64(counts[2])
	if s.Nulls > s.Rows || s.NaNs > s.Rows-s.Nulls {
		return s, 0, encoding.Corruptf("stats: counts rows=%d nulls=%d nans=%d inconsistent", s.Rows, s.Nulls, s.NaNs)
	}
	if s.NaNs > 0 && !t.IsFloat() {
		return s, 0, encoding.Corruptf("stats: NaN count on %v column", t)
	}
	if flags&flagMinMax == 0 {
		if flags != 0 {
			return s, 0, encoding.Corruptf("stats: truncation flags without min/max")
		}
		return s, p, nil
	}
	if !t.Valid() {
		return s, 0, encoding.Corruptf("stats: min/max without a type")
	}
	if s.Ordered() == 0 {
		return s, 0, encoding.Corruptf("stats: min/max present but no non-null values")
	}
	if flags&(flagMinTruncated|flagMaxTruncated) != 0 && t != encoding.Binary {
		return s, 0, encoding.Corruptf("stats: truncated bounds on %v column", t)
	}
	var err error
	var n int
	if s.Min, n, err = decodeValue(b[p:], t); err != nil {
		return s, 0, fmt.Errorf("stats: min: %w", err)
	}
	p += n
	if s.Max, n, err = decodeValue(b[p:], t); err != nil {
		return s, 0, fmt.Errorf("stats: max: %w", err)
	}
	p += n
	if s.Min.Compare(s.Max) > 0 {
		return s, 0, encoding.Corruptf("stats: min %v > max %v", s.Min, s.Max)
	}
	s.HasMinMax = true
	s.MinTruncated = flags&flagMinTruncated != 0
	s.MaxTruncated = flags&flagMaxTruncated != 0
	return s, p, nil
}

func decodeValue(b []byte, t encoding.Type) (Value, int, error) {
	switch classOf(t) {
	case classBool:
		if len(b) < 1 {
			return Value{}, 0, encoding.Corruptf("bool truncated")
		}
		if b[0] > 1 {
			return Value{}, 0, encoding.Corruptf("bool byte %d", b[0])
		}
		return Bool(b[0] == 1), 1, nil
	case classInt:
		v, n := binary.Varint(b)
		if n <= 0 {
			return Value{}, 0, encoding.Corruptf("bad varint")
		}
		if !fitsSigned(v, t) {
			return Value{}, 0, encoding.Corruptf("%d out of range for %v", v, t)
		}
		return Int(t, v), n, nil
	case classUint:
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return Value{}, 0, encoding.Corruptf("bad uvarint")
		}
		if t.Size() < 8 && v>>(8*t.Size()) != 0 {
			return Value{}, 0, encoding.Corruptf("%d out of range for %v", v, t)
		}
		return Uint(t, v), n, nil
	case classFloat:
		var f float64
		n := t.Size()
		if len(b) < n {
			return Value{}, 0, encoding.Corruptf("%v truncated", t)
		}
		if n == 4 {
			f = float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
		} else {
			f = math.Float64frombits(binary.LittleEndian.Uint64(b))
		}
		if math.IsNaN(f) {
			return Value{}, 0, encoding.Corruptf("NaN bound")
		}
		return Float(t, f), n, nil
	}
	l, n := binary.Uvarint(b)
	if n <= 0 {
		return Value{}, 0, encoding.Corruptf("bad length varint")
	}
	if l > uint64(len(b)-n) {
		return Value{}, 0, encoding.Corruptf("binary bound of %d bytes, %d remain", l, len(b)-n)
	}
	return Bytes(bytes.Clone(b[n : n+int(l)])), n + int(l), nil
}

func fitsSigned(v int64, t encoding.Type) bool {
	switch t {
	case encoding.Int8:
		return v >= math.MinInt8 && v <= math.MaxInt8
	case encoding.Int16:
		return v >= math.MinInt16 && v <= math.MaxInt16
	case encoding.Int32:
		return v >= math.MinInt32 && v <= math.MaxInt32
	}
	return true
}
