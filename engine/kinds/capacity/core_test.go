package capacity

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The core reads, renders and compares a run without knowing capacity:
// capacity's rows, their reading, its report section and its compare rule
// live here and register themselves. Adding capacity again touches this
// package and engine/kinds/all alone.
var corePackages = []string{"results", "report", "compare"}

// None of the core packages depends on a kind.
func TestCoreDependsOnNoKind(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on the PATH")
	}
	args := []string{"list", "-deps"}
	for _, p := range corePackages {
		args = append(args, "../../"+p)
	}
	out, err := exec.Command(goTool, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.Contains(dep, "/engine/kinds") {
			t.Errorf("a core package depends on %s", dep)
		}
	}
}

// No identifier of the core packages' code names capacity, nor does any
// string name its files.
func TestCoreNamesNoCapacity(t *testing.T) {
	fset := token.NewFileSet()
	for _, p := range corePackages {
		files, err := filepath.Glob(filepath.Join("..", "..", p, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no Go files (%v)", p, err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			file, err := parser.ParseFile(fset, f, src, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(file, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.Ident:
					if strings.Contains(strings.ToLower(x.Name), "capacity") {
						t.Errorf("%s: identifier %s", fset.Position(x.Pos()), x.Name)
					}
				case *ast.BasicLit:
					if x.Kind == token.STRING && (strings.Contains(x.Value, CapacityFile) || strings.Contains(x.Value, "capacity-probes")) {
						t.Errorf("%s: %s names capacity's files", fset.Position(x.Pos()), x.Value)
					}
				}
				return true
			})
		}
	}
}
