package plan_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/plan"
)

const module = "github.com/mentat-spec/mentat-spec/"

// deps lists the module's packages that pkg (a path under the module)
// imports, directly or not, from the import lines of their non-test
// files: what `go list -deps` shows of the module, without running go.
func deps(t *testing.T, pkg string) []string {
	t.Helper()
	root := filepath.Join("..", "..")
	seen := map[string]bool{}
	var walk func(string)
	walk = func(p string) {
		if seen[p] {
			return
		}
		seen[p] = true
		dir := filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(p, module)))
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatalf("package %s: %v", p, err)
		}
		for _, e := range entries {
			n := e.Name()
			if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, n), nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range f.Imports {
				if ip, _ := strconv.Unquote(imp.Path.Value); strings.HasPrefix(ip, module) {
					walk(ip)
				}
			}
		}
	}
	walk(pkg)
	delete(seen, pkg)
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// TestPlanImportsNoConfig: a plan is a value made from the spec, not the
// spec beside it, so plan depends on neither the decoded spec (config)
// nor its evaluation (resolve), through any package.
func TestPlanImportsNoConfig(t *testing.T) {
	got := deps(t, module+"engine/plan")
	if !slices.Contains(got, module+"engine/results") {
		t.Fatalf("deps of plan %v: the walk missed its imports", got)
	}
	for _, bad := range []string{"engine/config", "engine/resolve", "engine/planbuild"} {
		if slices.Contains(got, module+bad) {
			t.Errorf("engine/plan depends on %s: the plan must hold what it needs as values", bad)
		}
	}
}

// configFields names the fields under t, through the struct, pointer,
// slice, array and map types of t's own package, whose type is config's.
func configFields(t reflect.Type) []string {
	ownPkg := t.PkgPath()
	configPkg := reflect.TypeOf(config.Spec{}).PkgPath()
	seen := map[reflect.Type]bool{}
	var out []string
	var walk func(path string, t reflect.Type)
	walk = func(path string, t reflect.Type) {
		if t.PkgPath() == configPkg {
			out = append(out, path+" ("+t.String()+")")
			return
		}
		if seen[t] {
			return
		}
		seen[t] = true
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array:
			walk(path, t.Elem())
		case reflect.Map:
			walk(path, t.Key())
			walk(path, t.Elem())
		case reflect.Struct:
			// Another package's struct holds no config value: plan does not
			// depend on config (TestPlanImportsNoConfig), so neither do the
			// packages it takes types from.
			if t.PkgPath() != ownPkg && t.Name() != "" {
				return
			}
			for i := range t.NumField() {
				f := t.Field(i)
				walk(path+"."+f.Name, f.Type)
			}
		}
	}
	walk(t.Name(), t)
	return out
}

// TestPlanHoldsNoSpec: no field of a plan, its scales, cells and
// scenarios, exported or not, holds a type of the decoded spec.
func TestPlanHoldsNoSpec(t *testing.T) {
	if got := configFields(reflect.TypeOf(plan.Plan{})); len(got) > 0 {
		t.Errorf("plan.Plan holds the decoded spec: %v", got)
	}
}

// TestConfigFieldsFinds keeps the walk able to fail: it finds a config
// type however deep a struct of plan's kind holds it.
func TestConfigFieldsFinds(t *testing.T) {
	type cell struct {
		Blocks map[string][]*config.CheckBlock
	}
	type holder struct {
		Name  string
		cells []cell
		spec  *config.Spec
	}
	got := configFields(reflect.TypeOf(holder{}))
	want := []string{"holder.cells.Blocks (config.CheckBlock)", "holder.spec (config.Spec)"}
	if !slices.Equal(got, want) {
		t.Errorf("found %v, want %v", got, want)
	}
}
