package s3_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"strata/internal/objtest"
	"strata/iox"
	"strata/iox/s3"
)

// TestGlob lists keys through the proxy and matches them as iox.Glob
// promises: * and ? within one segment of the key, classes, the bucket
// named literally, nothing matched an error of iox.Glob's.
func TestGlob(t *testing.T) {
	srv, p, c, _ := setup(t, []byte("x"), fast)
	ctx := context.Background()
	const dir = "globtest/"
	keys := []string{"a/x1.bin", "a/x2.bin", "a/y.bin", "a/sub/x3.bin", "a/x10.bin", "b/x4.bin", "ax.bin"}
	for _, k := range keys {
		if err := srv.Put(ctx, "strata-test", dir+k, []byte(k)); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		pattern string
		want    []string
	}{
		{"a/x*.bin", []string{"a/x1.bin", "a/x10.bin", "a/x2.bin"}},
		{"a/x?.bin", []string{"a/x1.bin", "a/x2.bin"}},
		{"a/*", []string{"a/x1.bin", "a/x10.bin", "a/x2.bin", "a/y.bin"}},
		{"a/*/x*.bin", []string{"a/sub/x3.bin"}},
		{"*/x[24].bin", []string{"a/x2.bin", "b/x4.bin"}},
		{"a*", []string{"ax.bin"}},
		{"a/[^x]*.bin", []string{"a/y.bin"}},
		{"c/*", nil},
	} {
		got, err := c.Glob(ctx, "strata-test", dir+tc.pattern)
		if err != nil {
			t.Fatalf("%s: %v", tc.pattern, err)
		}
		var want []string
		for _, k := range tc.want {
			want = append(want, dir+k)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: got %v, want %v", tc.pattern, got, want)
		}
	}

	// A listing of several pages: 2 keys a page, 5 keys under a/x, so
	// three requests.
	defer s3.SetListPageSize(2)()
	p.Reset()
	got, err := c.Glob(ctx, "strata-test", dir+"a/*.bin")
	if err != nil || !slices.Equal(got, []string{dir + "a/x1.bin", dir + "a/x10.bin", dir + "a/x2.bin", dir + "a/y.bin"}) {
		t.Fatalf("paged listing: %v %v", got, err)
	}
	if n := p.Counts().Requests; n != 3 {
		t.Errorf("paged listing of 5 keys, 2 a page: %d requests, want 3", n)
	}
	// A throttled or failed page is retried.
	p.Reset()
	p.Inject("GET", objtest.Pass, objtest.SlowDown, objtest.ServerError)
	got2, err := c.Glob(ctx, "strata-test", dir+"a/*.bin")
	if err != nil || !slices.Equal(got2, got) {
		t.Fatalf("listing with faults: %v %v", got2, err)
	}
	if cnt := p.Counts(); cnt.Faults != 2 || cnt.Requests != 5 {
		t.Errorf("listing with two faults: proxy %+v", cnt)
	}

	// Malformed patterns and patterns in the bucket are refused.
	if _, err := c.Glob(ctx, "strata-test", dir+"a/[x"); err == nil {
		t.Error("a malformed pattern was listed")
	}
	if _, err := c.Glob(ctx, "strata-*", dir+"a/x1.bin"); err == nil || !strings.Contains(err.Error(), "bucket") {
		t.Errorf("a pattern in the bucket: %v", err)
	}

	// iox.Glob reaches the package through its registration, with the
	// environment's configuration, and says when nothing matches.
	for _, kv := range srv.Env("") {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	locs, err := iox.Glob(ctx, "s3://strata-test/"+dir+"a/x?.bin")
	if err != nil || !slices.Equal(locs, []string{"s3://strata-test/" + dir + "a/x1.bin", "s3://strata-test/" + dir + "a/x2.bin"}) {
		t.Fatalf("iox.Glob: %v %v", locs, err)
	}
	if _, err := iox.Glob(ctx, "s3://strata-test/"+dir+"none*"); !errors.Is(err, iox.ErrNoMatch) {
		t.Errorf("no match: %v", err)
	}
}

// TestGlobOddKeys stores objects whose keys hold a space, unicode, and
// the characters a URL parser would take for an escape, a query or a
// fragment, and checks that the locations s3.Glob returns open and read
// back each object's own bytes, and that a pattern matching nothing is
// iox.ErrNoMatch from s3.Glob itself (the CLI calls it directly, and once
// took its empty answer for a table, indexing past it).
func TestGlobOddKeys(t *testing.T) {
	srv, p, _, _ := setup(t, []byte("x"), fast)
	ctx := context.Background()
	cfg := srv.Config(p.URL)
	cfg.Retry = fast
	keys := []string{"odd/a b.bin", "odd/p%20c.bin", "odd/pct%.bin", "odd/q?x.bin", "odd/h#x.bin", "odd/ünï.bin", "odd/a+b.bin"}
	want := map[string][]byte{}
	for i, k := range keys {
		data := []byte(fmt.Sprintf("object %d: %s", i, k))
		want["s3://strata-test/"+k] = data
		if err := srv.Put(ctx, "strata-test", k, data); err != nil {
			t.Fatal(err)
		}
	}
	locs, err := s3.Glob(ctx, "s3://strata-test/odd/*.bin", cfg)
	if err != nil || len(locs) != len(keys) {
		t.Fatalf("glob: %q, %v", locs, err)
	}
	for _, loc := range locs {
		o, err := s3.Open(ctx, loc, cfg)
		if err != nil {
			t.Errorf("%s: %v", loc, err)
			continue
		}
		got, err := iox.ReadRange(ctx, o, iox.Range{Off: 0, Len: o.Size()})
		if err != nil || !bytes.Equal(got, want[loc]) {
			t.Errorf("%s: read %q, %v; want %q", loc, got, err, want[loc])
		}
	}
	if locs, err := s3.Glob(ctx, "s3://strata-test/odd/none*.bin", cfg); !errors.Is(err, iox.ErrNoMatch) || locs != nil {
		t.Errorf("no match: %q, %v", locs, err)
	}
}
