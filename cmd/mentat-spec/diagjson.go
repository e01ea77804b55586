package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/redact"
)

// JSONDiagnostic is one diagnostic of validate -json and plan -json:
//
//	{"severity": "error"|"warning", "summary": "...", "detail": "...",
//	 "file": "spec.hcl", "line": 12, "column": 5, "end_line": 12, "end_column": 9}
//
// Lines and columns count from 1; file, line and column are absent for a
// diagnostic that has no place in a file (a bad -var, say).
type JSONDiagnostic struct {
	Severity  string `json:"severity"`
	Summary   string `json:"summary"`
	Detail    string `json:"detail,omitempty"`
	File      string `json:"file,omitempty"`
	Line      int    `json:"line,omitempty"`
	Column    int    `json:"column,omitempty"`
	EndLine   int    `json:"end_line,omitempty"`
	EndColumn int    `json:"end_column,omitempty"`
}

// JSONResult is the whole output of validate -json, and the start of
// plan -json's (PlanJSON): valid is false when any diagnostic is an
// error.
type JSONResult struct {
	FormatVersion string           `json:"format_version"`
	Valid         bool             `json:"valid"`
	ErrorCount    int              `json:"error_count"`
	WarningCount  int              `json:"warning_count"`
	Diagnostics   []JSONDiagnostic `json:"diagnostics"`
}

func jsonResult(spec *config.Spec, diags hcl.Diagnostics) JSONResult {
	res := JSONResult{FormatVersion: "1.0", Diagnostics: []JSONDiagnostic{}}
	for _, d := range hintDiags(spec, hideSensitive(spec, sortDiags(explainDiags(diags)))) {
		jd := JSONDiagnostic{Severity: "error", Summary: d.Summary, Detail: d.Detail}
		if d.Severity == hcl.DiagWarning {
			jd.Severity = "warning"
			res.WarningCount++
		} else {
			res.ErrorCount++
		}
		if r := d.Subject; r != nil {
			jd.File, jd.Line, jd.Column, jd.EndLine, jd.EndColumn = r.Filename, r.Start.Line, r.Start.Column, r.End.Line, r.End.Column
		}
		res.Diagnostics = append(res.Diagnostics, jd)
	}
	res.Valid = res.ErrorCount == 0
	return res
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// explainDiags adds what the fix needs to diagnostics that lack it: for a
// call to an unknown function, the one meant when a name is near (a
// misspelt chooser), else the functions that exist.
func explainDiags(diags hcl.Diagnostics) hcl.Diagnostics {
	out := make(hcl.Diagnostics, len(diags))
	for i, d := range diags {
		out[i] = d
		if d.Summary != "Call to unknown function" || d.EvalContext == nil || strings.Contains(d.Detail, "Available functions:") || strings.Contains(d.Detail, "Did you mean") {
			continue
		}
		var names []string
		for ctx := d.EvalContext; ctx != nil; ctx = ctx.Parent() {
			for n := range ctx.Functions {
				if !slices.Contains(names, n) {
					names = append(names, n)
				}
			}
		}
		if len(names) == 0 {
			continue
		}
		slices.Sort(names)
		c := *d
		if name, ok := quotedAfter(d.Detail, "no function named "); ok && closest(name, names) != "" {
			c.Detail = strings.TrimSpace(d.Detail + fmt.Sprintf(" Did you mean %q?", closest(name, names)))
		} else {
			c.Detail = strings.TrimSpace(d.Detail + " Available functions: " + strings.Join(names, ", ") + ".")
		}
		out[i] = &c
	}
	return out
}

// noColor is set by -no-color (run strips it from any position).
var noColor atomic.Bool

// colorFor reports whether output to w may use color: w is a terminal,
// neither -no-color nor NO_COLOR is set, and TERM is not "dumb".
func colorFor(w io.Writer) bool {
	if noColor.Load() || os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false
	}
	f, ok := redact.File(w)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// paint wraps s in an ANSI color when color is on.
func paint(on bool, code, s string) string {
	if !on {
		return s
	}
	return fmt.Sprintf("\x1b[%sm%s\x1b[0m", code, s)
}

// stripNoColor removes -no-color/--no-color from args and reports whether
// it was there.
func stripNoColor(args []string) ([]string, bool) {
	var out []string
	found := false
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...), found
		}
		if a == "-no-color" || a == "--no-color" || a == "-no-color=true" || a == "--no-color=true" {
			found = true
			continue
		}
		out = append(out, a)
	}
	return out, found
}
