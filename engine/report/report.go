package report

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mentat-spec/mentat-spec/engine/redact"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// Names of the files the formats write in a results directory, beside
// results.SummaryFile.
const (
	ReportHTMLFile = "report.html"
	JSONFile       = "results.json"
)

// Format is one report every results directory gets: a name, the file it
// writes there, a one-line description for the help, and how it renders
// a loaded run.
type Format struct {
	Name        string
	File        string
	Description string
	Render      func(*results.Run, io.Writer) error
}

// The formats every run gets, in the order they are offered: the page a
// person opens first, the Markdown, the data. A new format is one
// Register line.
func init() {
	Register(Format{Name: "html", File: ReportHTMLFile, Description: "one self-contained page: charts, checks, every table", Render: HTML})
	Register(Format{Name: "summary", File: results.SummaryFile, Description: "Markdown: overview, findings.md, settings, one table per scenario, checks", Render: SummaryMD})
	Register(Format{Name: "json", File: JSONFile, Description: "every row typed, for other tools", Render: JSON})
}

var formats []Format

// Register adds f to the formats every run and the report command write.
// A second format with the same name or file is a programming error: it
// panics, at init.
func Register(f Format) {
	if f.Name == "" || f.File == "" || f.Render == nil {
		panic(fmt.Sprintf("report: format %+v lacks a name, file or renderer", f))
	}
	for _, g := range formats {
		if g.Name == f.Name || g.File == f.File {
			panic(fmt.Sprintf("report: format %s (%s) registered twice", f.Name, f.File))
		}
	}
	formats = append(formats, f)
}

// Formats returns the registered formats in the order they were
// registered.
func Formats() []Format { return append([]Format(nil), formats...) }

// Files names the files of the registered formats, in order.
func Files() []string {
	out := make([]string, len(formats))
	for i, f := range formats {
		out[i] = f.File
	}
	return out
}

// FileList names the files of the registered formats as a sentence does:
// "report.html, summary.md and results.json".
func FileList() string {
	fs := Files()
	if len(fs) < 2 {
		return strings.Join(fs, "")
	}
	return strings.Join(fs[:len(fs)-1], ", ") + " and " + fs[len(fs)-1]
}

// WriteAll regenerates the file of every registered format of dir from
// dir's files: it loads dir once and replaces each file whole (written
// aside, then renamed) so a reader never sees half.
func WriteAll(dir string) error {
	r, err := results.Load(dir)
	if err != nil {
		return err
	}
	for _, f := range formats {
		var b bytes.Buffer
		if err := f.Render(r, &b); err != nil {
			return fmt.Errorf("report: %s: %w", f.File, err)
		}
		tmp := filepath.Join(dir, "."+f.File+".tmp")
		if err := redact.WriteFile(tmp, b.Bytes(), 0o644); err != nil {
			return fmt.Errorf("report: write %s: %w", f.File, err)
		}
		if err := os.Rename(tmp, filepath.Join(dir, f.File)); err != nil {
			return fmt.Errorf("report: write %s: %w", f.File, err)
		}
	}
	return nil
}
