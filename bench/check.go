package main

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/zeebo/xxh3"
)

// Checksum is an order-independent fingerprint of a result set: the row count
// and, per column name, the wrapping sum of a hash of every value. Readers that
// return the same multiset of rows produce equal checksums whatever their batch
// boundaries or row order, so a fast wrong answer cannot go unnoticed.
//
// Values are hashed by logical kind, not by physical width, so an int32 date
// read by one system and an int64 read by another agree: every integer (and
// date) hashes as its int64 value, every timestamp as the instant it denotes,
// every float as its float64 bits, every decimal as its unscaled 128-bit
// value, every string or binary as its bytes. Nested columns are summed per leaf (see nested.go).
type Checksum struct {
	Rows int64
	Cols map[string]uint64
}

func newChecksum() *Checksum { return &Checksum{Cols: map[string]uint64{}} }

const nullHash = 0x6a09e667f3bcc909

// hashInt mixes an integer (splitmix64 finalizer); the constant offset keeps
// hashInt(0) from being 0.
func hashInt(v int64) uint64 {
	x := uint64(v) + 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

func hashFloat(f float64) uint64 { return hashInt(int64(math.Float64bits(f))) ^ 0x5555 }

func hashBytes(b []byte) uint64 { return xxh3.Hash(b) }

// Equal reports whether two checksums agree, and if not, how.
func (c *Checksum) Diff(o *Checksum) string {
	var msgs []string
	if c.Rows != o.Rows {
		msgs = append(msgs, fmt.Sprintf("rows %d vs %d", c.Rows, o.Rows))
	}
	names := map[string]bool{}
	for k := range c.Cols {
		names[k] = true
	}
	for k := range o.Cols {
		names[k] = true
	}
	keys := make([]string, 0, len(names))
	for k := range names {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		a, aok := c.Cols[k]
		b, bok := o.Cols[k]
		switch {
		case !aok || !bok:
			msgs = append(msgs, fmt.Sprintf("column %s present %v vs %v", k, aok, bok))
		case a != b:
			msgs = append(msgs, fmt.Sprintf("column %s checksum %016x vs %016x", k, a, b))
		}
	}
	return strings.Join(msgs, "; ")
}

// AddRecord folds all columns of rec into c. sel, if non-nil, restricts the
// rows folded to those with sel[i] true.
func (c *Checksum) AddRecord(rec arrow.Record, sel []bool) error {
	n := int(rec.NumRows())
	cnt := n
	if sel != nil {
		cnt = 0
		for _, s := range sel[:n] {
			if s {
				cnt++
			}
		}
	}
	c.Rows += int64(cnt)
	for i, f := range rec.Schema().Fields() {
		if isNested(f.Type) {
			if err := c.addNested(rec.Column(i), f.Name, sel); err != nil {
				return fmt.Errorf("column %s: %w", f.Name, err)
			}
			continue
		}
		h, err := hashArrow(rec.Column(i), sel)
		if err != nil {
			return fmt.Errorf("column %s: %w", f.Name, err)
		}
		c.Cols[f.Name] += h
	}
	return nil
}

// hashArrow sums the value hashes of one Arrow array.
func hashArrow(a arrow.Array, sel []bool) (uint64, error) {
	var s uint64
	n := a.Len()
	use := func(i int) bool { return sel == nil || sel[i] }
	nulls := a.NullN() > 0
	for i := 0; i < n && nulls; i++ {
		if use(i) && a.IsNull(i) {
			s += nullHash
		}
	}
	valid := func(i int) bool { return use(i) && (!nulls || a.IsValid(i)) }
	switch a := a.(type) {
	case *array.Int8:
		for i, v := range a.Int8Values() {
			if valid(i) {
				s += hashInt(int64(v))
			}
		}
	case *array.Int16:
		for i, v := range a.Int16Values() {
			if valid(i) {
				s += hashInt(int64(v))
			}
		}
	case *array.Int32:
		for i, v := range a.Int32Values() {
			if valid(i) {
				s += hashInt(int64(v))
			}
		}
	case *array.Int64:
		for i, v := range a.Int64Values() {
			if valid(i) {
				s += hashInt(v)
			}
		}
	case *array.Uint8:
		for i, v := range a.Uint8Values() {
			if valid(i) {
				s += hashInt(int64(v))
			}
		}
	case *array.Uint16:
		for i, v := range a.Uint16Values() {
			if valid(i) {
				s += hashInt(int64(v))
			}
		}
	case *array.Uint32:
		for i, v := range a.Uint32Values() {
			if valid(i) {
				s += hashInt(int64(v))
			}
		}
	case *array.Uint64:
		for i, v := range a.Uint64Values() {
			if valid(i) {
				s += hashInt(int64(v))
			}
		}
	case *array.Date32:
		for i, v := range a.Date32Values() {
			if valid(i) {
				s += hashInt(int64(v))
			}
		}
	case *array.Timestamp:
		ps := arrowPerSec(a.DataType().(*arrow.TimestampType).Unit)
		for i, v := range a.TimestampValues() {
			if valid(i) {
				s += hashTS(int64(v), ps)
			}
		}
	case *array.Float32:
		for i, v := range a.Float32Values() {
			if valid(i) {
				s += hashFloat(float64(v))
			}
		}
	case *array.Float64:
		for i, v := range a.Float64Values() {
			if valid(i) {
				s += hashFloat(v)
			}
		}
	case *array.Boolean:
		for i := 0; i < n; i++ {
			if valid(i) {
				s += hashInt(b2i(a.Value(i)))
			}
		}
	case *array.String:
		for i := 0; i < n; i++ {
			if valid(i) {
				s += hashBytes([]byte(a.Value(i)))
			}
		}
	case *array.LargeString:
		for i := 0; i < n; i++ {
			if valid(i) {
				s += hashBytes([]byte(a.Value(i)))
			}
		}
	case *array.Binary:
		for i := 0; i < n; i++ {
			if valid(i) {
				s += hashBytes(a.Value(i))
			}
		}
	case *array.Dictionary:
		// Hash the dictionary entry each index points at.
		dh := make([]uint64, a.Dictionary().Len())
		for j := range dh {
			h, err := hashArrow(array.NewSlice(a.Dictionary(), int64(j), int64(j+1)), nil)
			if err != nil {
				return 0, err
			}
			dh[j] = h
		}
		for i := 0; i < n; i++ {
			if valid(i) {
				s += dh[a.GetValueIndex(i)]
			}
		}
	default:
		for i := 0; i < n; i++ {
			if valid(i) {
				h, err := hashAt(a, i)
				if err != nil {
					return 0, err
				}
				s += h
			}
		}
	}
	return s, nil
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
