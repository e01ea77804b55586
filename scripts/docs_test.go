package scripts_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// benchmarksBudget keeps BENCHMARKS.md to its current-figures form: dated
// passes and superseded runs belong in docs/benchmarks-history.md.
const benchmarksBudget = 450

// TestBenchmarksCurrentForm: BENCHMARKS.md stays within its line budget,
// each of its sections gives a dated figure and a command to reproduce it,
// and the "At a glance" links land on a section.
func TestBenchmarksCurrentForm(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "BENCHMARKS.md"))
	if err != nil {
		t.Fatal(err)
	}
	if problems := checkBenchmarks(string(b), benchmarksBudget); len(problems) > 0 {
		t.Errorf("BENCHMARKS.md (move dated passes to docs/benchmarks-history.md):\n%s", strings.Join(problems, "\n"))
	}
	if _, err := os.Stat(filepath.Join("..", "docs", "benchmarks-history.md")); err != nil {
		t.Error(err)
	}
}

func TestCheckBenchmarks(t *testing.T) {
	good := "# B\n\n## How to read these figures\n\ntext\n\n## At a glance\n\n| [x](#one) | 1 |\n\n## One\n\n2026-12-01, `go test -bench X ./a/`: 5 ns\n"
	for _, tc := range []struct {
		name, text string
		budget     int
		want       string
	}{
		{"good", good, 100, ""},
		{"over budget", good, 5, "lines"},
		{"no date", strings.Replace(good, "2026-12-01", "today", 1), 100, "no date"},
		{"no command", strings.Replace(good, "`go test -bench X ./a/`", "a test", 1), 100, "no command"},
		{"dangling link", strings.Replace(good, "#one", "#two", 1), 100, "#two"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := strings.Join(checkBenchmarks(tc.text, tc.budget), "\n")
			if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
				t.Errorf("problems %q, want %q", got, tc.want)
			}
		})
	}
}

var (
	datePattern    = regexp.MustCompile(`20\d\d-\d\d-\d\d`)
	commandPattern = regexp.MustCompile("`[^`]*(go test|mentat-spec|make |scripts/|BENCH_|MENTAT_SPEC_)[^`]*`")
	anchorPattern  = regexp.MustCompile(`\]\(#([^)]+)\)`)
)

// checkBenchmarks lists what keeps text from the current-figures form.
func checkBenchmarks(text string, budget int) []string {
	var problems []string
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if len(lines) > budget {
		problems = append(problems, "  "+strconv.Itoa(len(lines))+" lines, over the budget of "+strconv.Itoa(budget))
	}
	anchors := map[string]bool{}
	type section struct{ title, body string }
	var sections []section
	for _, l := range lines {
		if strings.HasPrefix(l, "#") {
			title := strings.TrimSpace(strings.TrimLeft(l, "#"))
			anchors[githubAnchor(title)] = true
			if strings.HasPrefix(l, "## ") {
				sections = append(sections, section{title: title})
				continue
			}
		}
		if len(sections) > 0 {
			sections[len(sections)-1].body += l + "\n"
		}
	}
	for _, s := range sections {
		if s.title == "How to read these figures" || s.title == "At a glance" {
			continue
		}
		if !datePattern.MatchString(s.body) {
			problems = append(problems, "  section "+s.title+": no date")
		}
		if !commandPattern.MatchString(s.body) {
			problems = append(problems, "  section "+s.title+": no command to reproduce it")
		}
	}
	for _, m := range anchorPattern.FindAllStringSubmatch(text, -1) {
		if !anchors[m[1]] {
			problems = append(problems, "  link #"+m[1]+" names no section")
		}
	}
	return problems
}

// githubAnchor is the anchor GitHub gives a heading: lower case, spaces to
// hyphens, punctuation dropped.
func githubAnchor(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(title) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestReadmeLayout: README's layout names every package `go list ./...`
// prints, and every directory or source file it names exists.
func TestReadmeLayout(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	entries, err := layoutEntries(string(readme))
	if err != nil {
		t.Fatal(err)
	}
	// From the repository's root: ./... here would be this package alone.
	list := exec.Command("go", "list", "-f", "{{.Dir}}", "./...")
	list.Dir = ".."
	out, err := list.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	var pkgs []string
	for _, dir := range strings.Fields(string(out)) {
		rel, err := filepath.Rel(root, dir)
		if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, filepath.ToSlash(rel))
	}
	for _, p := range layoutProblems(entries, pkgs, func(path string) bool {
		_, err := os.Stat(filepath.Join(root, filepath.FromSlash(path)))
		return err == nil
	}) {
		t.Error(p)
	}
}

func TestLayoutProblems(t *testing.T) {
	readme := "# x\n\n## Layout\n\n```text\ncmd/tool/   the CLI (main.go)\nlib/        a library; sub/, other/ (gone.go)\n```\n"
	entries, err := layoutEntries(readme)
	if err != nil {
		t.Fatal(err)
	}
	exists := map[string]bool{"cmd/tool": true, "cmd/tool/main.go": true, "lib": true, "lib/sub": true, "lib/other": true}
	got := layoutProblems(entries, []string{"cmd/tool", "lib", "lib/sub", "lib/other", "lib/new"}, func(p string) bool { return exists[p] })
	want := []string{
		"README's layout names gone.go under lib/, which does not exist",
		"package lib/new is missing from README's layout",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// layoutEntry is one path of README's layout with its description, the
// indented lines under it included.
type layoutEntry struct{ head, text string }

func layoutEntries(readme string) ([]layoutEntry, error) {
	_, after, ok := strings.Cut(readme, "\n## Layout\n")
	if !ok {
		return nil, errors.New("README has no ## Layout section")
	}
	_, block, ok := strings.Cut(after, "```text\n")
	if !ok {
		return nil, errors.New("README's layout has no text block")
	}
	block, _, _ = strings.Cut(block, "```")
	var entries []layoutEntry
	for _, l := range strings.Split(block, "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if l[0] == ' ' {
			if len(entries) > 0 {
				entries[len(entries)-1].text += " " + l
			}
			continue
		}
		head, rest, _ := strings.Cut(l, " ")
		entries = append(entries, layoutEntry{head: head, text: rest})
	}
	return entries, nil
}

// namedPath is a directory (ending in /) or a Go, shell or HCL file the
// layout names, relative to its entry or to the repository.
var namedPath = regexp.MustCompile(`(?:^|[\s(,;:])([A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)*(?:/|\.go|\.sh|\.hcl))(?:[\s),;:]|$)`)

// layoutProblems lists the packages the layout leaves out and the paths it
// names that do not exist. A package is named by an entry's head, or under
// an entry as its path relative to the head ("adapter/protocol/" under
// drivers/).
func layoutProblems(entries []layoutEntry, pkgs []string, exists func(string) bool) []string {
	var problems []string
	named := map[string]bool{}
	for _, e := range entries {
		head := strings.TrimSuffix(e.head, "/")
		named[head] = true
		if !exists(head) {
			problems = append(problems, "README's layout names "+e.head+", which does not exist")
		}
		if !strings.HasSuffix(e.head, "/") {
			continue
		}
		for _, m := range namedPath.FindAllStringSubmatch(e.text, -1) {
			p := strings.TrimSuffix(m[1], "/")
			switch {
			case exists(head + "/" + p):
				named[head+"/"+p] = true
			case exists(p):
				named[p] = true
			default:
				problems = append(problems, "README's layout names "+m[1]+" under "+e.head+", which does not exist")
			}
		}
	}
	for _, p := range pkgs {
		if !named[p] {
			problems = append(problems, "package "+p+" is missing from README's layout")
		}
	}
	return problems
}
