package config_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/resolve"
)

// seedSpecs adds every file ending in suffix under the repository's
// examples/ and specs/ (and this package's testdata) to f's corpus.
func seedSpecs(f *testing.F, suffix string) {
	f.Helper()
	for _, root := range []string{"../../examples", "../../specs", "testdata"} {
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, suffix) {
				return nil
			}
			if b, err := os.ReadFile(p); err == nil {
				f.Add(string(b))
			}
			return nil
		})
	}
}

// loadFuzzed writes text to a file named name in a temporary directory,
// loads it and resolves its dataset at every scale: any input gives
// diagnostics, never a panic or a hang.
func loadFuzzed(t *testing.T, name, text string) {
	dir := t.TempDir()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	spec, diags := config.Load([]string{p}, config.Options{})
	if diags.HasErrors() || spec == nil {
		return
	}
	// Resolving runs the dataset compiler's checks without counting or
	// generating anything: a fuzzed count can be huge.
	if ds := spec.SelectedDataset(); ds != nil {
		for _, sc := range spec.Scales {
			_, _ = resolve.Dataset(ds, spec.ScaleContext(sc))
		}
	}
}

func FuzzLoadHCL(f *testing.F) {
	seedSpecs(f, ".hcl")
	f.Add("scale \"xs\" {\n  users = 10\n}\n")
	f.Fuzz(func(t *testing.T, text string) { loadFuzzed(t, "spec.hcl", text) })
}

func FuzzLoadJSON(f *testing.F) {
	seedSpecs(f, ".hcl.json")
	f.Add(`{"scale": {"xs": {"users": 10}}, "dataset": {"d": {"entity": {"user": {"count": "${scale.users}", "attr": {"user/email": {"type": "string", "gen": "${seq(\"u%d\")}"}}}}}}}`)
	f.Fuzz(func(t *testing.T, text string) { loadFuzzed(t, "spec.hcl.json", text) })
}

// FuzzDatasetCompile wraps a fuzzed dataset block in a spec with one scale
// and compiles it.
func FuzzDatasetCompile(f *testing.F) {
	if b, err := os.ReadFile("../../specs/mentat/dataset.hcl"); err == nil {
		f.Add(string(b))
	}
	f.Add("dataset \"d\" {\n  entity \"user\" {\n    count = scale.users\n    attr \"user/email\" {\n      type = \"string\"\n      gen  = seq(\"u%d\")\n    }\n  }\n}\n")
	f.Fuzz(func(t *testing.T, text string) {
		loadFuzzed(t, "spec.hcl", "scale \"xs\" {\n  users  = 20\n  issues = 30\n  labels = 5\n}\n"+text)
	})
}
