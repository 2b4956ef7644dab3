package format

import (
	"bytes"
	"context"
	"testing"

	"strata/iox"
)

// TestSectionStoredRaw checks AddSectionWith(CompressionNone): the section's
// bytes lie in the file as given, so a reader can read any part of it by
// range, while AddSection compresses the same bytes.
func TestSectionStoredRaw(t *testing.T) {
	data := bytes.Repeat([]byte("page of a paged section "), 200)
	var buf bytes.Buffer
	w := NewWriter(&buf, WriterOptions{})
	if err := w.AddSectionWith("raw", data, CompressionNone); err != nil {
		t.Fatal(err)
	}
	if err := w.AddSection("packed", data); err != nil {
		t.Fatal(err)
	}
	if err := w.AddSectionWith("bad", data, Compression(9)); err == nil {
		t.Fatal("unknown compression accepted")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := Open(context.Background(), iox.Bytes(buf.Bytes()), ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := f.SectionInfo("raw")
	packed, _ := f.SectionInfo("packed")
	if raw.Compression != CompressionNone || packed.Compression != CompressionZstd {
		t.Fatalf("compressions %v and %v", raw.Compression, packed.Compression)
	}
	if got := buf.Bytes()[raw.Offset+100 : raw.Offset+200]; !bytes.Equal(got, data[100:200]) {
		t.Fatalf("raw section bytes differ in the file")
	}
	for _, name := range []string{"raw", "packed"} {
		b, ok, err := f.Section(context.Background(), name)
		if err != nil || !ok || !bytes.Equal(b, data) {
			t.Fatalf("section %s: ok %v, err %v, equal %v", name, ok, err, bytes.Equal(b, data))
		}
	}
}
