package config_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/resolve"
	"github.com/zclconf/go-cty/cty"
)

func composePaths(names ...string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = filepath.Join("testdata", "compose", n)
	}
	return out
}

// resolved is what a loaded spec decides for one cell, as the tests below
// compare it.
type resolved struct {
	Scales      []string
	Users       int64
	MinS, MaxS  float64
	Warmup      int
	Seed        uint64
	Path        string
	Settings    map[string]string
	Setup       []string
	Tables      map[string]string
	BatchRows   int
	SQL         string
	Description string
}

func resolveCell(t *testing.T, spec *config.Spec, scale string) resolved {
	t.Helper()
	sc := spec.Scale(scale)
	be := spec.Backend("sqlite")
	if sc == nil || be == nil {
		t.Fatalf("no cell %s/sqlite", scale)
	}
	ctx := spec.CellContext(config.Cell{Scale: sc, Backend: be}, cty.NilVal)
	bc, diags := resolve.Backend(be, ctx, "sqlite")
	gen, d := resolve.Dataset(spec.SelectedDataset(), spec.ScaleContext(sc))
	diags = append(diags, d...)
	q, d := resolve.Query(spec.Query("q1"), ctx, "sqlite")
	diags = append(diags, d...)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	s := spec.Sampling.Values
	return resolved{
		Scales: spec.Matrix.ScaleNames, Users: gen.Entities[0].Count, MinS: s.MinS, MaxS: s.MaxS, Warmup: s.Warmup,
		Seed: gen.Seed, Path: bc.Options["path"], Settings: bc.Settings, Setup: bc.Setup, Tables: bc.Load.Tables,
		BatchRows: bc.Load.BatchRows, SQL: q.SQL, Description: spec.SelectedScenarios()[0].Description,
	}
}

// TestOverrideFiles: an override file's block replaces the attributes it
// names in the base block of the same type and name (a map whole), and
// its nested blocks replace the base's of the same type; later override
// files win, and override files apply after every base file whatever
// their names.
func TestOverrideFiles(t *testing.T) {
	tables := map[string]string{"attrs": "attrs", "text": "log_text", "int": "log_int", "real": "log_real"}
	base := resolved{
		Scales: []string{"xs"}, Users: 10, MinS: 1, MaxS: 2, Warmup: 3, Seed: 1, Path: "base-xs.sqlite",
		Settings: map[string]string{"journal_mode": "WAL", "synchronous": "NORMAL"},
		Setup:    []string{"CREATE TABLE base (x);\n"}, Tables: tables, BatchRows: 100,
		SQL: "SELECT 1 WHERE :email IS NOT NULL", Description: "base",
	}
	with := func(f func(*resolved)) resolved {
		r := base
		f(&r)
		return r
	}
	tests := []struct {
		name  string
		paths []string
		scale string
		want  resolved
	}{
		{"no override", composePaths("base/spec.hcl"), "xs", base},
		{"settings replaced whole", composePaths("base/spec.hcl", "base/settings_override.hcl"), "xs",
			with(func(r *resolved) { r.Settings = map[string]string{"synchronous": "OFF"} })},
		{"later override wins", composePaths("base/spec.hcl", "base/settings_override.hcl", "base/later_override.hcl.json"), "xs",
			with(func(r *resolved) { r.Settings = map[string]string{"synchronous": "EXTRA"} })},
		{"override before its base on the command line", composePaths("base/settings_override.hcl", "base/spec.hcl"), "xs",
			with(func(r *resolved) { r.Settings = map[string]string{"synchronous": "OFF"} })},
		{"every block type", composePaths("base/spec.hcl", "base/more_override.hcl"), "s",
			with(func(r *resolved) {
				r.Scales, r.Users, r.MinS, r.MaxS, r.Seed, r.Path = []string{"s"}, 50, 5, 9, 2, "over-s.sqlite"
				r.Tables = map[string]string{"attrs": "a", "text": "t", "int": "i", "real": "r"}
				r.BatchRows = 10000 // the load block is replaced whole: its batch_rows is gone
				r.SQL, r.Description = "SELECT 2 WHERE :email IS NOT NULL\n", "overridden"
			})},
		{"a directory: overrides in name order after the base", composePaths("base"), "s",
			with(func(r *resolved) {
				r.Scales, r.Users, r.MinS, r.MaxS, r.Seed, r.Path = []string{"s"}, 50, 5, 9, 2, "over-s.sqlite"
				r.Tables = map[string]string{"attrs": "a", "text": "t", "int": "i", "real": "r"}
				r.BatchRows = 10000
				r.SQL, r.Description = "SELECT 2 WHERE :email IS NOT NULL\n", "overridden"
				r.Settings = map[string]string{"synchronous": "OFF"} // settings_override.hcl after later_override.hcl.json
			})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec, diags := loadAndValidate(tt.paths, config.Options{})
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			if got := resolveCell(t, spec, tt.scale); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// TestOverrideKeepsPositions: an error in an overriding attribute points
// into the override file, one in a base attribute into the base file.
func TestOverrideKeepsPositions(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("testdata", "compose", "base", "spec.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	base := write("spec.hcl", strings.Replace(string(src), `max_s  = 2`, `max_s  = "two"`, 1))
	write("schema.sql", "")
	over := write("x_override.hcl", "sampling {\n  min_s = 1\n  warmup = \"three\"\n}\n")
	_, diags := loadAndValidate([]string{base, over}, config.Options{})
	want := map[string]int{base: strings.Count(string(src)[:strings.Index(string(src), "max_s  = 2")], "\n") + 1, over: 3}
	got := map[string]int{}
	for _, d := range diags {
		if d.Subject != nil {
			got[d.Subject.Filename] = d.Subject.Start.Line
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("errors at %v, want %v\n%s", got, want, diags.Error())
	}
}

// TestIncludes: an include reads a directory or file relative to the
// including file, once however often it is named, and file() in an
// included file reads next to that file.
func TestIncludes(t *testing.T) {
	spec, diags := loadAndValidate(composePaths("include/spec.hcl"), config.Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	if len(spec.Scales) != 1 || len(spec.Queries) != 1 {
		t.Errorf("%d scales, %d queries: want 1 and 1", len(spec.Scales), len(spec.Queries))
	}
	ctx := spec.CellContext(config.Cell{Scale: spec.Scale("xs"), Backend: spec.Backend("sqlite")}, cty.NilVal)
	q, d := resolve.Query(spec.Query("q1"), ctx, "sqlite")
	bc, d2 := resolve.Backend(spec.Backend("sqlite"), ctx, "sqlite")
	if d = append(d, d2...); d.HasErrors() {
		t.Fatal(d.Error())
	}
	if q.SQL != "SELECT :email -- shared\n" || !reflect.DeepEqual(bc.Setup, []string{"CREATE TABLE include (x);\n"}) {
		t.Errorf("sql %q, setup %q", q.SQL, bc.Setup)
	}
	var files []string
	for _, f := range spec.Files {
		files = append(files, filepath.ToSlash(f))
	}
	want := []string{"testdata/compose/include/spec.hcl", "testdata/compose/shared/dataset.hcl",
		"testdata/compose/shared/queries.hcl", "testdata/compose/shared/scales.hcl"}
	if !reflect.DeepEqual(files, want) {
		t.Errorf("files %q, want %q", files, want)
	}

	// Named on the command line too, before or after the include: still
	// read once. Named twice on the command line: a duplicate.
	for _, paths := range [][]string{composePaths("shared/scales.hcl", "include/spec.hcl"), composePaths("include/spec.hcl", "shared")} {
		if _, diags := loadAndValidate(paths, config.Options{}); diags.HasErrors() {
			t.Errorf("%q: %s", paths, diags.Error())
		}
	}
	if _, diags := loadAndValidate(composePaths("shared", "shared/scales.hcl"), config.Options{}); !strings.Contains(diags.Error(), `Duplicate scale "xs"`) {
		t.Errorf("a file named twice: %v", diags)
	}
}

// TestSpecHome: spec_home() is MENTAT_SPEC_HOME, or else the project's
// specs directory, so a spec anywhere can include the shipped workload.
func TestSpecHome(t *testing.T) {
	home, _ := filepath.Abs(filepath.Join("testdata", "compose", "home"))
	spec, diags := loadAndValidate(composePaths("home/spec.hcl"), config.Options{Env: []string{config.SpecHomeEnv + "=" + home}})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	if spec.Dataset("home") == nil {
		t.Errorf("the dataset of %s/mentat was not read", home)
	}

	dir := t.TempDir()
	p := filepath.Join(dir, "mine.hcl")
	src := `include "mentat" {
  path = "${spec_home()}/mentat"
}

backend "sqlite" {
  driver = "sqlite"
  setup  = [file("${spec_home()}/mentat/sql/schema.sql")]
  load {
    tables = { attrs = "attrs", text = "log_text", int = "log_int", real = "log_real" }
  }
}
`
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	spec, diags = loadAndValidate([]string{p}, config.Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	if spec.Dataset("issues") == nil || spec.Query("q1") == nil || len(spec.Scenarios) == 0 {
		t.Errorf("the shipped workload was not read: %q", spec.Files)
	}
}

// TestSpecHomeTree: without MENTAT_SPEC_HOME, spec_home() is the specs
// directory of the tree the applied spec lives in (the nearest specs/mentat
// above it), not the source tree the binary was built from; the variable
// still wins when set.
func TestSpecHomeTree(t *testing.T) {
	workload, err := os.ReadFile(filepath.Join("testdata", "compose", "home", "mentat", "workload.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	tree := t.TempDir()
	files := map[string]string{
		"specs/mentat/workload.hcl": strings.Replace(string(workload), `dataset "home"`, `dataset "tree"`, 1),
		"examples/spec.hcl":         "include \"mentat\" {\n  path = \"${spec_home()}/mentat\"\n}\n",
		"examples/deep/dir/a.hcl":   "include \"mentat\" {\n  path = \"${spec_home()}/mentat\"\n}\n",
		"specs/full.hcl":            "include \"mentat\" {\n  path = \"${spec_home()}/mentat\"\n}\n",
	}
	for name, src := range files {
		p := filepath.Join(tree, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	home, _ := filepath.Abs(filepath.Join("testdata", "compose", "home"))
	tests := []struct {
		name    string
		path    string
		env     []string
		dataset string
	}{
		{"a file beside specs", "examples/spec.hcl", nil, "tree"},
		{"a directory deeper down", "examples/deep/dir", nil, "tree"},
		{"a file in specs", "specs/full.hcl", nil, "tree"},
		{"MENTAT_SPEC_HOME wins", "examples/spec.hcl", []string{config.SpecHomeEnv + "=" + home}, "home"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec, diags := config.Load([]string{filepath.Join(tree, tt.path)}, config.Options{Env: append([]string{}, tt.env...)})
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			if len(spec.Datasets) != 1 || spec.Datasets[0].Name != tt.dataset {
				t.Errorf("spec_home() read %q, want the workload of dataset %q", spec.Files, tt.dataset)
			}
		})
	}
}

// TestComposeInvalid: each case's diagnostics are exactly the # ERROR
// markers of its files, at their lines (in whichever file they are).
func TestComposeInvalid(t *testing.T) {
	tests := []struct {
		dir   string
		paths []string
	}{
		{"bad-include", composePaths("bad-include/spec.hcl")},
		{"cycle", composePaths("cycle/a.hcl")},
		{"bad-override", composePaths("bad-override")},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			type at struct {
				file string
				marker
			}
			var want []at
			files, _ := filepath.Glob(filepath.Join("testdata", "compose", tt.dir, "*.hcl"))
			for _, f := range files {
				for _, m := range readMarkers(t, f) {
					want = append(want, at{f, m})
				}
			}
			if len(want) == 0 {
				t.Fatal("no # ERROR marker")
			}
			_, diags := loadAndValidate(tt.paths, config.Options{})
			matched := make([]bool, len(want))
			for _, d := range diags {
				if d.Severity != hcl.DiagError || d.Subject == nil {
					t.Errorf("unexpected diagnostic %s", diagText(d))
					continue
				}
				found := false
				for i, w := range want {
					if filepath.Clean(d.Subject.Filename) == filepath.Clean(w.file) && d.Subject.Start.Line == w.Line && strings.HasPrefix(d.Summary, w.Summary) {
						matched[i], found = true, true
					}
				}
				if !found {
					t.Errorf("unexpected error %s", diagText(d))
				}
			}
			for i, w := range want {
				if !matched[i] {
					t.Errorf("%s:%d: missing error %q", filepath.Base(w.file), w.Line, w.Summary)
				}
			}
			if t.Failed() {
				t.Log(fmt.Sprint(diags))
			}
		})
	}
}
