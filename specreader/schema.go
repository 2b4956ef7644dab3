package specreader

import (
	"fmt"
	"strconv"

	"strata/specreader/node"
)

// Kind is a logical kind id (FORMAT.md, "Schema" §1).
type Kind uint8

// Logical kinds.
const (
	KBool      Kind = 1
	KInt8      Kind = 2
	KInt16     Kind = 3
	KInt32     Kind = 4
	KInt64     Kind = 5
	KUint8     Kind = 6
	KUint16    Kind = 7
	KUint32    Kind = 8
	KUint64    Kind = 9
	KFloat32   Kind = 10
	KFloat64   Kind = 11
	KString    Kind = 12
	KBinary    Kind = 13
	KDate      Kind = 14
	KTimestamp Kind = 15
	KDecimal   Kind = 16
	KStruct    Kind = 17
	KList      Kind = 18
	KMap       Kind = 19
	KFlatMap   Kind = 20
	KTime      Kind = 21
	KDuration  Kind = 22
	KNull      Kind = 23
)

// leaf reports whether the kind owns a values stream (kinds 1..16, 21..23).
func (k Kind) leaf() bool { return (k >= KBool && k <= KDecimal) || (k >= KTime && k <= KNull) }

// Node is a node of the logical schema tree with its stream ids (-1 where
// the node does not own that stream).
type Node struct {
	Kind     Kind
	Nullable bool
	Name     string

	// Own streams (FORMAT.md, Schema §2), -1 when not owned.
	InMap, Nulls, Lengths, Values int

	Unit      uint8  // timestamp, time, duration: 0 s, 1 ms, 2 µs, 3 ns
	TimeZone  string // timestamp
	Precision int    // decimal
	Scale     int    // decimal

	Fields   []*Node // struct
	Elem     *Node   // list
	Key, Val *Node   // map
	KeyKind  Kind    // flatmap: string or an integer kind
	Template *Node   // flatmap: the value type of every key
	Keys     []*Node // flatmap keys, in schema order; Name is the key
}

// Schema is the parsed "schema" section.
type Schema struct {
	Streams int
	Root    *Node
	// Types holds the physical type of every stream id.
	Types []node.Type
}

const maxDepth = 64

// ParseSchema parses a serialized schema (FORMAT.md, Schema §3) and checks
// what the document lists: version, kinds, flags, units, key kinds,
// precision/scale, trailing bytes, a non-nullable struct root, depth,
// duplicate names and keys, canonical integer keys, keys matching their
// template, non-nullable map keys and the stream id permutation.
func ParseSchema(b []byte) (*Schema, error) {
	r := &reader{b: b, what: "schema"}
	if v := r.u8(); r.err == nil && v != 1 {
		return nil, fmt.Errorf("schema version %d: %w", v, ErrUnsupported)
	}
	// Every stream is owned by a node and a node of at least 3 bytes owns
	// at most 4 streams (inmap, nulls, lengths and values never all at
	// once), so more streams than bytes left is corrupt.
	n := r.count(maxStreams, 0)
	if r.err != nil {
		return nil, r.err
	}
	if n > len(r.b) {
		return nil, fmt.Errorf("schema: %d streams in %d bytes: %w", n, len(r.b), ErrCorrupt)
	}
	p := &schemaParser{r: r, types: make([]node.Type, n), seen: make([]bool, n)}
	root, err := p.node(0, false, false)
	if err != nil {
		return nil, err
	}
	if len(r.b) != 0 {
		return nil, fmt.Errorf("schema: %d trailing bytes: %w", len(r.b), ErrCorrupt)
	}
	if root.Kind != KStruct || root.Nullable {
		return nil, fmt.Errorf("schema: root is kind %d nullable=%v, not a non-nullable struct: %w", root.Kind, root.Nullable, ErrCorrupt)
	}
	for id, ok := range p.seen {
		if !ok {
			return nil, fmt.Errorf("schema: stream id %d of %d is owned by no node: %w", id, n, ErrCorrupt)
		}
	}
	return &Schema{Streams: n, Root: root, Types: p.types}, nil
}

type schemaParser struct {
	r     *reader
	types []node.Type
	seen  []bool
}

// physical returns the physical type of a leaf's values stream (§1).
func physical(n *Node) node.Type {
	switch n.Kind {
	case KBool, KNull:
		return node.Bool
	case KInt8:
		return node.Int8
	case KInt16:
		return node.Int16
	case KInt32, KDate:
		return node.Int32
	case KInt64, KTimestamp, KDuration:
		return node.Int64
	case KUint8:
		return node.Uint8
	case KUint16:
		return node.Uint16
	case KUint32:
		return node.Uint32
	case KUint64:
		return node.Uint64
	case KFloat32:
		return node.Float32
	case KFloat64:
		return node.Float64
	case KString, KBinary:
		return node.Binary
	case KDecimal:
		if n.Precision <= 18 {
			return node.Int64
		}
		return node.Binary
	case KTime:
		if n.Unit <= 1 {
			return node.Int32
		}
		return node.Int64
	}
	return 0
}

// node parses one node. isKey: the node is a FlatMap key (owns an inmap
// stream); tmpl: inside a template (no stream ids).
func (p *schemaParser) node(depth int, isKey, tmpl bool) (*Node, error) {
	r := p.r
	if depth > maxDepth {
		return nil, fmt.Errorf("schema: nesting deeper than %d: %w", maxDepth, ErrLimit)
	}
	kind := Kind(r.u8())
	flags := r.u8()
	name := r.str()
	if r.err != nil {
		return nil, r.err
	}
	if kind < KBool || kind > KNull {
		return nil, fmt.Errorf("schema: node %q has unknown kind %d: %w", name, kind, ErrUnsupported)
	}
	if flags&^1 != 0 {
		return nil, fmt.Errorf("schema: node %q has flags %#x: %w", name, flags, ErrUnsupported)
	}
	n := &Node{Kind: kind, Nullable: flags&1 != 0, Name: name, InMap: -1, Nulls: -1, Lengths: -1, Values: -1}
	own := 0
	if isKey {
		own++
	}
	if n.Nullable && (kind == KStruct || kind == KList || kind == KMap || kind == KFlatMap) {
		own++
	}
	if kind == KList || kind == KMap {
		own++
	}
	if kind.leaf() {
		own++
	}
	if own > 0 && !tmpl {
		first := r.uvarint()
		if r.err != nil {
			return nil, r.err
		}
		if first+uint64(own) > uint64(len(p.types)) {
			return nil, fmt.Errorf("schema: node %q streams %d..%d beyond stream_count %d: %w", name, first, first+uint64(own)-1, len(p.types), ErrCorrupt)
		}
		id := int(first)
		if isKey {
			n.InMap = id
			id++
		}
		if n.Nullable && (kind == KStruct || kind == KList || kind == KMap || kind == KFlatMap) {
			n.Nulls = id
			id++
		}
		if kind == KList || kind == KMap {
			n.Lengths = id
			id++
		}
		if kind.leaf() {
			n.Values = id
		}
	}
	// Kind fields.
	switch kind {
	case KTimestamp:
		n.Unit = r.u8()
		n.TimeZone = r.str()
	case KTime, KDuration:
		n.Unit = r.u8()
	case KDecimal:
		n.Precision = int(r.u8())
		sc := r.varint()
		if r.err == nil && (n.Precision < 1 || n.Precision > 38 || sc < -38 || sc > 38) {
			return nil, fmt.Errorf("schema: decimal %q precision %d scale %d: %w", name, n.Precision, sc, ErrCorrupt)
		}
		n.Scale = int(sc)
	case KStruct:
		nf := r.count(len(r.b), 3)
		names := map[string]bool{}
		for i := 0; i < nf && r.err == nil; i++ {
			c, err := p.node(depth+1, false, tmpl)
			if err != nil {
				return nil, err
			}
			if names[c.Name] {
				return nil, fmt.Errorf("schema: struct %q has two fields named %q: %w", name, c.Name, ErrCorrupt)
			}
			names[c.Name] = true
			n.Fields = append(n.Fields, c)
		}
	case KList:
		c, err := p.node(depth+1, false, tmpl)
		if err != nil {
			return nil, err
		}
		n.Elem = c
	case KMap:
		k, err := p.node(depth+1, false, tmpl)
		if err != nil {
			return nil, err
		}
		if k.Nullable {
			return nil, fmt.Errorf("schema: map %q has a nullable key: %w", name, ErrCorrupt)
		}
		v, err := p.node(depth+1, false, tmpl)
		if err != nil {
			return nil, err
		}
		n.Key, n.Val = k, v
	case KFlatMap:
		n.KeyKind = Kind(r.u8())
		if r.err == nil && n.KeyKind != KString && (n.KeyKind < KInt8 || n.KeyKind > KUint64) {
			return nil, fmt.Errorf("schema: flatmap %q key kind %d: %w", name, n.KeyKind, ErrUnsupported)
		}
		t, err := p.node(depth+1, false, true)
		if err != nil {
			return nil, err
		}
		n.Template = t
		nk := r.count(len(r.b), 3)
		if tmpl && nk != 0 {
			return nil, fmt.Errorf("schema: flatmap %q inside a template has %d keys: %w", name, nk, ErrCorrupt)
		}
		keys := map[string]bool{}
		for i := 0; i < nk && r.err == nil; i++ {
			k, err := p.node(depth+1, true, tmpl)
			if err != nil {
				return nil, err
			}
			if keys[k.Name] {
				return nil, fmt.Errorf("schema: flatmap %q has key %q twice: %w", name, k.Name, ErrCorrupt)
			}
			keys[k.Name] = true
			if err := checkKey(n.KeyKind, k.Name); err != nil {
				return nil, fmt.Errorf("schema: flatmap %q: %w", name, err)
			}
			if !sameType(k, t) {
				return nil, fmt.Errorf("schema: flatmap %q key %q differs from the template: %w", name, k.Name, ErrCorrupt)
			}
			n.Keys = append(n.Keys, k)
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	if (kind == KTimestamp || kind == KTime || kind == KDuration) && n.Unit > 3 {
		return nil, fmt.Errorf("schema: node %q time unit %d: %w", name, n.Unit, ErrUnsupported)
	}
	if kind == KNull && !n.Nullable {
		return nil, fmt.Errorf("schema: null node %q is not nullable: %w", name, ErrCorrupt)
	}
	// Record stream ownership and types.
	for _, sid := range [...]struct {
		id int
		t  node.Type
	}{{n.InMap, node.Bool}, {n.Nulls, node.Bool}, {n.Lengths, node.Uint32}, {n.Values, physical(n)}} {
		if sid.id < 0 {
			continue
		}
		if p.seen[sid.id] {
			return nil, fmt.Errorf("schema: stream id %d owned twice (node %q): %w", sid.id, name, ErrCorrupt)
		}
		p.seen[sid.id] = true
		p.types[sid.id] = sid.t
	}
	return n, nil
}

// checkKey checks a FlatMap key name against its key kind: integer keys
// are canonical decimal text within the kind's range (Schema §1).
func checkKey(k Kind, name string) error {
	if k == KString {
		return nil
	}
	bits := map[Kind]int{KInt8: 8, KInt16: 16, KInt32: 32, KInt64: 64, KUint8: 8, KUint16: 16, KUint32: 32, KUint64: 64}[k]
	var canon string
	if k >= KUint8 {
		v, err := strconv.ParseUint(name, 10, bits)
		if err != nil {
			return fmt.Errorf("key %q is not a uint%d: %w", name, bits, ErrCorrupt)
		}
		canon = strconv.FormatUint(v, 10)
	} else {
		v, err := strconv.ParseInt(name, 10, bits)
		if err != nil {
			return fmt.Errorf("key %q is not an int%d: %w", name, bits, ErrCorrupt)
		}
		canon = strconv.FormatInt(v, 10)
	}
	if canon != name {
		return fmt.Errorf("key %q is not canonical (%q): %w", name, canon, ErrCorrupt)
	}
	return nil
}

// sameType compares two nodes' types: kind, nullability, kind fields and
// children (names of children included), but not the nodes' own names.
func sameType(a, b *Node) bool {
	if a.Kind != b.Kind || a.Nullable != b.Nullable || a.Unit != b.Unit || a.TimeZone != b.TimeZone ||
		a.Precision != b.Precision || a.Scale != b.Scale || a.KeyKind != b.KeyKind ||
		len(a.Fields) != len(b.Fields) {
		return false
	}
	for i := range a.Fields {
		if a.Fields[i].Name != b.Fields[i].Name || !sameType(a.Fields[i], b.Fields[i]) {
			return false
		}
	}
	pairs := [][2]*Node{{a.Elem, b.Elem}, {a.Key, b.Key}, {a.Val, b.Val}, {a.Template, b.Template}}
	for _, p := range pairs {
		if (p[0] == nil) != (p[1] == nil) {
			return false
		}
		if p[0] != nil && (p[0].Name != p[1].Name || !sameType(p[0], p[1])) {
			return false
		}
	}
	return true
}

// loadSchema parses the "schema" section.
func (f *File) loadSchema() error {
	b, ok, err := f.Section("schema")
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("no schema section: %w", ErrCorrupt)
	}
	s, err := ParseSchema(b)
	if err != nil {
		return err
	}
	f.Schema = s
	f.rowAligned = make([]bool, s.Streams)
	var mark func(n *Node)
	mark = func(n *Node) {
		for _, id := range []int{n.Nulls, n.Values} {
			if id >= 0 {
				f.rowAligned[id] = true
			}
		}
		if n.Kind == KStruct {
			for _, c := range n.Fields {
				mark(c)
			}
		}
	}
	for _, c := range s.Root.Fields {
		mark(c)
	}
	return nil
}

// loadProperties parses the "properties" section, a string map (FORMAT.md,
// "Sections written by the writer"), when present.
func (f *File) loadProperties() error {
	b, ok, err := f.Section("properties")
	if err != nil || !ok {
		return err
	}
	r := &reader{b: b, what: "properties"}
	n := r.count(1<<20, 2)
	m := make(map[string]string, n)
	prev := ""
	for i := 0; i < n && r.err == nil; i++ {
		k, v := r.str(), r.str()
		if r.err == nil && i > 0 && k <= prev {
			return fmt.Errorf("properties: keys not ascending at %q: %w", k, ErrCorrupt)
		}
		prev = k
		m[k] = v
	}
	if r.err != nil {
		return r.err
	}
	if len(r.b) != 0 {
		return fmt.Errorf("properties: %d trailing bytes: %w", len(r.b), ErrCorrupt)
	}
	f.Properties = m
	return nil
}
