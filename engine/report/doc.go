// Package report renders a loaded results directory (results.Run) into
// the files a person reads: report.html (HTML: self-contained, SVG charts
// drawn by package chart), summary.md (SummaryMD; a hand-written
// findings.md follows its overview) and results.json (JSON: every row
// typed). Each is a Format registered with one line; WriteAll, called at
// the end of a run and by the report command, writes every registered
// format from the directory's files alone, and the command line lists the
// formats from the same registry.
package report
