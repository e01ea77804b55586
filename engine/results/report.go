package results

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Names of the files the reporters write in a results directory.
const (
	ReportHTMLFile = "report.html"
	JSONFile       = "results.json"
)

// Reporter renders a loaded results directory.
type Reporter func(*Run, io.Writer) error

// ReportFile is a reporter and the file it writes in the results directory.
type ReportFile struct {
	File   string
	Render Reporter
}

// Reports returns the reports every run gets: summary.md, report.html and
// results.json.
func Reports() []ReportFile {
	return []ReportFile{{SummaryFile, SummaryMD}, {ReportHTMLFile, HTML}, {JSONFile, JSON}}
}

// WriteSummary regenerates every report of dir (Reports) from its files.
func WriteSummary(dir string) error {
	return WriteReports(dir, Reports()...)
}

// WriteReports loads dir once and writes each report's file, replacing
// it whole (written aside, then renamed) so a reader never sees half.
func WriteReports(dir string, reports ...ReportFile) error {
	r, err := Load(dir)
	if err != nil {
		return err
	}
	for _, rep := range reports {
		var b bytes.Buffer
		if err := rep.Render(r, &b); err != nil {
			return fmt.Errorf("results: %s: %w", rep.File, err)
		}
		tmp := filepath.Join(dir, "."+rep.File+".tmp")
		if err := os.WriteFile(tmp, b.Bytes(), 0o644); err != nil {
			return fmt.Errorf("results: write %s: %w", rep.File, err)
		}
		if err := os.Rename(tmp, filepath.Join(dir, rep.File)); err != nil {
			return fmt.Errorf("results: write %s: %w", rep.File, err)
		}
	}
	return nil
}
