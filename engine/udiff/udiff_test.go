package udiff

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// apply rebuilds the new text from the old one and a unified diff, so a
// test checks that a diff says exactly what changed.
func apply(t *testing.T, old, diff string) string {
	t.Helper()
	src := splitLines(old)
	var out []string
	next := 0 // index in src of the next line not yet copied
	lines := strings.Split(strings.TrimSuffix(diff, "\n"), "\n")
	for i := 2; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(l, "@@") {
			f := strings.Fields(l)[1] // -start[,count]
			s, count, _ := strings.Cut(f[1:], ",")
			start, err := strconv.Atoi(s)
			if err != nil {
				t.Fatalf("bad hunk header %q", l)
			}
			aStart := start - 1 // the index of the hunk's first line
			if count == "0" {
				aStart = start // an empty range names the line before it
			}
			out = append(out, src[next:aStart]...)
			next = aStart
			continue
		}
		switch l[0] {
		case ' ':
			if src[next] != l[1:] {
				t.Fatalf("context %q does not match line %d %q", l[1:], next+1, src[next])
			}
			out = append(out, src[next])
			next++
		case '-':
			if src[next] != l[1:] {
				t.Fatalf("removal %q does not match line %d %q", l[1:], next+1, src[next])
			}
			next++
		case '+':
			out = append(out, l[1:])
		default:
			t.Fatalf("bad diff line %q", l)
		}
	}
	out = append(out, src[next:]...)
	return strings.Join(out, "\n")
}

func numbered(n int, change map[int]string) string {
	var l []string
	for i := 1; i <= n; i++ {
		s := fmt.Sprintf("line %d", i)
		if c, ok := change[i]; ok {
			if c == "" {
				continue
			}
			s = c
		}
		l = append(l, s)
	}
	return strings.Join(l, "\n")
}

func TestUnified(t *testing.T) {
	cases := []struct {
		name   string
		a, b   string
		hunks  int
		header string // the first hunk header, when checked
	}{
		{"one line changed", numbered(10, nil), numbered(10, map[int]string{5: "five"}), 1, "@@ -2,7 +2,7 @@"},
		{"first line removed", numbered(5, nil), numbered(5, map[int]string{1: ""}), 1, "@@ -1,4 +1,3 @@"},
		{"appended", numbered(3, nil), numbered(3, nil) + "\nline 4", 1, "@@ -1,3 +1,4 @@"},
		{"from empty", "", "a\nb", 1, "@@ -0,0 +1,2 @@"},
		{"to empty", "a\nb", "", 1, "@@ -1,2 +0,0 @@"},
		{"two far changes", numbered(30, nil), numbered(30, map[int]string{2: "two", 28: "twenty-eight"}), 2, "@@ -1,5 +1,5 @@"},
		{"two near changes", numbered(30, nil), numbered(30, map[int]string{10: "ten", 15: "fifteen"}), 1, "@@ -7,12 +7,12 @@"},
		{"trailing newline ignored", "a\nb\n", "a\nc", 1, "@@ -1,2 +1,2 @@"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := Unified("old", "new", c.a, c.b)
			if !strings.HasPrefix(d, "--- old\n+++ new\n") {
				t.Fatalf("no file header:\n%s", d)
			}
			if got := strings.Count(d, "\n@@ "); got != c.hunks {
				t.Errorf("%d hunks, want %d:\n%s", got, c.hunks, d)
			}
			if first := strings.Split(d, "\n")[2]; first != c.header {
				t.Errorf("first hunk header %q, want %q", first, c.header)
			}
			if got, want := apply(t, c.a, d), strings.TrimSuffix(c.b, "\n"); got != want {
				t.Errorf("applying the diff gives\n%s\nwant\n%s\ndiff:\n%s", got, want, d)
			}
		})
	}
	if d := Unified("a", "b", "same\n", "same\n"); d != "" {
		t.Errorf("equal texts gave a diff:\n%s", d)
	}
}
