package node

import "fmt"

// SharedFSST (kind 21, FORMAT.md "Stripe-level encodings"): an FSST symbol
// table stored once per stripe and stream in a definition chunk of 0 rows,
// and FSST codes under it in reference nodes of the stream's other chunks.

const kindSharedFSST = 21

// Forms of the stripe-level kinds, told by the first body byte.
const (
	formDefinition = 0x00
	formReference  = 0x01
)

func init() { register(kindSharedFSST, decodeSharedFSST) }

// decodeSharedFSST decodes either form. A definition checks its table and
// holds no values; a reference resolves its definition chunk through r and
// decodes its codes as FSST does.
func decodeSharedFSST(h Header, r Resolver) (Values, error) {
	if err := ftBinaryType(h.Type, "SharedFSST"); err != nil {
		return Values{}, err
	}
	form, rest, err := ftByte(h.Body, "shared fsst form")
	if err != nil {
		return Values{}, err
	}
	if err := ftStripeDepth(r, form, "shared fsst"); err != nil {
		return Values{}, err
	}
	switch form {
	case formDefinition:
		if h.Rows != 0 {
			return Values{}, fmt.Errorf("shared fsst definition of %d rows: %w", h.Rows, ErrCorrupt)
		}
		if _, err := parseSharedFSSTDefinition(rest); err != nil {
			return Values{}, err
		}
		return Make(Binary, 0), nil
	case formReference:
	default:
		return Values{}, fmt.Errorf("shared fsst form %#x: %w", form, ErrUnsupported)
	}
	chunk, rest, err := Count(rest, MaxRows, "shared fsst chunk")
	if err != nil {
		return Values{}, err
	}
	t, err := resolveSharedFSST(r, chunk)
	if err != nil {
		return Values{}, err
	}
	return t.decodeCodes(rest, h.Rows, r)
}

// parseSharedFSSTDefinition parses a definition body after its form byte:
// an FSST table with nothing after it.
func parseSharedFSSTDefinition(b []byte) (fsstTable, error) {
	t, rest, err := parseFSSTTable(b)
	if err != nil {
		return fsstTable{}, fmt.Errorf("shared fsst definition: %w", err)
	}
	if err := ftNoTrailing(rest, "shared fsst symbols"); err != nil {
		return fsstTable{}, err
	}
	return t, nil
}

// ftStripeDepth checks where a stripe-level form sits: a definition is the
// whole payload of a chunk (depth 0); a reference is a chunk's root or the
// values child of a Nullable root (depth 1). node.Depth cannot tell a
// Nullable parent from another, so a reference at depth 1 under any parent
// that hands its resolver on is accepted (gaps/floattext.md E.6).
func ftStripeDepth(r Resolver, form byte, what string) error {
	d := Depth(r)
	if form == formDefinition && d != 0 {
		return fmt.Errorf("%s definition at depth %d, not a chunk's payload: %w", what, d, ErrCorrupt)
	}
	if form == formReference && d > 1 {
		return fmt.Errorf("%s reference at depth %d: %w", what, d, ErrCorrupt)
	}
	return nil
}

// resolveSharedFSST fetches chunk i through r and parses it as a SharedFSST
// definition: a chunk of 0 rows whose payload is a kind 21 binary node of 0
// rows in the definition form. Anything else is corrupt.
func resolveSharedFSST(r Resolver, i int) (fsstTable, error) {
	if !HasResolver(r) {
		return fsstTable{}, fmt.Errorf("shared fsst reference to chunk %d: %w", i, errNoResolver)
	}
	payload, rows, err := r.Chunk(i)
	if err != nil {
		return fsstTable{}, fmt.Errorf("shared fsst definition chunk %d: %w", i, err)
	}
	if rows != 0 {
		return fsstTable{}, fmt.Errorf("shared fsst definition chunk %d holds %d rows: %w", i, rows, ErrCorrupt)
	}
	dh, err := ParseHeader(payload)
	if err != nil {
		return fsstTable{}, fmt.Errorf("shared fsst definition chunk %d: %w", i, err)
	}
	if dh.Kind != kindSharedFSST || dh.Type != Binary || dh.Rows != 0 || len(dh.Body) == 0 || dh.Body[0] != formDefinition {
		return fsstTable{}, fmt.Errorf("shared fsst chunk %d is no definition (kind %d, %v, %d rows): %w", i, dh.Kind, dh.Type, dh.Rows, ErrCorrupt)
	}
	t, err := parseSharedFSSTDefinition(dh.Body[1:])
	if err != nil {
		return fsstTable{}, fmt.Errorf("chunk %d: %w", i, err)
	}
	return t, nil
}
