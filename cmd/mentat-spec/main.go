// Command mentat-spec runs declarative database scale benchmarks written in
// HCL. This package holds flags and exit codes only; the work is done by
// the engine packages.
package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/mentat-spec/mentat-spec/engine/buildinfo"
	"github.com/mentat-spec/mentat-spec/engine/redact"
	"github.com/mentat-spec/mentat-spec/engine/report"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

var commands = map[string]command{
	"validate": {"Check a spec and print every error with its file:line:col", runValidate},
	"plan":     {"Print the expanded matrix in run order; touches no database", runPlan},
	"gen":      {"Write a scale's dataset (CSV, optional EDN) and its truth (JSON) to a directory", runGen},
	"apply":    {"Run the benchmark: load, measure, check, write a results directory", runApply},
	"report":   {"Regenerate " + report.FileList() + " of a results directory", runReport},
	"fmt":      {"Rewrite .hcl files in the canonical layout (-check: exit 1 if one would change)", runFmt},
	"compare":  {"Compare two results directories and flag regressions", runCompare},
	"history":  {"Keep every run in a history, draw its trends and find its change points (add, ls, rm, report, check)", runHistory},
	"version":  {"Print the version", runVersion},
	"export":   {"Write what runs the spec elsewhere: export k8s prints the workers' Kubernetes Jobs as JSON", runExport},
	"worker":   {"Run one point's clients for a coordinator (started by apply; docs/worker-protocol.md)", runWorker},
	"adapter":  {"Check an adapter program against the adapter protocol: adapter test -- COMMAND... (docs/adapter-protocol.md)", runAdapter},
}

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	args, off := stripNoColor(args)
	noColor.Store(off)
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	name := strings.TrimLeft(args[0], "-")
	if name == "help" || name == "h" {
		return help(args[1:], stdout, stderr)
	}
	cmd, ok := commands[name]
	if !ok {
		fmt.Fprintf(stderr, "mentat-spec: unknown command %q\n", args[0])
		if c := closest(name, commandNames()); c != "" {
			fmt.Fprintf(stderr, "Did you mean %q?\n", c)
		}
		fmt.Fprintln(stderr)
		usage(stderr)
		return exitUsage
	}
	// Everything a command prints passes the redactor: the values of
	// sensitive variables, registered as the spec loads, never reach the
	// console. A worker's stdout is its protocol stream, not text.
	errW := redact.NewWriter(stderr)
	defer errW.Flush()
	if name != "worker" {
		outW := redact.NewWriter(stdout)
		defer outW.Flush()
		stdout = outW
	}
	return cmd.run(args[1:], stdout, errW)
}

// help prints the commands, or with a command's name that command's
// usage and flags, on stdout.
func help(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stdout)
		return exitOK
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "mentat-spec help: unknown command %q\n", args[0])
		if c := closest(args[0], commandNames()); c != "" {
			fmt.Fprintf(stderr, "Did you mean %q?\n", c)
		}
		return exitUsage
	}
	cmd.run([]string{"-help"}, stdout, stdout)
	return exitOK
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "Usage: mentat-spec <command> [arguments]")
	fmt.Fprintln(w, "\nCommands:")
	for _, n := range commandNames() {
		fmt.Fprintf(w, "  %-9s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'mentat-spec help <command>' for a command's flags. Every command takes -no-color (color is used on terminals only).")
	fmt.Fprintln(w, "Exit codes: "+exitSummary+".")
}

func runVersion(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("version", "[-json]", "Prints the version and the source revision it was built from.", stderr)
	asJSON := fs.Bool("json", false, `print {"version", "revision", "go"} as JSON`)
	if _, code, ok := parseOrExit(fs, args); !ok {
		return code
	}
	if *asJSON {
		if err := writeJSON(stdout, map[string]string{"version": version, "revision": buildinfo.Describe(), "go": runtime.Version()}); err != nil {
			fmt.Fprintf(stderr, "mentat-spec version: %v\n", err)
			return exitUnfinished
		}
		return exitOK
	}
	fmt.Fprintf(stdout, "mentat-spec %s (revision %s)\n", version, buildinfo.Describe())
	return exitOK
}

// versionFact is env.txt's mentat_spec_version with where it came from.
func versionFact() string {
	if version == "dev" {
		return "dev (no version stamped with -ldflags: built by go build or go install rather than make; see mentat_spec_revision)"
	}
	return version + " (from -ldflags at build)"
}
