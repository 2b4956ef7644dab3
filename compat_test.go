package strata_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/zeebo/xxh3"

	"strata"
	"strata/encoding"
	"strata/format"
	"strata/iox"
)

// The compatibility promise (docs/COMPATIBILITY.md), checked on real files:
//
//   - every frozen file in testdata/golden is read by TestGoldenRead in
//     every CI run, and carries format version 1.0;
//   - a file of a newer minor version is read, and the footer fields a
//     newer minor appends are skipped;
//   - a file of another major version is refused with ErrUnsupported
//     naming both versions, before anything else is read.

// postscript field offsets, counted back from the end of the file.
const (
	psFooterSize  = format.PostscriptSize
	psFooterSum   = format.PostscriptSize - 6
	psMajor       = format.PostscriptSize - 10
	psMinor       = format.PostscriptSize - 12
	psFileSum     = format.PostscriptSize - 14
	fileSumCovers = 12 // bytes at the end not covered: the checksum and the magic
)

// setVersion rewrites a file's version and its file checksum.
func setVersion(b []byte, major, minor uint16) []byte {
	b = bytes.Clone(b)
	n := len(b)
	binary.LittleEndian.PutUint16(b[n-psMajor:], major)
	binary.LittleEndian.PutUint16(b[n-psMinor:], minor)
	binary.LittleEndian.PutUint64(b[n-psFileSum:], xxh3.Hash(b[:n-fileSumCovers]))
	return b
}

func TestFrozenFilesVersion(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join(goldenDir, "*.strata"))
	if len(paths) == 0 {
		t.Fatal("no frozen files")
	}
	for _, p := range paths {
		f, err := strata.OpenWith(t.Context(), p, strata.OpenOptions{Verify: true})
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		major, minor := f.Version()
		if major != 1 || minor != 0 {
			t.Errorf("%s: version %d.%d; a frozen file of a new version needs its own entry in docs/COMPATIBILITY.md", p, major, minor)
		}
		f.Close()
	}
}

func TestNewerVersions(t *testing.T) {
	orig, err := os.ReadFile(filepath.Join(goldenDir, "nested.strata"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := readAll(orig)
	if err != nil {
		t.Fatal(err)
	}
	defer want.release()

	// A newer minor: read as before, checksum and all.
	newer := setVersion(orig, format.MajorVersion, format.MinorVersion+3)
	got, err := readAll(newer)
	if err != nil {
		t.Fatalf("minor %d: %v", format.MinorVersion+3, err)
	}
	if err := want.equal(got); err != nil {
		t.Fatalf("minor %d: %v", format.MinorVersion+3, err)
	}
	got.release()
	if f, err := strata.OpenSourceWith(iox.Bytes(newer), strata.OpenOptions{Verify: true}); err != nil {
		t.Fatalf("minor %d, verifying open: %v", format.MinorVersion+3, err)
	} else {
		f.Close()
	}

	// Another major: refused, naming the versions.
	for _, major := range []uint16{0, format.MajorVersion + 1, 0xffff} {
		_, err := strata.OpenSource(iox.Bytes(setVersion(orig, major, 0)))
		if !errors.Is(err, encoding.ErrUnsupported) || !strings.Contains(err.Error(), "version") {
			t.Errorf("major %d: %v, want ErrUnsupported naming the version", major, err)
		}
	}
}

// A newer minor may append fields to the footer; a reader of this minor
// skips them. In a file of this minor the same bytes are corruption.
func TestNewerMinorFooterFields(t *testing.T) {
	var buf bytes.Buffer
	fw := format.NewWriter(&buf, format.WriterOptions{NoMetadataCompression: true})
	if err := fw.AddSection("x", []byte("section")); err != nil {
		t.Fatal(err)
	}
	if err := fw.WriteChunk(0, []byte("chunk"), 1, nil); err != nil {
		t.Fatal(err)
	}
	if err := fw.FinishStripe(1); err != nil {
		t.Fatal(err)
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	n := len(b)
	footLen := int(binary.LittleEndian.Uint32(b[n-psFooterSize:]))
	if b[n-psFooterSize+4] != byte(format.CompressionNone) {
		t.Fatal("footer stored compressed")
	}
	foot := b[n-format.PostscriptSize-footLen : n-format.PostscriptSize]
	extra := []byte{7, 42, 0, 9} // fields of a future minor
	grown := append(append(append([]byte{}, b[:n-format.PostscriptSize]...), extra...), b[n-format.PostscriptSize:]...)
	m := len(grown)
	binary.LittleEndian.PutUint32(grown[m-psFooterSize:], uint32(footLen+len(extra)))
	binary.LittleEndian.PutUint32(grown[m-psFooterSum:], format.Checksum32(append(bytes.Clone(foot), extra...)))
	for _, c := range []struct {
		minor uint16
		ok    bool
	}{{format.MinorVersion, false}, {format.MinorVersion + 1, true}} {
		v := setVersion(grown, format.MajorVersion, c.minor)
		ff, err := format.Open(t.Context(), iox.Bytes(v), format.ReaderOptions{})
		switch {
		case c.ok && err != nil:
			t.Errorf("minor %d with appended footer fields: %v", c.minor, err)
		case !c.ok && !errors.Is(err, encoding.ErrCorrupt):
			t.Errorf("minor %d with trailing footer bytes: %v, want ErrCorrupt", c.minor, err)
		case c.ok:
			if s, ok, err := ff.Section(t.Context(), "x"); err != nil || !ok || string(s) != "section" {
				t.Errorf("minor %d: section %q %v %v", c.minor, s, ok, err)
			}
			if err := ff.Verify(t.Context()); err != nil {
				t.Errorf("minor %d: verify: %v", c.minor, err)
			}
		}
	}
}

// A chunk of an encoding kind the reader does not know (a newer minor's)
// fails with ErrUnsupported naming the kind, the stripe and the column.
func TestUnknownEncodingKind(t *testing.T) {
	i64 := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	node := encoding.AppendHeader(nil, encoding.Kind(250), encoding.Int64, 3)
	data := craft(t, i64, 3, append(node, make([]byte, 24)...))
	f, err := strata.OpenSource(iox.Bytes(data))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc, err := f.Scan(strata.ScanOptions{})
	if err == nil {
		_, err = sc.Next()
	}
	if !errors.Is(err, encoding.ErrUnsupported) || !strings.Contains(err.Error(), "250") ||
		!strings.Contains(err.Error(), "stripe 0") || !strings.Contains(err.Error(), `"x"`) {
		t.Fatalf("scan: %v, want ErrUnsupported naming kind 250, stripe 0 and column x", err)
	}
}
