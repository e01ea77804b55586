package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

// withNoise copies a results directory of testdata and gives it a
// noise.csv whose points saw other processes take otherPct of the CPU.
func withNoise(t *testing.T, name string, otherPct string) string {
	t.Helper()
	src := filepath.Join("testdata", "results", name)
	dst := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	noise := results.NoiseHeader + "\n" +
		"point_lookup,sqlite,xs,1,0,2026-01-01T00:00:00Z,10,1.5,2,60," + "20,0," + otherPct + ",0,2400\n"
	if err := os.WriteFile(filepath.Join(dst, results.NoiseFile), []byte(noise), 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestCompareNoise: a regression measured while other processes took
// 38% of the CPU during NEW and 2% during OLD cannot be decided, says
// why, and is not green in the HTML page; -fail-undecided fails it, and
// -force judges it anyway. Alike noise leaves the regression standing.
func TestCompareNoise(t *testing.T) {
	quiet := withNoise(t, "reps-base", "2")
	busy := withNoise(t, "reps-slower", "38")
	alike := withNoise(t, "reps-slower", "5")
	for _, tt := range []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"noise differs", []string{quiet, busy}, exitOK, []string{
			"machine noise OLD: other processes 2.0% of the CPU", "machine noise NEW: other processes 38.0% of the CPU",
			"cannot decide (noise): other processes took 38% of the CPU during NEW, 2% during OLD",
			"metrics CANNOT BE DECIDED"}},
		{"noise differs, -fail-undecided", []string{"-fail-undecided", quiet, busy}, exitUndecided, []string{"cannot decide (noise)"}},
		{"noise differs, -force", []string{"-force", quiet, busy}, exitRegression, []string{"REGRESSION", "judged anyway (-force)"}},
		{"noise differs within a loose bound", []string{"-noise-bound", "50", quiet, busy}, exitRegression, []string{"REGRESSION"}},
		{"noise alike", []string{quiet, alike}, exitRegression, []string{"REGRESSION"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runT(t, append([]string{"compare"}, tt.args...)...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("no %q in:\n%s", w, stdout)
				}
			}
		})
	}
	page := filepath.Join(t.TempDir(), "compare.html")
	if code, stdout, stderr := runT(t, "compare", "-html", page, quiet, busy); code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	html := readFile(t, page)
	if strings.Contains(html, `class="verdict pass"`) || !strings.Contains(html, `class="verdict undecided">Cannot decide`) ||
		!strings.Contains(html, "other processes took 38% of the CPU during NEW, 2% during OLD") {
		t.Errorf("the page does not say it cannot decide, and why:\n%s", html)
	}
}

// TestCompareUndecidedNotGreen: reps = 1 on both sides is "cannot decide"
// in text and HTML, never "No regression." in green.
func TestCompareUndecidedNotGreen(t *testing.T) {
	page := filepath.Join(t.TempDir(), "compare.html")
	code, stdout, _ := runT(t, "compare", "-html", page, filepath.Join("testdata", "results", "reps-single_old"), filepath.Join("testdata", "results", "reps-single_new"))
	if code != exitOK || !strings.Contains(stdout, "CANNOT BE DECIDED") || strings.Contains(stdout, "\nno regressions\n") {
		t.Errorf("exit %d:\n%s", code, stdout)
	}
	html := readFile(t, page)
	if strings.Contains(html, `class="verdict pass"`) || !strings.Contains(html, "Cannot decide") || !strings.Contains(html, "too few reps") {
		t.Errorf("the page shows undecided as a pass")
	}
}
