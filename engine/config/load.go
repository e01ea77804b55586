// Package config reads benchmark specs written in HCL (native syntax or its
// JSON form) into a Spec. Like Terraform's config loader it keeps one parser
// per run so every diagnostic can show its source line, decodes each block
// type with a hand-written schema, keeps a DeclRange on every decoded
// object, and keeps expressions that depend on the matrix cell (scale.*,
// backend.*, truth.*) as hcl.Expression, which engine/resolve evaluates per
// cell. A spec is the files its paths name plus those their include
// blocks read (include.go); override files change blocks of the others
// (override.go).
package config

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/mentat-spec/mentat-spec/engine/kind"
	"github.com/zclconf/go-cty/cty"
)

// Options are the run-time inputs of a spec besides its files.
type Options struct {
	// Vars are -var name=value and -var-file path arguments in command-line
	// order (later ones win).
	Vars []VarArg
	// Env is the process environment (os.Environ form); MENTAT_SPEC_VAR_name
	// entries set variables, and env() reads it. Nil means os.Environ().
	Env []string
	// Kinds are the scenario kinds a spec may use; nil means kind.Default.
	Kinds *kind.Registry
}

// VarArg is one -var or -var-file argument.
type VarArg struct {
	File  string // set for -var-file
	Name  string // set for -var
	Value string
}

// Spec is a decoded benchmark spec.
type Spec struct {
	Parser *hclparse.Parser
	Dir    string // directory file() paths are relative to
	Files  []string

	Variables []*Variable
	Locals    []*Local
	Sampling  *SamplingBlock
	Matrix    *Matrix
	Scales    []*Scale
	Datasets  []*DatasetBlock
	Backends  []*BackendBlock
	Queries   []*QueryBlock
	Scenarios []*ScenarioBlock
	Samplers  []*SamplerBlock
	// Thresholds are the spec's absolute gates (threshold.go).
	Thresholds []*ThresholdBlock

	env    map[string]string
	inputs inputs // every file read (inputs.go)
	kinds  *kind.Registry
	values *topValues // var and local values, set by evaluateTop
	// localOrder is the locals in dependency order; scaleLocals each
	// declared scale's values of the locals that read scale.*.
	localOrder  []*Local
	scaleLocals map[string]map[string]cty.Value
}

var topSchema = &hcl.BodySchema{
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "variable", LabelNames: []string{"name"}},
		{Type: "locals"},
		{Type: "sampling"},
		{Type: "matrix"},
		{Type: "scale", LabelNames: []string{"name"}},
		{Type: "dataset", LabelNames: []string{"name"}},
		{Type: "backend", LabelNames: []string{"name"}},
		{Type: "query", LabelNames: []string{"name"}},
		{Type: "scenario", LabelNames: []string{"name"}},
		{Type: "sampler", LabelNames: []string{"name"}},
		{Type: "threshold", LabelNames: []string{"name"}},
	},
}

// SpecFiles lists the spec files a path names: the file itself, or every
// *.hcl and *.hcl.json file of a directory in name order.
func SpecFiles(path string) ([]string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("reading spec: %w", err)
	}
	if !st.IsDir() {
		return []string{path}, nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, fmt.Errorf("reading spec directory: %w", err)
	}
	var files []string
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !(strings.HasSuffix(n, ".hcl") || strings.HasSuffix(n, ".hcl.json")) {
			continue
		}
		files = append(files, filepath.Join(path, n))
	}
	sort.Strings(files)
	if len(files) == 0 {
		return nil, fmt.Errorf("spec directory %s holds no .hcl or .hcl.json file", path)
	}
	return files, nil
}

// Load parses and decodes the spec at paths (files or directories), with
// the files their include blocks name, lays override files over the base
// files, and evaluates its variables and locals. It returns the Spec even
// with error diagnostics, so callers can print them with the parser's
// files.
func Load(paths []string, opts Options) (*Spec, hcl.Diagnostics) {
	spec := &Spec{Parser: hclparse.NewParser(), env: envMap(opts.Env), kinds: opts.Kinds}
	if spec.kinds == nil {
		spec.kinds = kind.Default
	}
	if len(paths) > 0 {
		if st, err := os.Stat(paths[0]); err == nil && st.IsDir() {
			spec.Dir = paths[0]
		} else {
			spec.Dir = filepath.Dir(paths[0])
		}
	}
	l := &loader{spec: spec, done: map[string]bool{}}
	var diags hcl.Diagnostics
	for _, p := range paths {
		diags = append(diags, l.loadPath(p, nil)...)
	}
	if diags.HasErrors() {
		return spec, diags
	}
	diags = append(diags, l.content...)
	blocks, locals, d := applyOverrides(l.blocks, l.overrides)
	diags = append(diags, d...)
	diags = append(diags, spec.decodeBlocks(blocks)...)
	diags = append(diags, spec.overrideLocals(locals)...)
	diags = append(diags, spec.checkDuplicates()...)
	if diags.HasErrors() {
		return spec, diags
	}
	diags = append(diags, spec.evaluateTop(opts.Vars)...)
	if diags.HasErrors() {
		return spec, diags
	}
	diags = append(diags, spec.decodeTopLevelValues()...)
	return spec, diags
}

func (s *Spec) decodeBlocks(blocks []*hcl.Block) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, b := range blocks {
		switch b.Type {
		case "variable":
			v, d := decodeVariableBlock(b)
			diags = append(diags, d...)
			if v != nil {
				s.Variables = append(s.Variables, v)
			}
		case "locals":
			ls, d := decodeLocalsBlock(b)
			diags = append(diags, d...)
			s.Locals = append(s.Locals, ls...)
		case "sampling":
			if s.Sampling != nil {
				diags = append(diags, DuplicateDiag("sampling", "", b.DefRange, s.Sampling.DeclRange))
				continue
			}
			s.Sampling = &SamplingBlock{Body: b.Body, DeclRange: b.DefRange}
		case "matrix":
			if s.Matrix != nil {
				diags = append(diags, DuplicateDiag("matrix", "", b.DefRange, s.Matrix.DeclRange))
				continue
			}
			m, d := decodeMatrixBlock(b)
			diags = append(diags, d...)
			s.Matrix = m
		case "scale":
			sc, d := decodeScaleBlock(b)
			diags = append(diags, d...)
			if sc != nil {
				s.Scales = append(s.Scales, sc)
			}
		case "dataset":
			ds, d := decodeDatasetBlock(b)
			diags = append(diags, d...)
			if ds != nil {
				s.Datasets = append(s.Datasets, ds)
			}
		case "backend":
			be, d := decodeBackendBlock(b)
			diags = append(diags, d...)
			if be != nil {
				s.Backends = append(s.Backends, be)
			}
		case "query":
			q, d := decodeQueryBlock(b)
			diags = append(diags, d...)
			if q != nil {
				s.Queries = append(s.Queries, q)
			}
		case "scenario":
			sc, d := decodeScenarioBlock(b)
			diags = append(diags, d...)
			if sc != nil {
				s.Scenarios = append(s.Scenarios, sc)
			}
		case "sampler":
			sm, d := decodeSamplerBlock(b)
			diags = append(diags, d...)
			if sm != nil {
				s.Samplers = append(s.Samplers, sm)
			}
		case "threshold":
			th, d := decodeThresholdBlock(b)
			diags = append(diags, d...)
			if th != nil {
				s.Thresholds = append(s.Thresholds, th)
			}
		}
	}
	return diags
}

// DuplicateDiag reports a block declared twice, pointing back at the first.
func DuplicateDiag(kind, name string, rng, prev hcl.Range) *hcl.Diagnostic {
	what := kind + " block"
	if name != "" {
		what = fmt.Sprintf("%s %q", kind, name)
	}
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Duplicate " + what,
		Detail:   fmt.Sprintf("A %s was already declared at %s. Names must be unique.", what, prev),
		Subject:  rng.Ptr(),
	}
}

func (s *Spec) checkDuplicates() hcl.Diagnostics {
	var diags hcl.Diagnostics
	check := func(kind string, names []string, ranges []hcl.Range) {
		seen := map[string]hcl.Range{}
		for i, n := range names {
			if prev, ok := seen[n]; ok {
				diags = append(diags, DuplicateDiag(kind, n, ranges[i], prev))
				continue
			}
			seen[n] = ranges[i]
		}
	}
	var n []string
	var r []hcl.Range
	reset := func() { n, r = nil, nil }
	for _, v := range s.Variables {
		n, r = append(n, v.Name), append(r, v.DeclRange)
	}
	check("variable", n, r)
	reset()
	for _, l := range s.Locals {
		n, r = append(n, l.Name), append(r, l.Expr.Range())
	}
	check("local", n, r)
	reset()
	for _, v := range s.Scales {
		n, r = append(n, v.Name), append(r, v.DeclRange)
	}
	check("scale", n, r)
	reset()
	for _, v := range s.Datasets {
		n, r = append(n, v.Name), append(r, v.DeclRange)
	}
	check("dataset", n, r)
	reset()
	for _, v := range s.Backends {
		n, r = append(n, v.Name), append(r, v.DeclRange)
	}
	check("backend", n, r)
	reset()
	for _, v := range s.Queries {
		n, r = append(n, v.Name), append(r, v.DeclRange)
	}
	check("query", n, r)
	reset()
	for _, v := range s.Scenarios {
		n, r = append(n, v.Name), append(r, v.DeclRange)
	}
	check("scenario", n, r)
	return diags
}

func envMap(env []string) map[string]string {
	if env == nil {
		env = os.Environ()
	}
	m := make(map[string]string, len(env))
	for _, kv := range env {
		if i := strings.IndexByte(kv, '='); i > 0 {
			m[kv[:i]] = kv[i+1:]
		}
	}
	return m
}

// Scale finds a scale by name.
func (s *Spec) Scale(name string) *Scale {
	for _, sc := range s.Scales {
		if sc.Name == name {
			return sc
		}
	}
	return nil
}

// Backend finds a backend by name.
func (s *Spec) Backend(name string) *BackendBlock {
	for _, b := range s.Backends {
		if b.Name == name {
			return b
		}
	}
	return nil
}

// Query finds a query by name.
func (s *Spec) Query(name string) *QueryBlock {
	for _, q := range s.Queries {
		if q.Name == name {
			return q
		}
	}
	return nil
}

// Dataset finds a dataset by name.
func (s *Spec) Dataset(name string) *DatasetBlock {
	for _, d := range s.Datasets {
		if d.Name == name {
			return d
		}
	}
	return nil
}
