package read

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"

	"strata/encoding"
	"strata/filter"
	"strata/schema"
)

// Decimals wider than 38 digits. Strata's decimals hold at most 38 digits;
// import stores an Arrow decimal256 of precision above 38 as a string
// column of its exact decimal text (Arrow's rendering: every digit of the
// scale, "-0.0500"; no leading zeros; "0" never signed) and keeps the
// source's Arrow schema in the file's metadata under sourceSchemaKey
// (interop.SchemaKey), from which export gives the decimal256 back.
//
// Read as text, such a column orders as text: its min would be "-0.01"
// below "-999.99", and "> '5'" would compare strings. So numeric questions
// are answered exactly or refused: min, max, sum and avg are refused
// (count is not numeric), and so are filters that order (<, <=, >, >=,
// BETWEEN, LIKE). =, != and IN are exact: each literal, a number written
// with or without quotes, is rewritten to the one text the column holds
// for that number, so the comparison of texts is the comparison of
// numbers (the rendering is one text per number); a number the column
// cannot hold (finer than its scale) keeps its own text, which equals no
// value's rendering.

// sourceSchemaKey is interop.SchemaKey (which this package cannot import).
const sourceSchemaKey = "strata.arrow.schema"

// textDecimals finds the columns of a file stored as decimal text, its
// source schema decoded once, when a string column is first asked about.
type textDecimals struct {
	f       *File
	decoded bool
	src     *arrow.Schema // nil: none, or not decodable
}

// of returns the source type of leaf n when n is a string column (or
// struct field) that import stored from a decimal256 of precision above
// 38.
func (td *textDecimals) of(n *schema.Node) (*arrow.Decimal256Type, bool) {
	if n == nil || n.Kind != schema.String {
		return nil, false
	}
	f := td.f
	if !td.decoded {
		td.decoded = true
		if enc, ok := f.Metadata()[sourceSchemaKey]; ok {
			// not decodable: export reports it; the column reads as
			// what it holds
			td.src, _ = decodeSourceSchema(enc)
		}
	}
	if td.src == nil {
		return nil, false
	}
	var names []string
	for x := n; x != nil && x != f.sch.Root; x = x.Parent() {
		if p := x.Parent(); p != nil && p != f.sch.Root && p.Kind != schema.Struct {
			return nil, false // inside a list or map: not aggregated or filtered
		}
		names = append(names, x.Name)
	}
	fields := td.src.Fields()
	var t arrow.DataType
	for i := len(names) - 1; i >= 0; i-- {
		found := false
		for _, fd := range fields {
			if fd.Name == names[i] {
				t, found = unwrapSource(fd.Type), true
				break
			}
		}
		if !found {
			return nil, false
		}
		fields = nil
		if st, ok := t.(*arrow.StructType); ok {
			fields = st.Fields()
		}
	}
	d, ok := t.(*arrow.Decimal256Type)
	if !ok || d.Precision <= 38 {
		return nil, false
	}
	return d, true
}

// unwrapSource is the type whose values a source column of type t holds,
// as import stores them: an extension's storage, a dictionary's values,
// a run-end encoded column's values.
func unwrapSource(t arrow.DataType) arrow.DataType {
	for {
		switch x := t.(type) {
		case arrow.ExtensionType:
			t = x.StorageType()
		case *arrow.DictionaryType:
			t = x.ValueType
		case *arrow.RunEndEncodedType:
			t = x.Encoded()
		default:
			return t
		}
	}
}

func decodeSourceSchema(s string) (*arrow.Schema, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, err
	}
	r, err := ipc.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	defer r.Release()
	return r.Schema(), nil
}

func textDecimalName(d *arrow.Decimal256Type) string {
	return fmt.Sprintf("decimal256(%d,%d)", d.Precision, d.Scale)
}

// agg refuses a numeric aggregate (fn: min, max, sum or avg)
// of a column stored as decimal text.
func (td *textDecimals) agg(part, fn, arg string, n *schema.Node) error {
	d, ok := td.of(n)
	if !ok {
		return nil
	}
	return fmt.Errorf("read: aggregate %q: %s of %s column %s: aggregates of decimals wider than 38 digits are not supported (the column is stored as decimal text; count is supported): %w",
		part, fn, textDecimalName(d), arg, encoding.ErrUnsupported)
}

// textDecimalFilter checks the leaves of e on columns stored as decimal
// text, rewriting the literals of =, != and IN to the texts the column
// holds for those numbers and refusing the operators that order.
func (f *File) textDecimalFilter(e filter.Expr) error {
	var err error
	td := &textDecimals{f: f}
	filter.Walk(e, func(l *filter.Leaf) {
		if err != nil {
			return
		}
		n, ferr := f.findLeaf(l)
		if ferr != nil {
			return // binding reports it
		}
		d, ok := td.of(n)
		if !ok {
			return
		}
		switch l.Op {
		case filter.OpIsNull, filter.OpIsNotNull:
		case filter.OpEq, filter.OpNe, filter.OpIn:
			lits := make([]filter.Literal, len(l.Lits))
			for i, lit := range l.Lits {
				text, ok := decimalTextOf(lit, d)
				if !ok {
					err = &filter.BindError{Path: l.Path, Pos: lit.Pos, Msg: fmt.Sprintf("%s is a %s (stored as decimal text); cannot compare with %s (write a number)",
						l.Path, textDecimalName(d), lit)}
					return
				}
				lits[i] = filter.Literal{Kind: filter.LitString, Text: text, Pos: lit.Pos}
			}
			l.Lits = lits
		default:
			err = &filter.BindError{Path: l.Path, Pos: l.Pos, Msg: fmt.Sprintf("%s is a %s, stored as decimal text: %s is not supported on decimals wider than 38 digits (=, !=, IN and IS [NOT] NULL are)",
				l.Path, textDecimalName(d), l.Op)}
		}
	})
	return err
}

// decimal256Digits bounds the digits of a decimal256 (2^255 has 77).
const decimal256Digits = 77

// decimalTextOf returns the text a column of type d holds for the number
// lit writes (a number, or a string holding one): Arrow's rendering at
// d's scale. A number no value of d equals (finer than the scale, or
// beyond 256 bits) keeps its own text: were that text a rendering, it
// would be of that number, so it equals no value's.
func decimalTextOf(lit filter.Literal, d *arrow.Decimal256Type) (string, bool) {
	if lit.Kind != filter.LitNumber && lit.Kind != filter.LitString {
		return "", false
	}
	s := strings.TrimSpace(lit.Text)
	neg := strings.HasPrefix(s, "-")
	body := strings.TrimLeft(s, "+-")
	if len(s)-len(body) > 1 {
		return "", false
	}
	mant, exp := body, 0
	if i := strings.IndexAny(body, "eE"); i >= 0 {
		mant = body[:i]
		e := body[i+1:]
		es := strings.TrimLeft(e, "+-")
		if len(e)-len(es) > 1 || es == "" || strings.Trim(es, "0123456789") != "" {
			return "", false
		}
		es = strings.TrimLeft(es, "0")
		if len(es) > 6 {
			es = "999999" // far beyond any decimal256: the same answer
		}
		exp, _ = strconv.Atoi("0" + es)
		if strings.HasPrefix(e, "-") {
			exp = -exp
		}
	}
	ip, fp, _ := strings.Cut(mant, ".")
	if ip+fp == "" || strings.Trim(ip+fp, "0123456789") != "" {
		return "", false
	}
	// value = digits × 10^(exp - len(fp)); unscaled = value × 10^scale
	digits := strings.TrimLeft(ip+fp, "0")
	if digits == "" {
		return renderDecimal(new(big.Int), int(d.Scale)), true // zero, whatever its sign
	}
	shift := exp - len(fp) + int(d.Scale)
	if shift < 0 {
		trimmed := strings.TrimRight(digits, "0")
		if len(digits)-len(trimmed) < -shift {
			return lit.Text, true // finer than the scale: no value
		}
		digits = digits[:len(digits)+shift]
		shift = 0
	}
	if len(digits)+shift > decimal256Digits {
		return lit.Text, true // more digits than 256 bits hold: no value
	}
	v, _ := new(big.Int).SetString(digits+strings.Repeat("0", shift), 10)
	if neg {
		v.Neg(v)
	}
	return renderDecimal(v, int(d.Scale)), true
}

// renderDecimal is Arrow's decimal256 ToString of unscaled v at scale
// (formatWide's rendering of a decimal of that scale).
func renderDecimal(v *big.Int, scale int) string {
	return formatWide(&schema.Node{Kind: schema.Decimal, Scale: scale}, v)
}
