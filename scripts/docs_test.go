package scripts_test

import (
	"os"
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
