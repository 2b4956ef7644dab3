package schema

import (
	"fmt"
	"strings"
)

// Find returns the node at a dotted path such as "a.b.c". Segments name
// struct fields, FlatMap keys, "key"/"value" of a map, and the element of a
// list (by its name or "element"). A name may itself hold dots (a column
// "a.b", as flattened JSON has): at each level the longest run of segments
// that names a child and leads to a whole match is taken, so "a.b" is the
// column "a.b" when there is one, else field b of a. Lookup takes names
// as they are.
func (s *Schema) Find(path string) (*Node, error) {
	if path == "" {
		return nil, fmt.Errorf("schema: empty path")
	}
	parts := strings.Split(path, ".")
	if len(parts) <= maxResolveParts {
		if n := s.Root.resolveParts(parts, nil); n != nil {
			return n, nil
		}
	}
	return s.Lookup(parts...)
}

// FindParts is Find for a path given as its parts, as a filter writes them
// (filter.PathPart): a part marked whole (written quoted: "a"."b", "a.b")
// is one name as it is, dots included, and is never joined with its
// neighbours, while a run of other parts resolves as Find resolves it, the
// longest name first. So "a"."b" is field b of a even when the schema also
// has a column "a.b", and "a.b" is that column. A path that matches nothing
// so falls back to Find of the parts joined by dots ("a.b" is field b of a
// in a schema without a column "a.b"). whole may be shorter than parts
// (missing entries are false).
func (s *Schema) FindParts(parts []string, whole []bool) (*Node, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("schema: empty path")
	}
	if len(parts) <= maxResolveParts {
		if n := s.Root.resolveParts(parts, whole); n != nil {
			return n, nil
		}
	}
	return s.Find(strings.Join(parts, "."))
}

// resolveParts returns the node parts lead to from n, a run of parts
// tried as one dotted name before shorter runs (the longest name first);
// parts marked whole are never joined with another.
func (n *Node) resolveParts(parts []string, whole []bool) *Node {
	if len(parts) == 0 {
		return n
	}
	isWhole := func(i int) bool { return i < len(whole) && whole[i] }
	run := 1
	if !isWhole(0) {
		for run < len(parts) && !isWhole(run) {
			run++
		}
	}
	for k := run; k >= 1; k-- {
		name := parts[0]
		if k > 1 {
			name = strings.Join(parts[:k], ".")
		}
		if c := n.Child(name); c != nil {
			var rest []bool
			if k < len(whole) {
				rest = whole[k:]
			}
			if r := c.resolveParts(parts[k:], rest); r != nil {
				return r
			}
		}
	}
	return nil
}

// maxResolveParts bounds the segments Find matches against dotted names
// (each level tries every run, so the work grows quickly with them);
// longer paths are followed a segment a name.
const maxResolveParts = 16

// Lookup returns the node reached by following names from the root.
func (s *Schema) Lookup(names ...string) (*Node, error) {
	n := s.Root
	for i, name := range names {
		c := n.Child(name)
		if c == nil {
			return nil, fmt.Errorf("schema: path %q: no %q in %s %q", strings.Join(names, "."), name, n.Kind, strings.Join(names[:i], "."))
		}
		n = c
	}
	return n, nil
}

// Child returns the child of n named name, or nil. A list's element also
// answers to "element"; a map's children are "key" and "value".
func (n *Node) Child(name string) *Node {
	switch n.Kind {
	case List:
		if c := n.Children[0]; c.Name == name || name == "element" {
			return c
		}
		return nil
	case Map:
		switch name {
		case "key":
			return n.Children[0]
		case "value":
			return n.Children[1]
		}
	}
	for _, c := range n.Children {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// ColumnOf returns the top-level column that contains n (n itself for a
// column) and its index, or nil, -1 for the root or a node of another schema.
func (s *Schema) ColumnOf(n *Node) (*Node, int) {
	for x := n; x != nil; x = x.parent {
		if x.parent == s.Root {
			for i, c := range s.Root.Children {
				if c == x {
					return x, i
				}
			}
		}
	}
	return nil, -1
}
