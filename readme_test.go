package strata_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeSnippets keeps the README's Go code compiled and run: every
// ```go block of README.md begins with a line "// Example NAME (FILE)" and
// must be exactly the body of that Example function in FILE (one tab of
// indentation removed). The Example functions are compiled and their
// output checked by go test (FILE in the sql module by that module's
// tests).
func TestReadmeSnippets(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(string(readme), -1)
	if len(blocks) < 3 {
		t.Fatalf("README has %d Go blocks, want the API, object storage and SQL ones", len(blocks))
	}
	head := regexp.MustCompile(`^// Example (\w+) \(([\w./-]+)\)\n`)
	for _, b := range blocks {
		m := head.FindStringSubmatch(b[1])
		if m == nil {
			t.Errorf("README Go block does not start with // Example NAME (FILE):\n%s", b[1])
			continue
		}
		body, err := exampleBody(m[2], m[1])
		if err != nil {
			t.Errorf("README block %s: %v", m[1], err)
			continue
		}
		if got := b[1][len(m[0]):]; got != body {
			t.Errorf("README block %s differs from the body of %s in %s; paste:\n%s", m[1], m[1], m[2], body)
		}
	}
}

// exampleBody returns the statements of func name in file, dedented by a
// tab, ending in a newline.
func exampleBody(file, name string) (string, error) {
	src, err := os.ReadFile(filepath.FromSlash(file))
	if err != nil {
		return "", err
	}
	fs := token.NewFileSet()
	f, err := parser.ParseFile(fs, file, src, parser.ParseComments)
	if err != nil {
		return "", err
	}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Name.Name != name || fd.Body == nil {
			continue
		}
		lo := fs.Position(fd.Body.Lbrace).Offset + 2 // past "{\n"
		hi := fs.Position(fd.Body.Rbrace).Offset
		var out strings.Builder
		for _, line := range strings.SplitAfter(string(src[lo:hi]), "\n") {
			out.WriteString(strings.TrimPrefix(line, "\t"))
		}
		return out.String(), nil
	}
	return "", os.ErrNotExist
}
