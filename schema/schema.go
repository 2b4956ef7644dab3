// Package schema holds Strata's logical schema: a tree of typed, possibly
// nullable nodes, and the mapping of that tree onto physical streams.
//
// Every node owns zero or more streams (see Role). Stream ids are assigned in
// pre-order when a schema is built with New; keys that a FlatMap discovers
// later (AddFlatMapKey) get new ids after all existing ones, so the id of a
// stream never changes once assigned. Ids are stored in the serialized form,
// so a reader sees exactly the ids the writer used.
//
// Slot domains: a top-level column has one slot per row. A struct's children
// have one slot per struct slot (a null struct gives its children null slots),
// so struct sub-fields stay row aligned. The element (list) or key and value
// (map) children have one slot per element: the sum of the lengths of the
// present lists. A FlatMap key's value subtree has one slot per map slot whose
// in-map flag for that key is true.
package schema

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"strata/encoding"
)

// Kind is a logical type. The numeric values are part of the file format.
type Kind uint8

// Logical kinds.
const (
	KindInvalid Kind = 0
	Bool        Kind = 1
	Int8        Kind = 2
	Int16       Kind = 3
	Int32       Kind = 4
	Int64       Kind = 5
	Uint8       Kind = 6
	Uint16      Kind = 7
	Uint32      Kind = 8
	Uint64      Kind = 9
	Float32     Kind = 10
	Float64     Kind = 11
	String      Kind = 12
	Binary      Kind = 13
	Date        Kind = 14 // days since 1970-01-01, int32
	Timestamp   Kind = 15 // int64 in Unit since the epoch, TimeZone
	Decimal     Kind = 16 // Precision, Scale; int64 when Precision <= 18, else 16-byte binary
	Struct      Kind = 17
	List        Kind = 18
	Map         Kind = 19
	FlatMap     Kind = 20
	Time        Kind = 21 // time of day: Unit since midnight; int32 for s and ms, int64 for us and ns
	Duration    Kind = 22 // elapsed time: int64 in Unit
	Null        Kind = 23 // every slot null (Arrow's null type); always nullable
	kindCount        = 24
)

var kindNames = [...]string{"invalid", "bool", "int8", "int16", "int32", "int64",
	"uint8", "uint16", "uint32", "uint64", "float32", "float64", "string", "binary",
	"date", "timestamp", "decimal", "struct", "list", "map", "flatmap", "time", "duration", "null"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Valid reports whether k is a known kind.
func (k Kind) Valid() bool { return k > KindInvalid && k < kindCount }

// IsLeaf reports whether k is a primitive kind stored in one values stream.
func (k Kind) IsLeaf() bool { return k >= Bool && k <= Decimal || k >= Time && k <= Null }

// IsInteger reports whether k is a signed or unsigned integer kind.
func (k Kind) IsInteger() bool { return k >= Int8 && k <= Uint64 }

// IsSigned reports whether k is a signed integer kind.
func (k Kind) IsSigned() bool { return k >= Int8 && k <= Int64 }

// MaxDecimal64Precision is the largest decimal precision stored as an int64
// unscaled value; larger precisions use 16-byte two's complement binary values.
const MaxDecimal64Precision = 18

// MaxDecimalPrecision is the largest decimal precision Strata stores.
const MaxDecimalPrecision = 38

// TimeUnit is the unit of a Timestamp, Time or Duration. The values match
// Arrow's.
type TimeUnit uint8

// Time units.
const (
	Second      TimeUnit = 0
	Millisecond TimeUnit = 1
	Microsecond TimeUnit = 2
	Nanosecond  TimeUnit = 3
)

func (u TimeUnit) String() string {
	switch u {
	case Second:
		return "s"
	case Millisecond:
		return "ms"
	case Microsecond:
		return "us"
	case Nanosecond:
		return "ns"
	}
	return fmt.Sprintf("unit(%d)", uint8(u))
}

// PerSecond is the number of units in a second.
func (u TimeUnit) PerSecond() int64 {
	return [...]int64{1, 1e3, 1e6, 1e9}[min(int(u), 3)]
}

// FormatTimeOfDay renders v units since midnight as HH:MM:SS, with as many
// fraction digits as the unit has where the fraction is not zero. A value
// outside one day is rendered as a duration.
func FormatTimeOfDay(v int64, u TimeUnit) string {
	per := u.PerSecond()
	if v < 0 || v/per >= 86400 {
		return FormatDuration(v, u)
	}
	sec, frac := v/per, v%per
	var b [18]byte // HH:MM:SS.fffffffff
	two := func(at int, x int64) { b[at], b[at+1] = byte('0'+x/10), byte('0'+x%10) }
	two(0, sec/3600)
	b[2] = ':'
	two(3, sec/60%60)
	b[5] = ':'
	two(6, sec%60)
	n := 8
	if frac != 0 {
		b[8] = '.'
		n = 9
		for d := per / 10; d > 0; d /= 10 { // as many digits as the unit has
			b[n] = byte('0' + frac/d%10)
			n++
		}
	}
	return string(b[:n])
}

// FormatDuration renders v units as Go's duration text ("1h30m0.5s"), or
// as a count of the unit where that overflows nanoseconds.
func FormatDuration(v int64, u TimeUnit) string {
	per := int64(1e9) / u.PerSecond()
	if v > math.MaxInt64/per || v < math.MinInt64/per {
		return strconv.FormatInt(v, 10) + u.String()
	}
	return time.Duration(v * per).String()
}

// Role says what a stream holds for its node.
type Role string

// Stream roles.
const (
	// RoleNulls: Bool per slot of a nullable struct/list/map/flatmap, true = present.
	RoleNulls Role = "nulls"
	// RoleLengths: Uint32 per slot of a list or map, 0 for a null slot.
	RoleLengths Role = "lengths"
	// RoleValues: one entry per slot of a leaf (null slots included; the
	// stream's validity marks them).
	RoleValues Role = "values"
	// RoleInMap: Bool per slot of a FlatMap, true where the key is present.
	// It belongs to the key's value node.
	RoleInMap Role = "inmap"
)

// Node is one node of the schema tree.
//
// Children: Struct: its fields. List: one child, the element. Map: two
// children, the key (never nullable) and the value. FlatMap: one child per
// key, whose Name is the key (decimal text for integer keys) and which is a
// copy of Value.
type Node struct {
	Name     string
	Kind     Kind
	Nullable bool
	Children []*Node

	Unit     TimeUnit // Timestamp, Time, Duration
	TimeZone string   // Timestamp; "" = no zone (naive)

	Precision int // Decimal: 1..38
	Scale     int // Decimal

	KeyKind Kind  // FlatMap: String or an integer kind
	Value   *Node // FlatMap: the value type every key gets (owns no streams)

	parent *Node
	first  int // first own stream id; -1 for nodes without streams or templates
}

// NewLeaf returns a primitive node. Use NewTimestamp and NewDecimal for those kinds.
func NewLeaf(name string, k Kind, nullable bool) *Node {
	return &Node{Name: name, Kind: k, Nullable: nullable, first: -1}
}

// NewTimestamp returns a Timestamp node.
func NewTimestamp(name string, unit TimeUnit, tz string, nullable bool) *Node {
	return &Node{Name: name, Kind: Timestamp, Nullable: nullable, Unit: unit, TimeZone: tz, first: -1}
}

// NewTime returns a Time node: a time of day in unit since midnight.
func NewTime(name string, unit TimeUnit, nullable bool) *Node {
	return &Node{Name: name, Kind: Time, Nullable: nullable, Unit: unit, first: -1}
}

// NewDuration returns a Duration node: an elapsed time in unit.
func NewDuration(name string, unit TimeUnit, nullable bool) *Node {
	return &Node{Name: name, Kind: Duration, Nullable: nullable, Unit: unit, first: -1}
}

// NewDecimal returns a Decimal node.
func NewDecimal(name string, precision, scale int, nullable bool) *Node {
	return &Node{Name: name, Kind: Decimal, Nullable: nullable, Precision: precision, Scale: scale, first: -1}
}

// NewStruct returns a Struct node with the given fields.
func NewStruct(name string, nullable bool, fields ...*Node) *Node {
	return &Node{Name: name, Kind: Struct, Nullable: nullable, Children: fields, first: -1}
}

// NewList returns a List node.
func NewList(name string, nullable bool, elem *Node) *Node {
	return &Node{Name: name, Kind: List, Nullable: nullable, Children: []*Node{elem}, first: -1}
}

// NewMap returns a Map node. The key must not be nullable.
func NewMap(name string, nullable bool, key, value *Node) *Node {
	return &Node{Name: name, Kind: Map, Nullable: nullable, Children: []*Node{key, value}, first: -1}
}

// NewFlatMap returns a FlatMap node with key kind keyKind (String or an
// integer kind), value type value and the predeclared keys.
func NewFlatMap(name string, nullable bool, keyKind Kind, value *Node, keys ...string) *Node {
	n := &Node{Name: name, Kind: FlatMap, Nullable: nullable, KeyKind: keyKind, Value: value, first: -1}
	for _, k := range keys {
		c := value.Clone()
		c.Name = k
		n.Children = append(n.Children, c)
	}
	return n
}

// Clone returns a deep copy of the subtree without stream ids or parent.
func (n *Node) Clone() *Node {
	c := *n
	c.parent = nil
	c.first = -1
	c.Children = nil
	if n.Children != nil {
		c.Children = make([]*Node, len(n.Children))
		for i, ch := range n.Children {
			c.Children[i] = ch.Clone()
			c.Children[i].parent = &c
		}
	}
	if n.Value != nil {
		c.Value = n.Value.Clone()
	}
	return &c
}

// Parent returns the parent node (nil for the root and for templates).
func (n *Node) Parent() *Node { return n.parent }

// IsFlatMapKey reports whether n is the value node of a FlatMap key.
func (n *Node) IsFlatMapKey() bool { return n.parent != nil && n.parent.Kind == FlatMap }

// PhysicalType is the encoding type of a leaf's values stream, or
// TypeInvalid for nested kinds.
func (n *Node) PhysicalType() encoding.Type {
	switch n.Kind {
	case Bool, Null:
		return encoding.Bool
	case Int8:
		return encoding.Int8
	case Int16:
		return encoding.Int16
	case Int32, Date:
		return encoding.Int32
	case Int64, Timestamp, Duration:
		return encoding.Int64
	case Time:
		if n.Unit <= Millisecond {
			return encoding.Int32
		}
		return encoding.Int64
	case Uint8:
		return encoding.Uint8
	case Uint16:
		return encoding.Uint16
	case Uint32:
		return encoding.Uint32
	case Uint64:
		return encoding.Uint64
	case Float32:
		return encoding.Float32
	case Float64:
		return encoding.Float64
	case String, Binary:
		return encoding.Binary
	case Decimal:
		if n.Precision <= MaxDecimal64Precision {
			return encoding.Int64
		}
		return encoding.Binary
	}
	return encoding.TypeInvalid
}

// ownRoles lists the roles of n's own streams in id order.
func (n *Node) ownRoles(dst []Role) []Role {
	if n.IsFlatMapKey() {
		dst = append(dst, RoleInMap)
	}
	if n.Kind.IsLeaf() {
		return append(dst, RoleValues)
	}
	if n.Nullable {
		dst = append(dst, RoleNulls)
	}
	if n.Kind == List || n.Kind == Map {
		dst = append(dst, RoleLengths)
	}
	return dst
}

func (n *Node) ownCount() int {
	var buf [3]Role
	return len(n.ownRoles(buf[:0]))
}

// StreamID returns the id of n's stream with role r, or -1 if n has none.
func (n *Node) StreamID(r Role) int {
	if n.first < 0 {
		return -1
	}
	var buf [3]Role
	for i, x := range n.ownRoles(buf[:0]) {
		if x == r {
			return n.first + i
		}
	}
	return -1
}

// OwnStreams returns the ids of n's own streams (not its children's).
func (n *Node) OwnStreams() []int {
	var out []int
	if n.first < 0 {
		return out
	}
	for i := range n.ownCount() {
		out = append(out, n.first+i)
	}
	return out
}

// SubtreeStreams returns the ids of all streams of n's subtree, ascending.
func (n *Node) SubtreeStreams() []int {
	var out []int
	n.walk(func(x *Node) { out = append(out, x.OwnStreams()...) })
	slices.Sort(out)
	return out
}

// walk visits the subtree in pre-order (not FlatMap templates).
func (n *Node) walk(f func(*Node)) {
	f(n)
	for _, c := range n.Children {
		c.walk(f)
	}
}

// TypeString is a compact description of the node's type, e.g.
// "list<struct<a:int32,b:string?>>" ('?' marks nullable children).
func (n *Node) TypeString() string {
	var b strings.Builder
	n.typeString(&b)
	return b.String()
}

func (n *Node) typeString(b *strings.Builder) {
	switch n.Kind {
	case Timestamp:
		fmt.Fprintf(b, "timestamp[%s", n.Unit)
		if n.TimeZone != "" {
			fmt.Fprintf(b, ",%s", n.TimeZone)
		}
		b.WriteByte(']')
	case Time, Duration:
		fmt.Fprintf(b, "%s[%s]", n.Kind, n.Unit)
	case Decimal:
		fmt.Fprintf(b, "decimal(%d,%d)", n.Precision, n.Scale)
	case Struct:
		b.WriteString("struct<")
		for i, c := range n.Children {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(c.Name)
			b.WriteByte(':')
			c.typeString(b)
			if c.Nullable {
				b.WriteByte('?')
			}
		}
		b.WriteByte('>')
	case List, Map:
		b.WriteString(n.Kind.String())
		b.WriteByte('<')
		for i, c := range n.Children {
			if i > 0 {
				b.WriteByte(',')
			}
			c.typeString(b)
			if c.Nullable {
				b.WriteByte('?')
			}
		}
		b.WriteByte('>')
	case FlatMap:
		fmt.Fprintf(b, "flatmap<%s,", n.KeyKind)
		if n.Value != nil {
			n.Value.typeString(b)
			if n.Value.Nullable {
				b.WriteByte('?')
			}
		}
		fmt.Fprintf(b, ">[%d keys]", len(n.Children))
	default:
		b.WriteString(n.Kind.String())
	}
}

// StreamInfo describes one stream.
type StreamInfo struct {
	ID   int
	Node *Node
	Role Role
	Type encoding.Type
}

// Schema is a validated schema tree whose nodes carry stream ids.
// Root is a non-nullable struct whose children are the top-level columns.
// Do not edit the tree directly after New; use AddFlatMapKey.
type Schema struct {
	Root    *Node
	streams []StreamInfo
}

// MaxDepth bounds the nesting depth of a schema tree.
const MaxDepth = 64

// New validates root, links parents and assigns stream ids in pre-order.
// Any stream ids root already carries are replaced.
func New(root *Node) (*Schema, error) {
	if root == nil {
		return nil, fmt.Errorf("schema: nil root")
	}
	if root.Kind != Struct || root.Nullable {
		return nil, fmt.Errorf("schema: root must be a non-nullable struct, got %s", root.Kind)
	}
	if err := validate(root, nil, 0, false); err != nil {
		return nil, err
	}
	s := &Schema{Root: root}
	next := 0
	root.walk(func(n *Node) {
		if n.ownCount() > 0 {
			n.first = next
			next += n.ownCount()
		} else {
			n.first = -1
		}
	})
	s.rebuild(next)
	return s, nil
}

// rebuild recomputes the stream table from the ids carried by the nodes.
func (s *Schema) rebuild(count int) {
	s.streams = make([]StreamInfo, count)
	s.Root.walk(func(n *Node) {
		if n.first < 0 {
			return
		}
		var buf [3]Role
		for i, r := range n.ownRoles(buf[:0]) {
			id := n.first + i
			t := encoding.Bool
			switch r {
			case RoleLengths:
				t = encoding.Uint32
			case RoleValues:
				t = n.PhysicalType()
			}
			s.streams[id] = StreamInfo{ID: id, Node: n, Role: r, Type: t}
		}
	})
}

// validate checks a subtree and links parents. template is true inside a
// FlatMap value template.
func validate(n, parent *Node, depth int, template bool) error {
	if n == nil {
		return fmt.Errorf("schema: nil node under %q", nameOf(parent))
	}
	if depth > MaxDepth {
		return encoding.Limitf("schema: deeper than %d", MaxDepth)
	}
	n.parent = parent
	if template {
		n.first = -1
	}
	where := func() string { return nameOf(n) }
	switch {
	case !n.Kind.Valid():
		return encoding.Unsupportedf("schema: node %q: kind %d", where(), uint8(n.Kind))
	case n.Kind.IsLeaf() && len(n.Children) != 0:
		return encoding.Corruptf("schema: leaf %q has children", where())
	}
	switch n.Kind {
	case Null:
		if !n.Nullable {
			return encoding.Corruptf("schema: null-type node %q is not nullable", where())
		}
	case Timestamp, Time, Duration:
		if n.Unit > Nanosecond {
			return encoding.Unsupportedf("schema: node %q: time unit %d", where(), uint8(n.Unit))
		}
	case Decimal:
		if n.Precision < 1 || n.Precision > MaxDecimalPrecision {
			return encoding.Unsupportedf("schema: node %q: decimal precision %d", where(), n.Precision)
		}
		if n.Scale < -MaxDecimalPrecision || n.Scale > MaxDecimalPrecision {
			return encoding.Unsupportedf("schema: node %q: decimal scale %d", where(), n.Scale)
		}
	case Struct:
		seen := make(map[string]bool, len(n.Children))
		for _, c := range n.Children {
			if c != nil && seen[c.Name] {
				return encoding.Corruptf("schema: struct %q: duplicate field %q", where(), c.Name)
			}
			if c != nil {
				seen[c.Name] = true
			}
		}
	case List:
		if len(n.Children) != 1 {
			return encoding.Corruptf("schema: list %q must have 1 child, has %d", where(), len(n.Children))
		}
	case Map:
		if len(n.Children) != 2 {
			return encoding.Corruptf("schema: map %q must have 2 children, has %d", where(), len(n.Children))
		}
		if n.Children[0] != nil && n.Children[0].Nullable {
			return encoding.Corruptf("schema: map %q: key must not be nullable", where())
		}
	case FlatMap:
		if n.KeyKind != String && !n.KeyKind.IsInteger() {
			return encoding.Unsupportedf("schema: flatmap %q: key kind %s", where(), n.KeyKind)
		}
		if n.Value == nil {
			return encoding.Corruptf("schema: flatmap %q: no value type", where())
		}
		if template && len(n.Children) > 0 {
			return encoding.Corruptf("schema: flatmap %q inside a flatmap value type has keys", where())
		}
		if err := validate(n.Value, nil, depth+1, true); err != nil {
			return err
		}
		seen := make(map[string]bool, len(n.Children))
		for _, c := range n.Children {
			if c == nil {
				return fmt.Errorf("schema: nil key node under %q", where())
			}
			if err := CheckKey(n.KeyKind, c.Name); err != nil {
				return fmt.Errorf("schema: flatmap %q: %w", where(), err)
			}
			if seen[c.Name] {
				return encoding.Corruptf("schema: flatmap %q: duplicate key %q", where(), c.Name)
			}
			seen[c.Name] = true
			if !sameType(c, n.Value) {
				return encoding.Corruptf("schema: flatmap %q: key %q has type %s, want %s", where(), c.Name, c.TypeString(), n.Value.TypeString())
			}
		}
	}
	if n.Kind != FlatMap && n.Value != nil {
		return encoding.Corruptf("schema: node %q: value template on a %s", where(), n.Kind)
	}
	for _, c := range n.Children {
		if err := validate(c, n, depth+1, template); err != nil {
			return err
		}
	}
	return nil
}

// sameType reports whether a and b have the same type (names of struct
// fields included, FlatMap keys excluded).
func sameType(a, b *Node) bool {
	if a.Kind != b.Kind || a.Nullable != b.Nullable {
		return false
	}
	switch a.Kind {
	case Timestamp:
		return a.Unit == b.Unit && a.TimeZone == b.TimeZone
	case Time, Duration:
		return a.Unit == b.Unit
	case Decimal:
		return a.Precision == b.Precision && a.Scale == b.Scale
	case FlatMap:
		return a.KeyKind == b.KeyKind && a.Value != nil && b.Value != nil && sameType(a.Value, b.Value)
	case Struct, List, Map:
		if len(a.Children) != len(b.Children) {
			return false
		}
		for i := range a.Children {
			if a.Children[i] == nil || b.Children[i] == nil {
				return false
			}
			if a.Kind == Struct && a.Children[i].Name != b.Children[i].Name {
				return false
			}
			if !sameType(a.Children[i], b.Children[i]) {
				return false
			}
		}
	}
	return true
}

// CheckKey checks that key is the canonical text of a FlatMap key of kind k:
// any string for String, decimal text without leading zeros or '+' within the
// kind's range for integer kinds.
func CheckKey(k Kind, key string) error {
	if k == String {
		return nil
	}
	bits := 8 << ((k - Int8) % 4)
	var canon string
	if k.IsInteger() && k <= Int64 {
		v, err := strconv.ParseInt(key, 10, bits)
		if err != nil {
			return encoding.Corruptf("key %q is not a %s", key, k)
		}
		canon = strconv.FormatInt(v, 10)
	} else if k.IsInteger() {
		v, err := strconv.ParseUint(key, 10, bits)
		if err != nil {
			return encoding.Corruptf("key %q is not a %s", key, k)
		}
		canon = strconv.FormatUint(v, 10)
	} else {
		return encoding.Unsupportedf("key kind %s", k)
	}
	if canon != key {
		return encoding.Corruptf("key %q is not canonical (%q)", key, canon)
	}
	return nil
}

func nameOf(n *Node) string {
	if n == nil {
		return ""
	}
	var parts []string
	for x := n; x != nil && x.parent != nil; x = x.parent {
		parts = append(parts, x.Name)
	}
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	if len(parts) == 0 {
		return n.Name
	}
	return strings.Join(parts, ".")
}

// Path returns the dotted path of n from the root ("a.b.c").
func (n *Node) Path() string { return nameOf(n) }

// NumStreams returns the number of streams.
func (s *Schema) NumStreams() int { return len(s.streams) }

// Streams returns every stream, indexed by id. The slice is shared; do not modify it.
func (s *Schema) Streams() []StreamInfo { return s.streams }

// Stream returns stream id's description.
func (s *Schema) Stream(id int) StreamInfo { return s.streams[id] }

// NumColumns returns the number of top-level columns.
func (s *Schema) NumColumns() int { return len(s.Root.Children) }

// Column returns top-level column i.
func (s *Schema) Column(i int) *Node { return s.Root.Children[i] }

// ColumnIndex returns the index of the top-level column named name, or -1.
func (s *Schema) ColumnIndex(name string) int {
	for i, c := range s.Root.Children {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// ColumnStreams returns the ids of every stream of top-level column col, ascending.
func (s *Schema) ColumnStreams(col int) []int {
	if col < 0 || col >= len(s.Root.Children) {
		return nil
	}
	return s.Root.Children[col].SubtreeStreams()
}

// PathStreams returns the streams needed to read node n: all streams of its
// subtree plus the structural streams (nulls, lengths, in-map) of its
// ancestors, ascending.
func (s *Schema) PathStreams(n *Node) []int {
	out := n.SubtreeStreams()
	for a := n.parent; a != nil; a = a.parent {
		for _, r := range [...]Role{RoleInMap, RoleNulls, RoleLengths} {
			if id := a.StreamID(r); id >= 0 {
				out = append(out, id)
			}
		}
	}
	slices.Sort(out)
	return out
}

// AddFlatMapKey adds key to FlatMap node fm (which must belong to s) and
// returns the key's value node. Its streams get ids after every existing
// stream, in pre-order, so existing ids never change.
func (s *Schema) AddFlatMapKey(fm *Node, key string) (*Node, error) {
	if fm == nil || fm.Kind != FlatMap || fm.Value == nil {
		return nil, fmt.Errorf("schema: AddFlatMapKey on a non-flatmap node")
	}
	if !s.owns(fm) {
		return nil, fmt.Errorf("schema: AddFlatMapKey: node %q is not part of this schema", fm.Name)
	}
	if err := CheckKey(fm.KeyKind, key); err != nil {
		return nil, fmt.Errorf("schema: flatmap %q: %w", fm.Path(), err)
	}
	for _, c := range fm.Children {
		if c.Name == key {
			return nil, fmt.Errorf("schema: flatmap %q: key %q already exists", fm.Path(), key)
		}
	}
	c := fm.Value.Clone()
	c.Name = key
	if err := validate(c, fm, 0, false); err != nil {
		return nil, err
	}
	fm.Children = append(fm.Children, c)
	next := len(s.streams)
	c.walk(func(n *Node) {
		if k := n.ownCount(); k > 0 {
			n.first = next
			next += k
		}
	})
	s.rebuild(next)
	return c, nil
}

// owns reports whether n is reachable from s.Root through parent links.
func (s *Schema) owns(n *Node) bool {
	for x := n; x != nil; x = x.parent {
		if x == s.Root {
			return true
		}
	}
	return false
}

// String renders the schema one node per line with stream ids.
func (s *Schema) String() string {
	var b strings.Builder
	var rec func(n *Node, indent int)
	rec = func(n *Node, indent int) {
		b.WriteString(strings.Repeat("  ", indent))
		name := n.Name
		if n == s.Root {
			name = "<root>"
		}
		fmt.Fprintf(&b, "%s: %s", name, n.Kind)
		switch n.Kind {
		case Timestamp, Decimal, Time, Duration:
			fmt.Fprintf(&b, " %s", n.TypeString())
		case FlatMap:
			fmt.Fprintf(&b, "<%s, %s>", n.KeyKind, n.Value.TypeString())
		}
		if n.Nullable {
			b.WriteString(" nullable")
		}
		var buf [3]Role
		for i, r := range n.ownRoles(buf[:0]) {
			if n.first >= 0 {
				fmt.Fprintf(&b, " %s=#%d", r, n.first+i)
			}
		}
		b.WriteByte('\n')
		for _, c := range n.Children {
			rec(c, indent+1)
		}
	}
	rec(s.Root, 0)
	return b.String()
}
