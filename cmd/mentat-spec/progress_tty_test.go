package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// progressLine is an interval line of a stream: ops/s, p50, p99 and
// errors of the last interval.
var progressLine = regexp.MustCompile(`ETA \S+ .*\| read [0-9.]+k? ops/s p50 [0-9.]+ p99 [0-9.]+ ms err [0-9]+`)

// TestProgressFitsAnEightyColumnTerminal runs apply -progress-s 1 in a
// real terminal (a tmux pane 80 columns wide): every progress line it
// draws fits the width and has the interval's ops/s, p50, p99 and errors.
func TestProgressFitsAnEightyColumnTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a benchmark of a few seconds")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	dir := t.TempDir()
	raw := filepath.Join(dir, "pane.raw")
	done := filepath.Join(dir, "done")
	// The tmux server and session are this process's own: another test
	// binary (a second checkout's make test) may run the same test at once.
	session := "mentat-progress-" + strconv.Itoa(os.Getpid())
	self, err := filepath.Abs(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	cmdline := strings.Join([]string{"env", asCLI + "=1", self, "apply", "testdata/apply.hcl", "testdata/progress_override.hcl", "-progress-s", "1",
		"-o", filepath.Join(dir, "results"), "-var", "data_dir=" + filepath.Join(dir, "data"), ";", "touch", done}, " ")
	// The pane's output is logged from the start: the session starts with
	// a shell that waits for the log to be attached.
	start := exec.Command("tmux", "-L", session, "new-session", "-d", "-s", session, "-x", "80", "-y", "40", "sleep 1; "+cmdline+"; sleep 30")
	if out, err := start.CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v: %s", err, out)
	}
	defer exec.Command("tmux", "-L", session, "kill-server").Run()
	if out, err := exec.Command("tmux", "-L", session, "pipe-pane", "-t", session, "-o", "cat >> "+raw).CombinedOutput(); err != nil {
		t.Fatalf("tmux pipe-pane: %v: %s", err, out)
	}
	deadline := time.Now().Add(90 * time.Second)
	for {
		if _, err := os.Stat(done); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("apply did not finish in 90 s")
		}
		time.Sleep(200 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond) // the last output reaches the log
	b, err := os.ReadFile(raw)
	if err != nil {
		t.Fatal(err)
	}
	clean := regexp.MustCompile("\x1b\\[[0-9;?]*[A-Za-z]").ReplaceAllString(string(b), "")
	var intervals int
	for _, l := range strings.FieldsFunc(clean, func(r rune) bool { return r == '\r' || r == '\n' }) {
		if !strings.Contains(l, "ETA ") {
			continue
		}
		if len(l) > 80 {
			t.Errorf("a progress line of %d columns: %q", len(l), l)
		}
		if progressLine.MatchString(l) {
			intervals++
		}
	}
	if intervals < 3 {
		t.Errorf("%d interval lines with ops/s, p50, p99 and errors; want one a second over two points of 2 s:\n%s", intervals, clean)
	}
}
