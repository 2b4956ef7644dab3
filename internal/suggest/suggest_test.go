package suggest

import (
	"reflect"
	"testing"
)

func TestClosest(t *testing.T) {
	cols := []string{"l_orderkey", "l_partkey", "l_shipdate", "l_commitdate", "l_receiptdate", "l_comment"}
	cases := []struct {
		name string
		want []string
	}{
		{"l_orderky", []string{"l_orderkey"}},
		{"L_SHIPDATE", []string{"l_shipdate"}},
		{"shipdate", []string{"l_shipdate"}},
		{"l_coment", []string{"l_comment"}},
		{"zzz", nil},
	}
	for _, c := range cases {
		got := Closest(c.name, cols, 3)
		if len(got) == 0 && len(c.want) == 0 {
			continue
		}
		if !reflect.DeepEqual(got[:1], c.want) {
			t.Errorf("Closest(%q) = %q, want first %q", c.name, got, c.want)
		}
	}
	if h := Hint("zzz", []string{"a", "b"}); h != ` (the columns are "a", "b")` {
		t.Errorf("Hint listed %q", h)
	}
	if h := Hint("l_orderky", cols); h != ` (did you mean "l_orderkey"?)` {
		t.Errorf("Hint = %q", h)
	}
	if d := distance("kitten", "sitting"); d != 3 {
		t.Errorf("distance = %d", d)
	}
}
