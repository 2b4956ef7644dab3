package interop_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/arrow-go/v18/parquet/schema"

	"strata"
	"strata/interop"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite the generated table of unsupported files in docs/interop.md")

// Why a parquet-testing file is not imported. Each reason names who gives
// up (arrow-go or Strata); match is a substring the actual error must
// contain, so a file that starts failing for another reason fails the test.
type unsupported struct{ reason, match string }

var (
	encrypted      = unsupported{"arrow-go: encrypted; interop passes no decryption keys", "decrypt"}
	pageLimit      = unsupported{"interop: 1 GiB page over the 256 MiB page-size limit (ReadOptions.ParquetMaxPageBytes, import --max-page-bytes raise it; TestParquetPageLimit)", "exceeds configured limit 268435456"}
	variantInvalid = unsupported{"arrow-go: invalid shredded variant (typed_value not a valid nested type)", "typed_value field must be a valid nested type"}
	variantNoValue = unsupported{"arrow-go: shredded variant without a value field cannot be written back (export refused)", "variant 'value' field is required"}
)

// notImported lists every parquet-testing file (path relative to the
// parquet-testing directory) that is not imported, with the reason.
// docs/interop.md carries the same table; the test keeps them in step.
var notImported = map[string]unsupported{
	"data/aes256/encrypt_columns_and_footer.parquet.encrypted":                     encrypted,
	"data/aes256/encrypt_columns_and_footer_ctr.parquet.encrypted":                 encrypted,
	"data/aes256/encrypt_columns_and_footer_disable_aad_storage.parquet.encrypted": encrypted,
	"data/aes256/encrypt_columns_plaintext_footer.parquet.encrypted":               encrypted,
	"data/aes256/uniform_encryption.parquet.encrypted":                             encrypted,
	"data/encrypt_columns_and_footer.parquet.encrypted":                            encrypted,
	"data/encrypt_columns_and_footer_aad.parquet.encrypted":                        encrypted,
	"data/encrypt_columns_and_footer_bloom_filter.parquet.encrypted":               encrypted,
	"data/encrypt_columns_and_footer_ctr.parquet.encrypted":                        encrypted,
	"data/encrypt_columns_and_footer_disable_aad_storage.parquet.encrypted":        encrypted,
	"data/encrypt_columns_plaintext_footer.parquet.encrypted":                      encrypted,
	"data/external_key_material_java.parquet.encrypted":                            encrypted,
	"data/uniform_encryption.parquet.encrypted":                                    encrypted,
	"data/large_string_map.brotli.parquet":                                         pageLimit,
	"shredded_variant/case-084-INVALID.parquet":                                    variantInvalid,
	"shredded_variant/case-041.parquet":                                            variantNoValue,
	"shredded_variant/case-131.parquet":                                            variantNoValue,
	"shredded_variant/case-138.parquet":                                            variantNoValue,
}

// badData is the expected outcome of importing each bad_data file: true
// when arrow-go reads it (the file is unusual, not broken) and it must
// then round-trip like any other file; false when import must fail.
var badData = map[string]bool{
	"ARROW-GH-41317.parquet":              false,
	"ARROW-GH-41321.parquet":              false,
	"ARROW-GH-43605.parquet":              true, // RLE bit width 0: valid, all indices 0
	"ARROW-GH-45185.parquet":              false,
	"ARROW-GH-47662.parquet":              false,
	"ARROW-RS-GH-6229-DICTHEADER.parquet": false,
	"ARROW-RS-GH-6229-LEVELS.parquet":     false,
	"PARQUET-1481.parquet":                false,
}

// parquetTesting finds the shared parquet-testing directory next to the
// repository (the directory holding go.mod), or skips.
func parquetTesting(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Skip("repository root (go.mod) not found above the working directory")
		}
		dir = up
	}
	pt := filepath.Join(dir, "..", "shared", "testdata", "parquet-testing")
	if st, err := os.Stat(pt); err != nil || !st.IsDir() {
		t.Skipf("parquet-testing not found at <repo>/../shared/testdata/parquet-testing (CI provides it): %v", err)
	}
	return pt
}

// readWithArrowGo reads a whole Parquet file with arrow-go directly, the
// reference for every comparison.
func readWithArrowGo(path string) (recs []arrow.Record, sch *arrow.Schema, err error) {
	defer func() {
		if r := recover(); r != nil {
			release(recs)
			recs, sch, err = nil, nil, fmt.Errorf("arrow-go panicked: %v", r)
		}
	}()
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	pf, err := file.NewParquetReader(f)
	if err != nil {
		return nil, nil, err
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 4096}, memory.DefaultAllocator)
	if err != nil {
		return nil, nil, err
	}
	rr, err := fr.GetRecordReader(context.Background(), nil, nil)
	if err != nil {
		return nil, nil, err
	}
	defer rr.Release()
	for rr.Next() {
		rec := rr.RecordBatch()
		rec.Retain()
		recs = append(recs, rec)
	}
	if err := rr.Err(); err != nil {
		release(recs)
		return nil, nil, err
	}
	return recs, rr.Schema(), nil
}

// Small stripes, chunks and batches so that even small files span several
// batches, chunks and stripes.
var (
	testRead  = interop.ReadOptions{BatchRows: 1000}
	testWrite = &strata.WriteOptions{StripeBytes: 256 << 10, ChunkValues: 2000, Parallel: 1}
)

// importFile converts src to a Strata file at dst.
func importFile(src, dst string, ro interop.ReadOptions) error {
	r, err := interop.Open(src, ro)
	if err != nil {
		return err
	}
	defer r.Close()
	meta, err := interop.SourceMetadata(r)
	if err != nil {
		return err
	}
	opts := *testWrite
	opts.Metadata = meta
	w, err := strata.Create(dst, r.Schema(), &opts)
	if err != nil {
		return err
	}
	for {
		rec, err := r.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			w.Abort()
			return err
		}
		err = w.Write(rec)
		rec.Release()
		if err != nil {
			w.Abort()
			return err
		}
	}
	return w.Close()
}

// drainInterop reads every batch of src through interop.
func drainInterop(src string) error {
	r, err := interop.Open(src, interop.ReadOptions{KeepTypes: true})
	if err != nil {
		return err
	}
	defer r.Close()
	recs, err := drain(r.Next)
	release(recs)
	return err
}

// guardedImport is importFile that turns a panic into an error saying so.
func guardedImport(src, dst string) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("interop panicked: %v", p)
		}
	}()
	return importFile(src, dst, testRead)
}

// scanAll reads a whole Strata file.
func scanAll(path string) ([]arrow.Record, *arrow.Schema, error) {
	f, err := strata.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	return scanFile(f)
}

// importScanned imports the Parquet file src into the Strata file st
// with ro and returns its scan back in the source's types (scanRestored),
// released when the test ends.
func importScanned(t *testing.T, src, st string, ro interop.ReadOptions) ([]arrow.Record, *arrow.Schema) {
	t.Helper()
	if err := importFile(src, st, ro); err != nil {
		t.Fatal(err)
	}
	got, sch, err := scanRestored(st)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { release(got) })
	return got, sch
}

// scanRestored reads a whole Strata file with the source types import
// kept (what export writes).
func scanRestored(path string) ([]arrow.Record, *arrow.Schema, error) {
	f, err := strata.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	recs, sch, err := scanFile(f)
	if err != nil {
		return nil, nil, err
	}
	out, restore, err := interop.RestoreSchema(f.Metadata(), sch)
	if err != nil || !restore {
		return recs, sch, err
	}
	for i, r := range recs {
		rr, err := interop.RestoreRecord(memory.DefaultAllocator, r, out)
		if err != nil {
			release(recs)
			return nil, nil, err
		}
		r.Release()
		recs[i] = rr
	}
	return recs, out, nil
}

func scanFile(f *strata.File) ([]arrow.Record, *arrow.Schema, error) {
	sc, err := f.Scan(strata.ScanOptions{})
	if err != nil {
		return nil, nil, err
	}
	defer sc.Close()
	recs, err := drain(sc.Next)
	return recs, f.Schema(), err
}

// exportFile writes batches to dst in the format of its extension.
func exportFile(dst string, sch *arrow.Schema, recs []arrow.Record) error {
	return exportWith(dst, sch, recs, interop.WriteOptions{})
}

// exportWith is exportFile with write options.
func exportWith(dst string, sch *arrow.Schema, recs []arrow.Record, opts interop.WriteOptions) error {
	s, err := interop.Create(dst, sch, opts)
	if err != nil {
		return err
	}
	for _, r := range recs {
		if err := s.Write(r); err != nil {
			s.Close()
			return err
		}
	}
	return s.Close()
}

// roundTrip imports a Parquet file into Strata, compares the scan with
// arrow-go's reading of the original, exports it back to Parquet and
// compares again. stage tells which step failed.
func roundTrip(src, dir string) (stage string, err error) {
	want, wantSch, err := readWithArrowGo(src)
	if err != nil {
		// interop must then fail too, cleanly.
		if ierr := guardedImport(src, filepath.Join(dir, "t.strata")); ierr == nil {
			return "import", fmt.Errorf("interop imported a file arrow-go cannot read (%v)", err)
		} else if strings.Contains(ierr.Error(), "interop panicked") {
			return "interop panic", ierr
		}
		return "arrow-go read", err
	}
	defer release(want)
	st := filepath.Join(dir, "t.strata")
	if err := importFile(src, st, testRead); err != nil {
		return "import", err
	}
	got, gotSch, err := scanAll(st)
	if err != nil {
		return "scan", err
	}
	defer release(got)
	// arrow-go reads a Parquet JSON column as binary; import maps it to
	// the arrow.json extension, which Strata stores as a string.
	jwant, jwantSch, err := jsonAsString(want, wantSch, gotSch)
	if err != nil {
		return "compare strata", err
	}
	defer release(jwant)
	if err := compareTables(jwant, jwantSch, got, gotSch); err != nil {
		return "compare strata", err
	}
	restored, restoredSch, err := scanRestored(st)
	if err != nil {
		return "restore types", err
	}
	defer release(restored)
	pq := filepath.Join(dir, "t.parquet")
	if err := exportFile(pq, restoredSch, restored); err != nil {
		return "export", err
	}
	back, backSch, err := readWithArrowGo(pq)
	if err != nil {
		return "re-read export", err
	}
	defer release(back)
	// Values as Strata read them (stand-in types); the types themselves
	// are checked by sameLogicalTypes.
	canonBack, canonSch, err := canonRecords(back, backSch)
	if err != nil {
		return "compare export", err
	}
	defer release(canonBack)
	if err := compareTables(want, wantSch, canonBack, canonSch); err != nil {
		return "compare export", err
	}
	if err := sameLogicalTypes(src, pq, wantSch, backSch); err != nil {
		return "logical types and metadata", err
	}
	return "", nil
}

// sameKeyValues checks that export wrote every key-value pair of the
// source file's metadata back unchanged (the Arrow schema a writer stores
// excepted: export stores its own).
func sameKeyValues(src, exported *metadata.FileMetaData) error {
	got := map[string]string{}
	bkv := exported.KeyValueMetadata()
	for i, k := range bkv.Keys() {
		got[k] = bkv.Values()[i]
	}
	akv := src.KeyValueMetadata()
	for i, k := range akv.Keys() {
		if k == "ARROW:schema" {
			continue
		}
		if v, ok := got[k]; !ok || v != akv.Values()[i] {
			return fmt.Errorf("file metadata key %q: exported %q (present %v), source %q", k, v, ok, akv.Values()[i])
		}
	}
	return nil
}

// sameLogicalTypes checks that export gave every column the Arrow type
// arrow-go read from the source and every leaf the source's Parquet
// logical type. A few source encodings have no writer today and are
// written in their modern form with the same values and meaning:
// INT96 timestamps become TIMESTAMP(NANOS), legacy converted types
// become the logical type they stand for, and timestamps flagged as
// converted from legacy ones lose that flag. It checks the key-value
// metadata too (sameKeyValues).
func sameLogicalTypes(src, exported string, wantSch, gotSch *arrow.Schema) error {
	for i, wf := range wantSch.Fields() {
		if !arrow.TypeEqual(wf.Type, gotSch.Field(i).Type) {
			return fmt.Errorf("column %q: exported as %s, source %s", wf.Name, gotSch.Field(i).Type, wf.Type)
		}
	}
	a, err := file.OpenParquetFile(src, false)
	if err != nil {
		return err
	}
	defer a.Close()
	b, err := file.OpenParquetFile(exported, false)
	if err != nil {
		return err
	}
	defer b.Close()
	as, bs := a.MetaData().Schema, b.MetaData().Schema
	byPath := map[string]string{}
	for i := 0; i < bs.NumColumns(); i++ {
		byPath[bs.Column(i).Path()] = logicalText(bs.Column(i).LogicalType(), bs.Column(i).PhysicalType().String())
	}
	for i := 0; i < as.NumColumns(); i++ {
		c := as.Column(i)
		want := logicalText(c.LogicalType(), c.PhysicalType().String())
		got, ok := byPath[c.Path()]
		if !ok {
			continue // paths of lists and maps are renamed by the writer; their leaves' Arrow types matched above
		}
		if got != want {
			return fmt.Errorf("column %s: exported with logical type %s, source %s", c.Path(), got, want)
		}
	}
	return sameKeyValues(a.MetaData(), b.MetaData())
}

// jsonAsString retypes the top-level binary columns of want that Strata
// holds as strings (JSON) to strings.
func jsonAsString(want []arrow.Record, wantSch, gotSch *arrow.Schema) ([]arrow.Record, *arrow.Schema, error) {
	fields := wantSch.Fields()
	changed := false
	for i, f := range fields {
		if i < gotSch.NumFields() && f.Type.ID() == arrow.BINARY && gotSch.Field(i).Type.ID() == arrow.STRING {
			fields[i].Type = arrow.BinaryTypes.String
			changed = true
		}
	}
	if !changed {
		for _, r := range want {
			r.Retain()
		}
		return want, wantSch, nil
	}
	sch := arrow.NewSchema(fields, nil)
	var out []arrow.Record
	for _, r := range want {
		rr, err := interop.RestoreRecord(memory.DefaultAllocator, r, sch)
		if err != nil {
			release(out)
			return nil, nil, err
		}
		out = append(out, rr)
	}
	return out, sch, nil
}

// canonRecords converts records to the canonical types compareTables
// compares in.
func canonRecords(recs []arrow.Record, sch *arrow.Schema) ([]arrow.Record, *arrow.Schema, error) {
	fields := make([]arrow.Field, sch.NumFields())
	for i, f := range sch.Fields() {
		fields[i] = canonField(f)
	}
	csch := arrow.NewSchema(fields, nil)
	var out []arrow.Record
	for _, r := range recs {
		cols := make([]arrow.Array, r.NumCols())
		for i, c := range r.Columns() {
			cc, err := canonArray(c)
			if err != nil {
				release(out)
				return nil, nil, err
			}
			cols[i] = cc
		}
		out = append(out, array.NewRecord(csch, cols, r.NumRows()))
		for _, c := range cols {
			c.Release()
		}
	}
	return out, csch, nil
}

// logicalText names a column's logical type for comparison, folding the
// forms a writer cannot reproduce into the one it writes.
func logicalText(lt schema.LogicalType, physical string) string {
	s := lt.String()
	switch {
	case s == "None" && physical == "INT32":
		return "Int(bitWidth=32, isSigned=true)" // the same meaning, spelled out
	case s == "None" && physical == "INT64":
		return "Int(bitWidth=64, isSigned=true)"
	}
	if physical == "INT96" {
		return "Timestamp(isAdjustedToUTC=true, timeUnit=nanoseconds, is_from_converted_type=false, force_set_converted_type=false)"
	}
	s = strings.ReplaceAll(s, "is_from_converted_type=true", "is_from_converted_type=false")
	s = strings.ReplaceAll(s, "force_set_converted_type=true", "force_set_converted_type=false")
	return s
}

// parquetFiles lists the Parquet files under dir (relative paths), sorted.
func parquetFiles(t *testing.T, dir string) []string {
	var out []string
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if !info.IsDir() && (strings.HasSuffix(p, ".parquet") || strings.HasSuffix(p, ".parquet.encrypted")) {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// TestParquetTesting round-trips every file of apache/parquet-testing
// (outside bad_data) through Strata and back to Parquet.
func TestParquetTesting(t *testing.T) {
	root := parquetTesting(t)
	var tried, passed int
	failed := map[string]int{}
	seen := map[string]bool{}
	for _, rel := range parquetFiles(t, root) {
		if strings.HasPrefix(rel, "bad_data/") {
			continue
		}
		tried++
		seen[rel] = true
		if name, ok := ownTest[rel]; ok {
			t.Logf("%s: checked by %s", rel, name)
			passed++
			continue
		}
		dir := t.TempDir()
		stage, err := roundTrip(filepath.Join(root, filepath.FromSlash(rel)), dir)
		want, listed := notImported[rel]
		switch {
		case stage == "interop panic":
			t.Errorf("%s: %v", rel, err)
		case err == nil && listed:
			t.Errorf("%s: listed as unsupported (%s) but now round-trips: remove it from notImported and run with -update-docs", rel, want.reason)
		case err == nil:
			passed++
		case !listed:
			t.Errorf("%s: %s: %v", rel, stage, err)
		case !strings.Contains(err.Error(), want.match):
			t.Errorf("%s: listed as %q but fails differently: %s: %v", rel, want.reason, stage, err)
		default:
			failed[want.reason]++
		}
	}
	for rel := range notImported {
		if !seen[rel] {
			t.Errorf("notImported lists %s, which is not in parquet-testing", rel)
		}
	}
	t.Logf("parquet-testing: %d files tried, %d round-trip, %d not imported", tried, passed, tried-passed)
	for r, n := range failed {
		t.Logf("  %3d  %s", n, r)
	}
	checkDocs(t)
}

// TestParquetBadData imports every bad_data file: each must either fail
// with an error or (for files arrow-go accepts) round-trip, never panic
// or hang.
func TestParquetBadData(t *testing.T) {
	root := filepath.Join(parquetTesting(t), "bad_data")
	files := parquetFiles(t, root)
	if len(files) != len(badData) {
		t.Errorf("bad_data has %d files, the test knows %d: update badData", len(files), len(badData))
	}
	for _, name := range files {
		reads, known := badData[name]
		if !known {
			t.Errorf("%s: unknown bad_data file: add it to badData", name)
			continue
		}
		src := filepath.Join(root, name)
		dir := t.TempDir()
		type result struct {
			stage string
			err   error
			panic any
		}
		done := make(chan result, 1)
		go func() {
			defer func() {
				if p := recover(); p != nil {
					done <- result{panic: p}
				}
			}()
			if reads {
				stage, err := roundTrip(src, dir)
				done <- result{stage: stage, err: err}
				return
			}
			// Read every batch without Strata (so a schema Strata refuses
			// does not hide the data error), then import.
			rerr := drainInterop(src)
			if rerr == nil {
				done <- result{stage: "read"}
				return
			}
			if err := importFile(src, filepath.Join(dir, "t.strata"), testRead); err == nil {
				done <- result{stage: "import"}
				return
			}
			done <- result{stage: "read", err: rerr}
		}()
		select {
		case r := <-done:
			switch {
			case r.panic != nil:
				t.Errorf("%s: panicked: %v", name, r.panic)
			case reads && r.err != nil:
				t.Errorf("%s: arrow-go reads it, but %s failed: %v", name, r.stage, r.err)
			case !reads && r.err == nil:
				t.Errorf("%s: %s succeeded, want a rejection", name, r.stage)
			case !reads:
				t.Logf("%s: rejected: %v", name, r.err)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: import did not finish in 20s (hang)", name)
		}
	}
}

// Markers of the generated table in docs/interop.md.
const (
	docsBegin = "<!-- BEGIN not-imported: generated by TestParquetTesting -update-docs; do not edit -->"
	docsEnd   = "<!-- END not-imported -->"
)

// docsTable renders notImported as a Markdown table.
func docsTable() string {
	files := make([]string, 0, len(notImported))
	for f := range notImported {
		files = append(files, f)
	}
	sort.Slice(files, func(i, j int) bool {
		ri, rj := notImported[files[i]].reason, notImported[files[j]].reason
		if ri != rj {
			return ri < rj
		}
		return files[i] < files[j]
	})
	var b bytes.Buffer
	b.WriteString("| File (under parquet-testing/) | Reason |\n|---|---|\n")
	for _, f := range files {
		fmt.Fprintf(&b, "| `%s` | %s |\n", f, notImported[f].reason)
	}
	return b.String()
}

// checkDocs verifies (or with -update-docs rewrites) the table in
// docs/interop.md.
func checkDocs(t *testing.T) {
	t.Helper()
	path := filepath.Join("..", "docs", "interop.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("docs: %v", err)
		return
	}
	s := string(doc)
	i, j := strings.Index(s, docsBegin), strings.Index(s, docsEnd)
	if i < 0 || j < i {
		t.Errorf("docs/interop.md lacks the markers %q ... %q", docsBegin, docsEnd)
		return
	}
	want := docsBegin + "\n" + docsTable() + docsEnd
	if s[i:j+len(docsEnd)] == want {
		return
	}
	if !*updateDocs {
		t.Errorf("docs/interop.md: the table of files not imported is stale; run go test ./interop -run TestParquetTesting -update-docs")
		return
	}
	s = s[:i] + want + s[j+len(docsEnd):]
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Error(err)
	}
}

// TestRealSets round-trips every real data set in ../shared/data/real
// through Strata and back to Parquet: values, Arrow types and Parquet
// logical types must all come back (movies.parquet's JSON title column
// stays JSON).
func TestRealSets(t *testing.T) {
	root := filepath.Join(filepath.Dir(parquetTesting(t)), "..", "data", "real")
	files, _ := filepath.Glob(filepath.Join(root, "*.parquet"))
	if len(files) == 0 {
		t.Skipf("no real data sets in %s", root)
	}
	for _, src := range files {
		stage, err := roundTrip(src, t.TempDir())
		if err != nil {
			t.Errorf("%s: %s: %v", filepath.Base(src), stage, err)
			continue
		}
		t.Logf("%s: exact round trip", filepath.Base(src))
	}
}
