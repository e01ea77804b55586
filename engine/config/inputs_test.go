package config_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/config"
)

// Inputs lists every file the spec read, each with the digest of what
// was read, by path: the spec file, what its include reads, a -var-file
// and what file() read.
func TestInputsListEveryFileRead(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"main.hcl":  "variable \"x\" {\n  default = 1\n}\nlocals {\n  text = file(\"a.txt\")\n}\ninclude \"more\" {\n  path = \"inc\"\n}\n",
		"inc/b.hcl": "locals {\n  y = file(\"../c.sql\")\n}\n",
		"a.txt":     "some text\n",
		"c.sql":     "SELECT 1\n",
		"vars.hcl":  "x = 2\n",
		"other.sql": "never read\n",
	}
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var want []config.Input
	for _, name := range []string{"a.txt", "c.sql", "inc/b.hcl", "main.hcl", "vars.hcl"} {
		sum := sha256.Sum256([]byte(files[name]))
		want = append(want, config.Input{Path: filepath.Join(dir, name), SHA256: hex.EncodeToString(sum[:])})
	}
	for i := 0; i < 3; i++ { // the order of reads varies; the list does not
		spec, diags := config.Load([]string{filepath.Join(dir, "main.hcl")}, config.Options{Env: []string{}, Vars: []config.VarArg{{File: filepath.Join(dir, "vars.hcl")}}})
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		if got := spec.Inputs(); !slices.Equal(got, want) {
			t.Fatalf("inputs:\n%v\nwant:\n%v", got, want)
		}
	}
}
