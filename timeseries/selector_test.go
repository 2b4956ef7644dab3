package timeseries

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/iox"
	"strata/read"
)

// TestParseSelector: quoted values keep commas, '=', spaces and quotes (a
// doubled quote is one). Values with a comma could not be selected at all
// (the text was split at every comma first), and quotes that belonged to a
// value were trimmed off it ("q" selected q).
func TestParseSelector(t *testing.T) {
	for in, want := range map[string]Selector{
		"host=a":                     {"host": "a"},
		" host = a , region= b ":     {"host": "a", "region": "b"},
		`host="a,b"`:                 {"host": "a,b"},
		`host='a,b',x=1`:             {"host": "a,b", "x": "1"},
		`host="say ""hi"""`:          {"host": `say "hi"`},
		`host='it''s'`:               {"host": "it's"},
		`host="'s'"`:                 {"host": "'s'"},
		`host='"q"'`:                 {"host": `"q"`},
		`host=""""`:                  {"host": `"`},
		"host=a=b":                   {"host": "a=b"},
		"host=":                      {"host": ""},
		`host=""`:                    {"host": ""},
		`host=a"b`:                   {"host": `a"b`},
		`host= " x y " , region='r'`: {"host": " x y ", "region": "r"},
		"":                           {},
		"host!=a":                    {"host!=": "a"},
		"host=~a.*, region!~'e,u.*'": {"host=~": "a.*", "region!~": "e,u.*"},
		`host="~a"`:                  {"host": "~a"},
		"host=a,host!=b,host=~c":     {"host": "a", "host!=": "b", "host=~": "c"},
		"host=~":                     {"host=~": ""},
		"host = ~ a":                 {"host": "~ a"},
		`"site,id"="b,c"`:            {"site,id": "b,c"},
		` 'x''y' !=2,"a=b"=~c`:       {"x'y!=": "2", "a=b=~": "c"},
	} {
		got, err := ParseSelector(in)
		if err != nil || !maps.Equal(got, want) {
			t.Errorf("%s: %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"host=a,", "host", "=a", `host="a`, `host="a"x`, "host=a,host=b", ",host=a", "host!a", "!=a", "host~a", "host!=a,host!=b", `"a"b=1`, `""=1`, `"a=1`, `"a"`} {
		if sel, err := ParseSelector(in); !errors.Is(err, read.ErrInvalidArgument) {
			t.Errorf("%s: %q, %v; want read.ErrInvalidArgument", in, sel, err)
		}
	}
}

// TestSelectHostileNames: every series key — empty, with commas, '=',
// quotes, spaces, dots, backslashes, unicode — is selected by its value
// quoted as ParseSelector reads it, and by its tree-model path, and the
// rows are the series' own.
func TestSelectHostileNames(t *testing.T) {
	names := []string{"", "a,b", "a=b", `"q"`, "'s'", " x y ", "日本", "a.b", `a\b`, `a,"b"=c`, "plain"}
	var pts []point
	for i, n := range names {
		for j := range 3 {
			pts = append(pts, point{k: n, t: int64(j*10 - i), v: float64(i*10 + j)})
		}
	}
	f := pointFile(t, pts, nil)
	for _, n := range names {
		var want []point
		for _, p := range pts {
			if p.k == n {
				want = append(want, p)
			}
		}
		sel, err := ParseSelector(`k="` + strings.ReplaceAll(n, `"`, `""`) + `"`)
		if err != nil {
			t.Fatal(err)
		}
		samePoints(t, "series "+n, queryPoints(t, f, QueryOptions{Series: sel}), want)
		ss, err := f.Select(ctx, Selector{"k": n})
		if err != nil || len(ss) != 1 {
			t.Fatalf("select %q: %v %v", n, ss, err)
		}
		rec, _, err := f.QueryPaths(ctx, []string{ss[0].Path + ".v"}, nil)
		if err != nil {
			t.Fatalf("path %q: %v", ss[0].Path, err)
		}
		if int(rec.NumRows()) != len(want) {
			t.Fatalf("path %q: %d rows, want %d", ss[0].Path, rec.NumRows(), len(want))
		}
		for i, w := range want {
			if tm, v := rec.Column(0).(*array.Int64).Value(i), rec.Column(1).(*array.Float64).Value(i); tm != w.t || v != w.v {
				t.Fatalf("path %q row %d: %d %v, want %d %v", ss[0].Path, i, tm, v, w.t, w.v)
			}
		}
		rec.Release()
	}
}

// TestSelectOperators: != , =~ and !~ pick the series by hand, alone and
// beside an equality that narrows the directory to a prefix; an expression
// matches the whole value; a bad expression or a key that is no column is
// refused.
func TestSelectOperators(t *testing.T) {
	names := []string{"host_1", "host_10", "host_2", "db_1", "db_20", "", "a.b"}
	var pts []point
	for i, n := range names {
		pts = append(pts, point{k: n, t: int64(i), v: float64(i)})
	}
	f := pointFile(t, pts, nil)
	for _, tc := range []struct {
		sel  string
		want []string // in key order
	}{
		{"k=~host_.*", []string{"host_1", "host_10", "host_2"}},
		{"k=~host_1", []string{"host_1"}}, // anchored: not host_10
		{"k!~host_.*", []string{"", "a.b", "db_1", "db_20"}},
		{"k!=db_1", []string{"", "a.b", "db_20", "host_1", "host_10", "host_2"}},
		{"k=~.*_[0-9]", []string{"db_1", "host_1", "host_2"}},
		{"k=~", []string{""}},
		{"k=~a\\.b", []string{"a.b"}},
		{"k=~a.b|db_20", []string{"a.b", "db_20"}},
		{"k=host_1,k!=host_1", nil},
		{"k=host_10,k=~host.*", []string{"host_10"}},
		{"k=nope,k!~x", nil},
		// \Q quotes to the end of the expression: it used to swallow the
		// anchoring group's closing parenthesis and be refused
		{`k=~\Qa.b`, []string{"a.b"}},
		{`k=~db_\Q1`, []string{"db_1"}},
		{`k!~\Qhost_1`, []string{"", "a.b", "db_1", "db_20", "host_10", "host_2"}},
		{`k=~\Q`, []string{""}},
		{"k=~host_1|host_10", []string{"host_1", "host_10"}}, // the longer alternative spans host_10
	} {
		sel, err := ParseSelector(tc.sel)
		if err != nil {
			t.Fatalf("%s: %v", tc.sel, err)
		}
		ss, err := f.Select(ctx, sel)
		if err != nil {
			t.Fatalf("%s: %v", tc.sel, err)
		}
		var got []string
		for _, s := range ss {
			got = append(got, s.Key[0])
		}
		if strings.Join(got, "|") != strings.Join(tc.want, "|") || len(got) != len(tc.want) {
			t.Errorf("%s: %q, want %q", tc.sel, got, tc.want)
		}
		// the rows a query returns are those series' own
		var want []point
		for _, w := range tc.want {
			for _, p := range pts {
				if p.k == w {
					want = append(want, p)
				}
			}
		}
		samePoints(t, tc.sel, queryPoints(t, f, QueryOptions{Series: sel}), want)
	}
	for _, sel := range []Selector{{"k=~": "a(b"}, {"x!=": "a"}, {"x=~": "a"}, {"k!": "a"}} {
		if _, err := f.Select(ctx, sel); !errors.Is(err, read.ErrInvalidArgument) {
			t.Errorf("%v: %v, want read.ErrInvalidArgument", sel, err)
		}
	}
}

// FuzzParseSelector: any text parses or is refused with
// read.ErrInvalidArgument, never a panic; what parses, written back with
// every value quoted, parses to the same selector.
func FuzzParseSelector(f *testing.F) {
	for _, s := range []string{"host=a", `host="a,b",x!=1`, "h=~a.*,r!~'x''y'", "host = ~ a", "a!b", `k=""""`, "a! =x", `"a,b"!~'c'`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sel, err := ParseSelector(s)
		if err != nil {
			if !errors.Is(err, read.ErrInvalidArgument) {
				t.Fatalf("%q: %v", s, err)
			}
			return
		}
		var parts []string
		for k, v := range sel {
			op := "="
			for _, o := range selectorOps {
				if strings.HasSuffix(k, o) {
					k, op = strings.TrimSuffix(k, o), o
					break
				}
			}
			parts = append(parts, `"`+strings.ReplaceAll(k, `"`, `""`)+`"`+op+`"`+strings.ReplaceAll(v, `"`, `""`)+`"`)
		}
		again, err := ParseSelector(strings.Join(parts, ","))
		if err != nil || !maps.Equal(again, sel) {
			t.Fatalf("%q parsed to %q; written back as %q it parses to %q, %v", s, sel, strings.Join(parts, ","), again, err)
		}
	})
}

// TestSelectRegexpNewline: in =~ and !~ a . matches a newline too, as
// Prometheus compiles label matchers (^(?s:re)$); it used not to, so a key
// holding a newline escaped a.b and .* alike. (?-s) turns the flag off, and
// a bad expression's error quotes it as written.
func TestSelectRegexpNewline(t *testing.T) {
	names := []string{"a\nb", "ab", "a\n", "\nx", "x"}
	var pts []point
	for i, n := range names {
		pts = append(pts, point{k: n, t: int64(i), v: float64(i) + 0.5})
	}
	f := pointFile(t, pts, nil)
	for _, tc := range []struct {
		sel  Selector
		want []string // in key order
	}{
		{Selector{"k=~": "a.b"}, []string{"a\nb"}},
		{Selector{"k=~": "a.*"}, []string{"a\n", "a\nb", "ab"}},
		{Selector{"k!~": "a.*"}, []string{"\nx", "x"}},
		{Selector{"k=~": ".x"}, []string{"\nx"}},
		{Selector{"k=~": ".+"}, []string{"\nx", "a\n", "a\nb", "ab", "x"}},
		{Selector{"k!~": ".*"}, nil},
		{Selector{"k=~": "a."}, []string{"a\n", "ab"}},
		{Selector{"k=~": "(?-s)a.*"}, []string{"ab"}},
		{Selector{"k=~": `\Qa.b`}, nil},
	} {
		ss, err := f.Select(ctx, tc.sel)
		if err != nil {
			t.Fatalf("%q: %v", tc.sel, err)
		}
		var got []string
		for _, s := range ss {
			got = append(got, s.Key[0])
		}
		if len(got) != len(tc.want) || strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("%q: %q, want %q", tc.sel, got, tc.want)
		}
		var want []point
		for _, w := range tc.want {
			for _, p := range pts {
				if p.k == w {
					want = append(want, p)
				}
			}
		}
		samePoints(t, fmt.Sprintf("%q", tc.sel), queryPoints(t, f, QueryOptions{Series: tc.sel}), want)
	}
	_, err := f.Select(ctx, Selector{"k=~": "a(b"})
	if !errors.Is(err, read.ErrInvalidArgument) || !strings.Contains(err.Error(), "`a(b`") || strings.Contains(err.Error(), "(?s)") {
		t.Errorf("a(b: %v, want read.ErrInvalidArgument quoting `a(b`", err)
	}
}

// TestSelectIntegerKeyText: an integer key given text that is no integer
// of its kind, with =, != or Lookup, is refused with an error naming the
// key, its type and the text and wrapping strconv's reason (it used to be
// strconv's bare "strconv.ParseInt: parsing ..."); integer text selects
// as before.
func TestSelectIntegerKeyText(t *testing.T) {
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int32},
		{Name: "u", Type: arrow.PrimitiveTypes.Uint16},
		{Name: "ts", Type: arrow.PrimitiveTypes.Int64},
		{Name: "v", Type: arrow.PrimitiveTypes.Float64},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	type row struct {
		id int32
		u  uint16
		v  float64
	}
	rows := []row{{1, 5, 1.5}, {2, 5, 2.5}, {2, 7, 3.5}, {-3, 9, 4.5}}
	for i, r := range rows {
		b.Field(0).(*array.Int32Builder).Append(r.id)
		b.Field(1).(*array.Uint16Builder).Append(r.u)
		b.Field(2).(*array.Int64Builder).Append(int64(i))
		b.Field(3).(*array.Float64Builder).Append(r.v)
	}
	rec := b.NewRecord()
	defer rec.Release()
	f, err := OpenSource(ctx, iox.Bytes(writeFile(t, []arrow.Record{rec}, Model{Keys: []string{"id", "u"}, Time: "ts"}, nil)), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, tc := range []struct {
		sel    Selector
		msg    string
		reason error
	}{
		{Selector{"id!=": "x"}, `timeseries: key "id" (int32): "x" is not an integer: invalid syntax: invalid argument`, strconv.ErrSyntax},
		{Selector{"id": "1.5"}, `timeseries: key "id" (int32): "1.5" is not an integer: invalid syntax: invalid argument`, strconv.ErrSyntax},
		{Selector{"id=~": "1", "u!=": "-1"}, `timeseries: key "u" (uint16): "-1" is not an unsigned integer: invalid syntax: invalid argument`, strconv.ErrSyntax},
		{Selector{"id!=": "99999999999999999999"}, `timeseries: key "id" (int32): "99999999999999999999" is outside the 64-bit range: value out of range: invalid argument`, strconv.ErrRange},
	} {
		ss, err := f.Select(ctx, tc.sel)
		if err == nil || err.Error() != tc.msg || !errors.Is(err, read.ErrInvalidArgument) || !errors.Is(err, tc.reason) {
			t.Errorf("%q: %v, %v; want %q wrapping %v", tc.sel, ss, err, tc.msg, tc.reason)
		}
	}
	if _, _, err := f.Lookup(ctx, "two", "5"); err == nil || err.Error() != `timeseries: key "id" (int32): "two" is not an integer: invalid syntax: invalid argument` {
		t.Errorf("lookup (two, 5): %v", err)
	}
	// integer text still selects, value by value
	for _, tc := range []struct {
		sel  Selector
		want []row // in key order
	}{
		{Selector{"id!=": "2"}, []row{rows[3], rows[0]}},
		{Selector{"id": "02", "u!=": "5"}, []row{rows[2]}},
		{Selector{"u": "5"}, []row{rows[0], rows[1]}},
		{Selector{"id": "-3"}, []row{rows[3]}},
	} {
		ss, err := f.Select(ctx, tc.sel)
		if err != nil {
			t.Fatalf("%q: %v", tc.sel, err)
		}
		var got []row
		for _, s := range ss {
			id, _ := strconv.ParseInt(s.Key[0], 10, 32)
			u, _ := strconv.ParseUint(s.Key[1], 10, 16)
			got = append(got, row{int32(id), uint16(u), 0})
		}
		res, err := f.Query(ctx, QueryOptions{Series: tc.sel, Columns: []string{"id", "u", "v"}})
		if err != nil {
			t.Fatalf("%q: %v", tc.sel, err)
		}
		var vals []row
		for {
			r, err := res.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%q: %v", tc.sel, err)
			}
			for i := 0; i < int(r.NumRows()); i++ {
				vals = append(vals, row{r.Column(0).(*array.Int32).Value(i), r.Column(1).(*array.Uint16).Value(i), r.Column(2).(*array.Float64).Value(i)})
			}
			r.Release()
		}
		res.Close()
		if len(got) != len(tc.want) || len(vals) != len(tc.want) {
			t.Fatalf("%q: series %v, rows %v; want %v", tc.sel, got, vals, tc.want)
		}
		for i, w := range tc.want {
			if got[i].id != w.id || got[i].u != w.u || vals[i] != w {
				t.Errorf("%q: series %v, rows %v; want %v", tc.sel, got, vals, tc.want)
				break
			}
		}
	}
}
