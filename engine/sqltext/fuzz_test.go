package sqltext

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzStatements splits and binds any text without panicking; every
// statement it returns is a trimmed, non-empty piece of the input.
func FuzzStatements(f *testing.F) {
	for _, root := range []string{"../../specs", "../../examples"} {
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".sql") {
				return nil
			}
			if b, err := os.ReadFile(p); err == nil {
				f.Add(string(b))
			}
			return nil
		})
	}
	f.Add("SELECT ':x;' AS a, $$;$$, /* ; */ :y::int; -- ;\nSELECT 2")
	f.Fuzz(func(t *testing.T, text string) {
		for _, s := range Statements(text) {
			if s == "" || s != strings.TrimSpace(s) || !strings.Contains(text, s) {
				t.Fatalf("statement %q is not a trimmed piece of the input", s)
			}
		}
		_ = Params(text)
		b, err := Bind(text, func(i int) string { return "?" })
		if err == nil && strings.Count(b.SQL, "?") < len(b.Names) {
			t.Fatalf("bound %q has fewer markers than its %d names", b.SQL, len(b.Names))
		}
	})
}
