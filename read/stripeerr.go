package read

import (
	"errors"
	"fmt"
	"strings"
)

// stripeError is an error met reading a stripe. Its text names the stripe
// once, however many levels add where in it the error lies: a column
// over a stream and chunk reads
//
//	read: stripe 3, column "a": stream 0, chunk 2: <cause>
//
// where each level used to add its own "read: stripe 3", repeating it.
type stripeError struct {
	stripe int
	where  []string // outermost first; each names a place within the one before
	err    error
}

func (e *stripeError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "read: stripe %d", e.stripe)
	for i, w := range e.where {
		if i == 0 {
			b.WriteString(", ")
		} else {
			b.WriteString(": ")
		}
		b.WriteString(w)
	}
	b.WriteString(": ")
	b.WriteString(e.err.Error())
	return b.String()
}

func (e *stripeError) Unwrap() error { return e.err }

// inStripe places err in stripe s, at where (a column, a stream and chunk,
// or "" for the stripe as a whole). An error that already names stripe s
// gains where beneath the stripe instead of naming the stripe again.
func inStripe(s int, where string, err error) error {
	if se, ok := err.(*stripeError); ok && se.stripe == s {
		if where == "" {
			return err
		}
		return &stripeError{stripe: s, where: append([]string{where}, se.where...), err: se.err}
	}
	var se *stripeError
	if errors.As(err, &se) && se.stripe == s {
		// named deeper, beneath text of its own
		if where == "" {
			return err
		}
		return fmt.Errorf("read: %s: %w", where, err)
	}
	var w []string
	if where != "" {
		w = []string{where}
	}
	return &stripeError{stripe: s, where: w, err: err}
}

// chunkWhere names chunk c of a stream, for inStripe.
func chunkWhere(stream, c int) string { return fmt.Sprintf("stream %d, chunk %d", stream, c) }

// columnWhere names a column, for inStripe.
func columnWhere(name string) string { return fmt.Sprintf("column %q", name) }
