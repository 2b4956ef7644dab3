package node_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"strata/specreader/node"
)

// goReaderValues decodes a node with Strata's own decoder into the second
// reader's Values shape, for differential comparison.
func goReaderValues(n []byte) (node.Values, error) {
	if err := goReaderDecode(n); err != nil {
		return node.Values{}, err
	}
	// Decode again, keeping the values.
	var v node.Values
	var err error
	func() {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("Go reader panicked: %v", r)
			}
		}()
		v, err = goValues(n)
	}()
	return v, err
}

// myKindSet holds the kind ids of this file's decoders.
var myKindSet = map[byte]bool{1: true, 2: true, 3: true, 4: true, 5: true, 6: true, 7: true, 8: true, 9: true, 10: true, 11: true, 19: true, 22: true, 24: true}

// TestDifferentialMutations mutates oracle nodes of this file's kinds
// (byte flips, byte sets, truncations, insertions) and compares the two
// readers: where both accept, the values must agree bit for bit, and the
// second reader must not accept what the Go reader rejects. Where only the
// Go reader accepts, the second reader is stricter than the Go reader; the
// test logs those cases by error message so the gaps list can name them.
func TestDifferentialMutations(t *testing.T) {
	seeds := fuzzSeeds(t)
	rng := rand.New(rand.NewPCG(17, 18))
	iters := 200000
	if testing.Short() {
		iters = 20000
	}
	stricter := map[string]int{}
	example := map[string]string{}
	for it := 0; it < iters; it++ {
		m := bytes.Clone(seeds[rng.IntN(len(seeds))])
		for k := 1 + rng.IntN(3); k > 0 && len(m) > 0; k-- {
			i := rng.IntN(len(m))
			switch rng.IntN(5) {
			case 0:
				m[i] ^= 1 << uint(rng.IntN(8))
			case 1:
				m[i] = byte(rng.IntN(256))
			case 2:
				m[i]++
			case 3:
				m[i]--
			case 4:
				if i >= 4 {
					m = append(m[:i:i], append([]byte{byte(rng.IntN(256))}, m[i:]...)...)
				}
			}
		}
		if len(m) < 4 || !myKindSet[m[0]] {
			continue
		}
		if rows, k := binary.Uvarint(m[3:]); k <= 0 || rows > fuzzMaxRows {
			continue
		}
		mine, myErr := node.Decode(m, nil)
		theirs, goErr := goReaderValues(m)
		switch {
		case goErr != nil && strings.Contains(goErr.Error(), "panicked"):
			t.Logf("Go reader panics on % x: %v", m, goErr)
		case myErr == nil && goErr == nil:
			if err := sameValues(mine, theirs); err != nil {
				t.Errorf("readers disagree on % x: %v", m, err)
			}
		case myErr == nil && goErr != nil:
			t.Errorf("second reader accepts % x, Go reader rejects: %v", m, goErr)
		case myErr != nil && goErr == nil:
			key := errClass(myErr)
			stricter[key]++
			example[key] = fmt.Sprintf("% x", m)
		default:
			if !errors.Is(myErr, node.ErrCorrupt) && !errors.Is(myErr, node.ErrUnsupported) {
				t.Errorf("%v wraps neither ErrCorrupt nor ErrUnsupported", myErr)
			}
		}
	}
	var keys []string
	for k := range stricter {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("only the Go reader accepts (%d×): %s\n\te.g. %s", stricter[k], k, example[k])
	}
}

// errClass strips numbers from an error message so similar errors group.
func errClass(err error) string {
	var b strings.Builder
	digits := false
	for _, r := range err.Error() {
		if r >= '0' && r <= '9' || digits && (r >= 'a' && r <= 'f' || r == 'x') {
			if !digits {
				b.WriteByte('#')
			}
			digits = true
			continue
		}
		digits = false
		b.WriteRune(r)
	}
	return b.String()
}
