package iox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// A Globber returns the locations of its scheme that a pattern matches
// (see Glob), sorted.
type Globber func(ctx context.Context, pattern string) ([]string, error)

var globbers = map[string]Globber{}

// RegisterGlob makes Glob hand patterns of scheme ("s3") to g. Packages
// that list remote storage register themselves when imported, as they
// register their Opener.
func RegisterGlob(scheme string, g Globber) {
	openersMu.Lock()
	defer openersMu.Unlock()
	globbers[strings.ToLower(scheme)] = g
}

// ErrNoMatch is returned by Glob when a pattern matches nothing.
var ErrNoMatch = errors.New("no file matches the pattern")

// HasPattern reports whether a location holds a pattern character: *, ?
// or [. In an http(s) URL a ? begins the query (a presigned URL's
// signature, say) and # the fragment, so only a * or [ before them is
// one: such a URL is read as named, not refused as a pattern.
func HasPattern(location string) bool {
	switch Scheme(location) {
	case "http", "https":
		if i := strings.IndexAny(location, "?#"); i >= 0 {
			location = location[:i]
		}
		return strings.ContainsAny(location, "*[")
	}
	return strings.ContainsAny(location, "*?[")
}

// Glob returns the locations a pattern names, sorted: the location itself
// when it holds no pattern character, else the files or objects it
// matches. Patterns follow path.Match: * and ? match within one segment
// of the path (never a /), [...] a class of characters. A local path
// (or file:// URL) is matched with filepath.Glob, and a file that exists
// under the pattern's own name is taken as named; another scheme goes to
// the Globber registered for it (strata/iox/s3 lists s3:// buckets), and
// a scheme without one (https://, which cannot list) is an error. A
// pattern that matches nothing fails with ErrNoMatch.
func Glob(ctx context.Context, pattern string) ([]string, error) {
	if !HasPattern(pattern) {
		return []string{pattern}, nil
	}
	scheme := Scheme(pattern)
	switch scheme {
	case "", "file":
		p := pattern
		if scheme == "file" {
			p = strings.TrimPrefix(pattern[len(scheme):], "://")
		}
		if _, err := os.Stat(p); err == nil {
			return []string{pattern}, nil
		}
		m, err := filepath.Glob(p)
		if err != nil {
			return nil, fmt.Errorf("pattern %q: %w", pattern, err)
		}
		if len(m) == 0 {
			return nil, fmt.Errorf("%q: %w", pattern, ErrNoMatch)
		}
		sort.Strings(m)
		if scheme == "file" {
			for i := range m {
				m[i] = "file://" + m[i]
			}
		}
		return m, nil
	}
	openersMu.RLock()
	g := globbers[scheme]
	openersMu.RUnlock()
	if g == nil {
		return nil, fmt.Errorf("pattern %q: %s:// locations cannot be listed (patterns work on local files and, with strata/iox/s3 imported, s3:// objects)", pattern, scheme)
	}
	m, err := g(ctx, pattern)
	if err != nil {
		return nil, err
	}
	if len(m) == 0 {
		return nil, fmt.Errorf("%q: %w", pattern, ErrNoMatch)
	}
	return m, nil
}

// PatternPrefix returns the part of a slash-separated pattern before its
// first pattern character: the prefix every match starts with, which a
// store lists to find them.
func PatternPrefix(pattern string) string {
	if i := strings.IndexAny(pattern, "*?[\\"); i >= 0 {
		return pattern[:i]
	}
	return pattern
}

// MatchKey reports whether a slash-separated key (an object's name)
// matches pattern, as path.Match does; a malformed pattern is an error
// whatever the key.
func MatchKey(pattern, key string) (bool, error) {
	if _, err := path.Match(pattern, ""); err != nil {
		return false, fmt.Errorf("pattern %q: %w", pattern, err)
	}
	ok, _ := path.Match(pattern, key)
	return ok, nil
}
