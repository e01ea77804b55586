package drivers

import (
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"testing"
)

// TestDocListsCapabilities: the package comment lists every optional
// capability (each exported interface but the contract itself), one
// line each, so that a driver's author finds them all in one place.
func TestDocListsCapabilities(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	pkg := pkgs["drivers"]
	var doc string
	for _, f := range pkg.Files {
		if f.Doc != nil {
			doc += f.Doc.Text()
		}
	}
	contract := map[string]bool{"Driver": true, "Backend": true, "Session": true, "Stmt": true, "Loader": true}
	for _, f := range pkg.Files {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.TYPE {
				continue
			}
			for _, spec := range g.Specs {
				ts := spec.(*ast.TypeSpec)
				if _, iface := ts.Type.(*ast.InterfaceType); !iface || !ts.Name.IsExported() || contract[ts.Name.Name] {
					continue
				}
				if !regexp.MustCompile(`(?m)^\s+` + ts.Name.Name + `\s{2,}\S`).MatchString(doc) {
					t.Errorf("the package comment does not list the capability %s on a line of its own", ts.Name.Name)
				}
			}
		}
	}
}
