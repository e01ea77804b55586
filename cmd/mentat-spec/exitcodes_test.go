package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/mentat-spec/mentat-spec/engine/compare"
	"github.com/mentat-spec/mentat-spec/engine/results"
	"github.com/mentat-spec/mentat-spec/engine/runner"
)

// TestExitCodesDistinct: every code means one thing.
func TestExitCodesDistinct(t *testing.T) {
	seen := map[int]string{}
	for name, c := range map[string]int{"ok": exitOK, "check": exitCheck, "usage": exitUsage, "changes": exitChanges,
		"threshold": exitThreshold, "regression": exitRegression, "undecided": exitUndecided,
		"unfinished": exitUnfinished, "all failed": exitAllFailed, "interrupted": exitInterrupted} {
		if prev, ok := seen[c]; ok {
			t.Errorf("exit %d is both %s and %s", c, prev, name)
		}
		seen[c] = name
	}
}

func TestApplyExit(t *testing.T) {
	ok := &runner.Outcome{}
	wrong := &runner.Outcome{Checks: results.CheckCounts{Pass: 3, Fail: 1, Threshold: 1}}
	crossed := &runner.Outcome{Checks: results.CheckCounts{Pass: 3, Threshold: 2}}
	unfinished := &runner.Outcome{Failures: []string{"xs/sqlite: opening the store"}, Checks: results.CheckCounts{Threshold: 1}}
	failedRow := results.Row{Scenario: "bank", Backend: "sqlite", Scale: "xs", Clients: 2, Op: "open", Count: 0, Errors: 140}
	allFailed := &runner.Outcome{Rows: []results.Row{{Op: "balance", Count: 900}, failedRow}, Checks: results.CheckCounts{Pass: 1, Threshold: 1}}
	someFailed := &runner.Outcome{Rows: []results.Row{{Op: "balance", Count: 900, Errors: 3}}}
	for _, tt := range []struct {
		name        string
		o           *runner.Outcome
		err         error
		interrupted bool
		want        int
	}{
		{"all passed", ok, nil, false, exitOK},
		{"a wrong answer wins over a threshold", wrong, nil, false, exitCheck},
		{"a threshold crossed", crossed, nil, false, exitThreshold},
		{"a failure wins over a threshold", unfinished, nil, false, exitUnfinished},
		{"an op whose every call failed wins over a threshold", allFailed, nil, false, exitAllFailed},
		{"some failed calls are counted, not fatal", someFailed, nil, false, exitOK},
		{"no outcome", nil, errors.New("results directory"), false, exitUnfinished},
		{"an error writing the results", ok, errors.New("summary.md"), false, exitUnfinished},
		{"interrupted wins over all", wrong, nil, true, exitInterrupted},
	} {
		if got := applyExit(tt.o, tt.err, tt.interrupted); got != tt.want {
			t.Errorf("%s: exit %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestCompareExit(t *testing.T) {
	undecided := compare.Verdict{Verdicts: []compare.MetricVerdict{{Outcome: compare.OutNoChange}, {Outcome: compare.OutUndecided}}}
	regressed := undecided
	regressed.Findings = []compare.Finding{{Kind: compare.KindP50}}
	for _, tt := range []struct {
		name          string
		verdict       compare.Verdict
		failUndecided bool
		want          int
	}{
		{"nothing found", compare.Verdict{Verdicts: []compare.MetricVerdict{{Outcome: compare.OutNoChange}}}, true, exitOK},
		{"undecided passes by default", undecided, false, exitOK},
		{"undecided fails when asked", undecided, true, exitUndecided},
		{"a regression wins over undecided", regressed, true, exitRegression},
		{"refused", compare.Verdict{Refused: true}, false, exitUndecided},
	} {
		if got := compareExit(tt.verdict, tt.failUndecided); got != tt.want {
			t.Errorf("%s: exit %d, want %d", tt.name, got, tt.want)
		}
	}
}

// TestApplyInterrupted: SIGINT during a point ends apply with 130 and a
// plain message naming only files that exist.
func TestApplyInterrupted(t *testing.T) {
	dir := t.TempDir()
	long := filepath.Join(dir, "long_override.hcl")
	if err := os.WriteFile(long, []byte("sampling {\n  min_s = 30\n  max_s = 30\n  reps = 1\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "results")
	sent := false
	_, wait := startCLI(t, nil, []string{"apply", "testdata/apply.hcl", long, "-progress_s", "0", "-o", out,
		"-var", "data_dir=" + filepath.Join(dir, "data")}, func(cmd *exec.Cmd, line string) {
		if !sent && strings.Contains(line, "loaded 100 datoms") {
			sent = true
			go func() {
				time.Sleep(300 * time.Millisecond) // inside the point
				cmd.Process.Signal(syscall.SIGINT)
			}()
		}
	})
	code, log := wait()
	if code != exitInterrupted {
		t.Fatalf("exit %d, want %d:\n%s", code, exitInterrupted, log)
	}
	if !strings.Contains(log, "interrupted; what was measured before is kept in "+out) {
		t.Errorf("no plain message:\n%s", log)
	}
	if strings.Contains(log, "context canceled") {
		t.Errorf("the message is raw:\n%s", log)
	}
	for _, name := range []string{"report.html", "summary.md", "results.json", "timings.csv", "checks.txt"} {
		if _, err := os.Stat(filepath.Join(out, name)); err != nil && strings.Contains(log, name) {
			t.Errorf("%s is offered but does not exist:\n%s", name, log)
		}
	}
}

// TestApplyThresholds: a threshold of p99 < 0.001 ms is crossed (exit 4,
// a THRESHOLD line in checks.txt, summary.md and report.html), a loose
// one passes, abort ends the point after its first rep, and what is
// judged is the exact merge of every rep of both worker processes.
func TestApplyThresholds(t *testing.T) {
	const reps3 = "sampling {\n  reps = 3\n}\n"
	workers := "backend \"sqlite\" {\n  processes = 2\n}\nscenario \"lookup\" {\n  clients = [2]\n}\n" + "sampling {\n  reps = 2\n}\n"
	for _, tt := range []struct {
		name, threshold, override string
		want                      int
		line                      string
	}{
		{"crossed", `p99_ms = 0.001`, "", exitThreshold, "THRESHOLD lookup sqlite xs threshold gate (clients=1 read): p99 "},
		{"loose", `p99_ms = 1000` + "\n" + `max_error_rate = 0`, "", exitOK, "PASS lookup sqlite xs threshold gate (clients=1 read): p99 "},
		{"abort", `p99_ms = 0.001` + "\n" + `abort = true`, reps3, exitThreshold, "the scenario's remaining reps and points in this cell were not run"},
		{"workers merged", `p99_ms = 1000`, workers, exitOK, "PASS lookup sqlite xs threshold gate (clients=2 read)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.override == workers {
				if testing.Short() {
					t.Skip("runs worker processes")
				}
				t.Setenv(asCLI, "1")
			}
			dir := t.TempDir()
			gate := filepath.Join(dir, "gate.hcl")
			body := "threshold \"gate\" {\n  scenario = \"lookup\"\n  op = \"read\"\n  backend = \"sqlite\"\n" + tt.threshold + "\n}\n"
			if err := os.WriteFile(gate, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			args := []string{"apply", "testdata/apply.hcl", gate, "-q", "-o", filepath.Join(dir, "results"), "-var", "data_dir=" + filepath.Join(dir, "data")}
			if tt.override != "" {
				ov := filepath.Join(dir, "gate_override.hcl")
				if err := os.WriteFile(ov, []byte(tt.override), 0o644); err != nil {
					t.Fatal(err)
				}
				args = append(args[:3], append([]string{ov}, args[3:]...)...)
			}
			code, stdout, stderr := runT(t, args...)
			if code != tt.want {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.want, stdout, stderr)
			}
			out := filepath.Join(dir, "results")
			checks := readFile(t, filepath.Join(out, "checks.txt"))
			var line string
			for _, l := range strings.Split(checks, "\n") {
				if strings.Contains(l, "threshold gate") {
					line = l
				}
			}
			if !strings.Contains(line, tt.line) || !strings.Contains(checks, "PASS lookup sqlite xs names") {
				t.Fatalf("checks.txt lacks %q and the PASS of the check:\n%s", tt.line, checks)
			}
			if tt.want == exitThreshold {
				// The console names why, beside the count.
				if !strings.Contains(stderr, "  why lookup sqlite xs threshold gate (clients=1 read), against its own split") {
					t.Errorf("stderr lacks the why of the crossed threshold:\n%s", stderr)
				}
				if !strings.Contains(readFile(t, filepath.Join(out, "summary.md")), "  - why, against its own split") {
					t.Errorf("summary.md lacks the why beside the THRESHOLD line")
				}
				for _, f := range []string{"summary.md", "report.html"} {
					if !strings.Contains(readFile(t, filepath.Join(out, f)), "THRESHOLD lookup sqlite xs threshold gate") &&
						!strings.Contains(readFile(t, filepath.Join(out, f)), "<td class=\"threshold\">THRESHOLD</td>") {
						t.Errorf("%s does not show the crossed threshold", f)
					}
				}
			}
			raw := readCSV(t, filepath.Join(out, "raw.csv"))
			switch tt.name {
			case "abort":
				if len(raw) != 1 {
					t.Errorf("abort after the first rep: %d reps ran, want 1", len(raw))
				}
			case "workers merged":
				// The line judged every call of both reps of both workers:
				// the sum of raw.csv's counts, and the p99 of the merge of
				// the hdr log's intervals.
				var calls int64
				for _, r := range raw {
					calls += atoi(t, r["count"])
				}
				if len(raw) != 2 || !strings.Contains(line, fmt.Sprintf("(%d calls, exact histogram)", calls)) {
					t.Errorf("%d reps with %d calls in all; the threshold judged: %s", len(raw), calls, line)
				}
				hs := readHlog(t, filepath.Join(out, results.HdrDir, results.HlogName(results.Row{Scenario: "lookup", Backend: "sqlite", Scale: "xs", Clients: 2, Op: "read"})))
				merged := hdrhistogram.New(1, int64(time.Hour), 3)
				for _, h := range hs {
					merged.Merge(h)
				}
				p99 := strconv.FormatFloat(float64(merged.ValueAtQuantile(99))/1e6, 'g', 4, 64)
				if merged.TotalCount() != calls || !strings.Contains(line, "p99 "+p99+" <= 1000 ms") {
					t.Errorf("the merged histogram: %d calls, p99 %s ms; the threshold judged: %s", merged.TotalCount(), p99, line)
				}
			}
		})
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestSweepAloneIsChecked: the concurrency sweep declares no check of its
// own; run alone it runs the checks the other scenarios declare for its
// queries, and checks.txt holds their PASS lines and its TOTAL.
func TestSweepAloneIsChecked(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runT(t, "apply", fullSpec, "-q", "-var", `scales=["xs"]`, "-var", `backends=["sqlite"]`,
		"-var", `scenarios=["concurrency_sweep"]`, "-var", "clients=[1,4]", "-var", "reps=1", "-var", "min_s=0.05", "-var", "max_s=0.1",
		"-var", "precision=0", "-var", "data_dir="+filepath.Join(dir, "data"), "-o", out)
	if code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	checks := readFile(t, filepath.Join(out, "checks.txt"))
	for _, want := range []string{
		"PASS concurrency_sweep sqlite xs names (from point_lookup): ",
		"PASS concurrency_sweep sqlite xs assigned (from ref_traversal): ",
		"PASS concurrency_sweep sqlite xs attributes (from pull): ",
		"\nTOTAL 3 PASS, 0 FAIL, 0 SKIP\n",
	} {
		if !strings.Contains("\n"+checks, want) {
			t.Errorf("checks.txt lacks %q:\n%s", want, checks)
		}
	}
}

// readHlog is ReadHlog failing the test on an error.
func readHlog(t *testing.T, path string) []*hdrhistogram.Histogram {
	t.Helper()
	hs, err := results.ReadHlog(path)
	if err != nil {
		t.Fatal(err)
	}
	return hs
}

// TestApplyAllCallsFailed: a scenario whose every call fails at run time
// (SQLite raises integer overflow at each step) is not a result: apply
// exits 8 and names the point and op, although every check passed.
func TestApplyAllCallsFailed(t *testing.T) {
	dir := t.TempDir()
	boom := filepath.Join(dir, "boom.hcl")
	body := "query \"boom\" {\n  sql = \"SELECT abs(-9223372036854775807 - 1) AS x\"\n}\n" +
		"scenario \"boom\" {\n  read {\n    query = query.boom\n  }\n}\n"
	if err := os.WriteFile(boom, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "results")
	code, stdout, stderr := runT(t, "apply", "testdata/apply.hcl", boom, "-q", "-o", out, "-var", "data_dir="+filepath.Join(dir, "data"))
	if code != exitAllFailed {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitAllFailed, stdout, stderr)
	}
	want := "no result: scenario boom, backend sqlite, scale xs, 1 client(s), op read: all "
	if !strings.Contains(stderr, want) || strings.Contains(stderr, "scenario lookup") {
		t.Errorf("stderr does not name the op whose calls all failed, and only it:\n%s", stderr)
	}
	if !strings.Contains(stdout, "Checks: 1 PASS, 0 FAIL") {
		t.Errorf("the lookup's check did not pass:\n%s", stdout)
	}
}
