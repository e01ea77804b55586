package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

// summaryOf renders the summary of the results directory dir.
func summaryOf(t *testing.T, dir string) string {
	t.Helper()
	r, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := SummaryMD(r, &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

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
	for _, tt := range []struct {
		run, golden string
		end         time.Time
	}{
		{filepath.Join("testdata", "summary", "run1"), "summary.golden.md", time.Date(2026, 9, 27, 4, 2, 10, 0, time.UTC)},
		{runFixture, "report-summary.golden.md", fixtureEnd},
	} {
		t.Run(tt.run, func(t *testing.T) {
			golden(t, tt.golden, []byte(summaryOf(t, fixtureRun(t, tt.run, tt.end))))
		})
	}
}

// Sections apply to the run's backends only, and the settings in force
// are shown: a run with other settings gives another summary.
func TestSummaryTeaches(t *testing.T) {
	summarize := func(t *testing.T, files map[string]string) string {
		t.Helper()
		dir := t.TempDir()
		for name, body := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return summaryOf(t, dir)
	}
	timing := func(backend string) string {
		return results.TimingsHeader + "\npoint_lookup," + backend + ",xs,1000,1,read,10,0.05,0.06,0.07,0.1,200,0,1\n"
	}
	tests := []struct {
		name         string
		files        map[string]string
		want, reject []string
	}{
		{
			name:   "sqlite only",
			files:  map[string]string{results.TimingsFile: timing("sqlite"), results.SizesFile: "xs sqlite 5000 bytes (4.88 KiB)\n", results.EnvFile: "dataset.xs: 1000 datoms, 12 txs, seed 7\n"},
			want:   []string{"## Overview", "1 scenario on backend sqlite at scale xs", "- xs: 1,000 datoms (12 transactions, seed 7); stores: sqlite 4.88 KiB", "Checks:** none recorded"},
			reject: []string{"shared_buffers", "memory_limit", "## Settings in force", "## bulk_load"},
		},
		{
			name: "duckdb's cache is its memory_limit",
			files: map[string]string{results.TimingsFile: timing("duckdb"), results.EnvFile: "backend.duckdb.xs.driver: duckdb\nbackend.duckdb.xs.cache_setting: memory_limit\n",
				results.SizesFile: "xs duckdb 5000 bytes (4.88 KiB); shared_buffers 1048576 bytes (1.00 MiB); ratio 0.0048\n"},
			want:   []string{"duckdb 4.88 KiB (0.5% of memory_limit 1.00 MiB)"},
			reject: []string{"shared_buffers"},
		},
		{
			name: "postgres settings in force",
			files: map[string]string{results.TimingsFile: timing("postgres"),
				results.EnvFile:   "backend.postgres.xs.driver: postgres\nbackend.postgres.xs.cache_setting: shared_buffers\nbackend.postgres.xs.setting.enable_seqscan: off\n",
				results.SizesFile: "xs postgres 5000 bytes (4.88 KiB); shared_buffers 1048576 bytes (1.00 MiB); ratio 0.0048\n"},
			want: []string{"## Settings in force per backend", "| postgres | setting.enable_seqscan | off |", "(0.5% of shared_buffers 1.00 MiB)"},
		},
		{
			name: "a store larger than shared_buffers says so",
			files: map[string]string{results.TimingsFile: timing("postgres"),
				results.EnvFile:   "backend.postgres.xs.driver: postgres\nbackend.postgres.xs.cache_setting: shared_buffers\n",
				results.SizesFile: "xs postgres 3145728 bytes (3.00 MiB); shared_buffers 1048576 bytes (1.00 MiB); ratio 3.0000; larger than shared_buffers\n"},
			want: []string{"postgres 3.00 MiB (300.0% of shared_buffers 1.00 MiB: larger than the cache)"},
		},
		{
			name:  "a failed check leads the overview",
			files: map[string]string{results.TimingsFile: timing("sqlite"), results.ChecksFile: "FAIL point_lookup sqlite xs title: got 1 row, want 2\nPASS pull sqlite xs entity: ok\n"},
			want:  []string{"1 PASS, 1 FAIL, 0 SKIP: the run FAILED; first failure: point_lookup sqlite xs title: got 1 row, want 2.", "| 1/2 pass, 1 FAIL |"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := summarize(t, tt.files)
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("summary lacks %q:\n%s", w, out)
				}
			}
			for _, r := range tt.reject {
				if strings.Contains(out, r) {
					t.Errorf("summary has %q:\n%s", r, out)
				}
			}
		})
	}
}

// The cells seed 001 shows for the same numbers.
func TestSummarySeedCells(t *testing.T) {
	out := summaryOf(t, filepath.Join("testdata", "summary", "run1"))
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

func TestWriteAll(t *testing.T) {
	dir := t.TempDir()
	d, err := results.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.AppendTiming(results.Row{Scenario: "pull", Backend: "sqlite", Scale: "xs", NDatoms: 1000, Clients: 1, Op: "read", Count: 10, P50Ms: 0.05, Reps: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if err := WriteAll(dir); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, results.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## pull", "| sqlite | xs | 1,000 | 1 | read | 10 | 0.050 |", "0 PASS, 0 FAIL, 0 SKIP; no checks recorded"} {
		if !strings.Contains(string(got), want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
	for _, name := range []string{ReportHTMLFile, JSONFile} {
		if st, err := os.Stat(filepath.Join(dir, name)); err != nil || st.Size() == 0 {
			t.Errorf("WriteAll did not write %s: %v", name, err)
		}
	}
	if err := WriteAll(filepath.Join(dir, "nope")); err == nil {
		t.Error("summary of a missing directory: no error")
	}
}
