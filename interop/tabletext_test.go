package interop

import "testing"

// TestTableText checks which texts a table quotes: those that could read
// as something else (a line break, a tab, a character that does not
// print, bytes that are not UTF-8, a leading quote, an edge space), and
// not plain text, backslashes, combining marks or wide characters.
func TestTableText(t *testing.T) {
	for s, want := range map[string]string{
		"":               "",
		"plain":          "plain",
		`a\nb`:           `a\nb`,
		"a\nb":           `"a\nb"`,
		"t\tab":          `"t\tab"`,
		`"q"`:            `"\"q\""`,
		`x"y`:            `x"y`,
		" x":             `" x"`,
		"x\u00a0":        `"x\u00a0"`,
		"rtl\u202e":      `"rtl\u202e"`,
		"bad\xff":        `"bad\xff"`,
		"e\u0301t\u00e9": "e\u0301t\u00e9",
		"日本語":            "日本語",
		"NULL":           "NULL",
	} {
		if got := TableText(s); got != want {
			t.Errorf("TableText(%q) = %s, want %s", s, got, want)
		}
	}
}
