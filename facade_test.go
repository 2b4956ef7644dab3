package strata_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	iofs "io/fs"
	"strings"
	"testing"
)

// TestFacadeHidesInternals: nothing the package exports (types, fields,
// signatures, aliases) names a type of the reader, the container or the
// metadata packages, so `go doc strata` shows none and callers cannot reach
// the container's insides.
func TestFacadeHidesInternals(t *testing.T) {
	fs := token.NewFileSet()
	pkgs, err := parser.ParseDir(fs, ".", func(fi iofs.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	hidden := map[string]bool{"read": true, "format": true, "meta": true}
	check := func(where string, n ast.Node) {
		if n == nil {
			return
		}
		ast.Inspect(n, func(x ast.Node) bool {
			if se, ok := x.(*ast.SelectorExpr); ok {
				if id, ok := se.X.(*ast.Ident); ok && hidden[id.Name] {
					t.Errorf("%s: exported API shows %s.%s", where, id.Name, se.Sel.Name)
				}
			}
			// Unexported struct fields and function bodies are not API.
			switch y := x.(type) {
			case *ast.Field:
				if len(y.Names) > 0 && !y.Names[0].IsExported() {
					return false
				}
			case *ast.BlockStmt:
				return false
			}
			return true
		})
	}
	n := 0
	for _, p := range pkgs {
		for _, f := range p.Files {
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					if !d.Name.IsExported() {
						continue
					}
					if d.Recv != nil {
						rt := d.Recv.List[0].Type
						if st, ok := rt.(*ast.StarExpr); ok {
							rt = st.X
						}
						if id, ok := rt.(*ast.Ident); ok && !id.IsExported() {
							continue
						}
					}
					n++
					check(d.Name.Name, d.Type)
				case *ast.GenDecl:
					for _, s := range d.Specs {
						switch s := s.(type) {
						case *ast.TypeSpec:
							if s.Name.IsExported() {
								n++
								check(s.Name.Name, s.Type)
							}
						case *ast.ValueSpec:
							for _, name := range s.Names {
								if name.IsExported() {
									n++
									check(name.Name, s.Type)
								}
							}
						}
					}
				}
			}
		}
	}
	if n < 40 {
		t.Fatalf("checked only %d exported declarations", n)
	}
}
