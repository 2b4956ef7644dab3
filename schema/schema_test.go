package schema

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"strata/encoding"
	"strata/encoding/encodingtest"
)

// example is the tree documented in docs/FORMAT.md, "Schema".
func example(t testing.TB) *Schema {
	t.Helper()
	s, err := New(NewStruct("", false,
		NewLeaf("id", Int64, false),
		NewStruct("user", true,
			NewLeaf("name", String, true),
			NewList("tags", true, NewLeaf("element", String, false)),
		),
		NewMap("attrs", false, NewLeaf("key", String, false), NewDecimal("value", 30, 2, true)),
		NewFlatMap("feat", true, String, NewLeaf("", Float32, true), "a"),
		NewTimestamp("ts", Microsecond, "UTC", true),
	))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func describe(s *Schema) string {
	var b strings.Builder
	for _, st := range s.Streams() {
		fmt.Fprintf(&b, "%d %s %s %s\n", st.ID, st.Node.Path(), st.Role, st.Type)
	}
	return b.String()
}

func TestStreamAssignment(t *testing.T) {
	s := example(t)
	want := `0 id values int64
1 user nulls bool
2 user.name values binary
3 user.tags nulls bool
4 user.tags lengths uint32
5 user.tags.element values binary
6 attrs lengths uint32
7 attrs.key values binary
8 attrs.value values binary
9 feat nulls bool
10 feat.a inmap bool
11 feat.a values float32
12 ts values int64
`
	if got := describe(s); got != want {
		t.Fatalf("streams:\n%s\nwant\n%s", got, want)
	}
	if got := s.ColumnStreams(1); !slices.Equal(got, []int{1, 2, 3, 4, 5}) {
		t.Fatalf("ColumnStreams(1) = %v", got)
	}
	// Adding a key appends streams; nothing else moves.
	before := describe(s)
	b, err := s.AddFlatMapKey(s.Column(3), "b")
	if err != nil {
		t.Fatal(err)
	}
	if b.StreamID(RoleInMap) != 13 || b.StreamID(RoleValues) != 14 || !strings.HasPrefix(describe(s), before) {
		t.Fatalf("after AddFlatMapKey:\n%s", describe(s))
	}
	if got := s.ColumnStreams(3); !slices.Equal(got, []int{9, 10, 11, 13, 14}) {
		t.Fatalf("ColumnStreams(3) = %v", got)
	}
	if _, err := s.AddFlatMapKey(s.Column(3), "b"); err == nil {
		t.Fatal("duplicate key accepted")
	}
	if _, err := s.AddFlatMapKey(s.Column(0), "b"); err == nil {
		t.Fatal("key added to an int64")
	}
	n, err := s.Find("user.tags.element")
	if err != nil || n.Kind != String {
		t.Fatalf("Find: %v %v", n, err)
	}
	if got := s.PathStreams(n); !slices.Equal(got, []int{1, 3, 4, 5}) {
		t.Fatalf("PathStreams = %v", got)
	}
	if n, _ := s.Find("feat.b"); s.PathStreams(n)[0] != 9 {
		t.Fatalf("PathStreams(feat.b) = %v", s.PathStreams(n))
	}
	if n, err := s.Find("attrs.value"); err != nil || n.Kind != Decimal || n.PhysicalType() != encoding.Binary {
		t.Fatalf("attrs.value: %v %v", n, err)
	}
	if _, err := s.Find("user.nope"); err == nil {
		t.Fatal("Find of a missing field succeeded")
	}
	if col, i := s.ColumnOf(n); col != s.Column(1) || i != 1 {
		t.Fatalf("ColumnOf = %v %d", col, i)
	}
}

func TestMarshalRoundTrip(t *testing.T) {
	s := example(t)
	if _, err := s.AddFlatMapKey(s.Column(3), "zz"); err != nil {
		t.Fatal(err)
	}
	data := s.Marshal()
	encodingtest.Golden(t, "example", data)
	s2, err := Unmarshal(data)
	if err != nil {
		t.Fatal(err)
	}
	if describe(s2) != describe(s) || s2.String() != s.String() {
		t.Fatalf("round trip:\n%s\nvs\n%s", s2, s)
	}
	if got := s2.Marshal(); string(got) != string(data) {
		t.Fatal("re-marshal differs")
	}
	// Nested FlatMaps with integer keys.
	inner := NewFlatMap("", true, Int8, NewList("", true, NewLeaf("x", Bool, true)))
	s3, err := New(NewStruct("", false, NewFlatMap("outer", false, Uint32, inner, "7", "4000000000")))
	if err != nil {
		t.Fatal(err)
	}
	k, _ := s3.Find("outer.7")
	if _, err := s3.AddFlatMapKey(k, "-3"); err != nil {
		t.Fatal(err)
	}
	if _, err := s3.AddFlatMapKey(k, "300"); err == nil {
		t.Fatal("int8 key 300 accepted")
	}
	s4, err := Unmarshal(s3.Marshal())
	if err != nil {
		t.Fatal(err)
	}
	if describe(s4) != describe(s3) {
		t.Fatalf("nested:\n%s\nvs\n%s", describe(s4), describe(s3))
	}
}

// timeKinds holds a Time node of every unit, Duration nodes and a Null
// node: the kinds added after the first format.
func timeKinds(t testing.TB) *Schema {
	t.Helper()
	s, err := New(NewStruct("", false,
		NewTime("t_s", Second, false),
		NewTime("t_ms", Millisecond, true),
		NewTime("t_us", Microsecond, true),
		NewTime("t_ns", Nanosecond, false),
		NewDuration("d_ms", Millisecond, true),
		NewList("waits", true, NewDuration("element", Nanosecond, false)),
		NewLeaf("none", Null, true),
	))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestTimeKinds(t *testing.T) {
	s := timeKinds(t)
	data := s.Marshal()
	encodingtest.Golden(t, "time_kinds", data)
	s2, err := Unmarshal(data)
	if err != nil {
		t.Fatal(err)
	}
	if describe(s2) != describe(s) || s2.String() != s.String() {
		t.Fatalf("round trip:\n%s\nvs\n%s", s2, s)
	}
	want := []struct {
		typ  string
		phys encoding.Type
	}{
		{"time[s]", encoding.Int32}, {"time[ms]", encoding.Int32}, {"time[us]", encoding.Int64},
		{"time[ns]", encoding.Int64}, {"duration[ms]", encoding.Int64},
	}
	for i, w := range want {
		n := s2.Column(i)
		if !n.Kind.IsLeaf() || n.TypeString() != w.typ || n.PhysicalType() != w.phys {
			t.Errorf("column %d: leaf %v, type %s, physical %v; want %s, %v", i, n.Kind.IsLeaf(), n.TypeString(), n.PhysicalType(), w.typ, w.phys)
		}
	}
	// A unit past nanoseconds is refused, not guessed.
	for _, k := range []Kind{Time, Duration} {
		bad := &Node{Name: "x", Kind: k, Unit: 4, first: -1}
		if _, err := New(NewStruct("", false, bad)); !errors.Is(err, encoding.ErrUnsupported) {
			t.Errorf("%v with unit 4: %v", k, err)
		}
	}
	for _, c := range []struct {
		v    int64
		u    TimeUnit
		want string
	}{
		{0, Second, "00:00:00"}, {45296, Second, "12:34:56"}, {45296789, Millisecond, "12:34:56.789"},
		{45296000001, Microsecond, "12:34:56.000001"}, {86399999999999, Nanosecond, "23:59:59.999999999"},
		{45296005, Millisecond, "12:34:56.005"}, {3600000000500, Nanosecond, "01:00:00.000000500"},
		{86400, Second, "24h0m0s"}, {-1, Millisecond, "-1ms"},
	} {
		if got := FormatTimeOfDay(c.v, c.u); got != c.want {
			t.Errorf("FormatTimeOfDay(%d, %s) = %q, want %q", c.v, c.u, got, c.want)
		}
	}
	if got := FormatDuration(5400, Second); got != "1h30m0s" {
		t.Errorf("FormatDuration(5400 s) = %q", got)
	}
	if got := FormatDuration(1<<62, Second); got != "4611686018427387904s" {
		t.Errorf("FormatDuration of a value nanoseconds overflow = %q", got)
	}
}

func TestInvalid(t *testing.T) {
	bad := []*Node{
		NewStruct("", true),
		NewStruct("", false, NewLeaf("a", Int8, false), NewLeaf("a", Int8, false)),
		NewStruct("", false, NewMap("m", false, NewLeaf("k", String, true), NewLeaf("v", String, true))),
		NewStruct("", false, NewDecimal("d", 39, 0, false)),
		NewStruct("", false, NewFlatMap("f", false, Float32, NewLeaf("", Int8, false))),
		NewStruct("", false, NewFlatMap("f", false, Int8, NewLeaf("", Int8, false), "007")),
		NewStruct("", false, &Node{Name: "x", Kind: 99}),
		NewStruct("", false, NewLeaf("n", Null, false)),
	}
	for i, root := range bad {
		if _, err := New(root); err == nil {
			t.Errorf("case %d accepted", i)
		}
	}
	deep := NewLeaf("x", Int8, false)
	for range MaxDepth + 2 {
		deep = NewList("l", false, deep)
	}
	if _, err := New(NewStruct("", false, deep)); !errors.Is(err, encoding.ErrLimit) {
		t.Fatalf("deep: %v", err)
	}
	s := example(t)
	data := s.Marshal()
	for i := range data {
		if _, err := Unmarshal(data[:i]); err == nil {
			t.Fatalf("prefix %d accepted", i)
		}
	}
	// A duplicated stream id.
	s2 := example(t)
	s2.Column(0).first = 1
	if _, err := Unmarshal(s2.Marshal()); !errors.Is(err, encoding.ErrCorrupt) {
		t.Fatalf("duplicate id: %v", err)
	}
}

func FuzzUnmarshal(f *testing.F) {
	s := example(f)
	f.Add(s.Marshal())
	inner := NewFlatMap("", true, Int8, NewList("", true, NewLeaf("x", Bool, true)))
	s3, _ := New(NewStruct("", false, NewFlatMap("outer", false, Uint32, inner, "7")))
	f.Add(s3.Marshal())
	f.Add([]byte{1, 0, byte(Struct), 0, 0, 0})
	f.Add(timeKinds(f).Marshal())
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Unmarshal(data)
		if err != nil {
			if !errors.Is(err, encoding.ErrCorrupt) && !errors.Is(err, encoding.ErrUnsupported) && !errors.Is(err, encoding.ErrLimit) {
				t.Fatalf("unwrapped error: %v", err)
			}
			return
		}
		// A valid schema survives its own serialization (varints in data
		// need not be minimal, so compare the canonical form).
		canon := s.Marshal()
		s2, err := Unmarshal(canon)
		if err != nil {
			t.Fatalf("re-unmarshal: %v", err)
		}
		if string(s2.Marshal()) != string(canon) || s2.String() != s.String() {
			t.Fatalf("re-marshal differs")
		}
		_ = s.String()
		for c := range s.NumColumns() {
			_ = s.ColumnStreams(c)
		}
	})
}

// TestFindParts resolves paths whose parts a filter quoted: a quoted part
// is one name, never joined with its neighbours, beside a column whose
// name joins them; unquoted runs take the longest name, as Find does; a
// quoted path the schema does not have falls back to Find.
func TestFindParts(t *testing.T) {
	s, err := New(NewStruct("", false,
		NewStruct("a", true, NewLeaf("b", Int64, true), NewStruct("c", true, NewLeaf("d", Int64, true))),
		NewLeaf("a.b", Int64, true),
		NewLeaf("a.c.d", Int64, true),
		NewStruct("x.y", true, NewLeaf("z", Int64, true)),
		NewStruct("p", true, NewLeaf("q", Int64, true)),
	))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		parts []string
		whole []bool
		want  string // the node's path and parent kind, or "" for none
	}{
		{[]string{"a", "b"}, []bool{true, true}, "a.b in struct a"},
		{[]string{"a", "b"}, []bool{false, true}, "a.b in struct a"},
		{[]string{"a", "b"}, []bool{true, false}, "a.b in struct a"},
		{[]string{"a", "b"}, nil, "a.b at the root"},
		{[]string{"a.b"}, []bool{true}, "a.b at the root"},
		{[]string{"a", "c", "d"}, nil, "a.c.d at the root"},
		{[]string{"a", "c", "d"}, []bool{true}, "a.c.d in struct c"},
		{[]string{"a", "c", "d"}, []bool{false, false, true}, "a.c.d in struct c"},
		{[]string{"a.c", "d"}, []bool{true, false}, "a.c.d at the root"}, // falls back: no column "a.c"
		{[]string{"x.y", "z"}, []bool{true, false}, "x.y.z in struct x.y"},
		{[]string{"x", "y", "z"}, nil, "x.y.z in struct x.y"},
		{[]string{"p.q"}, []bool{true}, "p.q in struct p"}, // falls back: no column "p.q"
		{[]string{"p", "r"}, []bool{true, true}, ""},
	} {
		n, err := s.FindParts(c.parts, c.whole)
		got := ""
		if err == nil {
			if p := n.Parent(); p == s.Root {
				got = n.Path() + " at the root"
			} else {
				got = n.Path() + " in struct " + p.Name
			}
		}
		if got != c.want {
			t.Errorf("FindParts(%q, %v) = %q (%v), want %q", c.parts, c.whole, got, err, c.want)
		}
	}
}
