package node

import "fmt"

// SharedDictionary (kind 17, FORMAT.md "Stripe-level encodings"): one
// sorted alphabet per stripe and stream in a definition chunk of 0 rows,
// and ids into it in reference nodes of the stream's other chunks.

const kindSharedDictionary = 17

func init() { register(kindSharedDictionary, decodeSharedDictionary) }

// decodeSharedDictionary decodes either form. A definition checks its
// alphabet and holds no values; a reference resolves its definition chunk
// through r and reads its ids as Dictionary does.
func decodeSharedDictionary(h Header, r Resolver) (Values, error) {
	if h.Type == Bool {
		return Values{}, fmt.Errorf("shared dictionary of bool values: %w", ErrUnsupported)
	}
	form, rest, err := ftByte(h.Body, "shared dictionary form")
	if err != nil {
		return Values{}, err
	}
	if err := ftStripeDepth(r, form, "shared dictionary"); err != nil {
		return Values{}, err
	}
	switch form {
	case formDefinition:
		if h.Rows != 0 {
			return Values{}, fmt.Errorf("shared dictionary definition of %d rows: %w", h.Rows, ErrCorrupt)
		}
		if _, err := parseSharedAlphabet(rest, h.Type); err != nil {
			return Values{}, err
		}
		return Make(h.Type, 0), nil
	case formReference:
	default:
		return Values{}, fmt.Errorf("shared dictionary form %#x: %w", form, ErrUnsupported)
	}
	chunk, rest, err := Count(rest, MaxRows, "shared dictionary chunk")
	if err != nil {
		return Values{}, err
	}
	ids, rest, err := ftChild(rest, Uint32, h.Rows, r, "shared dictionary ids")
	if err != nil {
		return Values{}, err
	}
	if err := ftNoTrailing(rest, "shared dictionary ids"); err != nil {
		return Values{}, err
	}
	alpha, err := resolveSharedAlphabet(r, chunk, h.Type)
	if err != nil {
		return Values{}, err
	}
	v := Make(h.Type, h.Rows)
	for i, id := range ids.Uint {
		if id >= uint64(alpha.Len) {
			return Values{}, fmt.Errorf("shared dictionary row %d: id %d of %d: %w", i, id, alpha.Len, ErrCorrupt)
		}
		ftCopyValue(&v, i, &alpha, int(id))
	}
	return v, nil
}

// ftCopyValue sets v[i] to a[j] (same type).
func ftCopyValue(v *Values, i int, a *Values, j int) {
	if v.Type == Binary {
		v.Bin[i] = a.Bin[j]
		return
	}
	v.SetBits(i, a.Bits(j))
}

// parseSharedAlphabet parses a definition body after its form byte:
// `alphabetLen | alphabet node: T, D rows` with 1 ≤ D, strictly increasing
// in Dictionary's order, and nothing after it. A definition is a chunk's
// root, so its alphabet is decoded at depth 1, with no stripe.
func parseSharedAlphabet(b []byte, t Type) (Values, error) {
	alpha, rest, err := ftChild(b, t, -1, &depthResolver{}, "shared dictionary alphabet")
	if err != nil {
		return Values{}, err
	}
	if err := ftNoTrailing(rest, "shared dictionary alphabet"); err != nil {
		return Values{}, err
	}
	if alpha.Len < 1 {
		return Values{}, fmt.Errorf("empty shared dictionary alphabet: %w", ErrCorrupt)
	}
	for i := 1; i < alpha.Len; i++ {
		if ftDictCompare(&alpha, i-1, i) >= 0 {
			return Values{}, fmt.Errorf("shared dictionary alphabet entry %d not above entry %d: %w", i, i-1, ErrCorrupt)
		}
	}
	return alpha, nil
}

// resolveSharedAlphabet fetches chunk i through r and parses it as a
// SharedDictionary definition of type t: a chunk of 0 rows whose payload is
// a kind 17 node of type t and 0 rows in the definition form. Anything
// else is corrupt.
func resolveSharedAlphabet(r Resolver, i int, t Type) (Values, error) {
	if !HasResolver(r) {
		return Values{}, fmt.Errorf("shared dictionary reference to chunk %d: %w", i, errNoResolver)
	}
	payload, rows, err := r.Chunk(i)
	if err != nil {
		return Values{}, fmt.Errorf("shared dictionary definition chunk %d: %w", i, err)
	}
	if rows != 0 {
		return Values{}, fmt.Errorf("shared dictionary definition chunk %d holds %d rows: %w", i, rows, ErrCorrupt)
	}
	dh, err := ParseHeader(payload)
	if err != nil {
		return Values{}, fmt.Errorf("shared dictionary definition chunk %d: %w", i, err)
	}
	if dh.Kind != kindSharedDictionary || dh.Type != t || dh.Rows != 0 || len(dh.Body) == 0 || dh.Body[0] != formDefinition {
		return Values{}, fmt.Errorf("shared dictionary chunk %d is no %v definition (kind %d, %v, %d rows): %w", i, t, dh.Kind, dh.Type, dh.Rows, ErrCorrupt)
	}
	alpha, err := parseSharedAlphabet(dh.Body[1:], t)
	if err != nil {
		return Values{}, fmt.Errorf("chunk %d: %w", i, err)
	}
	return alpha, nil
}
