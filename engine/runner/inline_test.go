package runner_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/config"
)

var (
	includeRE = regexp.MustCompile(`(?m)^include "[^"]+" \{\n  path = "([^"$]+)"\n\}\n`)
	fileRE    = regexp.MustCompile(`file\("([^"$/][^"]*)"\)`)
)

// inlineIncludes replaces each include block of examples/quickstart.hcl's
// text by the files it reads, with their file() paths written against
// local.sql (the shared SQL directory) and local.store spelled out, so a
// test can edit the quickstart's whole workload as one text.
func inlineIncludes(t testing.TB, root, text string) string {
	t.Helper()
	shared := filepath.Join(root, "specs", "mentat")
	store := regexp.MustCompile(`(?m)^\s*store\s*=\s*"([^"]+)"`).FindStringSubmatch(text)
	if store == nil {
		t.Fatal("quickstart.hcl no longer sets local.store")
	}
	return includeRE.ReplaceAllStringFunc(text, func(block string) string {
		files, err := config.SpecFiles(filepath.Join(root, "examples", includeRE.FindStringSubmatch(block)[1]))
		if err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			src := fileRE.ReplaceAllStringFunc(string(b), func(call string) string {
				rel, err := filepath.Rel(shared, filepath.Join(filepath.Dir(f), fileRE.FindStringSubmatch(call)[1]))
				if err != nil {
					t.Fatal(err)
				}
				return `file("${local.sql}/` + filepath.ToSlash(rel) + `")`
			})
			out.WriteString(strings.ReplaceAll(src, "${local.store}", store[1]) + "\n")
		}
		return out.String()
	})
}
