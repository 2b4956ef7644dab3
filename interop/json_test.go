package interop

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

// readJSONTable reads a whole JSON table and returns its schema and each
// row as the JSON text export writes for it.
func readJSONTable(t *testing.T, path string, opts ReadOptions) (*arrow.Schema, []string, error) {
	t.Helper()
	r, err := Open(path, opts)
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	var rows []string
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return r.Schema(), rows, nil
		}
		if err != nil {
			return nil, nil, err
		}
		out := filepath.Join(t.TempDir(), "rows.jsonl")
		writeFile(t, out, rec)
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")...)
		rec.Release()
	}
}

const jsonLines = `{"id":1,"name":"a","ok":true,"x":1,"tags":["p","q"],"geo":{"lat":1.5,"lon":2},"mixed":1,"big":1}
{"id":2,"name":null,"x":2.5,"tags":[],"geo":{"lat":3,"alt":7},"mixed":"two","big":123456789012345678901234567890}
{"id":3,"ok":false,"mixed":{"k":[1,2]},"extra":null}
`

// TestJSONImport checks inferred types and every value of a JSON lines
// table: integers, floats (an integer key with a float widens), strings,
// booleans, objects (keys merged in order of first appearance), arrays,
// keys whose values disagree or overflow (JSON text), keys only null
// (strings) and keys missing from records (nulls); and that the same
// records as one top-level array read the same.
func TestJSONImport(t *testing.T) {
	dir := t.TempDir()
	lines := filepath.Join(dir, "t.jsonl")
	if err := os.WriteFile(lines, []byte("\xef\xbb\xbf"+jsonLines), 0o644); err != nil {
		t.Fatal(err)
	}
	sch, rows, err := readJSONTable(t, lines, ReadOptions{BatchRows: 2, KeepTypes: true})
	if err != nil {
		t.Fatal(err)
	}
	wantTypes := map[string]string{
		"id": "int64", "name": "utf8", "ok": "bool", "x": "float64", "tags": "list<item: utf8, nullable>",
		"geo":   "struct<lat: float64 nullable, lon: int64 nullable, alt: int64 nullable>",
		"mixed": "extension<arrow.json[storage_type=utf8]>", "big": "extension<arrow.json[storage_type=utf8]>", "extra": "utf8",
	}
	var names []string
	for _, f := range sch.Fields() {
		names = append(names, f.Name)
		if got := f.Type.String(); got != wantTypes[f.Name] {
			t.Errorf("column %s: %s, want %s", f.Name, got, wantTypes[f.Name])
		}
	}
	if got := strings.Join(names, ","); got != "id,name,ok,x,tags,geo,mixed,big,extra" {
		t.Errorf("columns %s, in the order keys first appear", got)
	}
	want := []string{
		`{"id":1,"name":"a","ok":true,"x":1,"tags":["p","q"],"geo":{"lat":1.5,"lon":2,"alt":null},"mixed":1,"big":1,"extra":null}`,
		`{"id":2,"name":null,"ok":null,"x":2.5,"tags":[],"geo":{"lat":3,"lon":null,"alt":7},"mixed":"two","big":123456789012345678901234567890,"extra":null}`,
		`{"id":3,"name":null,"ok":false,"x":null,"tags":null,"geo":null,"mixed":{"k":[1,2]},"big":null,"extra":null}`,
	}
	if strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}

	// the same records as a top-level array, and the export read back
	arr := filepath.Join(dir, "t.json")
	recs := strings.Split(strings.TrimSpace(jsonLines), "\n")
	if err := os.WriteFile(arr, []byte("[\n"+strings.Join(recs, ",\n")+"\n]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	exported := filepath.Join(dir, "back.jsonl")
	if err := os.WriteFile(exported, []byte(strings.Join(want, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{arr, exported} {
		sch2, rows2, err := readJSONTable(t, p, ReadOptions{KeepTypes: true})
		if err != nil {
			t.Fatalf("%s: %v", filepath.Base(p), err)
		}
		if !sch2.Equal(sch) || strings.Join(rows2, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: schema %s, rows\n%s", filepath.Base(p), sch2, strings.Join(rows2, "\n"))
		}
	}
}

// TestJSONImportErrors checks that what cannot be read is an error naming
// the record (and the key), never a panic or wrong values.
func TestJSONImportErrors(t *testing.T) {
	dir := t.TempDir()
	late := strings.Repeat(`{"a":1}`+"\n", 5) + `{"a":2,"b":"new"}` + "\n"
	mismatch := strings.Repeat(`{"a":1}`+"\n", 5) + `{"a":"text"}` + "\n"
	cases := []struct {
		name, text, want string
		opts             ReadOptions
	}{
		{"late key", late, `record 6: key "b" is not in the first 3 records`, ReadOptions{JSONInferRows: 3}},
		{"late type", mismatch, `record 6, key "a": a string is not an integer`, ReadOptions{JSONInferRows: 3}},
		{"not an object", `{"a":1}` + "\n[1,2]\n", "record 2: a JSON object is a record, not an array", ReadOptions{}},
		{"malformed", `{"a":1}` + "\n{\"a\":\n", "record 2", ReadOptions{}},
		{"empty", "  \n", "no record holds a key", ReadOptions{}},
		{"deep", strings.Repeat("[", 5000), "nested deeper", ReadOptions{}},
		{"unclosed array", `[{"a":1},`, "record 2", ReadOptions{}},
		{"after the array", `[{"a":1}] {"a":2}`, "after the top-level array", ReadOptions{}},
	}
	for _, c := range cases {
		path := filepath.Join(dir, "e.jsonl")
		if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, err := readJSONTable(t, path, c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error containing %q", c.name, err, c.want)
		}
	}
	// inferring from every record reads the late key and keeps the types
	path := filepath.Join(dir, "late.jsonl")
	os.WriteFile(path, []byte(late), 0o644)
	sch, rows, err := readJSONTable(t, path, ReadOptions{JSONInferRows: -1})
	if err != nil || sch.NumFields() != 2 || len(rows) != 6 || rows[5] != `{"a":2,"b":"new"}` {
		t.Errorf("every record sampled: %v, %v, %v", sch, rows, err)
	}
}

// FuzzJSON reads arbitrary bytes as a JSON table: an error or batches,
// never a panic, a hang or an allocation sized by the input.
func FuzzJSON(f *testing.F) {
	f.Add([]byte(jsonLines))
	f.Add([]byte(`[{"a":[[1],[2.5]]},{"a":null}]`))
	f.Add([]byte(`{"a":{"b":{"c":"d"}}}` + "\n" + `{"a":{"b":1}}`))
	f.Add([]byte("{\"a\":1}\r\n\r\n{\"a\":2} {\"a\":3}\n{\n\"a\":4}\n[5]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "f.jsonl")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		// Read a line at a time or by the decoder alone, the file gives
		// the same rows, or fails both ways.
		byLine, lineErr := jsonRows(path)
		jsonByLine = false
		byDecoder, decErr := jsonRows(path)
		jsonByLine = true
		if (lineErr == nil) != (decErr == nil) || strings.Join(byLine, "\n") != strings.Join(byDecoder, "\n") {
			t.Fatalf("line by line: %q, %v; the decoder alone: %q, %v", byLine, lineErr, byDecoder, decErr)
		}
		// in parallel pieces of one and two records: the same rows, or
		// the same error
		for _, batch := range []int{1, 2} {
			par, parErr := jsonRowsWith(path, ReadOptions{BatchRows: batch, JSONInferRows: 3, Parallel: true, Threads: 3})
			if batch == 2 && (fmt.Sprint(parErr) != fmt.Sprint(lineErr) || strings.Join(par, "\n") != strings.Join(byLine, "\n")) {
				t.Fatalf("in parallel: %q, %v; line by line: %q, %v", par, parErr, byLine, lineErr)
			}
			if (parErr == nil) != (lineErr == nil) || (parErr == nil && strings.Join(par, "\n") != strings.Join(byLine, "\n")) {
				t.Fatalf("in parallel, batches of %d: %q, %v; line by line: %q, %v", batch, par, parErr, byLine, lineErr)
			}
		}
		r, err := Open(path, ReadOptions{BatchRows: 2, JSONInferRows: 3})
		if err != nil {
			return
		}
		defer r.Close()
		for {
			rec, err := r.Next()
			if err != nil {
				return
			}
			for _, c := range rec.Columns() {
				if c.Len() != int(rec.NumRows()) {
					t.Fatalf("a column of %d rows in a batch of %d", c.Len(), rec.NumRows())
				}
				if v, ok := c.(interface{ ValidateFull() error }); ok {
					if err := v.ValidateFull(); err != nil {
						t.Fatalf("invalid column: %v", err)
					}
				}
			}
			rec.Release()
		}
	})
}

// TestJSONLayout reads records written with spaces and line breaks inside
// them, escaped keys and a repeated key (the last wins, as for a JSON
// decoder), in a top-level array.
func TestJSONLayout(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.json")
	text := "[\n  {\n    \"a\\\"b\" : 1 ,\n    \"c\" : [ 1 , 2 ] ,\n    \"s\" : { \"x\" : \"}]\\\\\" } ,\n    \"c\" : [ 3 ]\n  } ,\n  { \"c\" : [ ] , \"a\\u0022b\" : 2 }\n]\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	_, rows, err := readJSONTable(t, path, ReadOptions{KeepTypes: true})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"a\"b":1,"c":[3],"s":{"x":"}]\\"}}` + "\n" + `{"a\"b":2,"c":[],"s":null}`
	if got := strings.Join(rows, "\n"); got != want {
		t.Errorf("rows\n%s\nwant\n%s", got, want)
	}
}

// jsonRows reads a JSON table (types from its first 3 records) and returns
// each row's values as text.
func jsonRows(path string) ([]string, error) {
	return jsonRowsWith(path, ReadOptions{BatchRows: 2, JSONInferRows: 3})
}

// jsonRowsWith is jsonRows with other options.
func jsonRowsWith(path string, opts ReadOptions) ([]string, error) {
	r, err := Open(path, opts)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var rows []string
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return rows, nil
		}
		if err != nil {
			return nil, err
		}
		for i := range int(rec.NumRows()) {
			var vals []string
			for _, c := range rec.Columns() {
				vals = append(vals, c.ValueStr(i))
			}
			rows = append(rows, strings.Join(vals, "|"))
		}
		rec.Release()
	}
}

// TestJSONLinesLayouts reads the same records laid out as JSON lines read
// a line at a time (LF and CRLF, blank lines), then in layouts that send
// the reader from lines to the decoder at the first record or midway:
// objects across lines, two objects on one line, a record longer than the
// line buffer. Every layout gives the rows of the plain one.
func TestJSONLinesLayouts(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("x", 100_000)
	recs := []string{`{"a":1,"s":"p"}`, `{"a":2,"s":"q\\n"}`, `{"a":3,"s":"` + long + `"}`, `{"a":4,"s":null}`, `{"s":"t","a":5}`}
	plain := strings.Join(recs, "\n") + "\n"
	layouts := map[string]string{
		"plain":                   plain,
		"plain, no final newline": strings.Join(recs, "\n"),
		"CRLF and blank lines":    "\r\n" + strings.Join(recs, "\r\n\r\n  \t\r\n") + "\r\n",
		"across lines":            strings.ReplaceAll(plain, ",", ",\n  "),
		"two on a line midway":    recs[0] + "\n" + recs[1] + " " + recs[2] + "\n" + recs[3] + "\n" + recs[4] + "\n",
		"across lines midway":     recs[0] + "\n" + recs[1] + "\n{\n\"a\": 3, \"s\": \"" + long + "\"\n}\n" + recs[3] + "\n" + recs[4] + "\n",
	}
	write := func(name, text string) string {
		path := filepath.Join(dir, name+".jsonl")
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	jsonByLine = false // the reference: the decoder alone
	want, err := jsonRows(write("plain", plain))
	jsonByLine = true
	if err != nil || len(want) != 5 || !strings.HasPrefix(want[2], "3|"+long) {
		t.Fatalf("plain: %d rows, %v", len(want), err)
	}
	for name, text := range layouts {
		path := write(strings.ReplaceAll(name, " ", "_"), text)
		got, err := jsonRows(path)
		if err != nil || strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: %d rows, %v", name, len(got), err)
		}
		// in parallel, pieces of one to three records, and with a
		// splitter's buffer shorter than the long record
		for batch := 1; batch <= 3; batch++ {
			for _, buf := range []int{1 << 20, 4096} {
				jsonSplitBuffer = buf
				got, err := jsonRowsWith(path, ReadOptions{BatchRows: batch, JSONInferRows: 3, Parallel: true, Threads: 2})
				jsonSplitBuffer = 1 << 20
				if err != nil || strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("%s, in parallel pieces of %d, buffer %d: %d rows, %v", name, batch, buf, len(got), err)
				}
			}
		}
	}
	// A malformed line midway fails naming its record, as the decoder did,
	// read serially or in parallel.
	bad := write("bad", recs[0]+"\n"+recs[1]+"\n"+`{"a":3,,}`+"\n"+recs[3]+"\n")
	for _, parallel := range []bool{false, true} {
		_, err = jsonRowsWith(bad, ReadOptions{BatchRows: 1, JSONInferRows: 2, Parallel: parallel})
		if err == nil || !strings.Contains(err.Error(), "record 3") {
			t.Errorf("a malformed third record (parallel %v): %v", parallel, err)
		}
	}
}

// TestJSONTemporal checks that strings which all read as dates,
// timestamps (without a zone offset, or with one in every value) or
// times of day are stored as such, in records, nested objects and
// arrays; that one string of another form keeps the column text; and that
// a later value that does not read as the inferred type is an error naming
// it.
func TestJSONTemporal(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.jsonl")
	text := `{"d":"2024-02-29","ts":"2024-02-29T12:00:00","tz":"2024-02-29T12:00:00Z","tm":"08:30:15","mixed":"2024-01-01","s":{"at":"2001-01-01 00:01:00.5"},"l":["2020-01-01"]}
{"d":null,"ts":"2024-03-01 00:00:00.123456","tz":"2024-03-01T01:00:00+01:00","tm":"23:59","mixed":"soon","s":{"at":null},"l":["1999-12-31","2000-01-01"]}
`
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	sch, rows, err := readJSONTable(t, path, ReadOptions{KeepTypes: true})
	if err != nil {
		t.Fatal(err)
	}
	wantTypes := map[string]string{
		"d": "date32", "ts": "timestamp[us]", "tz": "timestamp[us, tz=UTC]", "tm": "time32[ms]", "mixed": "utf8",
		"s": "struct<at: timestamp[us] nullable>", "l": "list<item: date32, nullable>",
	}
	for _, f := range sch.Fields() {
		if got := f.Type.String(); got != wantTypes[f.Name] {
			t.Errorf("column %s: %s, want %s", f.Name, got, wantTypes[f.Name])
		}
	}
	want := []string{
		`{"d":"2024-02-29","ts":"2024-02-29T12:00:00","tz":"2024-02-29T12:00:00Z","tm":"08:30:15","mixed":"2024-01-01","s":{"at":"2001-01-01T00:01:00.5"},"l":["2020-01-01"]}`,
		`{"d":null,"ts":"2024-03-01T00:00:00.123456","tz":"2024-03-01T00:00:00Z","tm":"23:59:00","mixed":"soon","s":{"at":null},"l":["1999-12-31","2000-01-01"]}`,
	}
	if strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
	// a value past the sample that is not a date
	late := strings.Repeat(`{"d":"2024-01-01"}`+"\n", 3) + `{"d":"2024-13-01"}` + "\n"
	if err := os.WriteFile(path, []byte(late), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := readJSONTable(t, path, ReadOptions{JSONInferRows: 3}); err == nil || !strings.Contains(err.Error(), `"2024-13-01" is not a date32 value`) {
		t.Errorf("a later value that is not a date: %v", err)
	}
}
