package shred

import (
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/schema"
)

// Projection is a top-level column pruned to some of the fields nested in
// it, as a reader returns it when asked for paths such as "s.a" and
// "s.b.c": structs keep only the fields on the paths (and everything below
// the last name of each), lists and maps keep their shape, a map keeps its
// keys, and a FlatMap keeps only the keys named. Reading it needs only the
// streams of the nodes it keeps.
type Projection struct {
	col  *schema.Node
	keep keepSet
}

// Project returns the projection of paths, which must all lie in one
// top-level column (a path naming the column itself keeps all of it).
func Project(s *schema.Schema, paths []string) (*Projection, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("shred: a projection needs at least one path")
	}
	p := &Projection{keep: keepSet{}}
	for _, path := range paths {
		col, keep, err := pathKeep(s, path)
		if err != nil {
			return nil, err
		}
		if p.col != nil && col != p.col {
			return nil, fmt.Errorf("shred: paths %q and %q lie in different columns", paths[0], path)
		}
		p.col = col
		for n := range keep {
			p.keep[n] = true
		}
	}
	return p, nil
}

// Field returns the Arrow field of the pruned column: the column's name,
// with a type holding only the kept fields.
func (p *Projection) Field() arrow.Field { return fieldOf(p.col, p.keep) }

// Streams returns the ids of the streams the pruned column is assembled
// from, ascending: the own streams of every kept node.
func (p *Projection) Streams() []int {
	var out []int
	for n := range p.keep {
		out = append(out, n.OwnStreams()...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Assemble builds rows of the pruned column from streams (those of
// Streams, each from its first entry); a stream absent from the map is
// read as absent, as AssembleRows does.
func (p *Projection) Assemble(s *schema.Schema, rows int, streams map[int]*Stream, mem memory.Allocator) (arrow.Array, error) {
	return assembleTop(s, p.col, p.keep, rows, streams, nil, mem)
}
