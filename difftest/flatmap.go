package difftest

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// flatStream is the second word of the generator that draws the FlatMap
// keys a table's filters name, apart from the table's and the queries' own
// streams.
const flatStream = 0x666c61746d6170

// maxFlatKeys bounds the keys of one FlatMap column that filters name.
const maxFlatKeys = 3

// flatLeaves returns the filterable leaves on the values of FlatMap keys
// (tables of FlatMapFilterSeeds): for each top-level FlatMap column, one to
// maxFlatKeys of the keys its rows hold, each a leaf whose value in a row is
// the key's value there, NULL where the row lacks the key, the map is null
// or the value is null, as Strata's filters and DuckDB's map_extract_value
// both define it; a struct value gives a leaf per primitive field reached
// through structs. Keys whose values are lists or maps give none. The
// leaves are built once per table.
func (t *Table) flatLeaves() []leafCol {
	if t.flatDone {
		return t.flat
	}
	t.flatDone = true
	r := rand.New(rand.NewPCG(t.Seed, flatStream))
	for i, f := range t.Rec.Schema().Fields() {
		if j := f.Metadata.FindKey(flatMapKey); j < 0 || f.Metadata.Values()[j] != "true" {
			continue
		}
		m, ok := t.Rec.Column(i).(*array.Map)
		if !ok {
			continue
		}
		keys := mapKeys(m)
		r.Shuffle(len(keys), func(a, b int) { keys[a], keys[b] = keys[b], keys[a] })
		if n := 1 + r.IntN(maxFlatKeys); len(keys) > n {
			keys = keys[:n]
		}
		item := f.Type.(*arrow.MapType).ItemField()
		for _, k := range keys {
			vals, err := keyValues(m, k)
			if err != nil {
				panic(fmt.Sprintf("difftest: values of key %q of %s: %v", k, f.Name, err))
			}
			t.flatArrs = append(t.flatArrs, vals)
			lit := k
			if _, isString := m.Keys().(*array.String); isString {
				lit = "'" + strings.ReplaceAll(k, "'", "''") + "'"
			}
			sql := "map_extract_value(" + quoteIdent(f.Name) + ", " + lit + ")"
			t.flat = walkLeaves(t.flat, f.Name+"."+k, sql, item, vals, nil)
		}
	}
	return t.flat
}

// keyText renders map key j as Strata names a FlatMap key: the string
// itself, or an integer in decimal.
func keyText(keys arrow.Array, j int) string {
	switch k := keys.(type) {
	case *array.String:
		return k.Value(j)
	case *array.Int8:
		return strconv.FormatInt(int64(k.Value(j)), 10)
	case *array.Int16:
		return strconv.FormatInt(int64(k.Value(j)), 10)
	case *array.Int32:
		return strconv.FormatInt(int64(k.Value(j)), 10)
	case *array.Int64:
		return strconv.FormatInt(k.Value(j), 10)
	case *array.Uint8:
		return strconv.FormatUint(uint64(k.Value(j)), 10)
	case *array.Uint16:
		return strconv.FormatUint(uint64(k.Value(j)), 10)
	case *array.Uint32:
		return strconv.FormatUint(uint64(k.Value(j)), 10)
	case *array.Uint64:
		return strconv.FormatUint(k.Value(j), 10)
	}
	panic(fmt.Sprintf("difftest: no FlatMap key text for %s", keys.DataType()))
}

// mapKeys lists the keys the non-null rows of m hold, in the order they are
// first seen.
func mapKeys(m *array.Map) []string {
	var out []string
	seen := map[string]bool{}
	for i := range m.Len() {
		if m.IsNull(i) {
			continue
		}
		lo, hi := m.ValueOffsets(i)
		for j := lo; j < hi; j++ {
			if k := keyText(m.Keys(), int(j)); !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	return out
}

// keyValues returns, one per row of m, the value key holds there: null
// where the row lacks the key or the map is null.
func keyValues(m *array.Map, key string) (arrow.Array, error) {
	mem := memory.DefaultAllocator
	items := m.Items()
	var parts []arrow.Array
	defer func() {
		for _, p := range parts {
			p.Release()
		}
	}()
	nulls := 0 // rows without the key not yet in parts
	flush := func() {
		if nulls > 0 {
			parts = append(parts, array.MakeArrayOfNull(mem, items.DataType(), nulls))
			nulls = 0
		}
	}
	for i := range m.Len() {
		at := -1
		if !m.IsNull(i) {
			lo, hi := m.ValueOffsets(i)
			for j := lo; j < hi; j++ {
				if keyText(m.Keys(), int(j)) == key {
					at = int(j)
					break
				}
			}
		}
		if at < 0 {
			nulls++
			continue
		}
		flush()
		parts = append(parts, array.NewSlice(items, int64(at), int64(at)+1))
	}
	flush()
	if len(parts) == 0 {
		return array.MakeArrayOfNull(mem, items.DataType(), 0), nil
	}
	return array.Concatenate(parts, mem)
}
