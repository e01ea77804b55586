package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"text/tabwriter"

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

// historyFlags are the history command's flags; they may stand anywhere
// on the line, before or after the subcommand.
type historyFlags struct {
	opt      changepoint.Options
	out      string
	markdown bool
}

// historySubcommands are history's own commands.
var historySubcommands = map[string]func(st *history.Store, hf historyFlags, args []string, stdout, stderr io.Writer) int{
	"add":    historyAdd,
	"ls":     historyLs,
	"rm":     historyRm,
	"report": historyReport,
	"check":  historyCheck,
	"export": historyExport,
	"import": historyImport,
}

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
	sub, ok := historySubcommands[pos[0]]
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
	return sub(st, historyFlags{opt: changepoint.Options{MaxP: *maxP}, out: *out, markdown: *markdown}, pos[1:], stdout, stderr)
}

func historyAdd(st *history.Store, _ historyFlags, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "mentat-spec history add: name the results directories to import")
		return exitUsage
	}
	code := exitOK
	for _, dir := range args {
		r, added, err := st.Add(dir)
		switch {
		case err != nil:
			fmt.Fprintf(stderr, "mentat-spec history add: %v\n", err)
			code = exitUnfinished
		case added:
			fmt.Fprintf(stdout, "added %s %s (%d points, revision %s)\n", r.ID, r.Name, r.Points, orDash(r.Revision))
		default:
			fmt.Fprintf(stdout, "already in the history: %s %s\n", r.ID, r.Name)
		}
	}
	return code
}

func orDash(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

func historyLs(st *history.Store, _ historyFlags, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintf(stderr, "mentat-spec history ls: takes no arguments, got %q\n", args)
		return exitUsage
	}
	runs, err := st.Runs()
	if err != nil {
		fmt.Fprintf(stderr, "mentat-spec history ls: %v\n", err)
		return exitUnfinished
	}
	if len(runs) == 0 {
		fmt.Fprintf(stdout, "%s holds no run: mentat-spec history add DIR\n", st.Path())
		return exitOK
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tSTARTED\tREVISION\tPOINTS\tCHECKS\tMACHINE")
	for _, r := range runs {
		rev := r.Revision
		if len(rev) > 12 && !strings.Contains(rev[:12], " ") {
			rev = rev[:12] + rev[strings.IndexByte(rev+" ", ' '):]
		}
		checks := fmt.Sprintf("%d pass", r.Checks.Pass)
		if r.Checks.Fail > 0 {
			checks += fmt.Sprintf(", %d FAIL", r.Checks.Fail)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\n", r.ID, r.Name, r.Started.Format("2006-01-02 15:04Z"), orDash(rev), r.Points, checks, r.Machine)
	}
	if err := tw.Flush(); err != nil {
		return exitUnfinished
	}
	return exitOK
}

func historyRm(st *history.Store, _ historyFlags, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "mentat-spec history rm: name the runs to remove")
		return exitUsage
	}
	code := exitOK
	for _, ref := range args {
		r, err := st.Find(ref)
		if err == nil {
			err = st.Remove(r.ID)
		}
		if err != nil {
			fmt.Fprintf(stderr, "mentat-spec history rm: %v\n", err)
			code = exitUsage
			continue
		}
		fmt.Fprintf(stdout, "removed %s %s\n", r.ID, r.Name)
	}
	return code
}

func historyReport(st *history.Store, hf historyFlags, args []string, stdout, stderr io.Writer) int {
	out, markdown := &hf.out, &hf.markdown
	if len(args) > 0 {
		fmt.Fprintf(stderr, "mentat-spec history report: takes no arguments, got %q\n", args)
		return exitUsage
	}
	if *out == "" && !*markdown {
		fmt.Fprintln(stderr, "mentat-spec history report: say where: -o trends.html, or -markdown")
		return exitUsage
	}
	a, err := st.Analyze(hf.opt)
	if err != nil {
		fmt.Fprintf(stderr, "mentat-spec history report: %v\n", err)
		return exitUnfinished
	}
	if *markdown {
		if err := a.Markdown(stdout); err != nil {
			fmt.Fprintf(stderr, "mentat-spec history report: %v\n", err)
			return exitUnfinished
		}
	}
	if *out != "" {
		if err := writeFileAtomic(*out, a.HTML); err != nil {
			fmt.Fprintf(stderr, "mentat-spec history report: %v\n", err)
			return exitUnfinished
		}
		fmt.Fprintf(stderr, "wrote %s (%d runs, %d series, %d change points)\n", *out, len(a.Runs), len(a.Series), len(a.Changes()))
	}
	return exitOK
}

// writeFileAtomic writes path through a temporary file beside it, so a
// reader never sees half a report.
func writeFileAtomic(path string, write func(io.Writer) error) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

func historyCheck(st *history.Store, hf historyFlags, args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintln(stderr, "mentat-spec history check: name one run (an id, a unique id prefix, a run name or its results directory)")
		return exitUsage
	}
	r, err := st.Find(args[0])
	if err != nil {
		fmt.Fprintf(stderr, "mentat-spec history check: %v\n", err)
		if errors.Is(err, history.ErrNoRun) {
			fmt.Fprintf(stderr, "add it first: mentat-spec history add DIR\n")
		}
		return exitUsage
	}
	a, err := st.Analyze(hf.opt)
	if err != nil {
		fmt.Fprintf(stderr, "mentat-spec history check: %v\n", err)
		return exitUnfinished
	}
	v := a.Check(r.ID)
	sort.SliceStable(v.Regressions, func(i, j int) bool { return v.Regressions[i].Pct() > v.Regressions[j].Pct() })
	if err := v.Write(stdout); err != nil {
		return exitUnfinished
	}
	if len(v.Regressions) > 0 {
		return exitRegression
	}
	return exitOK
}

// historyExport copies every run of the history into another one.
func historyExport(st *history.Store, _ historyFlags, args []string, stdout, stderr io.Writer) int {
	return historyCopy("export", "DEST", st, args, stdout, stderr, func(other *history.Store) (dst, src *history.Store) { return other, st })
}

// historyImport copies every run of another history into this one.
func historyImport(st *history.Store, _ historyFlags, args []string, stdout, stderr io.Writer) int {
	return historyCopy("import", "SRC", st, args, stdout, stderr, func(other *history.Store) (dst, src *history.Store) { return st, other })
}

func historyCopy(sub, what string, st *history.Store, args []string, stdout, stderr io.Writer, ends func(other *history.Store) (dst, src *history.Store)) int {
	if len(args) != 1 {
		fmt.Fprintf(stderr, "mentat-spec history %s: name one other history %s (a file or a postgres:// URL)\n", sub, what)
		return exitUsage
	}
	if history.Password(args[0]) != "" {
		fmt.Fprintf(stderr, "mentat-spec history %s: warning: %s carries a password, which the process list shows: put it in PGPASSWORD\n", sub, what)
	}
	other, err := history.Open(args[0])
	if err != nil {
		fmt.Fprintf(stderr, "mentat-spec history %s: %v\n", sub, err)
		return exitUnfinished
	}
	defer other.Close()
	dst, src := ends(other)
	if dst.Path() == src.Path() {
		fmt.Fprintf(stderr, "mentat-spec history %s: %s is this history\n", sub, src.Path())
		return exitUsage
	}
	res, err := history.Copy(dst, src)
	fmt.Fprintf(stdout, "copied %d runs from %s into %s (%d there already)\n", res.Copied, src.Path(), dst.Path(), res.Present)
	if err != nil {
		fmt.Fprintf(stderr, "mentat-spec history %s: %v\n", sub, err)
		return exitUnfinished
	}
	return exitOK
}
