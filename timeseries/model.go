// Package timeseries stores and reads time series on top of Strata's
// writer and reader: the table model of TsFile (series key columns, one
// time column, measurement columns), a writer that keeps each series'
// rows contiguous and cuts chunks at series boundaries, a series index (a
// sorted directory read page by page, with a bloom filter on series paths),
// and readers that filter time before decoding values: time-range queries,
// time-bucket aggregates, the latest point of every series, and random
// windows for training (the sampler). The tree model of TsFile
// ("device.measurement" paths merged by time) is a view over the same data.
//
// The layer uses write/ and read/ only through their public contracts —
// write.Writer.Cut and Flush, write.Options.Force and WholeBatches,
// format.WriterOptions.OnStripe, encoding.BlockBounder — and stores its
// index in two named sections of an ordinary Strata file, which every
// Strata reader can still scan as a table. The byte layout is in
// docs/FORMAT.md, "Time-series index".
package timeseries

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"strata/encoding"
	"strata/read"
)

// Model names the parts of a time-series table: the series key columns
// (tags) in sort order and the time column. Every other column is a
// measurement.
type Model struct {
	Keys []string
	Time string
}

// role of a column in the table.
type role uint8

const (
	roleMeasure role = 0
	roleKey     role = 1
	roleTime    role = 2
)

// valueClass is how measurement values are summarized and stored in the
// index: the class of the column's physical type.
type valueClass uint8

const (
	classInt valueClass = iota
	classUint
	classFloat
	classBool
	classBytes
)

// numeric reports whether the class has min/max/sum statistics.
func (c valueClass) numeric() bool { return c == classInt || c == classUint || c == classFloat }

// table is a model resolved against a schema.
type table struct {
	sch      *arrow.Schema
	roles    []role
	keys     []int // column indexes of the keys, in key order
	time     int   // column index of the time column
	measures []int // column indexes of the measurements, in schema order
	classes  []valueClass
	keyKinds []keyKind // per key
}

// keyKind is how a key column's values become key bytes.
type keyKind uint8

const (
	keyBytes keyKind = iota // string, binary: the bytes
	keyInt                  // signed integers: big-endian with the sign bit flipped
	keyUint                 // unsigned integers: big-endian
)

// resolve checks a model against a schema.
func resolve(m Model, sch *arrow.Schema) (*table, error) {
	// A table without key columns is one series.
	t := &table{sch: sch, roles: make([]role, sch.NumFields()), time: -1}
	for _, k := range m.Keys {
		is := sch.FieldIndices(k)
		if len(is) != 1 {
			return nil, fmt.Errorf("timeseries: key column %q: %d columns of that name: %w", k, len(is), read.ErrInvalidArgument)
		}
		i := is[0]
		if t.roles[i] != roleMeasure {
			return nil, fmt.Errorf("timeseries: column %q named twice: %w", k, read.ErrInvalidArgument)
		}
		kk, ok := keyKindOf(sch.Field(i).Type)
		if !ok {
			return nil, fmt.Errorf("timeseries: key column %q of type %v: keys must be strings, binary or integers: %w", k, sch.Field(i).Type, read.ErrInvalidArgument)
		}
		t.roles[i] = roleKey
		t.keys = append(t.keys, i)
		t.keyKinds = append(t.keyKinds, kk)
	}
	is := sch.FieldIndices(m.Time)
	if len(is) != 1 {
		return nil, fmt.Errorf("timeseries: time column %q: %d columns of that name: %w", m.Time, len(is), read.ErrInvalidArgument)
	}
	t.time = is[0]
	if t.roles[t.time] != roleMeasure {
		return nil, fmt.Errorf("timeseries: column %q is both a key and the time: %w", m.Time, read.ErrInvalidArgument)
	}
	switch sch.Field(t.time).Type.ID() {
	case arrow.TIMESTAMP, arrow.INT64:
	default:
		return nil, fmt.Errorf("timeseries: time column %q of type %v: want a timestamp or int64: %w", m.Time, sch.Field(t.time).Type, read.ErrInvalidArgument)
	}
	t.roles[t.time] = roleTime
	for i, f := range sch.Fields() {
		if t.roles[i] != roleMeasure {
			continue
		}
		c, ok := classOf(f.Type)
		if !ok {
			return nil, fmt.Errorf("timeseries: measurement %q of type %v: want a primitive type: %w", f.Name, f.Type, read.ErrInvalidArgument)
		}
		t.measures = append(t.measures, i)
		t.classes = append(t.classes, c)
	}
	return t, nil
}

// fromRoles rebuilds a table from the roles stored in an index.
func fromRoles(sch *arrow.Schema, roles []role, keyOrder []int) (*table, error) {
	if len(roles) != sch.NumFields() {
		return nil, encoding.Corruptf("timeseries: index names %d columns, schema has %d", len(roles), sch.NumFields())
	}
	m := Model{}
	for _, k := range keyOrder {
		if k < 0 || k >= len(roles) || roles[k] != roleKey {
			return nil, encoding.Corruptf("timeseries: key order names column %d", k)
		}
		m.Keys = append(m.Keys, sch.Field(k).Name)
	}
	nk, nt := 0, 0
	for i, r := range roles {
		switch r {
		case roleKey:
			nk++
		case roleTime:
			nt++
			m.Time = sch.Field(i).Name
		case roleMeasure:
		default:
			return nil, encoding.Corruptf("timeseries: column %d has role %d", i, r)
		}
	}
	if nk != len(keyOrder) || nt != 1 {
		return nil, encoding.Corruptf("timeseries: index roles: %d keys (%d ordered), %d time columns", nk, len(keyOrder), nt)
	}
	t, err := resolve(m, sch)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", err, encoding.ErrCorrupt)
	}
	return t, nil
}

func keyKindOf(dt arrow.DataType) (keyKind, bool) {
	switch dt.ID() {
	case arrow.STRING, arrow.BINARY, arrow.LARGE_STRING, arrow.LARGE_BINARY:
		return keyBytes, true
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64:
		return keyInt, true
	case arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64:
		return keyUint, true
	}
	return 0, false
}

func classOf(dt arrow.DataType) (valueClass, bool) {
	switch dt.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.DATE32, arrow.DATE64,
		arrow.TIMESTAMP, arrow.TIME32, arrow.TIME64, arrow.DURATION:
		return classInt, true
	case arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64:
		return classUint, true
	case arrow.FLOAT32, arrow.FLOAT64:
		return classFloat, true
	case arrow.BOOL:
		return classBool, true
	case arrow.STRING, arrow.BINARY:
		return classBytes, true
	}
	return 0, false
}

// Key is a series key: one canonical value per key column, in key order.
// Strings and binary values are their bytes; integers are 8 bytes
// big-endian (signed ones with the sign bit flipped), so comparing keys
// component by component, bytewise, orders them as their values.
type Key []string

// compareKeys orders keys component by component; a key that is a prefix
// of another sorts first.
func compareKeys(a, b Key) int {
	for i := range min(len(a), len(b)) {
		if c := strings.Compare(a[i], b[i]); c != 0 {
			return c
		}
	}
	return len(a) - len(b)
}

// comparePrefix compares the first len(p) components of k with p.
func comparePrefix(k, p Key) int {
	if len(k) > len(p) {
		k = k[:len(p)]
	}
	return compareKeys(k, p)
}

func intKey(v int64) string {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(v)^(1<<63))
	return string(b[:])
}

func uintKey(v uint64) string {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], v)
	return string(b[:])
}

// render returns a key component as text.
func (t *table) render(i int, v string) string {
	switch t.keyKinds[i] {
	case keyInt:
		if len(v) == 8 {
			return strconv.FormatInt(int64(binary.BigEndian.Uint64([]byte(v))^(1<<63)), 10)
		}
	case keyUint:
		if len(v) == 8 {
			return strconv.FormatUint(binary.BigEndian.Uint64([]byte(v)), 10)
		}
	}
	return v
}

// parse turns the text of a key component into its canonical value.
func (t *table) parse(i int, s string) (string, error) {
	switch t.keyKinds[i] {
	case keyInt:
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return "", t.badKey(i, s, "an integer", err)
		}
		return intKey(v), nil
	case keyUint:
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return "", t.badKey(i, s, "an unsigned integer", err)
		}
		return uintKey(v), nil
	}
	return s, nil
}

// badKey is the error of text s that does not parse as integer key i:
// it names the key, its type and the text, and wraps strconv's reason
// (strconv.ErrSyntax or ErrRange) without strconv's own wording.
func (t *table) badKey(i int, s, want string, err error) error {
	fd := t.sch.Field(t.keys[i])
	var ne *strconv.NumError
	if errors.As(err, &ne) {
		err = ne.Err
	}
	what := "is not " + want
	if errors.Is(err, strconv.ErrRange) {
		what = "is outside the 64-bit range"
	}
	return fmt.Errorf("timeseries: key %q (%s): %q %s: %w: %w", fd.Name, fd.Type, s, what, err, read.ErrInvalidArgument)
}

// keyNames returns the key column names in key order.
func (t *table) keyNames() []string {
	out := make([]string, len(t.keys))
	for i, c := range t.keys {
		out[i] = t.sch.Field(c).Name
	}
	return out
}

// Path returns the tree-model device path of a key: its components as
// text, joined by '.' (a '.' or '\' inside a component is escaped with '\').
func (t *table) path(k Key) string {
	var sb strings.Builder
	for i, v := range k {
		if i > 0 {
			sb.WriteByte('.')
		}
		for _, r := range t.render(i, v) {
			if r == '.' || r == '\\' {
				sb.WriteByte('\\')
			}
			sb.WriteRune(r)
		}
	}
	return sb.String()
}

// splitPath splits a path at unescaped dots, unescaping the parts.
func splitPath(p string) []string {
	var parts []string
	var cur strings.Builder
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '\\' && i+1 < len(p):
			i++
			cur.WriteByte(p[i])
		case c == '.':
			parts = append(parts, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	return append(parts, cur.String())
}

// prefixHash is the bloom-filter hash of the first k components of a key:
// xxh3 of each component's length (uvarint) and bytes.
func prefixHash(k Key, n int) uint64 {
	var buf []byte
	for _, v := range k[:n] {
		buf = binary.AppendUvarint(buf, uint64(len(v)))
		buf = append(buf, v...)
	}
	return hashBytes(buf)
}

// floatBits and back, for the float64 values of statistics.
func f64(b uint64) float64 { return math.Float64frombits(b) }

// sharedPrefix returns the length of the common prefix of a and b.
func sharedPrefix(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}
