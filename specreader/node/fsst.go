package node

import "fmt"

// FSST (kind 12, FORMAT.md "String compression: FSST"): binary values as
// one-byte codes into a table of at most 255 symbols of 1 to 8 bytes that
// the node carries; code 255 escapes one literal byte. SharedFSST (kind 21)
// reuses the table parsing and code decoding below with a table stored once
// per stripe and stream.

const (
	kindFSST   = 12
	fsstEscape = 255
)

func init() { register(kindFSST, decodeFSST) }

// fsstTable is a parsed symbol table: symbol c is sym[c].
type fsstTable struct {
	sym [][]byte
}

// parseFSSTTable reads `counts: 8 × u8 | symbols`: counts[l−1] symbols of l
// bytes, shortest first, S = Σ counts ≤ 255.
func parseFSSTTable(b []byte) (fsstTable, []byte, error) {
	if len(b) < 8 {
		return fsstTable{}, nil, fmt.Errorf("fsst counts: %d bytes left: %w", len(b), ErrCorrupt)
	}
	counts, rest := b[:8], b[8:]
	s, size := 0, 0
	for l, c := range counts {
		s += int(c)
		size += (l + 1) * int(c)
	}
	if s > 255 {
		return fsstTable{}, nil, fmt.Errorf("fsst table of %d symbols: %w", s, ErrCorrupt)
	}
	if size > len(rest) {
		return fsstTable{}, nil, fmt.Errorf("fsst symbols of %d bytes, %d left: %w", size, len(rest), ErrCorrupt)
	}
	t := fsstTable{sym: make([][]byte, 0, s)}
	for l, c := range counts {
		for range int(c) {
			t.sym = append(t.sym, rest[:l+1:l+1])
			rest = rest[l+1:]
		}
	}
	return t, rest, nil
}

// decodeCodes decodes the `raw | code lengths child | codes` tail of an
// FSST or SharedFSST reference body into rows values with table t, checking
// every FSST constraint: the code lengths child is uint32 with rows rows and
// sums to the code bytes, raw ≤ 8 × code bytes and within the decode limit,
// every code is a symbol or an escape with its literal inside the value,
// and the values make exactly raw bytes. r is the node's resolver (its
// depth is passed on to the code lengths child).
func (t fsstTable) decodeCodes(b []byte, rows int, r Resolver) (Values, error) {
	raw, rest, err := Count(b, MaxRawLen, "fsst raw")
	if err != nil {
		return Values{}, err
	}
	lens, codes, err := ftChild(rest, Uint32, rows, r, "fsst code lengths")
	if err != nil {
		return Values{}, err
	}
	var sum uint64
	for _, l := range lens.Uint {
		sum += l
	}
	if sum != uint64(len(codes)) {
		return Values{}, fmt.Errorf("fsst code lengths sum to %d, %d code bytes: %w", sum, len(codes), ErrCorrupt)
	}
	if uint64(raw) > 8*uint64(len(codes)) {
		return Values{}, fmt.Errorf("fsst raw %d over 8 × %d code bytes: %w", raw, len(codes), ErrCorrupt)
	}
	out := make([]byte, 0, raw)
	v := Make(Binary, rows)
	for i, l := range lens.Uint {
		start := len(out)
		c := codes[:l]
		codes = codes[l:]
		for k := 0; k < len(c); k++ {
			code := c[k]
			var piece []byte
			switch {
			case code == fsstEscape:
				if k+1 == len(c) {
					return Values{}, fmt.Errorf("fsst value %d ends in an escape: %w", i, ErrCorrupt)
				}
				k++
				piece = c[k : k+1]
			case int(code) < len(t.sym):
				piece = t.sym[code]
			default:
				return Values{}, fmt.Errorf("fsst value %d: code %d of a %d-symbol table: %w", i, code, len(t.sym), ErrCorrupt)
			}
			if len(out)+len(piece) > raw {
				return Values{}, fmt.Errorf("fsst values decode to more than raw %d bytes: %w", raw, ErrCorrupt)
			}
			out = append(out, piece...)
		}
		v.Bin[i] = out[start:len(out):len(out)]
	}
	if len(out) != raw {
		return Values{}, fmt.Errorf("fsst values decode to %d bytes, raw says %d: %w", len(out), raw, ErrCorrupt)
	}
	return v, nil
}

// decodeFSST decodes `counts | symbols | raw | code lengths | codes`.
func decodeFSST(h Header, r Resolver) (Values, error) {
	if err := ftBinaryType(h.Type, "FSST"); err != nil {
		return Values{}, err
	}
	t, rest, err := parseFSSTTable(h.Body)
	if err != nil {
		return Values{}, err
	}
	return t.decodeCodes(rest, h.Rows, r)
}
