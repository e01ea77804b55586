package main

import (
	"errors"
	"flag"
	"fmt"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/resolve"
	"io"
	"runtime"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/drivers"
	_ "github.com/mentat-spec/mentat-spec/drivers/all"
	"github.com/mentat-spec/mentat-spec/engine/config"
	_ "github.com/mentat-spec/mentat-spec/engine/kinds/all" // registers the drivers
)

// varFlags collects -var and -var-file in command-line order.
type varFlags struct{ args *[]config.VarArg }

type varFlag struct{ varFlags }
type varFileFlag struct{ varFlags }

func (f varFlag) String() string { return "" }
func (f varFlag) Set(s string) error {
	name, value, ok := strings.Cut(s, "=")
	if !ok || strings.TrimSpace(name) == "" {
		return fmt.Errorf("want -var name=value, got %q", s)
	}
	*f.args = append(*f.args, config.VarArg{Name: strings.TrimSpace(name), Value: value})
	return nil
}
func (f varFileFlag) String() string { return "" }
func (f varFileFlag) Set(s string) error {
	*f.args = append(*f.args, config.VarArg{File: s})
	return nil
}

// specFlags are the flags every spec-reading command takes.
type specFlags struct {
	vars []config.VarArg
}

func (sf *specFlags) register(fs *flag.FlagSet) {
	fs.Var(varFlag{varFlags{&sf.vars}}, "var", "set a variable: -var 'name=value' (repeatable; HCL syntax for non-strings)")
	fs.Var(varFileFlag{varFlags{&sf.vars}}, "var-file", "read variables from an HCL or JSON file (repeatable)")
}

// parseInterspersed parses flags anywhere among the positional arguments,
// as Terraform users expect (`apply spec.hcl -var x=1`). Go's flag package
// accepts both -flag and --flag.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if rest[0] == "--" {
			return append(pos, rest[1:]...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

func newFlagSet(name, argsUsage, help string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: mentat-spec %s %s\n\n%s\n\nFlags:\n", name, argsUsage, help)
		fs.PrintDefaults()
	}
	return fs
}

// parseOrExit parses args; it returns the exit code to use when parsing
// ends the command (-help: 0; a bad flag: 2).
func parseOrExit(fs *flag.FlagSet, args []string) ([]string, int, bool) {
	pos, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return nil, exitOK, false
	}
	if err != nil {
		suggestFlag(fs, err, fs.Output())
		return nil, exitUsage, false
	}
	return pos, 0, true
}

// loadSpec loads and validates the spec at paths, printing diagnostics.
func loadSpec(paths []string, sf *specFlags, stderr io.Writer) (*config.Spec, bool) {
	spec, diags := checkSpec(paths, sf)
	printDiags(stderr, spec, diags)
	return spec, !diags.HasErrors()
}

// checkSpec loads and validates the spec at paths.
func checkSpec(paths []string, sf *specFlags) (*config.Spec, hcl.Diagnostics) {
	spec, diags := config.Load(paths, config.Options{Vars: sf.vars})
	if !diags.HasErrors() {
		diags = append(diags, resolve.Validate(spec, plan.Drivers(drivers.Default))...)
	}
	return spec, diags
}

// printDiags writes diagnostics in file order, each with its source
// snippet, then one "file:line:col: summary" line per error.
func printDiags(w io.Writer, spec *config.Spec, diags hcl.Diagnostics) {
	if len(diags) == 0 {
		return
	}
	var files map[string]*hcl.File
	if spec != nil && spec.Parser != nil {
		files = spec.Parser.Files()
	}
	writeDiags(w, files, hintDiags(spec, hideSensitive(spec, diags)))
}

// writeDiags prints diags with the source lines of files.
func writeDiags(w io.Writer, files map[string]*hcl.File, diags hcl.Diagnostics) {
	diags = sortDiags(explainDiags(diags))
	color := colorFor(w)
	tw := hcl.NewDiagnosticTextWriter(w, files, 100, color)
	_ = tw.WriteDiagnostics(diags)
	var errs []string
	for _, d := range diags {
		if d.Severity != hcl.DiagError {
			continue
		}
		where := ""
		if d.Subject != nil {
			where = fmt.Sprintf("%s:%d:%d: ", d.Subject.Filename, d.Subject.Start.Line, d.Subject.Start.Column)
		}
		errs = append(errs, "  "+where+d.Summary)
	}
	if len(errs) > 0 {
		fmt.Fprintf(w, "%s\n%s\n", paint(color, "1;31", fmt.Sprintf("%d error(s):", len(errs))), strings.Join(errs, "\n"))
	}
}

// sortDiags orders diagnostics by position (those without one first, in
// the order found), so the output reads top to bottom and is the same on
// every run although some are found in map order.
func sortDiags(diags hcl.Diagnostics) hcl.Diagnostics {
	out := append(hcl.Diagnostics(nil), diags...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Subject, out[j].Subject
		switch {
		case a == nil || b == nil:
			return a == nil && b != nil
		case a.Filename != b.Filename:
			return a.Filename < b.Filename
		case a.Start.Byte != b.Start.Byte:
			return a.Start.Byte < b.Start.Byte
		}
		return out[i].Summary+out[i].Detail < out[j].Summary+out[j].Detail
	})
	return out
}

// hideSensitive drops the evaluation context of diagnostics whose
// expression reads a sensitive variable, directly or through locals, so
// the text writer does not print its value ("with var.x as ...").
func hideSensitive(spec *config.Spec, diags hcl.Diagnostics) hcl.Diagnostics {
	if spec == nil {
		return diags
	}
	tainted := map[string]bool{}
	for name := range spec.SensitiveVariables() {
		tainted["var."+name] = true
	}
	if len(tainted) == 0 {
		return diags
	}
	reads := func(expr hcl.Expression) bool {
		for _, tr := range expr.Variables() {
			if rel := tr.SimpleSplit().Rel; len(rel) > 0 {
				if at, ok := rel[0].(hcl.TraverseAttr); ok && tainted[tr.RootName()+"."+at.Name] {
					return true
				}
			}
		}
		return false
	}
	for changed := true; changed; {
		changed = false
		for _, l := range spec.Locals {
			if !tainted["local."+l.Name] && reads(l.Expr) {
				tainted["local."+l.Name], changed = true, true
			}
		}
	}
	out := make(hcl.Diagnostics, len(diags))
	for i, d := range diags {
		out[i] = d
		if d.Expression != nil && d.EvalContext != nil && reads(d.Expression) {
			c := *d
			c.EvalContext = nil
			out[i] = &c
		}
	}
	return out
}

func workers() int { return runtime.GOMAXPROCS(0) }
