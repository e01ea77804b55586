package report_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/report"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// A new format is this file's one registration line and its renderer.
func init() {
	report.Register(report.Format{Name: "digest", File: "digest.txt", Description: "the number of points", Render: digest})
}

func digest(r *results.Run, w io.Writer) error {
	_, err := fmt.Fprintf(w, "%s: %d points\n", r.Name, len(r.Points()))
	return err
}

// The registered format is written by the path every run takes and
// listed wherever the formats are.
func TestRegisteredFormat(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
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
	if err := report.WriteAll(dir); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "digest.txt")); err != nil || string(b) != "run: 1 points\n" {
		t.Errorf("digest.txt: %q, %v", b, err)
	}
	for _, f := range []string{report.ReportHTMLFile, results.SummaryFile, report.JSONFile} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("the shipped formats are not written beside it: %v", err)
		}
	}
	if got, want := report.FileList(), "report.html, summary.md, results.json and digest.txt"; got != want {
		t.Errorf("FileList %q, want %q", got, want)
	}
	var described bool
	for _, f := range report.Formats() {
		described = described || (f.File == "digest.txt" && f.Description == "the number of points")
	}
	if !described {
		t.Errorf("Formats lacks digest.txt: %+v", report.Formats())
	}
}

func TestRegisterRefusesDuplicates(t *testing.T) {
	for _, f := range []report.Format{
		{Name: "html", File: "other.html", Render: report.HTML},
		{Name: "other", File: report.JSONFile, Render: report.JSON},
		{Name: "", File: "x.txt", Render: report.JSON},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%s, %s) did not panic", f.Name, f.File)
				}
			}()
			report.Register(f)
		}()
	}
	if n := strings.Count(report.FileList(), "results.json"); n != 1 {
		t.Errorf("results.json listed %d times", n)
	}
}
