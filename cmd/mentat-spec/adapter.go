package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/mentat-spec/mentat-spec/drivers/adapter"
)

// runAdapter is `mentat-spec adapter test [flags] -- COMMAND...`: the
// adapter protocol's conformance test against a team's own adapter.
func runAdapter(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("adapter", "test [-path FILE] [-env NAME=value]... [-dir DIR] [-no-sql] [-timeout 10s] -- COMMAND [ARG...]",
		"Starts COMMAND as the engine starts a backend's adapter and checks it against the adapter protocol (docs/adapter-protocol.md): hello and its version, open of a new store, typed values both ways, a count-only call, errors and a session usable after one, transactions and load where hello declares them, close. One line per check: PASS, FAIL with what was expected and what came back (with the adapter's last stderr lines when it broke), or SKIP with why. Exit 0 when every check passes, 1 when one fails, 7 when the adapter could not be started.", stderr)
	path := fs.String("path", "", "the store the test creates (default: a new file in a temporary directory, removed afterwards); it must not exist")
	dir := fs.String("dir", "", "the adapter's working directory")
	noSQL := fs.Bool("no-sql", false, "check the protocol only: skip the checks that run portable SQL (CREATE TABLE, SELECT ?, INSERT)")
	timeout := fs.Duration("timeout", 10*time.Second, "how long each request may take")
	var env repeated
	fs.Var(&env, "env", "NAME=value added to the adapter's environment (repeatable)")
	if len(args) == 0 || args[0] != "test" {
		if len(args) > 0 {
			if h := strings.TrimLeft(args[0], "-"); h == "help" || h == "h" {
				fs.Usage()
				return exitOK
			}
		}
		fs.Usage()
		return exitUsage
	}
	args = args[1:]
	var argv []string
	if i := slices.Index(args, "--"); i >= 0 {
		args, argv = args[:i], args[i+1:]
	}
	pos, code, ok := parseOrExit(fs, args)
	if !ok {
		return code
	}
	if len(argv) == 0 {
		argv = pos
	} else if len(pos) > 0 {
		fmt.Fprintf(stderr, "mentat-spec adapter test: %q before --: the command goes after --\n", pos[0])
		return exitUsage
	}
	if len(argv) == 0 {
		fs.Usage()
		return exitUsage
	}
	for _, e := range env {
		if n, _, ok := strings.Cut(e, "="); !ok || n == "" {
			fmt.Fprintf(stderr, "mentat-spec adapter test: -env %q: want NAME=value\n", e)
			return exitUsage
		}
	}
	ctx, cancel := signalContext()
	defer cancel()
	fmt.Fprintf(stdout, "adapter test: %s\n", strings.Join(argv, " "))
	failed, err := adapter.Conformance(ctx, adapter.ConformanceOptions{Argv: argv, Env: env, Dir: *dir, Path: *path, NoSQL: *noSQL, Timeout: *timeout}, stdout)
	if err != nil {
		fmt.Fprintf(stderr, "mentat-spec adapter test: %v\n", err)
		return exitUnfinished
	}
	if failed > 0 {
		fmt.Fprintf(stdout, "%d check(s) FAILED: see docs/adapter-protocol.md\n", failed)
		return exitCheck
	}
	fmt.Fprintln(stdout, "every check passed")
	return exitOK
}
