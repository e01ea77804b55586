package journal

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func appendFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A resume cuts every results file back to the last record, keeps what
// it cut under interrupted/, moves files born after it there whole, and
// knows the recorded points and checks; a torn last record is ignored.
func TestResumeCutsBackToTheLastRecord(t *testing.T) {
	root := t.TempDir()
	timings := filepath.Join(root, "timings.csv")
	appendFile(t, timings, "header\n")
	j, err := Start(root, "d1", nil)
	if err != nil {
		t.Fatal(err)
	}
	appendFile(t, timings, "point 0\n")
	appendFile(t, filepath.Join(root, "hdr", "a.hlog"), "hist 0\n")
	if err := j.Point("xs", "sqlite", "lookup", 0); err != nil {
		t.Fatal(err)
	}
	if err := j.Check("xs", "sqlite", "lookup"); err != nil {
		t.Fatal(err)
	}
	appendFile(t, timings, "point 1, cut short\n")
	appendFile(t, filepath.Join(root, "hdr", "b.hlog"), "hist 1\n")
	j.Close()
	appendFile(t, filepath.Join(root, File), "point\txs\tsqlite\tlookup\t1\ttimings.csv=9") // torn by a crash

	r, err := Resume(root, "d1")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := read(t, timings); got != "header\npoint 0\n" {
		t.Errorf("timings.csv after the resume: %q", got)
	}
	if got := read(t, filepath.Join(root, interruptedDir, "timings.csv")); got != "point 1, cut short\n" {
		t.Errorf("the cut rows kept: %q", got)
	}
	if _, err := os.Stat(filepath.Join(root, "hdr", "b.hlog")); !os.IsNotExist(err) {
		t.Errorf("a file born after the last record stayed: %v", err)
	}
	if got := read(t, filepath.Join(root, interruptedDir, "hdr", "b.hlog")); got != "hist 1\n" {
		t.Errorf("the moved file: %q", got)
	}
	if !r.HasPoint("xs", "sqlite", "lookup", 0) || r.HasPoint("xs", "sqlite", "lookup", 1) || !r.HasCheck("xs", "sqlite", "lookup") || !r.ResumedCell("xs/sqlite") {
		t.Error("the records read back are not the ones written")
	}
	if strings.Contains(read(t, filepath.Join(root, File)), "\tlookup\t1\t") {
		t.Error("the torn record was kept")
	}
	if _, err := Resume(root, "d2"); err == nil || !strings.Contains(err.Error(), "not the one of the run") {
		t.Errorf("a resume of another plan: %v", err)
	}
	if _, err := Resume(t.TempDir(), "d1"); err == nil || !strings.Contains(err.Error(), "no record of an interrupted run") {
		t.Errorf("a resume with no journal: %v", err)
	}
	var none *Journal
	if none.HasPoint("xs", "sqlite", "lookup", 0) || none.Point("xs", "sqlite", "lookup", 0) != nil {
		t.Error("a nil journal recorded something")
	}
}

// A file shorter than recorded was changed by someone else: nothing is
// cut then.
func TestResumeRefusesAChangedFile(t *testing.T) {
	root := t.TempDir()
	timings := filepath.Join(root, "timings.csv")
	appendFile(t, timings, "header\npoint 0\n")
	j, err := Start(root, "d", nil)
	if err != nil {
		t.Fatal(err)
	}
	j.Close()
	if err := os.WriteFile(timings, []byte("h\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Resume(root, "d"); err == nil || !strings.Contains(err.Error(), "changed since") {
		t.Errorf("resume over a shortened file: %v", err)
	}
}
