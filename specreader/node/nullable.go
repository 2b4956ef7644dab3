package node

// Nullable (kind 11, FORMAT.md "Nullable"): any type, rows counting nulls:
//
//	validityLen: uvarint | validity node (bool, rows rows) |
//	valuesLen: uvarint | values node (T, M rows)
//
// M is the number of true validity values; the values child holds the
// present rows' values in row order. Null rows decode to the zero value
// (empty for binary) with Valid false.

func init() { register(11, decodeNullable) }

// decodeNullable decodes a Nullable node: the validity first, whose true
// count fixes the values child's rows before that child is decoded.
func decodeNullable(h Header, r Resolver) (Values, error) {
	if err := notZstd(h); err != nil {
		return Values{}, err
	}
	n := h.Rows
	valid, b, err := readChild(h.Body, Bool, n, n, r, "validity child")
	if err != nil {
		return Values{}, err
	}
	m := 0
	for _, ok := range valid.Bool {
		if ok {
			m++
		}
	}
	present, b, err := readChild(b, h.Type, m, m, r, "values child")
	if err != nil {
		return Values{}, err
	}
	if err := noTrailing(b, "the values child"); err != nil {
		return Values{}, err
	}
	v := Make(h.Type, n)
	v.Valid = valid.Bool
	j := 0
	for i, ok := range valid.Bool {
		if ok {
			copyValue(&v, i, &present, j)
			j++
		}
	}
	return v, nil
}
