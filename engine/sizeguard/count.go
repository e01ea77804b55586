package sizeguard

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Package is one package directory and its non-test .go lines.
type Package struct {
	Dir   string // slash-separated, relative to the root
	Lines int
}

// Count walks root and returns the non-test .go lines of each directory
// holding Go files, sorted by directory. testdata, vendor and directories
// the go tool ignores (a leading "." or "_") are skipped, as go list does.
func Count(root string) ([]Package, error) {
	lines := map[string]int{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || name == "vendor" ||
				strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("sizeguard: %w", err)
		}
		n := bytes.Count(b, []byte("\n"))
		if len(b) > 0 && b[len(b)-1] != '\n' {
			n++ // a last line without its newline is still a line
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return fmt.Errorf("sizeguard: %w", err)
		}
		lines[filepath.ToSlash(rel)] += n
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]Package, 0, len(lines))
	for dir, n := range lines {
		out = append(out, Package{Dir: dir, Lines: n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Dir < out[j].Dir })
	return out, nil
}

// Over returns the packages of pkgs holding more than max lines.
func Over(pkgs []Package, max int) []Package {
	var over []Package
	for _, p := range pkgs {
		if p.Lines > max {
			over = append(over, p)
		}
	}
	return over
}
