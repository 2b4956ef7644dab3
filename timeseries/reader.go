package timeseries

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"

	"strata/encoding"
	"strata/format"
	"strata/iox"
	"strata/read"
	"strata/stats"
)

// ErrNotTimeSeries reports a Strata file without a series index.
var ErrNotTimeSeries = errors.New("timeseries: not a time-series file (no series index)")

// Options tune reading.
type Options struct {
	// CacheBytes bounds the metadata cache of decoded index pages shared by
	// every query on the file (default 32 MiB; negative disables it).
	CacheBytes int64
	// DecoderCacheBytes bounds the cache of opened chunk decoders shared
	// by every read on the file (default 256 MiB; negative disables it).
	// Reads that come back to a chunk then skip reading, checking and
	// opening it: Stats.BytesRead counts only what was read.
	DecoderCacheBytes int64
	// Threads is the default number of goroutines decoding the columns of
	// a unit in parallel after its bytes are read (default 1).
	Threads int
	// Gap is the largest hole between two byte ranges one read still
	// spans (default 4 KiB); larger holes split the read.
	Gap int64
	// Read passes options to the underlying table reader.
	Read read.Options
}

// File is an open time-series file. It is safe for concurrent use.
type File struct {
	rf     *read.File
	fc     *format.File
	fetch  *iox.Fetcher
	closer io.Closer
	closed atomic.Bool
	t      *table
	l      *layout
	meta   *indexMeta
	sec    format.SectionInfo
	cache  *pageCache
	decs   *decCache
	opts   Options
	dec    *encoding.Options
	stripe []int64 // first file row of each stripe
	root   any     // *leafPage or *innerPage
	// streams and stypes are each column's values stream and its type.
	streams []int
	stypes  []encoding.Type
	// mem is the step memory window reads take and give back (takeStepMem)
	memMu sync.Mutex
	mem   *stepMem
}

// Open opens a time-series file.
func Open(path string, opts *Options) (*File, error) {
	src, err := iox.OpenFile(path)
	if err != nil {
		return nil, fmt.Errorf("timeseries: %w", err)
	}
	f, err := OpenSource(context.Background(), src, opts)
	if err != nil {
		src.Close()
		return nil, fmt.Errorf("timeseries: %s: %w", path, err)
	}
	f.closer = src
	return f, nil
}

// OpenSource opens a time-series file from any range-readable source.
// Every byte the file reads goes through one counting fetcher (see
// BytesRead).
func OpenSource(ctx context.Context, src iox.Source, opts *Options) (*File, error) {
	if src == nil {
		return nil, errors.New("timeseries: OpenSource: nil source")
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.CacheBytes == 0 {
		o.CacheBytes = 32 << 20
	}
	if o.Threads <= 0 {
		o.Threads = 1
	}
	if o.DecoderCacheBytes == 0 {
		o.DecoderCacheBytes = 256 << 20
	}
	if o.Gap == 0 {
		o.Gap = 4 << 10
	}
	fetch := iox.NewFetcher(src, iox.FetcherOptions{Gap: o.Gap})
	rf, err := read.Open(ctx, fetch, o.Read)
	if err != nil {
		return nil, err
	}
	// Index pages and chunks in the tail opening read (all of a small
	// file) are taken from it, not requested again.
	fetch.Keep(rf.Container().Tail())
	f := &File{rf: rf, fc: rf.Container(), fetch: fetch, opts: o, cache: newPageCache(o.CacheBytes), decs: newDecCache(o.DecoderCacheBytes),
		dec: o.Read.Decode}
	if f.dec == nil {
		f.dec = readDecodeOptions()
	}
	mb, ok, err := f.fc.Section(ctx, sectionModel)
	if err != nil {
		return nil, fmt.Errorf("timeseries: %s section: %w", sectionModel, err)
	}
	if !ok {
		return nil, ErrNotTimeSeries
	}
	if f.sec, ok = f.fc.SectionInfo(sectionIndex); !ok {
		return nil, fmt.Errorf("timeseries: no %s section: %w", sectionIndex, encoding.ErrCorrupt)
	}
	if f.sec.Compression != format.CompressionNone {
		return nil, fmt.Errorf("timeseries: %s section is compressed: %w", sectionIndex, encoding.ErrCorrupt)
	}
	if f.meta, err = decodeMeta(mb); err != nil {
		return nil, err
	}
	if f.t, err = fromRoles(rf.Schema(), f.meta.roles, f.meta.keyOrder); err != nil {
		return nil, err
	}
	if f.meta.rows != rf.NumRows() {
		return nil, fmt.Errorf("timeseries: index covers %d rows, file has %d: %w", f.meta.rows, rf.NumRows(), encoding.ErrCorrupt)
	}
	f.l = f.t.layout()
	f.l.ends = f.meta.version >= endsVersion
	ssch := rf.StrataSchema()
	for c := range f.t.roles {
		ids := ssch.ColumnStreams(c)
		if len(ids) != 1 || !ssch.Column(c).Kind.IsLeaf() {
			return nil, fmt.Errorf("timeseries: column %q is not a flat column: %w", f.t.sch.Field(c).Name, encoding.ErrCorrupt)
		}
		f.streams = append(f.streams, ids[0])
		f.stypes = append(f.stypes, ssch.Stream(ids[0]).Type)
	}
	f.stripe = make([]int64, f.fc.NumStripes())
	for i := range f.stripe {
		f.stripe[i] = f.fc.Stripe(i).FirstRow
	}
	if f.meta.series > 0 {
		if f.meta.height == 0 {
			f.root, err = decodeLeaf(f.meta.root, f.l)
		} else {
			f.root, err = decodeInner(f.meta.root, f.l.nkeys)
		}
		if err != nil {
			return nil, fmt.Errorf("timeseries: directory root: %w", err)
		}
	}
	return f, nil
}

// Close releases the file.
func (f *File) Close() error {
	f.closed.Store(true)
	if f.closer != nil {
		return f.closer.Close()
	}
	return nil
}

// ErrClosed is returned by a query of a File after its Close.
var ErrClosed = fmt.Errorf("timeseries: file is closed: %w", read.ErrInvalidArgument)

// open returns ErrClosed, naming the operation, once the file is closed:
// its index pages and decoders could still answer from the caches.
func (f *File) open(op string) error {
	if f.closed.Load() {
		return fmt.Errorf("timeseries: %s: %w", op, ErrClosed)
	}
	return nil
}

// Table returns the file as a plain Strata table, for scans, lookups and
// aggregates that do not need the series layout.
func (f *File) Table() *read.File { return f.rf }

// Schema returns the table's Arrow schema.
func (f *File) Schema() *arrow.Schema { return f.t.sch }

// Model returns the table model.
func (f *File) Model() Model {
	return Model{Keys: f.t.keyNames(), Time: f.t.sch.Field(f.t.time).Name}
}

// NumSeries returns the number of series.
func (f *File) NumSeries() int { return int(f.meta.series) }

// NumRows returns the number of rows.
func (f *File) NumRows() int64 { return f.meta.rows }

// TimeRange returns the smallest and largest time in the file.
func (f *File) TimeRange() (min, max int64) { return f.meta.tmin, f.meta.tmax }

// BytesRead returns every byte read from the source so far: Open's
// metadata, index pages and data.
func (f *File) BytesRead() int64 { return f.fetch.Stats().BytesRead }

// Reads returns the number of reads issued to the source so far.
func (f *File) Reads() int64 { return f.fetch.Stats().Reads }

// CacheStats returns the metadata cache's use.
func (f *File) CacheStats() CacheStats {
	cs := f.cache.stats()
	f.decs.mu.Lock()
	cs.Decoders, cs.DecoderBytes, cs.DecoderHits, cs.DecoderMisses = len(f.decs.byOff), f.decs.used, f.decs.hits, f.decs.misses
	f.decs.mu.Unlock()
	return cs
}

// IndexInfo describes the index.
type IndexInfo struct {
	// Version is the index layout's version (docs/FORMAT.md): 2 and later
	// keep each unit's first and last value in its statistics, so bars
	// over whole units need no decode.
	Version                           int
	Series, Units                     int
	Height                            int
	UnitPages, StatPages, BloomBlocks int
	IndexBytes                        int64
	ChunkRows, MinChunkRows           int
	BlockSize                         int
}

// Index describes the series index.
func (f *File) Index() IndexInfo {
	m := f.meta
	return IndexInfo{Version: m.version, Series: int(m.series), Units: m.units, Height: m.height, UnitPages: len(m.unitPages),
		StatPages: len(m.statPages), BloomBlocks: m.bloomBlocks, IndexBytes: f.sec.Size,
		ChunkRows: m.chunkRows, MinChunkRows: m.minChunkRows, BlockSize: m.blockSize}
}

// ---- pages ----

// page returns a decoded index page from the cache or the file.
func (f *File) page(ctx context.Context, ref pageRef, kind byte, st *Stats) (any, error) {
	if v, ok := f.cache.get(ref.off); ok {
		st.IndexPageHits++
		return v, nil
	}
	if ref.off < 0 || ref.size <= 0 || ref.off > f.sec.Size || ref.size > f.sec.Size-ref.off {
		return nil, errPage(pageName(kind), ref, encoding.Corruptf("outside the %d-byte index", f.sec.Size))
	}
	rng := iox.Range{Off: f.sec.Offset + ref.off, Len: ref.size}
	reads, _ := f.fetch.Cost(rng) // none for a page in the tail opening read
	raw, err := f.fetch.ReadRange(ctx, rng)
	if err != nil {
		return nil, errPage(pageName(kind), ref, err)
	}
	st.IndexPages++
	st.IndexBytes += ref.size
	st.Reads += int(reads)
	payload, err := f.fc.DecodeChunk(raw)
	if err != nil {
		return nil, errPage(pageName(kind), ref, err)
	}
	var v any
	switch kind {
	case pageLeaf, pageInner:
		if len(payload) > 0 && payload[0] == pageInner {
			v, err = decodeInner(payload, f.l.nkeys)
		} else {
			v, err = decodeLeaf(payload, f.l)
		}
	case pageUnits:
		v, err = decodeUnits(payload, f.l)
	case pageStats:
		v, err = decodeStats(payload, f.l)
	case pageBloom:
		want := f.meta.bloomPerPage
		if last := len(f.meta.bloomPages) - 1; last >= 0 && ref == f.meta.bloomPages[last] {
			want = f.meta.bloomBlocks - last*f.meta.bloomPerPage
		}
		v, err = decodeBloomPage(payload, want)
		if err == nil && len(v.([]byte)) == 0 {
			err = encoding.Corruptf("empty bloom page")
		}
	}
	if err != nil {
		return nil, errPage(pageName(kind), ref, err)
	}
	f.cache.put(ref.off, 3*int64(len(payload))+256, v)
	return v, nil
}

func pageName(kind byte) string {
	switch kind {
	case pageLeaf, pageInner:
		return "directory"
	case pageUnits:
		return "unit"
	case pageStats:
		return "statistics"
	}
	return "bloom"
}

// leafFor returns the leaf page holding series ordinal ord.
func (f *File) leafFor(ctx context.Context, ord int, st *Stats) (*leafPage, error) {
	n := f.root
	for depth := 0; ; depth++ {
		switch p := n.(type) {
		case *leafPage:
			if ord < p.first || ord >= p.first+len(p.entries) {
				return nil, encoding.Corruptf("timeseries: leaf [%d, %d) reached for series %d", p.first, p.first+len(p.entries), ord)
			}
			return p, nil
		case *innerPage:
			if depth >= f.meta.height {
				return nil, encoding.Corruptf("timeseries: directory deeper than its height %d", f.meta.height)
			}
			i := sort.Search(len(p.entries), func(i int) bool { return p.entries[i].first > ord }) - 1
			if i < 0 {
				i = 0
			}
			c, err := f.page(ctx, p.entries[i].ref, pageLeaf, st)
			if err != nil {
				return nil, err
			}
			n = c
		default:
			return nil, encoding.Corruptf("timeseries: no directory")
		}
	}
}

// lowerBound returns the first series ordinal whose key's first len(p)
// components are at or after p.
func (f *File) lowerBound(ctx context.Context, p Key, st *Stats) (int, error) {
	n := f.root
	for depth := 0; ; depth++ {
		switch pg := n.(type) {
		case *leafPage:
			i := sort.Search(len(pg.entries), func(i int) bool { return comparePrefix(pg.entries[i].key, p) >= 0 })
			return pg.first + i, nil
		case *innerPage:
			if depth >= f.meta.height {
				return 0, encoding.Corruptf("timeseries: directory deeper than its height %d", f.meta.height)
			}
			// the last child whose first key is before p
			i := sort.Search(len(pg.entries), func(i int) bool { return comparePrefix(pg.entries[i].key, p) >= 0 }) - 1
			if i < 0 {
				return pg.entries[0].first, nil
			}
			c, err := f.page(ctx, pg.entries[i].ref, pageLeaf, st)
			if err != nil {
				return 0, err
			}
			n = c
		default:
			return 0, nil
		}
	}
}

// entry returns series ordinal ord.
func (f *File) entry(ctx context.Context, ord int, st *Stats) (*seriesEntry, error) {
	p, err := f.leafFor(ctx, ord, st)
	if err != nil {
		return nil, err
	}
	return &p.entries[ord-p.first], nil
}

// unit returns unit ord.
func (f *File) unit(ctx context.Context, ord int, st *Stats) (*unitRec, error) {
	pd, err := findPage(f.meta.unitPages, ord, f.meta.units)
	if err != nil {
		return nil, err
	}
	v, err := f.page(ctx, pd.ref, pageUnits, st)
	if err != nil {
		return nil, err
	}
	p := v.(*unitsPage)
	if p.first != pd.first || ord-p.first >= len(p.recs) {
		return nil, encoding.Corruptf("timeseries: unit page at %d holds [%d, %d), not unit %d", pd.ref.off, p.first, p.first+len(p.recs), ord)
	}
	u := &p.recs[ord-p.first]
	if u.stripe >= len(f.stripe) || u.row+u.rows > f.fc.Stripe(u.stripe).Rows {
		return nil, encoding.Corruptf("timeseries: unit %d: rows [%d, %d) of stripe %d outside the file", ord, u.row, u.row+u.rows, u.stripe)
	}
	return u, nil
}

// unitStats returns the statistics of unit ord.
func (f *File) unitStats(ctx context.Context, ord int, st *Stats) ([]unitStats, error) {
	pd, err := findPage(f.meta.statPages, ord, f.meta.units)
	if err != nil {
		return nil, err
	}
	v, err := f.page(ctx, pd.ref, pageStats, st)
	if err != nil {
		return nil, err
	}
	p := v.(*statsPage)
	if p.first != pd.first || ord-p.first >= len(p.stats) {
		return nil, encoding.Corruptf("timeseries: statistics page at %d does not hold unit %d", pd.ref.off, ord)
	}
	return p.stats[ord-p.first], nil
}

func findPage(t []pageDir, ord, n int) (pageDir, error) {
	if ord < 0 || ord >= n {
		return pageDir{}, encoding.Corruptf("timeseries: unit %d of %d", ord, n)
	}
	i := sort.Search(len(t), func(i int) bool { return t[i].first > ord }) - 1
	if i < 0 {
		return pageDir{}, encoding.Corruptf("timeseries: no page for unit %d", ord)
	}
	return t[i], nil
}

// mayContain asks the bloom filter whether a series with key prefix p
// exists; it reads one bloom page.
func (f *File) mayContain(ctx context.Context, p Key, st *Stats) (bool, error) {
	m := f.meta
	if m.bloomBlocks == 0 {
		return m.series > 0, nil
	}
	h := prefixHash(p, len(p))
	b := stats.BloomBlockIndex(h, m.bloomBlocks)
	v, err := f.page(ctx, m.bloomPages[b/m.bloomPerPage], pageBloom, st)
	if err != nil {
		return false, err
	}
	blocks := v.([]byte)
	i := b % m.bloomPerPage
	if (i+1)*32 > len(blocks) {
		return false, encoding.Corruptf("timeseries: bloom block %d beyond its page", b)
	}
	return stats.BloomBlockMayContain(blocks[i*32:(i+1)*32], h), nil
}

// ---- series selection ----

// Selector picks series by their key values; a series must satisfy every
// entry. An entry's key is a key column's name, alone for equality
// ("hostname" → "host_7") or followed by an operator, as in PromQL:
//
//	"region!=": "eu-west-1"     not equal
//	"hostname=~": "host_1.*"    the value's text matches the regular expression
//	"hostname!~": "host_[0-3]"  it does not
//
// Expressions are RE2 (package regexp) matched against the whole text of
// the value (anchored at both ends), with . matching a newline too, as
// Prometheus matches label values (it compiles ^(?s:re)$); a (?-s) in the
// expression turns that off. Integer keys match as decimal text.
// A name that is itself a key column is always equality on that column.
// Equalities on the first key columns narrow the series directory to a
// prefix (and the bloom filter answers for absent ones); the other entries
// filter what that prefix, or the whole directory, holds. An empty
// selector picks every series.
type Selector map[string]string

// selector operators (Selector), written after the key column's name
var selectorOps = []string{"!=", "=~", "!~"}

// ParseSelector parses "tag=value[,tag=value...]", where each = may also
// be != (not equal), =~ (matches a regular expression) or !~ (does not);
// see Selector. Spaces around tags and values are dropped. A value in
// double or single quotes keeps everything inside them — commas, '=',
// spaces — and a quote doubled inside stands for one ("say ""hi""");
// an unquoted value runs to the next comma. A tag may be quoted the same
// way ("site,id"="b"). A value starting with ~ is written quoted after =,
// or else =~ is read.
func ParseSelector(s string) (Selector, error) {
	sel := Selector{}
	if strings.TrimSpace(s) == "" {
		return sel, nil
	}
	for first := true; first || s != ""; first = false {
		if !first {
			s = s[1:] // the comma
		}
		var k string
		if t := strings.TrimLeft(s, " \t"); t != "" && (t[0] == '"' || t[0] == '\'') {
			// a quoted tag: a name holding a comma, '=' or quotes
			var err error
			if k, s, err = unquoted(t); err != nil {
				return nil, fmt.Errorf("timeseries: selector tag: %w: %w", err, read.ErrInvalidArgument)
			}
			if k == "" {
				return nil, fmt.Errorf("timeseries: selector %s: an empty tag: %w", t, read.ErrInvalidArgument)
			}
		}
		eq, op := selectorOp(s)
		if comma := strings.IndexByte(s, ','); eq < 0 || comma >= 0 && comma < eq || k == "" && strings.TrimSpace(s[:eq]) == "" || k != "" && strings.TrimSpace(s[:eq]) != "" {
			part := s
			if comma >= 0 {
				part = s[:comma]
			}
			return nil, fmt.Errorf("timeseries: selector %q: want tag=value (or tag!=value, tag=~regexp, tag!~regexp): %w", part, read.ErrInvalidArgument)
		}
		if k == "" {
			k = strings.TrimSpace(s[:eq])
		}
		rest := strings.TrimLeft(s[eq+len(op):], " \t")
		if op != "=" {
			k += op
		}
		var v string
		if rest != "" && (rest[0] == '"' || rest[0] == '\'') {
			var err error
			if v, s, err = unquote(rest); err != nil {
				return nil, fmt.Errorf("timeseries: selector value of %q: %w: %w", k, err, read.ErrInvalidArgument)
			}
		} else {
			v, s = rest, ""
			if c := strings.IndexByte(rest, ','); c >= 0 {
				v, s = rest[:c], rest[c:]
			}
			v = strings.TrimRight(v, " \t")
		}
		if _, dup := sel[k]; dup {
			return nil, fmt.Errorf("timeseries: selector names %q twice: %w", k, read.ErrInvalidArgument)
		}
		sel[k] = v
	}
	return sel, nil
}

// selectorOp finds the first operator in s (=, !=, =~ or !~) and returns
// its offset and text, or -1.
func selectorOp(s string) (int, string) {
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '!' && i+1 < len(s) && (s[i+1] == '=' || s[i+1] == '~'):
			return i, s[i : i+2]
		case s[i] == '=' && i+1 < len(s) && s[i+1] == '~':
			return i, "=~"
		case s[i] == '=':
			return i, "="
		}
	}
	return -1, ""
}

// unquoted reads a text quoted by its first byte (a doubled quote inside
// is one quote) and returns it and what follows the closing quote.
func unquoted(s string) (text, rest string, err error) {
	q := s[0]
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		if s[i] != q {
			b.WriteByte(s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == q {
			b.WriteByte(q)
			i++
			continue
		}
		return b.String(), s[i+1:], nil
	}
	return "", "", fmt.Errorf("%s: a quote is not closed", s)
}

// unquote reads a quoted value and returns it and what follows, from the
// next comma.
func unquote(s string) (v, rest string, err error) {
	v, rest, err = unquoted(s)
	if err != nil {
		return "", "", err
	}
	rest = strings.TrimLeft(rest, " \t")
	if rest != "" && rest[0] != ',' {
		return "", "", fmt.Errorf("text after the closing quote: %q", rest)
	}
	return v, rest, nil
}

// Series describes one series.
type Series struct {
	Ordinal          int      // position in key order
	Key              []string // key values as text, in key order
	Path             string   // tree-model device path
	FirstRow         int64    // file row of the series' first row
	Rows             int64
	MinTime, MaxTime int64
	e                *seriesEntry
}

func (f *File) series(e *seriesEntry) Series {
	k := make([]string, len(e.key))
	for i, v := range e.key {
		k[i] = f.t.render(i, v)
	}
	return Series{Ordinal: e.ord, Key: k, Path: f.t.path(e.key), FirstRow: e.firstRow, Rows: e.rows, MinTime: e.tmin, MaxTime: e.tmax, e: e}
}

// Lookup finds the series with the given key values (as text, in key
// order). The bloom filter answers for most absent keys without touching
// the directory; a present key costs one directory page per level.
func (f *File) Lookup(ctx context.Context, key ...string) (Series, bool, error) {
	if err := f.open("Lookup"); err != nil {
		return Series{}, false, err
	}
	var st Stats
	return f.lookup(ctx, key, &st)
}

func (f *File) lookup(ctx context.Context, key []string, st *Stats) (Series, bool, error) {
	if len(key) != len(f.t.keys) {
		return Series{}, false, fmt.Errorf("timeseries: %d key values, the table has %d keys: %w", len(key), len(f.t.keys), read.ErrInvalidArgument)
	}
	k := make(Key, len(key))
	for i, v := range key {
		c, err := f.t.parse(i, v)
		if err != nil {
			return Series{}, false, err
		}
		k[i] = c
	}
	es, err := f.selectPrefix(ctx, k, nil, nil, st)
	if err != nil || len(es) == 0 {
		return Series{}, false, err
	}
	return f.series(es[0]), true, nil
}

// Select returns the series a selector picks, in key order.
func (f *File) Select(ctx context.Context, sel Selector) ([]Series, error) {
	if err := f.open("Select"); err != nil {
		return nil, err
	}
	var st Stats
	es, err := f.selectEntries(ctx, sel, &st)
	if err != nil {
		return nil, err
	}
	out := make([]Series, len(es))
	for i, e := range es {
		out[i] = f.series(e)
	}
	return out, nil
}

// keyMatcher is a selector entry other than an equality: a key column
// that must differ from a value or whose text must (not) match.
type keyMatcher struct {
	col int
	neq string         // canonical value it must differ from (re nil)
	re  *regexp.Regexp // else: the expression the whole text must match, leftmost-longest
	not bool           // !~
}

func (m *keyMatcher) match(f *File, key Key) bool {
	if m.re == nil {
		return key[m.col] != m.neq
	}
	return wholeMatch(m.re, f.t.render(m.col, key[m.col])) != m.not
}

// wholeMatch reports whether re, set to leftmost-longest matching, matches
// all of s: a match spanning s starts at the leftmost position there is
// and is the longest from it, so it is the one found if it exists. (The
// expression is not wrapped in ^(?:...)$, which a \Q without \E would
// quote the end of.)
func wholeMatch(re *regexp.Regexp, s string) bool {
	loc := re.FindStringIndex(s)
	return loc != nil && loc[0] == 0 && loc[1] == len(s)
}

// selectEntries resolves a selector: the key columns it fixes from the
// first one on form a prefix that the bloom filter checks and the
// directory finds in O(log D); other equalities, and the entries with an
// operator, filter what the prefix (or, without one, the whole directory)
// yields.
func (f *File) selectEntries(ctx context.Context, sel Selector, st *Stats) ([]*seriesEntry, error) {
	names := f.t.keyNames()
	want := make(map[int]string, len(sel))
	var ms []keyMatcher
	for k, v := range sel {
		name, op := k, "="
		if indexOf(names, k) < 0 {
			for _, o := range selectorOps {
				if strings.HasSuffix(k, o) {
					name, op = strings.TrimSpace(k[:len(k)-len(o)]), o
					break
				}
			}
		}
		i := indexOf(names, name)
		if i < 0 {
			return nil, fmt.Errorf("timeseries: %q is not a series key column (keys: %s): %w", name, strings.Join(names, ", "), read.ErrInvalidArgument)
		}
		switch op {
		case "=", "!=":
			c, err := f.t.parse(i, v)
			if err != nil {
				return nil, err
			}
			if op == "!=" {
				ms = append(ms, keyMatcher{col: i, neq: c})
				continue
			}
			want[i] = c
		default:
			// . matches a newline too (flag s), as in Prometheus; the
			// flag is set in front, which no \Q in v can quote
			re, err := regexp.Compile("(?s)" + v)
			if err != nil {
				if _, e := regexp.Compile(v); e != nil {
					err = e // quoting the expression as written
				}
				return nil, fmt.Errorf("timeseries: selector %s%s: %w: %w", name, op, err, read.ErrInvalidArgument)
			}
			re.Longest() // (wholeMatch)
			ms = append(ms, keyMatcher{col: i, re: re, not: op == "!~"})
		}
	}
	var prefix Key
	for i := 0; i < len(names); i++ {
		v, ok := want[i]
		if !ok {
			break
		}
		prefix = append(prefix, v)
	}
	rest := map[int]string{}
	for i, v := range want {
		if i >= len(prefix) {
			rest[i] = v
		}
	}
	return f.selectPrefix(ctx, prefix, rest, ms, st)
}

func (f *File) selectPrefix(ctx context.Context, prefix Key, rest map[int]string, ms []keyMatcher, st *Stats) ([]*seriesEntry, error) {
	if f.meta.series == 0 {
		return nil, nil
	}
	lo := 0
	if len(prefix) > 0 {
		ok, err := f.mayContain(ctx, prefix, st)
		if err != nil {
			return nil, err
		}
		if !ok {
			st.SeriesRejectedBloom++
			return nil, nil
		}
		if lo, err = f.lowerBound(ctx, prefix, st); err != nil {
			return nil, err
		}
	}
	var out []*seriesEntry
	for ord := lo; ord < int(f.meta.series); {
		p, err := f.leafFor(ctx, ord, st)
		if err != nil {
			return nil, err
		}
		for i := ord - p.first; i < len(p.entries); i++ {
			e := &p.entries[i]
			if len(prefix) > 0 && comparePrefix(e.key, prefix) != 0 {
				return out, nil
			}
			match := true
			for c, v := range rest {
				if e.key[c] != v {
					match = false
					break
				}
			}
			for k := 0; match && k < len(ms); k++ {
				match = ms[k].match(f, e.key)
			}
			if match {
				out = append(out, e)
			}
		}
		ord = p.first + len(p.entries)
	}
	return out, nil
}

func indexOf(xs []string, x string) int {
	for i, v := range xs {
		if v == x {
			return i
		}
	}
	return -1
}
