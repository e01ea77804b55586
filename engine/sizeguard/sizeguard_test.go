package sizeguard

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// moduleRoot is the directory holding go.mod above this package.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// overLimit holds the packages already past MaxLines when the guard came,
// each with its count then: such a package may shrink but never grow, and
// leaves this table once under the limit. None is left.
var overLimit = map[string]int{}

// TestPackageSize fails naming each non-test package over MaxLines lines
// (or over its recorded count, for one of overLimit).
func TestPackageSize(t *testing.T) {
	pkgs, err := Count(moduleRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) < 10 {
		t.Fatalf("found %d package directories: the walk missed the module", len(pkgs))
	}
	lines := map[string]int{}
	for _, p := range pkgs {
		lines[filepath.ToSlash(p.Dir)] = p.Lines
	}
	for dir, was := range overLimit {
		switch n, ok := lines[dir]; {
		case !ok:
			t.Errorf("%s: recorded as over the limit, but there is no such package: remove it from overLimit", dir)
		case n <= MaxLines:
			t.Errorf("%s: %d lines, under the %d-line limit now: remove it from overLimit", dir, n, MaxLines)
		case n > was:
			t.Errorf("%s: %d non-test .go lines, up from %d: a package past the %d-line limit may only shrink; move a cohesive piece into a package of its own", dir, n, was, MaxLines)
		}
	}
	for _, p := range Over(pkgs, MaxLines) {
		if _, ok := overLimit[filepath.ToSlash(p.Dir)]; ok {
			continue
		}
		t.Errorf("%s: %d non-test .go lines, over the %d-line limit: move a cohesive piece into a package of its own", p.Dir, p.Lines, MaxLines)
	}
}

func TestCount(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"a/a.go":          "package a\n\nfunc A() {}\n", // 3 lines
		"a/b.go":          "package a\nvar B = 1",       // 2 lines, no last newline
		"a/a_test.go":     "package a\n\n\n\n\n",        // test files do not count
		"b/c/c.go":        "package c\n",
		"b/testdata/x.go": "package x\n",
		"b/.hidden/x.go":  "package x\n",
		"b/_skip/x.go":    "package x\n",
		"b/vendor/v/v.go": "package v\n",
		"d/notgo.txt":     "x\n",
		"e/only_test.go":  "package e\n",
		"f/big.go":        strings.Repeat("//\n", 11),
	}
	for name, text := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pkgs, err := Count(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []Package{{"a", 5}, {"b/c", 1}, {"f", 11}}
	if len(pkgs) != len(want) {
		t.Fatalf("Count = %v, want %v", pkgs, want)
	}
	for i := range want {
		if pkgs[i] != want[i] {
			t.Errorf("Count[%d] = %v, want %v", i, pkgs[i], want[i])
		}
	}
	for _, tc := range []struct {
		max  int
		over []string
	}{
		{10, []string{"f"}},
		{11, nil},
		{4, []string{"a", "f"}},
		{0, []string{"a", "b/c", "f"}},
	} {
		var got []string
		for _, p := range Over(pkgs, tc.max) {
			got = append(got, p.Dir)
		}
		if strings.Join(got, ",") != strings.Join(tc.over, ",") {
			t.Errorf("Over(%d) = %v, want %v", tc.max, got, tc.over)
		}
	}
}
