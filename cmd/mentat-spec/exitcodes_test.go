package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mentat-spec/mentat-spec/engine/results"
	"github.com/mentat-spec/mentat-spec/engine/runner"
)

// TestExitCodesDistinct: every code means one thing.
func TestExitCodesDistinct(t *testing.T) {
	seen := map[int]string{}
	for name, c := range map[string]int{"ok": exitOK, "check": exitCheck, "usage": exitUsage, "changes": exitChanges,
		"threshold": exitThreshold, "regression": exitRegression, "undecided": exitUndecided,
		"unfinished": exitUnfinished, "interrupted": exitInterrupted} {
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
	undecided := results.Report{Verdicts: []results.Verdict{{Outcome: results.OutNoChange}, {Outcome: results.OutUndecided}}}
	regressed := undecided
	regressed.Findings = []results.Finding{{Kind: results.KindP50}}
	for _, tt := range []struct {
		name          string
		rep           results.Report
		failUndecided bool
		want          int
	}{
		{"nothing found", results.Report{Verdicts: []results.Verdict{{Outcome: results.OutNoChange}}}, true, exitOK},
		{"undecided passes by default", undecided, false, exitOK},
		{"undecided fails when asked", undecided, true, exitUndecided},
		{"a regression wins over undecided", regressed, true, exitRegression},
		{"refused", results.Report{Refused: true}, false, exitUndecided},
	} {
		if got := compareExit(tt.rep, tt.failUndecided); got != tt.want {
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
