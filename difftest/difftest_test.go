package difftest

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Bounded run: tables of seeds [0, ciTables), each with queriesPerTable
// queries: 10,000 (table, query) cases in every CI run.
const (
	ciTables        = 400
	queriesPerTable = 25
)

// TestDifferential runs the fixed seed range. DIFFTEST_TABLES overrides the
// number of tables (for a quick local run).
func TestDifferential(t *testing.T) {
	tables := envUint(t, "DIFFTEST_TABLES", ciTables)
	if testing.Short() {
		tables = 20
	}
	// Each seed range adds what the tables before it do not hold; the
	// ranges after the first run a tenth (batches: a fifth) as many.
	for _, rg := range []struct {
		what  string
		from  uint64
		count uint64
	}{
		{"of every type", 0, tables},
		{"with times of day", TimeSeeds, max(tables/10, 2)},
		{"written in batches, over many stripes, on one to three goroutines", WriteSeeds, max(tables/5, 2)},
		{"with aggregates of struct fields", NestedAggSeeds, max(tables/10, 2)},
		{"with numbers kept as text", TextSeeds, max(tables/10, 2)},
		{"with related columns, stepped and periodic integers and walking floats", RelatedSeeds, max(tables/10, 2)},
		{"written in every optimization mode, replaying layouts", ModeSeeds, max(tables/10, 2)},
		{"with avg among their aggregates", AvgSeeds, max(tables/10, 2)},
		{"read from memory, over HTTP, through short reads, split and on many goroutines", ReadSeeds, max(tables/10, 2)},
		{"with hex text (UUIDs, MAC addresses, ISO times)", HexSeeds, max(tables/10, 2)},
		{"with text holding numbers (paths, logs, JSON)", FieldSeeds, max(tables/10, 2)},
		{"with comparisons and aggregates of decimals above 18 digits", WideDecimalSeeds, max(tables/10, 2)},
		{"with filters on the values of FlatMap keys", FlatMapFilterSeeds, max(tables/10, 2)},
	} {
		cases, fails := runSeeds(t, rg.from, rg.from+rg.count, 0)
		t.Logf("%d cases on %d tables %s, %d failures", cases, rg.count, rg.what, len(fails))
		if cases < int(rg.count)*queriesPerTable {
			t.Fatalf("ran %d cases on tables %s, want %d", cases, rg.what, int(rg.count)*queriesPerTable)
		}
	}
}

// TestRegressions replays every case kept in testdata/regressions.txt: one
// "seed query" pair a line, with a comment saying what it found.
func TestRegressions(t *testing.T) {
	byTable := map[uint64][]int{}
	var order []uint64
	fh, err := os.Open("testdata/regressions.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var seed uint64
		var qi int
		if _, err := fmt.Sscanf(line, "%d %d", &seed, &qi); err != nil {
			t.Fatalf("regressions.txt: %q: %v", line, err)
		}
		if _, ok := byTable[seed]; !ok {
			order = append(order, seed)
		}
		byTable[seed] = append(byTable[seed], qi)
	}
	r := newRunner(t)
	n := 0
	for _, seed := range order {
		var cases int
		var fails []Failure
		timed(t, seed, func() { cases, fails, err = r.RunTable(seed, 0, byTable[seed]) })
		if err != nil {
			t.Fatal(err)
		}
		n += cases
		for _, f := range fails {
			t.Error(f)
		}
	}
	t.Logf("%d regression cases", n)
}

// TestLong runs tables from seed DIFFTEST_FROM (default 1,000,000) for
// DIFFTEST_LONG (a duration such as 2h), reporting progress every minute;
// with DIFFTEST_UNION=1 it cuts each table into files read by column name
// (RunUnion) instead, and with DIFFTEST_TS=1 it runs time-series tables
// (RunTimeSeries; their seeds start at TSSeeds). It is skipped unless
// DIFFTEST_LONG is set. Run it with -timeout 0.
func TestLong(t *testing.T) {
	d := os.Getenv("DIFFTEST_LONG")
	if d == "" {
		t.Skip("set DIFFTEST_LONG=2h to run the long mode")
	}
	dur, err := time.ParseDuration(d)
	if err != nil {
		t.Fatal(err)
	}
	from := envUint(t, "DIFFTEST_FROM", 1_000_000)
	run := (*Runner).RunTable
	switch {
	case os.Getenv("DIFFTEST_UNION") == "1":
		run = func(r *Runner, seed uint64, queries int, _ []int) (int, []Failure, error) {
			return r.RunUnion(seed, queries)
		}
	case os.Getenv("DIFFTEST_TS") == "1":
		run = func(r *Runner, seed uint64, queries int, _ []int) (int, []Failure, error) {
			return r.RunTimeSeries(seed, queries)
		}
	}
	cases, fails := runSeedsWith(t, from, ^uint64(0), dur, run)
	t.Logf("long mode: %d cases in %v, %d failures", cases, dur, len(fails))
}

// envUint reads a count or seed from the environment variable name, def
// when it is not set.
func envUint(t *testing.T, name string, def uint64) uint64 {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return n
}

func newRunner(t *testing.T) *Runner {
	t.Helper()
	r, err := NewRunner(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// tableTimeout is how long one table's cases may take before the run
// reports them as hung (they take well under a second).
const tableTimeout = 2 * time.Minute

// timed runs one table's cases, failing the test with every goroutine's
// stack if they outlast tableTimeout: a read that waits forever.
func timed(t *testing.T, seed uint64, fn func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(tableTimeout):
		buf := make([]byte, 1<<22)
		t.Fatalf("table %d did not finish in %v; goroutines:\n%s", seed, tableTimeout, buf[:runtime.Stack(buf, true)])
	}
}

// runSeeds runs tables [from, to) or until the duration is spent, and
// reports every failure (at most 50 in full).
func runSeeds(t *testing.T, from, to uint64, dur time.Duration) (int, []Failure) {
	return runSeedsWith(t, from, to, dur, (*Runner).RunTable)
}

// runSeedsWith is runSeeds with the function that runs one table's cases.
func runSeedsWith(t *testing.T, from, to uint64, dur time.Duration, run func(*Runner, uint64, int, []int) (int, []Failure, error)) (int, []Failure) {
	r := newRunner(t)
	defer func() { t.Logf("compared: %s", r.Stats) }()
	start := time.Now()
	last := start
	cases := 0
	var fails []Failure
	for seed := from; seed < to; seed++ {
		if dur > 0 && time.Since(start) > dur {
			break
		}
		var n int
		var fs []Failure
		var err error
		timed(t, seed, func() { n, fs, err = run(r, seed, queriesPerTable, nil) })
		if err != nil {
			t.Fatal(err)
		}
		cases += n
		for _, f := range fs {
			if len(fails) < 50 {
				t.Error(f)
			}
			fails = append(fails, f)
		}
		if dur > 0 && time.Since(last) > time.Minute {
			last = time.Now()
			fmt.Printf("difftest: %v: seed %d, %d cases, %d failures; %s\n", time.Since(start).Round(time.Second), seed, cases, len(fails), r.Stats)
		}
	}
	return cases, fails
}

// UnionSeeds is the first seed of the tables TestUnionByName cuts into
// files of different columns.
const UnionSeeds = 12_000_000

// TestUnionByName scans and aggregates tables cut into files of different
// columns and read by column name, against DuckDB on one file of the same
// rows with the missing columns null (Runner.RunUnion).
func TestUnionByName(t *testing.T) {
	tables := uint64(60)
	if testing.Short() {
		tables = 10
	}
	r := newRunner(t)
	cases := 0
	// and a sixth as many tables of ReadSeeds, opened and read as their
	// read plans say
	seeds := make([]uint64, 0, tables+tables/6)
	for i := range tables {
		seeds = append(seeds, UnionSeeds+i)
	}
	for i := range tables / 6 {
		seeds = append(seeds, ReadSeeds+i)
	}
	for _, seed := range seeds {
		var n int
		var fails []Failure
		var err error
		timed(t, seed, func() { n, fails, err = r.RunUnion(seed, queriesPerTable) })
		if err != nil {
			t.Fatal(err)
		}
		cases += n
		for _, f := range fails {
			t.Error(f)
		}
	}
	t.Logf("%d cases on %d tables cut into files of different columns; %s", cases, len(seeds), r.Stats)
	if cases < len(seeds) {
		t.Fatalf("ran %d cases on %d tables", cases, len(seeds))
	}
}

// TestTimeSeries runs time-series tables (RunTimeSeries) against DuckDB.
func TestTimeSeries(t *testing.T) {
	tables := uint64(40)
	if testing.Short() {
		tables = 8
	}
	tables = envUint(t, "DIFFTEST_TS_TABLES", tables)
	from := envUint(t, "DIFFTEST_TS_FROM", TSSeeds)
	r := newRunner(t)
	cases := 0
	for seed := from; seed < from+tables; seed++ {
		var n int
		var fails []Failure
		var err error
		timed(t, seed, func() { n, fails, err = r.RunTimeSeries(seed, queriesPerTable) })
		if err != nil {
			t.Fatal(err)
		}
		cases += n
		for i, f := range fails {
			if i < 20 {
				t.Error(f)
			}
		}
	}
	t.Logf("%d time-series cases on %d tables; %s", cases, tables, r.Stats)
}

// TestFlatMapFilterDrawn checks that the tables of FlatMapFilterSeeds draw
// filters on FlatMap keys, whose paths and SQL name the key, and that the
// tables just below it draw none (their queries stay what they were).
func TestFlatMapFilterDrawn(t *testing.T) {
	dir := t.TempDir()
	flat := 0
	for _, seed := range []uint64{FlatMapFilterSeeds - 2, FlatMapFilterSeeds - 1, FlatMapFilterSeeds + 5, FlatMapFilterSeeds + 10, FlatMapFilterSeeds + 31} {
		tb, err := NewTable(seed, dir)
		if err != nil {
			t.Fatal(err)
		}
		for qi := range queriesPerTable {
			q := NewQuery(tb, qi)
			if q.FlatKeys == 0 {
				continue
			}
			if seed < FlatMapFilterSeeds {
				t.Errorf("case %d/%d below FlatMapFilterSeeds filters on a FlatMap key: %s", seed, qi, q)
			}
			if !strings.Contains(q.SQL, "map_extract_value(") {
				t.Errorf("case %d/%d: %d comparisons on FlatMap keys, none in SQL: %s", seed, qi, q.FlatKeys, q)
			}
			flat++
		}
		tb.Release()
	}
	if flat == 0 {
		t.Fatal("no filter on a FlatMap key drawn")
	}
	t.Logf("%d queries filter on FlatMap keys", flat)
}
