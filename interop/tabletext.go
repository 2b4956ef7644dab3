package interop

import (
	"strconv"
	"unicode"
	"unicode/utf8"
)

// TableText is text (a value's, or a column name) as a cell of a table
// printed for reading, as strata cat and strata-sql print one: as it is,
// or quoted as a Go string literal when it could be read as something
// else: when it holds a character that does not print (a newline or tab,
// which would break the row; a zero-width space or a direction mark,
// which would not show) or bytes that are not UTF-8; when it begins with
// a double quote, so that a quoted cell is always a literal; when it
// begins or ends with a space, which the padding of the column hides. A
// backslash alone is not quoted: a\nb bare is those four characters,
// "a\nb" three, one a newline. (The tables print a null as NULL and the
// string NULL quoted, "NULL", which is the caller's to do: only it knows
// a null from the string.)
func TableText(s string) string {
	if tableQuoted(s) {
		return strconv.Quote(s)
	}
	return s
}

// tableQuoted reports whether TableText quotes s.
func tableQuoted(s string) bool {
	if s == "" {
		return false
	}
	first, _ := utf8.DecodeRuneInString(s)
	last, _ := utf8.DecodeLastRuneInString(s)
	if first == '"' || unicode.IsSpace(first) || unicode.IsSpace(last) {
		return true
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || !strconv.IsPrint(r) {
			return true
		}
		i += size
	}
	return false
}
