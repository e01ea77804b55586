package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

// mountTmpfs mounts a tmpfs of size bytes on a new directory and unmounts
// it when the test ends, also on failure. It skips the test when this
// process may not mount (not root, no CAP_SYS_ADMIN, a container).
func mountTmpfs(t *testing.T, size int64) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, fmt.Sprintf("size=%d,mode=0755", size)); err != nil {
		t.Skipf("cannot mount a small file system to fill (needs root or CAP_SYS_ADMIN): %v", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// fill writes a file into dir until the file system is full and returns
// a function that removes it.
func fill(t *testing.T, dir string) func() {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	if err != nil && !errors.Is(err, syscall.ENOSPC) {
		t.Error(err)
		return func() {}
	}
	if f != nil {
		chunk := make([]byte, 64<<10)
		for {
			if _, err := f.Write(chunk); err != nil {
				if !errors.Is(err, syscall.ENOSPC) {
					t.Error(err)
				}
				break
			}
		}
		// The last pages too, a byte at a time.
		for {
			if _, err := f.Write(chunk[:1]); err != nil {
				break
			}
		}
		f.Close()
	}
	return func() {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Error(err)
		}
	}
}

// fullDiskOverride: short sampling, read scenarios with several points.
const fullDiskOverride = `
sampling {
  warmup  = 1
  min_s   = 0.2
  min_n   = 5
  max_s   = 0.3
  reps    = 1
}

matrix {
  scenarios = ["point_lookup", "ref_traversal", "aggregate", "predicate_scan", "pull", "as_of", "since", "input_bindings"]
}
`

// applyFilling runs apply as a child process and fills the file system
// of full once a line matching when appears. It returns the exit code, the
// output, and the lines printed before the disk was full.
func applyFilling(t *testing.T, args []string, full string, when *regexp.Regexp) (int, string, func()) {
	t.Helper()
	var once sync.Once
	unfill := func() {}
	start := time.Now()
	_, wait := startCLI(t, nil, args, func(_ *exec.Cmd, line string) {
		if when.MatchString(line) {
			once.Do(func() { unfill = fill(t, full) })
		}
	})
	code, out := wait()
	if time.Since(start) > 3*time.Minute {
		t.Errorf("the run went on for %s on a full disk", time.Since(start).Round(time.Second))
	}
	return code, out, func() { unfill() }
}

// TestFullResultsDisk: the results directory's file system fills up in
// the middle of a run. The run stops with an error naming the directory
// and the cause in words, exits non-zero, and every row it wrote before is
// whole; once space is freed, report reads the directory and a rerun
// resumes into it.
func TestFullResultsDisk(t *testing.T) {
	if testing.Short() {
		t.Skip("runs apply")
	}
	res := mountTmpfs(t, 4<<20)
	dir := t.TempDir()
	override := filepath.Join(dir, "full_override.hcl")
	if err := os.WriteFile(override, []byte(fullDiskOverride), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(res, "out")
	args := []string{"apply", quickstart, override, "-var", "data_dir=" + filepath.Join(dir, "data"), "-data", filepath.Join(dir, "data"), "-o", out}
	code, log, unfill := applyFilling(t, args, res, regexp.MustCompile(`^xs/sqlite +point_lookup `))
	defer unfill()
	t.Logf("the run on a full disk:\n%s", log)
	noCrash(t, log)
	if code != exitUnfinished {
		t.Fatalf("exit %d on a full results disk, want %d:\n%s", code, exitUnfinished, log)
	}
	if !strings.Contains(log, out) || !strings.Contains(log, "no space left on device") || !strings.Contains(log, "stopping the run") {
		t.Errorf("the error does not say which directory is full and why:\n%s", log)
	}
	if failLine.MatchString(log) || strings.Contains(log, "context canceled") {
		t.Errorf("the stop reads as a failed check or an interruption:\n%s", log)
	}
	// It stopped: the last scenarios never ran.
	if strings.Contains(log, "input_bindings") {
		t.Errorf("the run went on measuring after its results could no longer be written:\n%s", log)
	}
	wholeLines(t, out)
	printed := regexp.MustCompile(`(?m)^xs/sqlite +\w+ +.*read`).FindAllString(log, -1)
	unfill()
	run, err := results.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Timings) == 0 || len(run.Timings) > len(printed) {
		t.Errorf("timings.csv holds %d rows, %d were printed", len(run.Timings), len(printed))
	}
	if code, stdout, stderr := runT(t, "report", out); code != exitOK {
		t.Errorf("report on the directory of the stopped run: exit %d\n%s%s", code, stdout, stderr)
	}
	_, wait := startCLI(t, nil, args, nil)
	if code, log := wait(); code != exitOK {
		t.Fatalf("the rerun with space again: exit %d\n%s", code, log)
	}
	wholeLines(t, out)
}

// TestFullDataDisk: the data directory's file system fills up during the
// load of an embedded store. The run stops with an error naming the
// directory and saying the disk is full, exits non-zero, and leaves a
// store the next run recognises as its own and reloads.
func TestFullDataDisk(t *testing.T) {
	if testing.Short() {
		t.Skip("runs apply")
	}
	for _, backend := range []string{"sqlite", "duckdb"} {
		t.Run(backend, func(t *testing.T) {
			// Room for the admission check's estimate (about 19 MiB for
			// SQLite at xs), filled once the load starts.
			data := mountTmpfs(t, 40<<20)
			dir := t.TempDir()
			override := filepath.Join(dir, "full_override.hcl")
			if err := os.WriteFile(override, []byte(fullDiskOverride), 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "out")
			args := []string{"apply", quickstart, override, "-var", `backends=["` + backend + `"]`, "-var", "data_dir=" + data, "-data", data, "-o", out}
			code, log, unfill := applyFilling(t, args, data, regexp.MustCompile(`: loading [0-9,]+ datoms`))
			defer unfill()
			t.Logf("the run on a full disk:\n%s", log)
			noCrash(t, log)
			if code != exitUnfinished {
				t.Fatalf("exit %d on a full data disk, want %d:\n%s", code, exitUnfinished, log)
			}
			if !strings.Contains(log, "the data directory "+data+" is full") || !strings.Contains(log, "no space left on device") {
				t.Errorf("the error does not say which directory is full and why:\n%s", log)
			}
			wholeLines(t, out)
			unfill()
			_, wait := startCLI(t, nil, args, nil)
			code, log = wait()
			if code != exitOK {
				t.Fatalf("the rerun with space again: exit %d\n%s", code, log)
			}
			if strings.Contains(log, "not created by") {
				t.Errorf("the rerun refused the store the full disk cut short:\n%s", log)
			}
		})
	}
}
