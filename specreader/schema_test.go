package specreader

import (
	"errors"
	"testing"
)

// TestSchemaRejects builds small schemas by hand and checks the rejections
// Schema §3 lists.
func TestSchemaRejects(t *testing.T) {
	// version 1, 1 stream, root struct "" with one field int64 "id" at stream 0.
	ok := []byte{1, 1, 17, 0, 0, 1, 5, 0, 2, 'i', 'd', 0}
	if s, err := ParseSchema(ok); err != nil || s.Root.Fields[0].Values != 0 {
		t.Fatalf("valid schema: %v", err)
	}
	fm := func(key string) []byte {
		// 2 streams: flatmap "f" (not nullable) <int8, int8> with one key.
		b := []byte{1, 2, 17, 0, 0, 1, 20, 0, 1, 'f', 2, 2, 0, 0, 1, 2, 0, byte(len(key))}
		return append(append(b, key...), 0)
	}
	if _, err := ParseSchema(fm("-5")); err != nil {
		t.Fatalf("valid flatmap: %v", err)
	}
	cases := map[string]struct {
		b    []byte
		want error
	}{
		"version 2":         {[]byte{2, 1, 17, 0, 0, 1, 5, 0, 2, 'i', 'd', 0}, ErrUnsupported},
		"unknown kind":      {[]byte{1, 1, 17, 0, 0, 1, 30, 0, 2, 'i', 'd', 0}, ErrUnsupported},
		"flag bit 1":        {[]byte{1, 1, 17, 0, 0, 1, 5, 2, 2, 'i', 'd', 0}, ErrUnsupported},
		"nullable root":     {[]byte{1, 1, 17, 1, 0, 1, 5, 0, 2, 'i', 'd', 0}, ErrCorrupt},
		"root not a struct": {[]byte{1, 1, 5, 0, 0, 0}, ErrCorrupt},
		"trailing byte":     {append(append([]byte{}, ok...), 0), ErrCorrupt},
		"stream id gap":     {[]byte{1, 2, 17, 0, 0, 1, 5, 0, 2, 'i', 'd', 0}, ErrCorrupt},
		"stream id beyond":  {[]byte{1, 1, 17, 0, 0, 1, 5, 0, 2, 'i', 'd', 1}, ErrCorrupt},
		"stream id twice":   {[]byte{1, 2, 17, 0, 0, 2, 5, 0, 1, 'a', 0, 5, 0, 1, 'b', 0}, ErrCorrupt},
		"duplicate field":   {[]byte{1, 2, 17, 0, 0, 2, 5, 0, 1, 'a', 0, 5, 0, 1, 'a', 1}, ErrCorrupt},
		"time unit 4":       {[]byte{1, 1, 17, 0, 0, 1, 21, 0, 1, 't', 0, 4}, ErrUnsupported},
		"precision 39":      {[]byte{1, 1, 17, 0, 0, 1, 16, 0, 1, 'd', 0, 39, 0}, ErrCorrupt},
		"scale 39":          {[]byte{1, 1, 17, 0, 0, 1, 16, 0, 1, 'd', 0, 10, 78}, ErrCorrupt},
		"nullable map key":  {[]byte{1, 3, 17, 0, 0, 1, 19, 0, 1, 'm', 0, 5, 1, 1, 'k', 1, 5, 0, 1, 'v', 2}, ErrCorrupt},
		"null not nullable": {[]byte{1, 1, 17, 0, 0, 1, 23, 0, 1, 'n', 0}, ErrCorrupt},
		"key +5":            {fm("+5"), ErrCorrupt},
		"key 05":            {fm("05"), ErrCorrupt},
		"key -0":            {fm("-0"), ErrCorrupt},
		"key 128 in int8":   {fm("128"), ErrCorrupt},
	}
	for name, c := range cases {
		if _, err := ParseSchema(c.b); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", name, err, c.want)
		}
	}
}
