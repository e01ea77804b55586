package main

import (
	"fmt"
	"io"

	"github.com/mentat-spec/mentat-spec/cmd/mentat-spec/internal/historycmd"
	"github.com/mentat-spec/mentat-spec/engine/changepoint"
	"github.com/mentat-spec/mentat-spec/engine/history"
	"github.com/mentat-spec/mentat-spec/engine/redact"
)

const historyHelp = `Keeps every run in one SQLite file, or a PostgreSQL database a team shares, and finds where each
series changed (docs/history.md).

  -db is a file (default results/history.db) or postgres://USER@HOST/DB; without -db, $MENTAT_SPEC_HISTORY_DB
  (keep a URL with a password there, or the password in PGPASSWORD: a command line is in the process list)

  history add DIR...          import results directories (adding one twice changes nothing)
  history ls                  list the runs, oldest first
  history rm RUN...           remove runs (RUN: an id, a unique id prefix, a run name or a results directory)
  history report -o FILE      write trends.html: every series with its change points
  history report -markdown    print the change points as markdown, for a pull request comment
  history check RUN           exit 5 when RUN is the first run of a regression change point
  history export DEST         copy every run into another history (a file or a URL)
  history import SRC          copy every run of another history (a file or a URL) into this one`

func runHistory(args []string, stdout, stderr io.Writer) int {
	// Whatever the command writes passes redaction: a URL's password is
	// registered when the store opens, and a driver's error quoting it
	// is printed without it.
	rout, rerr := redact.NewWriter(stdout), redact.NewWriter(stderr)
	defer rout.Flush()
	defer rerr.Flush()
	stdout, stderr = rout, rerr
	fs := newFlagSet("history", "add|ls|rm|report|check|export|import [-db FILE|URL] [ARGS]", historyHelp, stderr)
	db := fs.String("db", "", "the history: a SQLite file (created when absent) or a postgres:// URL (default $"+history.EnvVar+", else "+history.DefaultPath+")")
	maxP := fs.Float64("max-p", 0.001, "the p-value a change point must reach (after the re-check against its neighbours)")
	out := fs.String("o", "", "report: the HTML file to write (trends.html)")
	markdown := fs.Bool("markdown", false, "report: print markdown on stdout instead of HTML")
	pos, code, ok := parseOrExit(fs, args)
	if !ok {
		return code
	}
	if len(pos) == 0 {
		fs.Usage()
		return exitUsage
	}
	sub, ok := historycmd.Subcommands[pos[0]]
	if !ok {
		fmt.Fprintf(stderr, "mentat-spec history: unknown subcommand %q (add, ls, rm, report, check, export, import)\n", pos[0])
		return exitUsage
	}
	if !(*maxP > 0 && *maxP < 1) {
		fmt.Fprintf(stderr, "mentat-spec history: -max-p %g: want a p-value between 0 and 1\n", *maxP)
		return exitUsage
	}
	loc := history.Locate(*db)
	if *db != "" && history.Password(*db) != "" {
		fmt.Fprintf(stderr, "mentat-spec history: warning: -db carries a password, which the process list shows: put the URL in $%s, or the password in PGPASSWORD\n", history.EnvVar)
	}
	st, err := history.Open(loc)
	if err != nil {
		fmt.Fprintf(stderr, "mentat-spec history: %v\n", err)
		return exitUnfinished
	}
	defer st.Close()
	return sub(st, historycmd.Flags{Opt: changepoint.Options{MaxP: *maxP}, Out: *out, Markdown: *markdown}, pos[1:], stdout, stderr)
}
