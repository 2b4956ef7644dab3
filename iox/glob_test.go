package iox_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"strata/iox"
)

func TestGlobLocal(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"p1.strata", "p2.strata", "p10.strata", "q.strata", "p[1].strata"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sub", "p3.strata"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	in := func(names ...string) []string {
		var out []string
		for _, n := range names {
			out = append(out, filepath.Join(dir, n))
		}
		return out
	}
	for _, tc := range []struct {
		pattern string
		want    []string
	}{
		{"p?.strata", in("p1.strata", "p2.strata")},
		{"p*.strata", in("p1.strata", "p10.strata", "p2.strata", "p[1].strata")},
		{"*/p*.strata", in("sub/p3.strata")},
		{"p[1].strata", in("p[1].strata")}, // a file of that very name
		{"[pq]2.strata", in("p2.strata")},
		{"plain.strata", in("plain.strata")}, // no pattern: taken as it is
	} {
		got, err := iox.Glob(ctx, filepath.Join(dir, tc.pattern))
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v %v, want %v", tc.pattern, got, err, tc.want)
		}
	}
	got, err := iox.Glob(ctx, "file://"+filepath.Join(dir, "p?.strata"))
	if err != nil || !slices.Equal(got, []string{"file://" + filepath.Join(dir, "p1.strata"), "file://" + filepath.Join(dir, "p2.strata")}) {
		t.Errorf("file:// pattern: %v %v", got, err)
	}
	if _, err := iox.Glob(ctx, filepath.Join(dir, "none*")); !errors.Is(err, iox.ErrNoMatch) {
		t.Errorf("no match: %v", err)
	}
	if _, err := iox.Glob(ctx, filepath.Join(dir, "p[")); err == nil {
		t.Error("a malformed pattern matched")
	}
	if _, err := iox.Glob(ctx, "https://example.com/p*.strata"); err == nil || !strings.Contains(err.Error(), "cannot be listed") {
		t.Errorf("a pattern over https: %v", err)
	}
	if iox.PatternPrefix("a/b/c*.x") != "a/b/c" || iox.PatternPrefix("a/b") != "a/b" || iox.PatternPrefix(`a\*`) != "a" {
		t.Error("PatternPrefix")
	}
}

// TestGlobURLQuery expects an http(s) URL with a query (a presigned URL's
// signature) or a fragment to be taken as named: its ? is not a pattern
// character there. It was once refused as a pattern that https:// cannot
// list. A * or [ in the URL's path is still a pattern, and refused.
func TestGlobURLQuery(t *testing.T) {
	ctx := context.Background()
	for _, loc := range []string{
		"https://bucket.example.com/t.strata?X-Amz-Signature=ab*cd&X-Amz-Expires=60",
		"HTTP://example.com/t.strata?x=1",
		"https://example.com/t.strata#part",
	} {
		if iox.HasPattern(loc) {
			t.Errorf("%s: taken for a pattern", loc)
		}
		got, err := iox.Glob(ctx, loc)
		if err != nil || !slices.Equal(got, []string{loc}) {
			t.Errorf("%s: %v %v, want it as named", loc, got, err)
		}
	}
	for _, loc := range []string{"https://example.com/p*.strata?x=1", "http://example.com/p[12].strata"} {
		if !iox.HasPattern(loc) {
			t.Errorf("%s: not taken for a pattern", loc)
		}
		if _, err := iox.Glob(ctx, loc); err == nil || !strings.Contains(err.Error(), "cannot be listed") {
			t.Errorf("%s: %v, want cannot be listed", loc, err)
		}
	}
	// Elsewhere ? is a pattern character still.
	if !iox.HasPattern("s3://b/p?.strata") || !iox.HasPattern("dir/p?.strata") {
		t.Error("? outside an http(s) URL is not a pattern")
	}
}
