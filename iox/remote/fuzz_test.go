package remote_test

import (
	"errors"
	"testing"

	"strata/iox"
	"strata/iox/remote"
)

// FuzzContentRange feeds arbitrary Content-Range values and lengths to the
// response checks: they must never panic, and whatever they accept must
// describe exactly the bytes asked for.
func FuzzContentRange(f *testing.F) {
	for _, s := range []string{"bytes 0-9/100", "bytes 90-99/100", "bytes 7-8/*", "bytes -1-4/10", "bytes 9223372036854775807-9223372036854775807/9223372036854775807", ""} {
		f.Add(s, int64(10), int64(0), int64(10), int64(100))
	}
	f.Fuzz(func(t *testing.T, cr string, length, off, n, size int64) {
		first, last, total, err := remote.ContentRange(cr)
		if err == nil && (first < 0 || last < first || total >= 0 && last >= total || total < -1) {
			t.Fatalf("%q accepted as %d-%d/%d", cr, first, last, total)
		}
		if err != nil && !errors.Is(err, remote.ErrBadResponse) {
			t.Fatalf("%q: %v", cr, err)
		}
		r := iox.Range{Off: off, Len: n}
		if err := remote.CheckPartial(cr, length, r, size); err == nil {
			if first != off || last != r.End()-1 || total >= 0 && total != size || length >= 0 && length != n {
				t.Fatalf("CheckPartial accepted %q (length %d) for %v of %d", cr, length, r, size)
			}
		}
		if got, err := remote.CheckSuffix(cr, length, n); err == nil {
			if got != total || last != total-1 || first != max(total-n, 0) {
				t.Fatalf("CheckSuffix accepted %q for the last %d bytes: size %d", cr, n, got)
			}
		}
	})
}
