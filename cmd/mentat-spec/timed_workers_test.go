package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A sustained point on a backend with one process per client: its
// clients run in worker processes (the seed suite's sqlite-ext deployment),
// its windows land in windows.csv and add up to its timing row.
func TestApplySustainedProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("runs worker processes")
	}
	t.Setenv(asCLI, "1")
	dir := t.TempDir()
	_, _, n := applyWatched(t, "apply", fullSpec, "-var", `scales=["xs"]`, "-var", `backends=["sqlite-ext"]`,
		"-var", `scenarios=["sustained"]`, "-var", "sustained_s=2", "-var", "sustained_clients=3",
		"-var", "data_dir="+filepath.Join(dir, "data"), "-o", filepath.Join(dir, "out"))
	if n != 3 {
		t.Errorf("at most %d worker processes seen at once, want 3", n)
	}
	timings := readCSV(t, filepath.Join(dir, "out", "timings.csv"))
	if len(timings) != 1 || timings[0]["scenario"] != "sustained" || timings[0]["clients"] != "3" || timings[0]["errors"] != "0" {
		t.Fatalf("timings.csv: %v", timings)
	}
	total := atoi(t, timings[0]["count"])
	var sum int64
	windows := readCSV(t, filepath.Join(dir, "out", "windows.csv"))
	for _, w := range windows {
		if w["scenario"] != "sustained" || w["clients"] != "3" || w["errors"] != "0" {
			t.Errorf("window row %v", w)
		}
		sum += atoi(t, w["count"])
	}
	if len(windows) == 0 || total == 0 || sum != total {
		t.Errorf("%d window rows hold %d calls, the timing row %d", len(windows), sum, total)
	}
	log, err := os.ReadFile(filepath.Join(dir, "out", "logs", "workers.log"))
	if err != nil || !strings.Contains(string(log), "sustained sqlite-ext xs point=0 workers=3") {
		t.Errorf("workers.log: %s %v", log, err)
	}
	if left := workerChildren(t); len(left) > 0 {
		t.Errorf("workers still running after apply: %v", left)
	}
}

// An open_loop point whose four connections run in two worker processes:
// each calls at half the rate, the rows offer the declared rate and
// achieve it, and the check passes.
func TestApplyOpenLoopProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("runs worker processes")
	}
	t.Setenv(asCLI, "1")
	dir := t.TempDir()
	stdout, _, n := applyWatched(t, "apply", "../../examples/open-loop.hcl", "testdata/processes_override.hcl",
		"-var", "rate=[100,300]", "-var", "duration_s=2",
		"-var", "data_dir="+filepath.Join(dir, "data"), "-o", filepath.Join(dir, "out"))
	if n != 2 {
		t.Errorf("at most %d worker processes seen at once, want 2", n)
	}
	rows := readCSV(t, filepath.Join(dir, "out", "openloop.csv"))
	if len(rows) != 2 {
		t.Fatalf("openloop.csv: %v", rows)
	}
	for i, rate := range []float64{100, 300} {
		r := rows[i]
		offered, _ := strconv.ParseFloat(r["rate_ops_s"], 64)
		achieved, _ := strconv.ParseFloat(r["throughput_ops_s"], 64)
		if r["op"] != "read@"+strconv.Itoa(int(rate)) || offered != rate || r["clients"] != "4" || r["errors"] != "0" {
			t.Errorf("phase %d: %v", i, r)
		}
		// 2 s at the rate: the workers' halves add up to the declared
		// calls, started on time (a busy machine may drop a few).
		if achieved < 0.9*rate || achieved > 1.01*rate || atoi(t, r["count"])+atoi(t, r["dropped"]) != int64(2*rate) {
			t.Errorf("phase %d: offered %v, achieved %v, %s calls and %s dropped", i, offered, achieved, r["count"], r["dropped"])
		}
	}
	log, _ := os.ReadFile(filepath.Join(dir, "out", "logs", "workers.log"))
	for _, p := range []string{"point=0 workers=2", "point=1 workers=2"} {
		if !strings.Contains(string(log), "open_loop_q1 sqlite xs "+p) {
			t.Errorf("workers.log has no %q:\n%s", p, log)
		}
	}
	if !strings.Contains(stdout, "1 PASS, 0 FAIL") {
		t.Errorf("checks: %s", stdout)
	}
}

func atoi(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return n
}

// A worker killed during the first phase of an open_loop scenario: that
// phase's rows keep the other worker's calls and carry the error, the
// next phase runs with fresh workers, and apply reports the failure.
func TestApplyOpenLoopWorkerKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("runs worker processes")
	}
	t.Setenv(asCLI, "1")
	dir := t.TempDir()
	watch := killWorkerOnce(t, dir, 2, "point=0 workers=2", time.Second, 1) // 1 s into the 3 s run
	code, stdout, stderr := runT(t, "apply", "../../examples/open-loop.hcl", "testdata/processes_override.hcl",
		"-var", "rate=[200,100]", "-var", "duration_s=3",
		"-var", "data_dir="+filepath.Join(dir, "data"), "-o", filepath.Join(dir, "out"))
	victim := watch()
	if victim == 0 {
		t.Fatalf("no worker was killed\nstdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
	if code != exitUnfinished || !strings.Contains(stderr, "killed") {
		t.Errorf("exit %d, want %d with the killed worker reported\nstderr:\n%s", code, exitUnfinished, stderr)
	}
	rows := readCSV(t, filepath.Join(dir, "out", "openloop.csv"))
	if len(rows) != 2 {
		t.Fatalf("openloop.csv: %v", rows)
	}
	killed, next := rows[0], rows[1]
	if killed["op"] != "read@200" || killed["errors"] == "0" || atoi(t, killed["count"]) < 200 {
		t.Errorf("the killed phase must keep the surviving worker's calls (3 s at 100/s) and carry the error: %v", killed)
	}
	if next["op"] != "read@100" || next["errors"] != "0" || next["count"] == "0" {
		t.Errorf("the phase after the kill: %v", next)
	}
	errLog, _ := os.ReadFile(filepath.Join(dir, "out", "logs", "errors.log"))
	if !strings.Contains(string(errLog), "pid "+strconv.Itoa(victim)) || !strings.Contains(string(errLog), "killed") {
		t.Errorf("errors.log does not say which worker died and how:\n%s", errLog)
	}
}
