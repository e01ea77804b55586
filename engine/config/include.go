package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/engine/hcleval"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// SpecHomeEnv names the directory spec_home() returns: the project's specs
// directory, whose mentat/ subdirectory holds the shipped workload.
const SpecHomeEnv = "MENTAT_SPEC_HOME"

// fileSchema is what a base spec file holds: the spec's blocks and the
// includes that pull in other files.
var fileSchema = &hcl.BodySchema{
	Blocks: append([]hcl.BlockHeaderSchema{{Type: "include", LabelNames: []string{"name"}}}, topSchema.Blocks...),
}

var includeSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "path", Required: true}}}

// loader reads spec files and the files they include, in order.
type loader struct {
	spec      *Spec
	done      map[string]bool // absolute paths read: true when through an include
	stack     []string        // absolute paths of the files being read, outermost first
	blocks    []*hcl.Block    // base files' blocks, each include replaced by what it reads
	overrides []*hcl.Block    // override files' blocks, in the order the files were read
	content   hcl.Diagnostics // schema errors in files read: reported with the decoding's
}

// loadPath reads a file or directory. inc is the include's path attribute
// when an include names it, nil for a command-line path.
func (l *loader) loadPath(path string, inc *hcl.Range) hcl.Diagnostics {
	files, err := SpecFiles(path)
	if err != nil {
		summary := "Cannot read spec"
		if inc != nil {
			summary = "Cannot read include"
		}
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: summary, Detail: err.Error(), Subject: inc}}
	}
	var diags hcl.Diagnostics
	for _, f := range files {
		diags = append(diags, l.loadFile(f, inc)...)
	}
	return diags
}

func (l *loader) loadFile(path string, inc *hcl.Range) hcl.Diagnostics {
	abs, err := filepath.Abs(path)
	if err != nil {
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot read spec", Detail: err.Error(), Subject: inc}}
	}
	for i, s := range l.stack {
		if s == abs {
			chain := append(append([]string{}, l.stack[i:]...), abs)
			return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Include cycle",
				Detail: fmt.Sprintf("The spec includes itself: %s.", strings.Join(chain, " -> ")), Subject: inc}}
		}
	}
	if viaInclude, read := l.done[abs]; read && (viaInclude || inc != nil) {
		return nil // an included file is read once, however it is named again
	}
	l.done[abs] = inc != nil
	l.spec.Files = append(l.spec.Files, path)

	var file *hcl.File
	var diags hcl.Diagnostics
	if strings.HasSuffix(path, ".json") {
		file, diags = l.spec.Parser.ParseJSONFile(path)
	} else {
		file, diags = l.spec.Parser.ParseHCLFile(path)
	}
	if diags.HasErrors() || file == nil {
		return diags
	}
	l.spec.recordInput(path, file.Bytes)
	body := newDirBody(file.Body, filepath.Dir(path), l.spec)
	if IsOverrideFile(path) {
		content, d := body.Content(topSchema)
		l.overrides = append(l.overrides, content.Blocks...)
		l.content = append(l.content, d...)
		return diags
	}
	content, d := body.Content(fileSchema)
	l.content = append(l.content, d...)
	l.stack = append(l.stack, abs)
	defer func() { l.stack = l.stack[:len(l.stack)-1] }()
	names := map[string]hcl.Range{}
	for _, b := range content.Blocks {
		if b.Type != "include" {
			l.blocks = append(l.blocks, b)
			continue
		}
		if prev, ok := names[b.Labels[0]]; ok {
			diags = append(diags, DuplicateDiag("include", b.Labels[0], b.DefRange, prev))
			continue
		}
		names[b.Labels[0]] = b.DefRange
		target, rng, d := l.includePath(b)
		diags = append(diags, d...)
		if !d.HasErrors() {
			diags = append(diags, l.loadPath(target, rng)...)
		}
	}
	return diags
}

// includePath evaluates an include's path: a file or directory, relative
// to the including file. Variables are not known yet (they are declared
// in the files being read), so only spec_home() and env() are in scope.
func (l *loader) includePath(b *hcl.Block) (string, *hcl.Range, hcl.Diagnostics) {
	diags := checkName("include", b.Labels[0], b.LabelRanges[0])
	c, d := b.Body.Content(includeSchema)
	diags = append(diags, d...)
	if d.HasErrors() {
		return "", nil, diags
	}
	a := c.Attributes["path"]
	ctx := &hcl.EvalContext{Functions: map[string]function.Function{
		"spec_home": l.spec.specHomeFunc(), "env": l.spec.envFunc(),
	}}
	v, d := a.Expr.Value(ctx)
	diags = append(diags, d...)
	if d.HasErrors() {
		return "", nil, diags
	}
	if v.IsNull() || !v.IsKnown() || v.Type() != cty.String || v.AsString() == "" {
		return "", nil, append(diags, hcleval.AttrError(a.Expr, "Invalid include path", "path must be a non-empty string: a spec file or directory."))
	}
	p := v.AsString()
	if !filepath.IsAbs(p) {
		p = filepath.Join(filepath.Dir(b.DefRange.Filename), p)
	}
	return p, a.Expr.Range().Ptr(), diags
}

// specHome is MENTAT_SPEC_HOME; else the specs directory of the tree the
// spec being applied lives in (the nearest specs/mentat above the first
// path's directory), so an installed binary applies the checkout a user
// runs it in; else the specs directory of the source tree the engine was
// built from when it is still there (a spec kept outside any checkout).
func (s *Spec) specHome() (string, error) {
	if h := s.env[SpecHomeEnv]; h != "" {
		return h, nil
	}
	if h := treeSpecHome(s.Dir); h != "" {
		return h, nil
	}
	if _, src, _, ok := runtime.Caller(0); ok && filepath.IsAbs(src) {
		d := filepath.Join(filepath.Dir(src), "..", "..", "specs")
		if st, err := os.Stat(filepath.Join(d, "mentat")); err == nil && st.IsDir() {
			return filepath.Clean(d), nil
		}
	}
	return "", errors.New(SpecHomeEnv + " is not set and the engine's source tree is not on this machine; set it to the specs directory of a checkout of the project")
}

// treeSpecHome is the specs directory holding mentat/ nearest above dir
// (dir included), or "" when there is none.
func treeSpecHome(dir string) string {
	if dir == "" {
		return ""
	}
	d, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	for {
		h := filepath.Join(d, "specs")
		if st, err := os.Stat(filepath.Join(h, "mentat")); err == nil && st.IsDir() {
			return h
		}
		up := filepath.Dir(d)
		if up == d {
			return ""
		}
		d = up
	}
}

func (s *Spec) specHomeFunc() function.Function {
	return function.New(&function.Spec{
		Description: "The directory of the project's shipped specs (" + SpecHomeEnv + ").",
		Type:        function.StaticReturnType(cty.String),
		Impl: func([]cty.Value, cty.Type) (cty.Value, error) {
			h, err := s.specHome()
			if err != nil {
				return cty.NilVal, err
			}
			return cty.StringVal(h), nil
		},
	})
}
