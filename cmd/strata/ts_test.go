package main

import (
	"bytes"
	"math"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/timeseries"
)

// tsPoint is one row of a test table: series k, time t in the table's
// unit, and v, a number naming the row.
type tsPoint struct {
	k string
	t int64
	v int64
}

// writeTSFile writes points as a time-series table with a timestamp time
// column of the given unit (or an int64 one when unit is nil).
func writeTSFile(t *testing.T, path string, unit *arrow.TimeUnit, pts []tsPoint) {
	t.Helper()
	var tt arrow.DataType = arrow.PrimitiveTypes.Int64
	if unit != nil {
		tt = &arrow.TimestampType{Unit: *unit, TimeZone: "UTC"}
	}
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.BinaryTypes.String},
		{Name: "t", Type: tt},
		{Name: "v", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	for _, p := range pts {
		b.Field(0).(*array.StringBuilder).Append(p.k)
		if unit != nil {
			b.Field(1).(*array.TimestampBuilder).Append(arrow.Timestamp(p.t))
		} else {
			b.Field(1).(*array.Int64Builder).Append(p.t)
		}
		b.Field(2).(*array.Int64Builder).Append(p.v)
	}
	rec := b.NewRecord()
	defer rec.Release()
	writeTSRecord(t, path, rec)
}

// writeTSRecord writes rec as a time-series table keyed by its column k,
// with time column t.
func writeTSRecord(t *testing.T, path string, rec arrow.Record) {
	t.Helper()
	w, err := timeseries.Create(path, rec.Schema(), timeseries.Model{Keys: []string{"k"}, Time: "t"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// csvColumn returns the values of the last column of CSV output, header
// dropped.
func csvColumn(out string) []string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var vals []string
	for _, l := range lines[1:] {
		if l == "" {
			continue
		}
		vals = append(vals, l[strings.LastIndexByte(l, ',')+1:])
	}
	return vals
}

// instantNanos is the instant of an RFC 3339 time in nanoseconds since
// 1970, in big integers (years 1 and 9999 pass int64 in nanoseconds).
func instantNanos(t *testing.T, s string) *big.Int {
	tm, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatal(err)
	}
	n := new(big.Int).Mul(big.NewInt(tm.Unix()), big.NewInt(1e9))
	return n.Add(n, big.NewInt(int64(tm.Nanosecond())))
}

// TestTSTimeFlags: --from and --to keep exactly the rows at or after, and
// before, the instants they name, whatever the unit: a time finer than the
// unit once truncated (so --from kept a row before it and --to dropped one
// before it), and a time the unit cannot hold (year 9999 in nanoseconds)
// wrapped around int64 and selected the wrong rows. A reversed range is a
// usage error; so is an --every finer than the unit, which once became 0,
// one bucket per series.
func TestTSTimeFlags(t *testing.T) {
	dir := t.TempDir()
	for _, unit := range []arrow.TimeUnit{arrow.Second, arrow.Microsecond, arrow.Nanosecond} {
		per := map[arrow.TimeUnit]int64{arrow.Second: 1, arrow.Microsecond: 1e6, arrow.Nanosecond: 1e9}[unit]
		var pts []tsPoint
		for i, tm := range []int64{math.MinInt64, -3, -2, -1, 0, 1, 2, 3, math.MaxInt64} {
			pts = append(pts, tsPoint{k: "a", t: tm, v: int64(i)})
		}
		path := filepath.Join(dir, unit.String()+".strata")
		writeTSFile(t, path, &unit, pts)
		unitNanos := big.NewInt(1e9 / per)
		for _, r := range [][2]string{
			{"1969-12-31T23:59:59.999999998Z", "1970-01-01T00:00:00.0000000015Z"},
			{"1969-12-31T23:59:59.9999995Z", "1970-01-01T00:00:00.0000005Z"},
			{"1969-12-31T23:59:58.5Z", "1970-01-01T00:00:01.5Z"},
			{"1969-12-31T23:59:57Z", "1970-01-01T00:00:02Z"},
			{"0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z"},
			{"9999-01-01T00:00:00Z", "9999-12-31T23:59:59Z"},
			{"0001-01-01T00:00:00Z", "0001-01-02T00:00:00Z"},
			{"1970-01-01T00:00:00Z", "9999-12-31T23:59:59Z"},
			{"2000-01-01T00:00:00Z", "2000-01-01T00:00:00Z"},
		} {
			from, to := instantNanos(t, r[0]), instantNanos(t, r[1])
			var want []string
			for _, p := range pts {
				at := new(big.Int).Mul(big.NewInt(p.t), unitNanos)
				if at.Cmp(from) >= 0 && at.Cmp(to) < 0 {
					want = append(want, strconv.FormatInt(p.v, 10))
				}
			}
			out, _, err := capture(t, "ts", "query", path, "--from", r[0], "--to", r[1], "--columns", "v", "--format", "csv")
			if err != nil {
				t.Fatalf("%v [%s, %s): %v", unit, r[0], r[1], err)
			}
			if got := csvColumn(out); strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("%v [%s, %s): rows %v, want %v", unit, r[0], r[1], got, want)
			}
		}
		for _, args := range [][]string{
			{"query", path, "--from", "1970-01-01T00:00:01Z", "--to", "1970-01-01"},
			{"query", path, "--from", "9999-01-01", "--to", "0001-01-01"},
			{"query", path, "--from", "5", "--to", "-5"},
			{"agg", path, "--every", "1500ms"},
			{"agg", path, "--every", "soon"},
		} {
			if unit == arrow.Second || args[0] == "query" {
				if _, _, err := capture(t, "ts", args...); err == nil || exitCode(err) != exitUsage {
					t.Errorf("%v %v: %v (exit %d), want exit %d", unit, args, err, exitCode(err), exitUsage)
				}
			}
		}
	}
	// --every in the unit: 2µs buckets of a microsecond table, whole
	// nanosecond and millisecond multiples of it; 1ns is finer than it
	path := filepath.Join(dir, "us.strata")
	for every, want := range map[string]string{"2us": "1 1 2 2 2 1", "2000ns": "1 1 2 2 2 1", "2": "1 1 2 2 2 1", "1ms": "1 3 4 1"} {
		out, _, err := capture(t, "ts", "agg", path, "--every", every, "--funcs", "count", "--format", "csv")
		if err != nil {
			t.Fatalf("--every %s: %v", every, err)
		}
		if got := strings.Join(csvColumn(out), " "); got != want {
			t.Errorf("--every %s: counts %s, want %s", every, got, want)
		}
	}
	if _, _, err := capture(t, "ts", "agg", path, "--every", "1ns"); err == nil || exitCode(err) != exitUsage || !strings.Contains(err.Error(), "microseconds") {
		t.Errorf("--every 1ns of microseconds: %v (exit %d), want exit %d naming the unit", err, exitCode(err), exitUsage)
	}
}

// TestTSExitCodes: a ts command line no file could satisfy exits 2, as
// the other commands' do (these exited 1, the code of failed work), -h
// exits 0, and a missing file 1.
func TestTSExitCodes(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.strata")
	writeTSFile(t, path, nil, []tsPoint{{"a", 1, 1}, {"a", 2, 2}, {"b", 1, 3}})
	for _, args := range [][]string{
		{"query", path, "--series", "k=a,k=b"},
		{"agg", path, "--columns", "k"},
		{"agg", path, "--columns", "t"},
		{"last", path, "--columns", "k"},
		{"paths", path},
		{"paths", path, "--paths", "a.k"},
		{"sample", path, "--windows", "1", "--length", "3"},
		{"query", path, "--from", "2020-01-01"},
	} {
		if _, _, err := capture(t, "ts", args...); err == nil || exitCode(err) != exitUsage {
			t.Errorf("ts %v: %v (exit %d), want exit %d", args, err, exitCode(err), exitUsage)
		}
	}
	for _, sub := range []string{"import", "query", "agg", "sample", "last", "paths", "info"} {
		if _, _, err := capture(t, "ts", sub, "-h"); err != nil {
			t.Errorf("ts %s -h: %v, want exit 0", sub, err)
		}
	}
	if _, _, err := capture(t, "ts", "query", filepath.Join(dir, "missing.strata")); err == nil || exitCode(err) != exitFailed {
		t.Errorf("missing file: %v (exit %d), want exit %d", err, exitCode(err), exitFailed)
	}
}

// TestTSQueryNoRows: a query that selects no row prints its columns' header
// in table and CSV output, as scan does (it printed nothing, so a CSV
// consumer got a file without columns), and nothing in JSON lines.
func TestTSQueryNoRows(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.strata")
	writeTSFile(t, path, nil, []tsPoint{{"a", 1, 1}, {"b", 1, 3}})
	for _, args := range [][]string{{"--from", "5"}, {"--series", "k=zz"}, {"--limit", "1", "--offset", "7"}} {
		for format, want := range map[string]string{"csv": "k,t,v\n", "json": "", "table": "k  t  v\n-  -  -\n"} {
			out, _, err := capture(t, "ts", append([]string{"query", path, "--format", format}, args...)...)
			if err != nil {
				t.Fatal(err)
			}
			if out != want {
				t.Errorf("%v --format %s: %q, want %q", args, format, out, want)
			}
		}
	}
}

// TestTSQuotedNames: --series takes a quoted value holding a comma or
// quotes, and --paths a quoted path holding a comma; both were split at
// every comma (and quotes trimmed off values), so such series could not
// be named.
func TestTSQuotedNames(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.strata")
	writeTSFile(t, path, nil, []tsPoint{{"a,b", 1, 1}, {"a,b", 2, 2}, {`"q"`, 1, 3}, {"a", 1, 4}, {"b", 1, 5}})
	for sel, want := range map[string]string{`k="a,b"`: "1 2", `k='"q"'`: "3", `k="""q"""`: "3", "k=a": "4", `k= "b" `: "5"} {
		out, _, err := capture(t, "ts", "query", path, "--series", sel, "--columns", "v", "--format", "csv")
		if err != nil {
			t.Fatalf("--series %s: %v", sel, err)
		}
		if got := strings.Join(csvColumn(out), " "); got != want {
			t.Errorf("--series %s: %s, want %s", sel, got, want)
		}
	}
	out, _, err := capture(t, "ts", "paths", path, "--paths", `"a,b.v",b.v`, "--format", "csv")
	if err != nil {
		t.Fatal(err)
	}
	if want := "t,\"a,b.v\",b.v\n1,1,5\n2,2,\n"; out != want {
		t.Errorf("--paths: %q, want %q", out, want)
	}
}

// TestTSOpen: ts commands read a file over http(s) as from disk (they
// opened every FILE with os.Open, so a URL, which every reading command
// takes, was "no such file"), and opening the wrong file gives advice: a
// Strata table without a series index (exit 2) or a Parquet file (exit 3)
// names the ts import that makes one, a missing file where it was looked
// for (exit 1).
func TestTSOpen(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.strata")
	writeTSFile(t, path, nil, []tsPoint{{"a", 1, 1}, {"a", 2, 2}, {"b", 1, 3}, {"b", 9, 4}})
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"t"`)
		http.ServeContent(w, r, "", time.Unix(1700000000, 0), bytes.NewReader(data))
	}))
	defer web.Close()
	for _, c := range [][]string{
		{"query", "--series", "k=b", "--format", "csv"},
		{"agg", "--every", "2", "--format", "csv"},
		{"last", "--format", "json"},
		{"sample", "--windows", "3", "--length", "2", "--seed", "9"},
		{"paths", "--paths", "a.v,b.v"},
		{"info"},
	} {
		local, _, err := capture(t, "ts", append([]string{c[0], path}, c[1:]...)...)
		if err != nil || len(local) < 10 {
			t.Fatalf("%v: %q, %v", c, local, err)
		}
		remote, _, err := capture(t, "ts", append([]string{c[0], web.URL + "/t.strata"}, c[1:]...)...)
		if err != nil || remote != local {
			t.Errorf("%v over http: %q, %v; want %q", c, remote, err, local)
		}
	}

	plain := filepath.Join(dir, "plain.strata")
	if _, _, err := capture(t, "import", "--quiet", path, plain); err != nil {
		t.Fatal(err)
	}
	pq := filepath.Join(dir, "t.parquet")
	if _, _, err := capture(t, "export", path, pq); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path, want string
		exit       int
	}{
		{plain, "plain.strata is a Strata table without a series index; make a time-series table of it with: strata ts import", exitUsage},
		{pq, "t.parquet is a Parquet file, not a Strata file; make a time-series table of it with: strata ts import", exitCorrupt},
		{filepath.Join(dir, "missing.strata"), "missing.strata: no such file", exitFailed},
	} {
		for _, sub := range []string{"query", "info"} {
			_, _, err := capture(t, "ts", sub, c.path)
			if err == nil || !strings.Contains(err.Error(), c.want) || exitCode(err) != c.exit {
				t.Errorf("ts %s %s: %v (exit %d), want %q and exit %d", sub, c.path, err, exitCode(err), c.want, c.exit)
			}
		}
	}
}

// TestTSAggFirstLast: --funcs first,last give a bucket's values of its
// earliest and latest time (a bar's open and close), whatever order the
// points were written in; a series of one point opens and closes on it.
func TestTSAggFirstLast(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bars.strata")
	// written out of time order: the table sorts by series and time
	writeTSFile(t, path, nil, []tsPoint{
		{k: "a", t: 15, v: 7}, {k: "a", t: 3, v: 5}, {k: "b", t: 4, v: 40}, {k: "a", t: 9, v: 2},
		{k: "a", t: 0, v: 1}, {k: "a", t: 12, v: 6}, {k: "a", t: 19, v: 3},
	})
	out, _, err := capture(t, "ts", "agg", path, "--every", "10", "--columns", "v", "--funcs", "first,max,min,last", "--format", "csv")
	if err != nil {
		t.Fatal(err)
	}
	want := "k,bucket,first(v),max(v),min(v),last(v)\na,0,1,5,1,2\na,10,6,7,3,3\nb,0,40,40,40,40"
	if got := strings.TrimSpace(out); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestTSKeysWithCommas: a key column whose name holds a comma is named
// quoted in ts import --series, ts agg --keys and selectors (--series
// split at every comma, and such a table could not be made or read by
// its key); --chunk-rows below 1 is a usage error, not the default, and
// so is one past math.MaxInt32.
func TestTSKeysWithCommas(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "in.csv"), filepath.Join(dir, "out.strata")
	if err := os.WriteFile(src, []byte("\"site,id\",t,v\na,1,10\na,2,11\n\"b,c\",1,20\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := capture(t, "ts", "import", src, dst, "--series", `"site,id"`, "--time", "t", "--chunk-rows", "0"); exitCode(err) != exitUsage {
		t.Errorf("--chunk-rows 0: %v (exit %d), want exit %d", err, exitCode(err), exitUsage)
	}
	// (chunks past math.MaxInt32 rows wrote a file every open refused as corrupt)
	if _, _, err := capture(t, "ts", "import", src, dst, "--series", `"site,id"`, "--time", "t", "--chunk-rows", "1000000000000"); exitCode(err) != exitUsage ||
		!strings.Contains(err.Error(), "--chunk-rows 1000000000000: want 1 to 2147483647") {
		t.Errorf("--chunk-rows 1000000000000: %v (exit %d), want exit %d", err, exitCode(err), exitUsage)
	}
	if _, _, err := capture(t, "ts", "import", src, dst, "--series", `"site,id`, "--time", "t"); exitCode(err) != exitUsage {
		t.Errorf("unclosed quote in --series: %v (exit %d), want exit %d", err, exitCode(err), exitUsage)
	}
	if _, _, err := capture(t, "ts", "import", src, dst, "--series", `"site,id"`, "--time", "t"); err != nil {
		t.Fatal(err)
	}
	out, _, err := capture(t, "ts", "agg", dst, "--keys", `"site,id"`, "--funcs", "count,last", "--format", "csv")
	if err != nil {
		t.Fatal(err)
	}
	if want := "\"site,id\",bucket,count(v),last(v)\na,1,2,11\n\"b,c\",1,1,20"; strings.TrimSpace(out) != want {
		t.Errorf("agg:\n%s\nwant\n%s", out, want)
	}
	out, _, err = capture(t, "ts", "query", dst, "--series", `"site,id"="b,c"`, "--columns", "v", "--format", "csv")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(csvColumn(out), " "); got != "20" {
		t.Errorf("query of series b,c: %s, want 20", got)
	}
}

// TestTSQuoteThenText: ts import --series, ts agg --keys and ts paths
// --paths refuse text after a closing quote, naming the item, as a usage
// error: "site,"id was read as the column site,id (and "ho"st as host).
func TestTSQuoteThenText(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "in.csv"), filepath.Join(dir, "out.strata")
	if err := os.WriteFile(src, []byte("\"site,id\",t,v\na,1,10\na,2,11\n\"b,c\",1,20\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"import", src, dst, "--series", `"site,"id`, "--time", "t"},
		{"import", src, dst, "--series", `"site,id"`, "--time", "t"}, // (makes dst)
		{"agg", dst, "--keys", `"site,"id`},
		{"agg", dst, "--keys", `"site,id" x`},
		{"paths", dst, "--paths", `"b,"c.v`},
		{"query", dst, "--columns", `v,"t"v`},
	} {
		_, _, err := capture(t, "ts", args...)
		item := args[len(args)-1]
		if args[0] == "import" {
			item = args[len(args)-3]
		}
		if item == `"site,id"` {
			if err != nil {
				t.Fatalf("ts %v: %v", args, err)
			}
			continue
		}
		if i := strings.LastIndexByte(item, ','); args[0] == "query" && i >= 0 {
			item = item[i+1:]
		}
		if exitCode(err) != exitUsage || !strings.Contains(err.Error(), item+": text after the closing quote") {
			t.Errorf("ts %v: %v (exit %d), want exit %d naming %s", args, err, exitCode(err), exitUsage, item)
		}
	}
	out, _, err := capture(t, "ts", "paths", dst, "--paths", `"b,c".v,a.v`, "--format", "csv")
	if err != nil {
		t.Fatal(err)
	}
	if want := "t,\"b,c.v\",a.v\n1,20,10\n2,,11\n"; out != want {
		t.Errorf("--paths \"b,c\".v,a.v: %q, want %q", out, want)
	}
}

// TestTSSampleCounts: ts sample --windows, --length and --epochs below 1
// are usage errors naming the flag (--windows 0 and --epochs 0 printed
// nothing and exited 0); the largest --epoch draws its windows (its loop
// bound overflowed, so it drew none and exited 0), and epochs past it are
// a usage error.
func TestTSSampleCounts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.strata")
	var pts []tsPoint
	for i := range 20 {
		pts = append(pts, tsPoint{string(rune('a' + i%3)), int64(i), int64(i)})
	}
	writeTSFile(t, path, nil, pts)
	for _, bad := range [][]string{
		{"--windows", "0"}, {"--windows", "-1"}, {"--length", "0"}, {"--length", "-2"},
		{"--epochs", "0"}, {"--epochs", "-1"},
		{"--epoch", strconv.Itoa(math.MaxInt), "--epochs", "2"},
	} {
		args := append([]string{"sample", path, "--windows", "2", "--length", "2"}, bad...)
		out, _, err := capture(t, "ts", args...)
		if exitCode(err) != exitUsage || !strings.HasPrefix(err.Error(), strings.Join(bad, " ")+":") || out != "" {
			t.Errorf("ts sample %v: %q, %v (exit %d), want exit %d naming %s %s", bad, out, err, exitCode(err), exitUsage, bad[0], bad[1])
		}
	}
	f, err := timeseries.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, es := range [][]int{{math.MaxInt}, {math.MaxInt - 1, math.MaxInt}, {3, 4}} {
		var want []string // v of every window row, epoch by epoch
		for _, e := range es {
			recs, _, err := f.Sample(ctx, timeseries.SampleOptions{Windows: 2, Length: 2, Seed: 1, Epoch: e})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range recs {
				for i := 0; i < int(r.NumRows()); i++ {
					want = append(want, strconv.FormatInt(r.Column(1).(*array.Int64).Value(i), 10))
				}
				r.Release()
			}
		}
		args := []string{"sample", path, "--windows", "2", "--length", "2", "--epoch", strconv.Itoa(es[0]), "--epochs", strconv.Itoa(len(es)), "--format", "csv"}
		out, _, err := capture(t, "ts", args...)
		if err != nil {
			t.Fatalf("ts %v: %v", args, err)
		}
		var got []string
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			if l != "t,v" {
				got = append(got, l[strings.LastIndexByte(l, ',')+1:])
			}
		}
		if len(want) != 2*2*len(es) || strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("ts %v: v %v, want %v", args, got, want)
		}
	}
}
