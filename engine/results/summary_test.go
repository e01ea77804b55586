package results

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (run go test -update after checking):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

func TestSummaryGolden(t *testing.T) {
	var b bytes.Buffer
	if err := Summary(filepath.Join("testdata", "summary", "run1"), &b); err != nil {
		t.Fatal(err)
	}
	golden(t, "summary.golden.md", b.Bytes())
}

// The cells seed 001 shows for the same numbers.
func TestSummarySeedCells(t *testing.T) {
	var b bytes.Buffer
	if err := Summary(filepath.Join("testdata", "summary", "run1"), &b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"# mentat-spec benchmark: ext-cache\n",
		"| duckdb | s | 984,803 | 1 | read | 15574 | 0.625 | 0.713 | 0.745 | 1.502 | 1,557 | 0 | 1 |",
		"| duckdb | m | 9,850,258 | 1 | read | 8655 | 1.126 | 1.287 | 1.393 | 2.342 | 865.5 | 0 | 1 |",
		"| duckdb | m | 9,850,258 | 1 | read | 30 | 1,067 | 1,085 | 1,090 | 1,090 | 0.9 | 0 | 1 |",
		"| duckdb | m | 9,850,258 | 8 | read | 1040 | 560.158 | 1,445 | 2,204 | 3,128 | 17.2 | 0 | 1 |",
		"| sqlite-ext | s | 984,803 | 67.6 | 14,566 |  |  |  | 0.19 GiB | 1 |  |",
		"- s: 984,803 datoms (1600 users, 130000 issues, 6492 history updates)",
		"3 PASS, 1 FAIL, 1 SKIP; 3 backend check runs OK, 1 FAILED",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q", want)
		}
	}
	if !regexp.MustCompile(`(?m)^kernel: +6\.12\.104$`).MatchString(out) {
		t.Errorf("summary does not show the latest invocation's kernel")
	}
	if strings.Contains(out, "TOTAL") || strings.Contains(out, "work_mem") {
		t.Errorf("summary shows a TOTAL line or an unabridged key")
	}
}

func TestWriteSummary(t *testing.T) {
	dir := t.TempDir()
	d, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.AppendTiming(Row{Scenario: "pull", Backend: "sqlite", Scale: "xs", NDatoms: 1000, Clients: 1, Op: "read", Count: 10, P50Ms: 0.05, Reps: 1}); err != nil {
		t.Fatal(err)
	}
	closeT(t, d)
	if err := WriteSummary(dir); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## pull", "| sqlite | xs | 1,000 | 1 | read | 10 | 0.050 |", "0 PASS, 0 FAIL, 0 SKIP; no checks recorded"} {
		if !strings.Contains(string(got), want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
	if err := WriteSummary(filepath.Join(dir, "nope")); err == nil {
		t.Error("summary of a missing directory: no error")
	}
}
