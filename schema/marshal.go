package schema

import (
	"encoding/binary"
	"fmt"

	"strata/encoding"
)

// FormatVersion is the version byte that starts a serialized schema.
const FormatVersion = 1

const flagNullable = 1 << 0

// Marshal returns the serialized schema (layout in docs/FORMAT.md, "Schema").
func (s *Schema) Marshal() []byte { return s.AppendMarshal(nil) }

// AppendMarshal appends the serialized schema to dst.
func (s *Schema) AppendMarshal(dst []byte) []byte {
	dst = append(dst, FormatVersion)
	dst = binary.AppendUvarint(dst, uint64(len(s.streams)))
	return appendNode(dst, s.Root, false)
}

func appendNode(dst []byte, n *Node, template bool) []byte {
	var flags byte
	if n.Nullable {
		flags |= flagNullable
	}
	dst = append(dst, byte(n.Kind), flags)
	dst = binary.AppendUvarint(dst, uint64(len(n.Name)))
	dst = append(dst, n.Name...)
	if !template && n.ownCount() > 0 {
		dst = binary.AppendUvarint(dst, uint64(n.first))
	}
	switch n.Kind {
	case Timestamp:
		dst = append(dst, byte(n.Unit))
		dst = binary.AppendUvarint(dst, uint64(len(n.TimeZone)))
		dst = append(dst, n.TimeZone...)
	case Time, Duration:
		dst = append(dst, byte(n.Unit))
	case Decimal:
		dst = append(dst, byte(n.Precision))
		dst = binary.AppendVarint(dst, int64(n.Scale))
	case Struct:
		dst = binary.AppendUvarint(dst, uint64(len(n.Children)))
		for _, c := range n.Children {
			dst = appendNode(dst, c, template)
		}
	case List, Map:
		for _, c := range n.Children {
			dst = appendNode(dst, c, template)
		}
	case FlatMap:
		dst = append(dst, byte(n.KeyKind))
		dst = appendNode(dst, n.Value, true)
		dst = binary.AppendUvarint(dst, uint64(len(n.Children)))
		for _, c := range n.Children {
			dst = appendNode(dst, c, template)
		}
	}
	return dst
}

// minNodeBytes is the smallest serialized node (kind, flags, empty name).
const minNodeBytes = 3

// Unmarshal parses a serialized schema. Malformed input returns an error
// wrapping encoding.ErrCorrupt, ErrUnsupported or ErrLimit; it never panics
// and allocates at most in proportion to len(data).
func Unmarshal(data []byte) (*Schema, error) {
	if len(data) < 1 {
		return nil, encoding.Corruptf("schema: empty")
	}
	if data[0] != FormatVersion {
		return nil, encoding.Unsupportedf("schema: version %d", data[0])
	}
	count, rest, err := encoding.Uvarint(data[1:], "schema: stream count")
	if err != nil {
		return nil, err
	}
	p := parser{buf: rest, streamCount: count}
	root, err := p.node(nil, 0, false)
	if err != nil {
		return nil, err
	}
	if len(p.buf) != 0 {
		return nil, encoding.Corruptf("schema: %d trailing bytes", len(p.buf))
	}
	if root.Kind != Struct || root.Nullable {
		return nil, encoding.Corruptf("schema: root must be a non-nullable struct, got %s", root.Kind)
	}
	if err := validate(root, nil, 0, false); err != nil {
		return nil, err
	}
	// Every id in [0, count) is owned by exactly one node.
	if uint64(p.total) != count {
		return nil, encoding.Corruptf("schema: stream count %d but nodes own %d streams", count, p.total)
	}
	seen := make([]bool, p.total)
	var dup error
	root.walk(func(n *Node) {
		if dup != nil || n.first < 0 {
			return
		}
		for i := range n.ownCount() {
			id := n.first + i
			if id >= len(seen) || seen[id] {
				dup = encoding.Corruptf("schema: node %q: stream id %d repeated or out of range", n.Path(), id)
				return
			}
			seen[id] = true
		}
	})
	if dup != nil {
		return nil, dup
	}
	s := &Schema{Root: root}
	s.rebuild(p.total)
	return s, nil
}

type parser struct {
	buf         []byte
	streamCount uint64
	total       int // streams owned by the nodes parsed so far
}

func (p *parser) byte(what string) (byte, error) {
	if len(p.buf) == 0 {
		return 0, encoding.Corruptf("schema: %s: truncated", what)
	}
	b := p.buf[0]
	p.buf = p.buf[1:]
	return b, nil
}

func (p *parser) str(what string) (string, error) {
	n, rest, err := encoding.Length(p.buf, len(p.buf), what)
	if err != nil {
		return "", fmt.Errorf("schema: %w", err)
	}
	if n > len(rest) {
		return "", encoding.Corruptf("schema: %s: length %d beyond %d remaining bytes", what, n, len(rest))
	}
	p.buf = rest[n:]
	return string(rest[:n]), nil
}

// node parses one node; parent is its parent (nil for the root and for
// templates), template is true inside a FlatMap value template.
func (p *parser) node(parent *Node, depth int, template bool) (*Node, error) {
	if depth > MaxDepth {
		return nil, encoding.Limitf("schema: deeper than %d", MaxDepth)
	}
	kind, err := p.byte("kind")
	if err != nil {
		return nil, err
	}
	flags, err := p.byte("flags")
	if err != nil {
		return nil, err
	}
	n := &Node{Kind: Kind(kind), Nullable: flags&flagNullable != 0, parent: parent, first: -1}
	if !n.Kind.Valid() {
		return nil, encoding.Unsupportedf("schema: kind %d", kind)
	}
	if flags&^flagNullable != 0 {
		return nil, encoding.Unsupportedf("schema: flags %#x", flags)
	}
	if n.Name, err = p.str("name"); err != nil {
		return nil, err
	}
	if k := n.ownCount(); !template && k > 0 {
		first, rest, err := encoding.Uvarint(p.buf, "schema: stream id")
		if err != nil {
			return nil, err
		}
		p.buf = rest
		if first >= p.streamCount || uint64(k) > p.streamCount-first {
			return nil, encoding.Corruptf("schema: node %q: stream ids %d+%d beyond count %d", n.Name, first, k, p.streamCount)
		}
		n.first = int(first)
		p.total += k
	}
	switch n.Kind {
	case Timestamp:
		u, err := p.byte("time unit")
		if err != nil {
			return nil, err
		}
		n.Unit = TimeUnit(u)
		if n.TimeZone, err = p.str("time zone"); err != nil {
			return nil, err
		}
	case Time, Duration:
		u, err := p.byte("time unit")
		if err != nil {
			return nil, err
		}
		n.Unit = TimeUnit(u)
	case Decimal:
		pr, err := p.byte("precision")
		if err != nil {
			return nil, err
		}
		n.Precision = int(pr)
		sc, k := binary.Varint(p.buf)
		if k <= 0 {
			return nil, encoding.Corruptf("schema: decimal scale: bad varint")
		}
		p.buf = p.buf[k:]
		if sc < -MaxDecimalPrecision || sc > MaxDecimalPrecision {
			return nil, encoding.Unsupportedf("schema: decimal scale %d", sc)
		}
		n.Scale = int(sc)
	case Struct:
		if err := p.children(n, -1, depth, template); err != nil {
			return nil, err
		}
	case List:
		if err := p.children(n, 1, depth, template); err != nil {
			return nil, err
		}
	case Map:
		if err := p.children(n, 2, depth, template); err != nil {
			return nil, err
		}
	case FlatMap:
		kk, err := p.byte("flatmap key kind")
		if err != nil {
			return nil, err
		}
		n.KeyKind = Kind(kk)
		if n.Value, err = p.node(nil, depth+1, true); err != nil {
			return nil, err
		}
		if err := p.children(n, -1, depth, template); err != nil {
			return nil, err
		}
	}
	return n, nil
}

// children parses want children of n, or a uvarint count of them when want < 0.
func (p *parser) children(n *Node, want int, depth int, template bool) error {
	count := want
	if want < 0 {
		c, rest, err := encoding.Length(p.buf, len(p.buf)/minNodeBytes, "schema: child count")
		if err != nil {
			return err
		}
		p.buf = rest
		count = c
	}
	n.Children = make([]*Node, 0, count)
	for range count {
		c, err := p.node(n, depth+1, template)
		if err != nil {
			return err
		}
		n.Children = append(n.Children, c)
	}
	return nil
}
