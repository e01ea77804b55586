package report

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// runFixture is the results directory the report tests render: the
// results package's example of every file.
var runFixture = filepath.Join("..", "results", "testdata", "report", "run1")

// fullXSFixture is a real run of specs/full.hcl at xs on two backends
// (point_lookup and a sweep over 1, 4 and 8 clients, 3 reps each, on a
// busy machine), trimmed to what report.html reads: its HDR logs,
// noise.csv, a plan and a load log.
var fullXSFixture = filepath.Join("testdata", "full-xs")

// fixtureRun copies the results directory src into a temporary directory whose
// measured files carry a fixed modification time, so reports that show
// the run's duration are the same on every checkout.
func fixtureRun(t *testing.T, src string, end time.Time) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if err := os.WriteFile(to, b, 0o644); err != nil {
			return err
		}
		return os.Chtimes(to, end, end)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

var fixtureEnd = time.Date(2026, 11, 30, 10, 4, 25, 0, time.UTC)
