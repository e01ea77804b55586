package config

import (
	"github.com/mentat-spec/mentat-spec/engine/kind"
	_ "github.com/mentat-spec/mentat-spec/engine/kinds/all"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// specLanguageDoc is the one-page reference of the spec language.
const specLanguageDoc = "../../docs/spec-language.md"

// schemaNames returns, for every hcl.BodySchema literal in this package's
// source, the block types and attribute names it declares: the words a
// spec can use. Reading the source finds schemas built inline too.
func schemaNames(t *testing.T) (blocks, attrs []string) {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	seenB, seenA := map[string]bool{}, map[string]bool{}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok {
				return true
			}
			sel, ok := lit.Type.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "BodySchema" {
				return true
			}
			ast.Inspect(lit, func(n ast.Node) bool {
				kv, ok := n.(*ast.KeyValueExpr)
				if !ok {
					return true
				}
				key, ok1 := kv.Key.(*ast.Ident)
				val, ok2 := kv.Value.(*ast.BasicLit)
				if !ok1 || !ok2 || val.Kind != token.STRING {
					return true
				}
				s, _ := strconv.Unquote(val.Value)
				switch key.Name {
				case "Type":
					seenB[s] = true
				case "Name":
					seenA[s] = true
				}
				return true
			})
			return false
		})
	}
	for b := range seenB {
		blocks = append(blocks, b)
	}
	for a := range seenA {
		attrs = append(attrs, a)
	}
	sort.Strings(blocks)
	sort.Strings(attrs)
	return blocks, attrs
}

// TestSpecLanguageDocCoversTheSchema fails when a block, an attribute or
// a function the loader accepts is missing from docs/spec-language.md,
// or when the page documents a block or function the loader does not know.
func TestSpecLanguageDocCoversTheSchema(t *testing.T) {
	b, err := os.ReadFile(specLanguageDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	has := func(word string) bool {
		return strings.Contains(doc, "`"+word+"`") || strings.Contains(doc, "`"+word+" ")
	}
	blocks, attrs := schemaNames(t)
	if len(blocks) < 15 || len(attrs) < 60 {
		t.Fatalf("found %d block types and %d attributes: the schema walk is broken", len(blocks), len(attrs))
	}
	for _, bl := range blocks {
		if !strings.Contains(doc, "`"+bl+" ") && !strings.Contains(doc, "`"+bl+"`") && !strings.Contains(doc, "`"+bl+" {") {
			t.Errorf("block %q is not documented in %s", bl, specLanguageDoc)
		}
	}
	for _, a := range attrs {
		if !has(a) && !strings.Contains(doc, "`"+a+" =") {
			t.Errorf("attribute %q is not documented in %s", a, specLanguageDoc)
		}
	}
	// Each registered scenario kind's own attributes and blocks.
	for _, name := range kind.Default.Names() {
		k, _ := kind.Default.Lookup(name)
		if !has(name) {
			t.Errorf("scenario kind %q is not documented in %s", name, specLanguageDoc)
		}
		sch := k.Schema()
		for _, a := range sch.Attributes {
			if !has(a.Name) {
				t.Errorf("attribute %q of kind %s is not documented in %s", a.Name, name, specLanguageDoc)
			}
		}
		for _, bl := range sch.Blocks {
			if !has(bl.Type) {
				t.Errorf("block %q of kind %s is not documented in %s", bl.Type, name, specLanguageDoc)
			}
		}
	}
	fns := (&Spec{}).functions()
	for name := range fns {
		if !strings.Contains(doc, "`"+name+"(") {
			t.Errorf("function %s() is not documented in %s", name, specLanguageDoc)
		}
	}
	// The reverse: every function the page documents exists.
	for _, m := range regexp.MustCompile("`([a-z_0-9]+)\\(").FindAllStringSubmatch(doc, -1) {
		if _, ok := fns[m[1]]; !ok {
			t.Errorf("%s documents %s(), which the spec language does not have", specLanguageDoc, m[1])
		}
	}
	// And every HCL example on the page parses.
	for i, ex := range regexp.MustCompile("(?s)```hcl\n(.*?)```").FindAllStringSubmatch(doc, -1) {
		if _, diags := hclsyntax.ParseConfig([]byte(ex[1]), "example.hcl", hcl.InitialPos); diags.HasErrors() {
			t.Errorf("HCL example %d does not parse: %s", i+1, diags.Error())
		}
	}
}
