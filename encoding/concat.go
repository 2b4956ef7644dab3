package encoding

import "fmt"

// Concat returns a decoder of n rows of the concatenation of pieces, from
// row skip of the concatenation on. Readers build one from the chunks of a
// reference stream that a Correlated chunk covers (Resolver.Reference).
// Pieces must be integer decoders of one type, freshly opened: Concat owns
// their cursors. Null values of the pieces read as 0.
//
// The decoder implements Reader[T] and RefReader[T] for the pieces' type.
func Concat(pieces []Decoder, skip, n int) (Decoder, error) {
	if len(pieces) == 0 {
		return nil, Corruptf("concat of no decoders")
	}
	t := pieces[0].Type()
	total := 0
	for _, p := range pieces {
		if p.Type() != t {
			return nil, Corruptf("concat of %v and %v decoders", t, p.Type())
		}
		total += p.Len()
	}
	if skip < 0 || n < 0 || skip > total || n > total-skip {
		return nil, Corruptf("concat: rows [%d,+%d) of %d", skip, n, total)
	}
	switch t {
	case Int8:
		return newConcat[int8](pieces, skip, n)
	case Int16:
		return newConcat[int16](pieces, skip, n)
	case Int32:
		return newConcat[int32](pieces, skip, n)
	case Int64:
		return newConcat[int64](pieces, skip, n)
	case Uint8:
		return newConcat[uint8](pieces, skip, n)
	case Uint16:
		return newConcat[uint16](pieces, skip, n)
	case Uint32:
		return newConcat[uint32](pieces, skip, n)
	case Uint64:
		return newConcat[uint64](pieces, skip, n)
	}
	return nil, Unsupportedf("concat of %v decoders", t)
}

// RefReader reads the rows of a reference column: values with nulls read
// as 0, sequentially or at a sorted set of rows.
type RefReader[T Integer] interface {
	Reader[T]
	// GatherZero reads the values at rows (sorted, strictly increasing,
	// relative to the first row) without moving the cursor.
	GatherZero(rows []int32, dst []T) error
}

type concat[T Integer] struct {
	pieces []Reader[T]
	start  []int // first row of each piece in the concatenation
	skip   int
	n, pos int
	cur    int // piece holding row skip+pos
	valid  []bool
	all    []T
}

func newConcat[T Integer](pieces []Decoder, skip, n int) (*concat[T], error) {
	c := &concat[T]{skip: skip, n: n}
	at := 0
	for _, p := range pieces {
		r, ok := p.(Reader[T])
		if !ok {
			return nil, Corruptf("%v node does not read as %v", p.Kind(), TypeFor[T]())
		}
		c.pieces = append(c.pieces, r)
		c.start = append(c.start, at)
		at += p.Len()
	}
	if err := c.seek(0); err != nil {
		return nil, err
	}
	return c, nil
}

// seek positions every cursor at window row pos.
func (c *concat[T]) seek(pos int) error {
	for _, p := range c.pieces {
		p.Reset()
	}
	row := c.skip + pos
	c.cur, c.pos = 0, pos
	for c.cur < len(c.pieces)-1 && row >= c.start[c.cur]+c.pieces[c.cur].Len() {
		c.cur++
	}
	return c.pieces[c.cur].Skip(row - c.start[c.cur])
}

func (c *concat[T]) Kind() Kind { return c.pieces[0].Kind() }
func (c *concat[T]) Type() Type { return TypeFor[T]() }
func (c *concat[T]) Len() int   { return c.n }
func (c *concat[T]) Pos() int   { return c.pos }
func (c *concat[T]) Reset()     { c.seek(0) }

func (c *concat[T]) check(n int, what string) error {
	if n < 0 || n > c.n-c.pos {
		return Corruptf("reference rows: cannot %s %d rows at %d of %d", what, n, c.pos, c.n)
	}
	return nil
}

// Skip advances the window, moving to later pieces as needed.
func (c *concat[T]) Skip(n int) error {
	if err := c.check(n, "skip"); err != nil {
		return err
	}
	for n > 0 {
		p := c.pieces[c.cur]
		left := p.Len() - p.Pos()
		if n < left {
			if err := p.Skip(n); err != nil {
				return err
			}
			c.pos += n
			return nil
		}
		n -= left
		c.pos += left
		c.cur++
		if c.cur == len(c.pieces) {
			c.cur--
			break
		}
		c.pieces[c.cur].Reset()
	}
	return nil
}

// Read reads the next len(dst) values; nulls read as 0.
func (c *concat[T]) Read(dst []T) error {
	if err := c.check(len(dst), "read"); err != nil {
		return err
	}
	for len(dst) > 0 {
		p := c.pieces[c.cur]
		left := p.Len() - p.Pos()
		if left == 0 {
			c.cur++
			if c.cur == len(c.pieces) {
				return Corruptf("reference rows end before the window")
			}
			c.pieces[c.cur].Reset()
			continue
		}
		k := min(left, len(dst))
		if err := readZero(p, dst[:k], &c.valid); err != nil {
			return err
		}
		dst = dst[k:]
		c.pos += k
	}
	return nil
}

// readZero reads len(dst) values of r, zeroing nulls.
func readZero[T Integer](r Reader[T], dst []T, scratch *[]bool) error {
	nr, ok := r.(NullableReader[T])
	if !ok {
		return r.Read(dst)
	}
	if cap(*scratch) < len(dst) {
		*scratch = make([]bool, len(dst))
	}
	valid := (*scratch)[:len(dst)]
	if err := nr.ReadNullable(dst, valid); err != nil {
		return err
	}
	for i, ok := range valid {
		if !ok {
			dst[i] = 0
		}
	}
	return nil
}

// GatherZero implements RefReader: through each piece's Gatherer when it
// has one and no nulls, else by reading the piece.
func (c *concat[T]) GatherZero(rows []int32, dst []T) error {
	if len(dst) < len(rows) {
		return fmt.Errorf("reference rows: gather of %d rows into %d values", len(rows), len(dst))
	}
	moved := false
	for i := 0; i < len(rows); {
		r := int(rows[i])
		if r < 0 || r >= c.n || i > 0 && rows[i] <= rows[i-1] {
			return Corruptf("reference rows: gather of row %d of %d", r, c.n)
		}
		abs := c.skip + r
		k := 0
		for k < len(c.pieces)-1 && abs >= c.start[k]+c.pieces[k].Len() {
			k++
		}
		end := c.start[k] + c.pieces[k].Len() - c.skip
		j := i
		for j < len(rows) && int(rows[j]) < end {
			j++
		}
		local := make([]int32, j-i)
		for x, row := range rows[i:j] {
			local[x] = int32(c.skip + int(row) - c.start[k])
		}
		p := c.pieces[k]
		if g, ok := p.(Gatherer[T]); ok && p.Kind() != KindNullable {
			if err := g.Gather(local, dst[i:j]); err != nil {
				return err
			}
		} else {
			var o *Options // default limits: a piece's rows were bounded when it opened
			if err := o.CheckAlloc(p.Len(), TypeFor[T]().Size(), "reference piece"); err != nil {
				return err
			}
			if cap(c.all) < p.Len() {
				c.all = make([]T, p.Len())
			}
			all := c.all[:p.Len()]
			p.Reset()
			moved = true
			if err := readZero(p, all, &c.valid); err != nil {
				return err
			}
			for x, l := range local {
				dst[i+x] = all[l]
			}
		}
		i = j
	}
	if moved {
		return c.seek(c.pos)
	}
	return nil
}
