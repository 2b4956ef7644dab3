package specreader

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/zeebo/xxh3"

	"strata/specreader/node"
)

// ColumnStats is a parsed statistics record (FORMAT.md, "Column
// statistics"). Min and Max hold, by Type: bool; int64 (signed types);
// uint64 (unsigned); float64 (both float types); []byte (binary).
type ColumnStats struct {
	Type               node.Type
	Rows, Nulls, NaNs  uint64
	HasBounds          bool
	MinTrunc, MaxTrunc bool
	Min, Max           any
}

// ParseColumnStats parses one whole ColumnStats record (the caller frames
// it) and checks the constraints the chapter states.
func ParseColumnStats(b []byte) (ColumnStats, error) {
	r := &reader{b: b, what: "column stats"}
	flags := r.u8()
	t := node.Type(r.u8())
	var s ColumnStats
	s.Type = t
	s.Rows, s.Nulls, s.NaNs = r.uvarint(), r.uvarint(), r.uvarint()
	if r.err != nil {
		return s, r.err
	}
	if flags&^7 != 0 {
		return s, fmt.Errorf("column stats flags %#x: %w", flags, ErrUnsupported)
	}
	s.HasBounds, s.MinTrunc, s.MaxTrunc = flags&1 != 0, flags&2 != 0, flags&4 != 0
	if !s.HasBounds && flags&6 != 0 {
		return s, fmt.Errorf("column stats: truncation flags without bounds: %w", ErrCorrupt)
	}
	if t == 0 && s.HasBounds || t != 0 && !t.Valid() {
		return s, fmt.Errorf("column stats type %d with flags %#x: %w", t, flags, ErrCorrupt)
	}
	if s.Rows > math.MaxInt64 || s.Nulls > s.Rows || s.NaNs > s.Rows-s.Nulls {
		return s, fmt.Errorf("column stats counts rows %d nulls %d nans %d: %w", s.Rows, s.Nulls, s.NaNs, ErrCorrupt)
	}
	if s.NaNs != 0 && t != node.Float32 && t != node.Float64 {
		return s, fmt.Errorf("column stats: %d NaNs in a %v column: %w", s.NaNs, t, ErrCorrupt)
	}
	if (s.MinTrunc || s.MaxTrunc) && t != node.Binary {
		return s, fmt.Errorf("column stats: truncated bounds of a %v column: %w", t, ErrCorrupt)
	}
	if s.HasBounds {
		if s.Rows-s.Nulls-s.NaNs == 0 {
			return s, fmt.Errorf("column stats: bounds without values: %w", ErrCorrupt)
		}
		s.Min, s.Max = statValue(r, t), statValue(r, t)
		if r.err != nil {
			return s, r.err
		}
		if compareStat(t, s.Min, s.Max) > 0 {
			return s, fmt.Errorf("column stats: min %v above max %v: %w", s.Min, s.Max, ErrCorrupt)
		}
	}
	if len(r.b) != 0 {
		return s, fmt.Errorf("column stats: %d trailing bytes: %w", len(r.b), ErrCorrupt)
	}
	return s, nil
}

// statValue reads one value(type) of a stats record.
func statValue(r *reader, t node.Type) any {
	switch {
	case t == node.Bool:
		v := r.u8()
		if v > 1 {
			r.fail("bool bound %d: %w", v, ErrCorrupt)
		}
		return v == 1
	case t.Signed():
		v := r.varint()
		if node.SignExtend(uint64(v), t) != v {
			r.fail("bound %d does not fit %v: %w", v, t, ErrCorrupt)
		}
		return v
	case t.Unsigned():
		v := r.uvarint()
		if v&^node.Mask(t) != 0 {
			r.fail("bound %d does not fit %v: %w", v, t, ErrCorrupt)
		}
		return v
	case t == node.Float32:
		b := r.bytes(4)
		if b == nil {
			return 0.0
		}
		f := float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
		if f != f {
			r.fail("NaN bound: %w", ErrCorrupt)
		}
		return f
	case t == node.Float64:
		b := r.bytes(8)
		if b == nil {
			return 0.0
		}
		f := math.Float64frombits(binary.LittleEndian.Uint64(b))
		if f != f {
			r.fail("NaN bound: %w", ErrCorrupt)
		}
		return f
	case t == node.Binary:
		return r.bytes(r.count(len(r.b), 1))
	}
	return nil
}

// compareStat compares two values of a stats type (-1, 0, 1).
func compareStat(t node.Type, a, b any) int {
	switch x := a.(type) {
	case bool:
		y := b.(bool)
		switch {
		case x == y:
			return 0
		case !x:
			return -1
		}
		return 1
	case int64:
		y := b.(int64)
		return cmp3(x < y, x > y)
	case uint64:
		y := b.(uint64)
		return cmp3(x < y, x > y)
	case float64:
		y := b.(float64)
		return cmp3(x < y, x > y)
	case []byte:
		return bytes.Compare(x, b.([]byte))
	}
	return 0
}

func cmp3(lt, gt bool) int {
	switch {
	case lt:
		return -1
	case gt:
		return 1
	}
	return 0
}

// statOf returns entry i of v as a stats value.
func statOf(v *node.Values, i int) any {
	switch {
	case v.Type == node.Bool:
		return v.Bool[i]
	case v.Type.Signed():
		return v.Int[i]
	case v.Type.Unsigned():
		return v.Uint[i]
	case v.Type == node.Float32:
		return float64(v.F32[i])
	case v.Type == node.Float64:
		return v.F64[i]
	}
	return v.Bin[i]
}

// checkStats checks a record against the values it describes: counts equal,
// bounds holding every non-null non-NaN value. exact reports whether the
// bounds are the true minimum and maximum.
func checkStats(s ColumnStats, v node.Values) (exact bool, err error) {
	if s.Type != 0 && s.Type != v.Type {
		return false, fmt.Errorf("stats type %v, values %v: %w", s.Type, v.Type, ErrCorrupt)
	}
	var nulls, nans uint64
	var lo, hi any
	for i := 0; i < v.Len; i++ {
		if v.Valid != nil && !v.Valid[i] {
			nulls++
			continue
		}
		x := statOf(&v, i)
		if f, ok := x.(float64); ok && f != f {
			nans++
			continue
		}
		if lo == nil || compareStat(v.Type, x, lo) < 0 {
			lo = x
		}
		if hi == nil || compareStat(v.Type, x, hi) > 0 {
			hi = x
		}
	}
	if s.Rows != uint64(v.Len) || s.Nulls != nulls || s.NaNs != nans {
		return false, fmt.Errorf("stats say rows %d nulls %d nans %d, values have %d, %d, %d: %w", s.Rows, s.Nulls, s.NaNs, v.Len, nulls, nans, ErrCorrupt)
	}
	if !s.HasBounds {
		return lo == nil, nil
	}
	if compareStat(v.Type, s.Min, lo) > 0 {
		return false, fmt.Errorf("stats min %v above the least value %v: %w", s.Min, lo, ErrCorrupt)
	}
	c := compareStat(v.Type, hi, s.Max)
	if c > 0 || (s.MaxTrunc && c == 0) {
		return false, fmt.Errorf("stats max %v (truncated %v) below the greatest value %v: %w", s.Max, s.MaxTrunc, hi, ErrCorrupt)
	}
	return compareStat(v.Type, s.Min, lo) == 0 && c == 0, nil
}

// StreamStats is one (streamID, record) pair of a stats section.
type StreamStats struct {
	Stream int
	Stats  ColumnStats
}

// BloomRef locates one bloom filter (stats.bloom.index, or a blob inside
// stats.stripe in older files).
type BloomRef struct {
	Stream   int
	Offset   uint64 // within stats.bloom
	Length   uint64
	Checksum uint32
	Inline   []byte // the filter itself, for filters held in stats.stripe
}

// StatsSections holds the parsed statistics sections.
type StatsSections struct {
	File       []StreamStats
	StripeRows []uint64
	Stripe     [][]StreamStats
	Blooms     [][]BloomRef
	bloomData  []byte
}

// statsList reads `count | count × (streamID | blob(ColumnStats))` with
// ascending stream ids.
func statsList(r *reader, streams int) ([]StreamStats, error) {
	n := r.count(maxStreams, 2)
	out := make([]StreamStats, 0, n)
	prev := -1
	for i := 0; i < n && r.err == nil; i++ {
		id := r.uvarint()
		blob := r.bytes(r.count(len(r.b), 1))
		if r.err != nil {
			break
		}
		if id >= uint64(streams) || int(id) <= prev {
			return nil, fmt.Errorf("%s: stream id %d (previous %d, %d streams): %w", r.what, id, prev, streams, ErrCorrupt)
		}
		prev = int(id)
		s, err := ParseColumnStats(blob)
		if err != nil {
			return nil, fmt.Errorf("%s stream %d: %w", r.what, id, err)
		}
		out = append(out, StreamStats{int(id), s})
	}
	return out, r.err
}

// loadStats parses stats.file, stats.stripe, stats.bloom.index (FORMAT.md,
// "Sections written by the writer"); filters are checked when read.
func (f *File) loadStats() error {
	ns := f.Schema.Streams
	st := &f.Stats
	if b, ok, err := f.Section("stats.file"); err != nil {
		return err
	} else if ok {
		r := &reader{b: b, what: "stats.file"}
		if st.File, err = statsList(r, ns); err != nil {
			return err
		}
		if len(r.b) != 0 {
			return fmt.Errorf("stats.file: %d trailing bytes: %w", len(r.b), ErrCorrupt)
		}
	}
	if b, ok, err := f.Section("stats.stripe"); err != nil {
		return err
	} else if ok {
		r := &reader{b: b, what: "stats.stripe"}
		n := r.count(maxStripes, 3)
		if r.err == nil && n != len(f.Stripes) {
			return fmt.Errorf("stats.stripe: %d stripes, the container %d: %w", n, len(f.Stripes), ErrCorrupt)
		}
		st.Blooms = make([][]BloomRef, n)
		for s := 0; s < n && r.err == nil; s++ {
			rows := r.uvarint()
			if r.err == nil && rows != f.Stripes[s].Rows {
				return fmt.Errorf("stats.stripe: stripe %d has %d rows, the container %d: %w", s, rows, f.Stripes[s].Rows, ErrCorrupt)
			}
			r.what = fmt.Sprintf("stats.stripe stripe %d", s)
			list, err := statsList(r, ns)
			if err != nil {
				return err
			}
			st.StripeRows = append(st.StripeRows, rows)
			st.Stripe = append(st.Stripe, list)
			nb := r.count(maxStreams, 2)
			for i := 0; i < nb && r.err == nil; i++ {
				id := r.uvarint()
				blob := r.bytes(r.count(len(r.b), 1))
				if r.err == nil && id >= uint64(ns) {
					return fmt.Errorf("stats.stripe stripe %d: bloom of stream %d: %w", s, id, ErrCorrupt)
				}
				st.Blooms[s] = append(st.Blooms[s], BloomRef{Stream: int(id), Inline: blob})
			}
		}
		if r.err != nil {
			return r.err
		}
		if len(r.b) != 0 {
			return fmt.Errorf("stats.stripe: %d trailing bytes: %w", len(r.b), ErrCorrupt)
		}
	}
	idx, hasIdx, err := f.Section("stats.bloom.index")
	if err != nil {
		return err
	}
	var bloomRef *Section
	for i := range f.Sections {
		if f.Sections[i].Name == "stats.bloom" {
			bloomRef = &f.Sections[i]
		}
	}
	if hasIdx != (bloomRef != nil) {
		return fmt.Errorf("stats.bloom present %v, stats.bloom.index present %v: %w", bloomRef != nil, hasIdx, ErrCorrupt)
	}
	if !hasIdx {
		return nil
	}
	if bloomRef.Ref.Compression != 0 {
		return fmt.Errorf("stats.bloom stored with compression %d, not none: %w", bloomRef.Ref.Compression, ErrCorrupt)
	}
	st.bloomData = f.data[bloomRef.Ref.Offset : bloomRef.Ref.Offset+bloomRef.Ref.Size]
	r := &reader{b: idx, what: "stats.bloom.index"}
	n := r.count(maxStripes, 1)
	if r.err == nil && n != len(f.Stripes) {
		return fmt.Errorf("stats.bloom.index: %d stripes, the container %d: %w", n, len(f.Stripes), ErrCorrupt)
	}
	if st.Blooms == nil {
		st.Blooms = make([][]BloomRef, n)
	}
	for s := 0; s < n && r.err == nil; s++ {
		k := r.count(maxStreams, 7)
		prev := -1
		for i := 0; i < k && r.err == nil; i++ {
			id, off, length, sum := r.uvarint(), r.uvarint(), r.uvarint(), r.u32()
			if r.err != nil {
				break
			}
			if id >= uint64(ns) || int(id) <= prev || off+length < off || off+length > uint64(len(st.bloomData)) {
				return fmt.Errorf("stats.bloom.index stripe %d: stream %d at [%d, +%d) of %d bytes: %w", s, id, off, length, len(st.bloomData), ErrCorrupt)
			}
			prev = int(id)
			st.Blooms[s] = append(st.Blooms[s], BloomRef{Stream: int(id), Offset: off, Length: length, Checksum: sum})
		}
	}
	if r.err != nil {
		return r.err
	}
	if len(r.b) != 0 {
		return fmt.Errorf("stats.bloom.index: %d trailing bytes: %w", len(r.b), ErrCorrupt)
	}
	return nil
}

// Bloom is a parsed split-block bloom filter (FORMAT.md, "Bloom filters").
type Bloom struct {
	words []uint32 // 8 per block
}

// bloom returns the filter of ref, checking its checksum when it comes
// from stats.bloom.
func (f *File) bloom(ref BloomRef) (*Bloom, error) {
	b := ref.Inline
	if b == nil {
		b = f.Stats.bloomData[ref.Offset : ref.Offset+ref.Length]
		if got := sum32(b); got != ref.Checksum {
			return nil, fmt.Errorf("bloom of stream %d: checksum %#x, index says %#x: %w", ref.Stream, got, ref.Checksum, ErrCorrupt)
		}
	}
	return ParseBloom(b)
}

// ParseBloom parses a bloom filter blob.
func ParseBloom(b []byte) (*Bloom, error) {
	r := &reader{b: b, what: "bloom"}
	if v := r.u8(); r.err == nil && v != 1 {
		return nil, fmt.Errorf("bloom version %d: %w", v, ErrUnsupported)
	}
	n := r.count(4<<20, 32)
	if r.err != nil {
		return nil, r.err
	}
	if n < 1 || len(r.b) != 32*n {
		return nil, fmt.Errorf("bloom of %d blocks with %d bytes: %w", n, len(r.b), ErrCorrupt)
	}
	w := make([]uint32, 8*n)
	for i := range w {
		w[i] = binary.LittleEndian.Uint32(r.b[4*i:])
	}
	return &Bloom{words: w}, nil
}

var salt = [8]uint32{0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d, 0x705495c7, 0x2df1424b, 0x9efc4947, 0x5c6bfb31}

// MayContain reports whether hash h may be in the filter.
func (bl *Bloom) MayContain(h uint64) bool {
	n := uint64(len(bl.words) / 8)
	block := ((h >> 32) * n) >> 32
	key := uint32(h)
	for i := 0; i < 8; i++ {
		bit := (key * salt[i]) >> 27
		if bl.words[block*8+uint64(i)]&(1<<bit) == 0 {
			return false
		}
	}
	return true
}

// bloomHash is xxh3 of a value's canonical bytes (FORMAT.md, "Bloom filters").
func bloomHash(v *node.Values, i int) uint64 {
	var b [8]byte
	switch {
	case v.Type == node.Binary:
		return xxh3.Hash(v.Bin[i])
	case v.Type == node.Float32 || v.Type == node.Float64:
		f := float64(0)
		if v.Type == node.Float32 {
			f = float64(v.F32[i])
		} else {
			f = v.F64[i]
		}
		bits := math.Float64bits(f)
		switch {
		case f != f:
			bits = 0x7ff8000000000001
		case f == 0:
			bits = 0
		}
		binary.LittleEndian.PutUint64(b[:], bits)
	case v.Type == node.Bool:
		if v.Bool[i] {
			b[0] = 1
		}
	case v.Type.Signed():
		binary.LittleEndian.PutUint64(b[:], uint64(v.Int[i]))
	default:
		binary.LittleEndian.PutUint64(b[:], v.Uint[i])
	}
	return xxh3.Hash(b[:])
}

// StatsReport counts what VerifyStats checked.
type StatsReport struct {
	Chunk, Stripe, File, Blooms, BloomValues int
	Loose                                    int // records whose bounds hold but are not the exact min/max
	LooseWhere                               []string
}

// loose records a record whose bounds are not exact.
func (rep *StatsReport) loose(format string, a ...any) {
	rep.Loose++
	if len(rep.LooseWhere) < 4 {
		rep.LooseWhere = append(rep.LooseWhere, fmt.Sprintf(format, a...))
	}
}

// VerifyStats decodes every stream and checks every statistics record and
// bloom filter against the values: chunk records of the group tables,
// stats.stripe, stats.file and every filter (every present value must be
// "maybe present").
func (f *File) VerifyStats() (StatsReport, error) {
	var rep StatsReport
	saved := f.Kinds
	defer func() { f.Kinds = saved }() // decoding again is not new coverage
	fileVals := map[int]*node.Values{}
	for s := range f.Stripes {
		st, err := f.stripe(s)
		if err != nil {
			return rep, err
		}
		for id, tab := range st.table.Streams {
			if id >= f.Schema.Streams {
				return rep, fmt.Errorf("stripe %d records stream %d of %d: %w", s, id, f.Schema.Streams, ErrCorrupt)
			}
			v, ok, err := f.streamValues(st, id)
			if err != nil {
				return rep, err
			}
			if !ok {
				continue
			}
			for c, e := range tab.Chunks {
				if len(e.Stats) == 0 {
					continue
				}
				cs, err := ParseColumnStats(e.Stats)
				if err != nil {
					return rep, fmt.Errorf("stripe %d stream %d chunk %d: %w", s, id, c, err)
				}
				exact, err := checkStats(cs, slice(v, int(e.FirstRow), int(e.FirstRow+e.Rows)))
				if err != nil {
					return rep, fmt.Errorf("stripe %d stream %d chunk %d: %w", s, id, c, err)
				}
				rep.Chunk++
				if !exact {
					rep.loose("stripe %d stream %d chunk %d %v truncated %v/%v", s, id, c, cs.Type, cs.MinTrunc, cs.MaxTrunc)
				}
			}
			fv := fileVals[id]
			if fv == nil {
				fv = &node.Values{Type: v.Type}
				fileVals[id] = fv
			}
			appendValues(fv, v)
		}
		if s < len(f.Stats.Stripe) {
			for _, ss := range f.Stats.Stripe[s] {
				v, ok, err := f.streamValues(st, ss.Stream)
				if err != nil {
					return rep, err
				}
				if !ok {
					v = node.Make(f.Schema.Types[ss.Stream], 0)
				}
				exact, err := checkStats(ss.Stats, v)
				if err != nil {
					return rep, fmt.Errorf("stats.stripe stripe %d stream %d: %w", s, ss.Stream, err)
				}
				rep.Stripe++
				if !exact {
					rep.loose("stats.stripe %d stream %d %v truncated %v/%v", s, ss.Stream, ss.Stats.Type, ss.Stats.MinTrunc, ss.Stats.MaxTrunc)
				}
			}
		}
		if s < len(f.Stats.Blooms) {
			for _, br := range f.Stats.Blooms[s] {
				bl, err := f.bloom(br)
				if err != nil {
					return rep, fmt.Errorf("stripe %d: %w", s, err)
				}
				v, ok, err := f.streamValues(st, br.Stream)
				if err != nil || !ok {
					return rep, fmt.Errorf("stripe %d bloom of stream %d without values (%v): %w", s, br.Stream, err, ErrCorrupt)
				}
				for i := 0; i < v.Len; i++ {
					if v.Valid[i] && !bl.MayContain(bloomHash(&v, i)) {
						return rep, fmt.Errorf("stripe %d stream %d: bloom filter misses row %d: %w", s, br.Stream, i, ErrCorrupt)
					}
					rep.BloomValues++
				}
				rep.Blooms++
			}
		}
	}
	for _, fs := range f.Stats.File {
		v := fileVals[fs.Stream]
		if v == nil {
			v = &node.Values{Type: f.Schema.Types[fs.Stream]}
		}
		exact, err := checkStats(fs.Stats, *v)
		if err != nil {
			return rep, fmt.Errorf("stats.file stream %d: %w", fs.Stream, err)
		}
		rep.File++
		if !exact {
			rep.loose("stats.file stream %d %v truncated %v/%v", fs.Stream, fs.Stats.Type, fs.Stats.MinTrunc, fs.Stats.MaxTrunc)
		}
	}
	return rep, nil
}
