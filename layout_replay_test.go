package strata_test

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"strata"
	"strata/encoding"
	"strata/iox"
)

// columnBytes returns each column's stored bytes, the encoding trees of
// its chunks, and those of its values chunks in the first stripe.
func columnBytes(t *testing.T, f *strata.File) (bytes map[string]int64, trees, first map[string][]string) {
	t.Helper()
	rep, err := f.Inspect()
	if err != nil {
		t.Fatal(err)
	}
	bytes, trees, first = map[string]int64{}, map[string][]string{}, map[string][]string{}
	for _, c := range rep.Columns {
		bytes[c.Name] = c.Bytes
		for _, tr := range c.Trees {
			trees[c.Name] = append(trees[c.Name], tr.Tree)
		}
		for _, ch := range c.ChunkList {
			if ch.Stripe == 0 && ch.Role == "values" && ch.Rows > 0 {
				first[c.Name] = append(first[c.Name], ch.Tree)
			}
		}
	}
	return bytes, trees, first
}

func noZstd(tree string) string { return strings.ReplaceAll(tree, "+zstd", "") }

// TestReplayLayouts captures the layouts of one file and writes another
// table of the same schema (other values drawn alike, as tomorrow's file
// of a table) with them: every value reads back, the chunks of a replayed
// column use its captured tree, and no captured tree refers outside its
// chunk.
func TestReplayLayouts(t *testing.T) {
	rows := 20000
	if testing.Short() {
		rows = 6000
	}
	opts := strata.WriteOptions{ChunkTarget: 2 << 10, ChunkValues: 2048, StripeBytes: 1 << 20}
	day1 := layoutTable(t, rows, 1)
	defer day1.all.Release()
	f1, err := strata.OpenSource(iox.Bytes(writeBytes(t, day1, opts)))
	if err != nil {
		t.Fatal(err)
	}
	layouts, err := f1.Layouts()
	if err != nil {
		t.Fatal(err)
	}
	_, trees1, first1 := columnBytes(t, f1)
	sharedLayouts := 0
	for name, l := range layouts {
		s := l.Tree.String()
		if strings.HasPrefix(s, "SharedDictionary(") {
			// a reference to the stripe's alphabet, whose tree comes along
			sharedLayouts++
			if l.Alphabet == nil {
				t.Errorf("%s: layout %s without the alphabet's tree", name, s)
			}
			s = strings.TrimPrefix(s, "SharedDictionary")
		}
		if strings.Contains(s, "Shared") || strings.Contains(s, "Correlated") || strings.HasPrefix(s, "Nullable") {
			t.Errorf("%s: layout %s refers outside its chunk or keeps its null layer", name, s)
		}
		if l.BytesPerRow <= 0 {
			t.Errorf("%s: %v bytes per row", name, l.BytesPerRow)
		}
	}
	if sharedLayouts == 0 {
		t.Errorf("no layout refers to a shared alphabet: %v", layouts)
	}
	// A column has a layout unless its largest chunk in the first stripe
	// is stored as a difference from another column.
	for name, ts := range first1 {
		_, ok := layouts[name]
		want := true
		for _, tr := range ts {
			if strings.Contains(tr, "Correlated") {
				want = false // some chunk, perhaps the largest
			}
		}
		if want && !ok {
			t.Errorf("%s: no layout, though its chunks are %v", name, ts)
		}
	}
	for _, name := range []string{"ship", "start", "mode"} {
		if _, ok := layouts[name]; !ok {
			t.Errorf("no layout for %s (chunks %v)", name, trees1[name])
		}
	}

	// A layout selection would never choose, which fits: it must be what
	// the chunks of start use (plain int64 is its captured size).
	layouts["start"] = encoding.Layout{Tree: &encoding.Tree{Kind: encoding.KindTrivial}, BytesPerRow: 8}

	day2 := layoutTable(t, rows, 2)
	defer day2.all.Release()
	replay := opts
	replay.Layouts = layouts
	f2, err := strata.OpenSource(iox.Bytes(writeBytes(t, day2, replay)))
	if err != nil {
		t.Fatal(err)
	}
	checkFile(t, f2, day2, rand.New(rand.NewPCG(2, 9)))
	_, trees2, _ := columnBytes(t, f2)
	replayed := 0
	for name, l := range layouts {
		for _, tr := range trees2[name] {
			// a layout offers zstd wherever it may pay, so the chunks
			// match it up to zstd flags
			if strings.Contains(noZstd(tr), noZstd(l.Tree.String())) {
				replayed++
				break
			}
		}
	}
	for name, l := range layouts {
		if l.Tree.Kind != encoding.KindSharedDictionary {
			continue
		}
		if !slices.ContainsFunc(trees2[name], func(tr string) bool { return strings.Contains(tr, "SharedDictionary") }) {
			t.Errorf("%s: chunks %v, want its shared-alphabet layout replayed", name, trees2[name])
		}
	}
	for _, tr := range trees2["start"] {
		if tr != "Trivial" {
			t.Errorf("start: chunk %s, want the Trivial layout replayed", tr)
		}
	}
	if replayed*2 < len(layouts) {
		t.Errorf("%d of %d layouts replayed: layouts %v, chunks %v", replayed, len(layouts), layouts, trees2)
	}
}

// TestReplayLayoutsMisfit replays layouts that do not suit the data: a
// float encoding on text, a constant on varying integers, a dictionary on
// unique text, plain dates claimed to have taken a fifth of a byte a row,
// a chain of twelve Deltas (deeper than a reader opens), a layout of a
// column the schema does not have, and an empty one. The file reads back, and a column whose layout cannot hold
// its values well is selected afresh (a tenth over its layout's size at
// most), so it is about as small as without the layout.
func TestReplayLayoutsMisfit(t *testing.T) {
	rows := 12000
	if testing.Short() {
		rows = 5000
	}
	tb := layoutTable(t, rows, 3)
	defer tb.all.Release()
	fresh, err := strata.OpenSource(iox.Bytes(writeBytes(t, tb, strata.WriteOptions{})))
	if err != nil {
		t.Fatal(err)
	}
	freshBytes, _, _ := columnBytes(t, fresh)
	deep := &encoding.Tree{Kind: encoding.KindBlockFOR}
	for range 12 {
		deep = &encoding.Tree{Kind: encoding.KindDelta, Children: []*encoding.Tree{deep}}
	}
	bad := map[string]encoding.Layout{
		// deeper than a reader opens: the nodes past the limit are selected
		"end":    {Tree: deep, BytesPerRow: 100},
		"mode":   {Tree: &encoding.Tree{Kind: encoding.KindALP, Children: []*encoding.Tree{{Kind: encoding.KindBlockFOR}}}, BytesPerRow: 0.1},
		"start":  {Tree: &encoding.Tree{Kind: encoding.KindConstant}, BytesPerRow: 0.001},
		"note":   {Tree: &encoding.Tree{Kind: encoding.KindDictionary}, BytesPerRow: 0.5},
		"code":   {Tree: nil, BytesPerRow: 1},
		"absent": {Tree: &encoding.Tree{Kind: encoding.KindTrivial}, BytesPerRow: 1},
		// fits, but takes far more than the size it claims: selected afresh
		"ship": {Tree: &encoding.Tree{Kind: encoding.KindTrivial}, BytesPerRow: 0.2},
	}
	f, err := strata.OpenSource(iox.Bytes(writeBytes(t, tb, strata.WriteOptions{Layouts: bad})))
	if err != nil {
		t.Fatal(err)
	}
	checkFile(t, f, tb, rand.New(rand.NewPCG(3, 9)))
	got, trees, _ := columnBytes(t, f)
	for _, name := range []string{"mode", "start", "note", "code", "ship"} {
		if float64(got[name]) > 1.1*float64(freshBytes[name])+64 {
			t.Errorf("%s: %d bytes with a misfit layout, %d without (chunks %v)", name, got[name], freshBytes[name], trees[name])
		}
	}
}
