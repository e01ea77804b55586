package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

// fsizeEnv, in a child started as the CLI, sets its RLIMIT_FSIZE: a write
// past that many bytes fails with EFBIG ("file too large"), as a full disk
// would with ENOSPC, and without mounting anything.
const fsizeEnv = "MENTAT_SPEC_TEST_FSIZE"

func init() {
	if os.Getenv(asCLI) != "1" || os.Getenv(fsizeEnv) == "" {
		return
	}
	n, err := strconv.ParseUint(os.Getenv(fsizeEnv), 10, 64)
	if err == nil {
		err = syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: n, Max: n})
	}
	if err != nil {
		os.Stderr.WriteString("setting RLIMIT_FSIZE: " + err.Error() + "\n")
		os.Exit(3)
	}
}

// TestResultsFileTooLarge: a rerun into a results directory whose files
// can no longer grow (a file size limit) fails with the file's path and
// the cause in words, exits non-zero, and leaves what the first run wrote
// byte for byte: the cut write is taken back, no line is torn, and report
// reads the directory.
func TestResultsFileTooLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("runs apply")
	}
	dir := t.TempDir()
	override := filepath.Join(dir, "full_override.hcl")
	if err := os.WriteFile(override, []byte(fullDiskOverride), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	args := []string{"apply", quickstart, override, "-var", `scenarios=["point_lookup"]`, "-var", "data_dir=" + filepath.Join(dir, "data"), "-data", filepath.Join(dir, "data"), "-o", out}
	_, wait := startCLI(t, nil, args, nil)
	if code, log := wait(); code != exitOK {
		t.Fatalf("first run: exit %d\n%s", code, log)
	}
	before := map[string][]byte{}
	for _, name := range []string{results.EnvFile, results.TimingsFile, results.RawFile, results.ChecksFile, results.LoadsFile} {
		b, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		before[name] = b
	}
	// The rerun's first write, its env.txt section, passes the limit.
	limit := len(before[results.EnvFile]) + 64
	_, wait = startCLI(t, []string{fsizeEnv + "=" + strconv.Itoa(limit)}, args, nil)
	code, log := wait()
	noCrash(t, log)
	if code != exitUnfinished {
		t.Fatalf("exit %d with files that cannot grow, want %d:\n%s", code, exitUnfinished, log)
	}
	if !strings.Contains(log, filepath.Join(out, results.EnvFile)) || !strings.Contains(log, "file too large") {
		t.Errorf("the error does not name the file and the cause:\n%s", log)
	}
	for name, b := range before {
		after, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		if string(after) != string(b) {
			t.Errorf("%s changed: %d bytes, were %d", name, len(after), len(b))
		}
	}
	wholeLines(t, out)
	if code, stdout, stderr := runT(t, "report", out); code != exitOK {
		t.Errorf("report: exit %d\n%s%s", code, stdout, stderr)
	}
}
