// Package historycmd is what the history command's subcommands do to an
// open history (add, ls, rm, report, check, export, import); main parses
// the command line, opens the store and dispatches here.
package historycmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/mentat-spec/mentat-spec/cmd/mentat-spec/internal/exitcode"
	"github.com/mentat-spec/mentat-spec/engine/changepoint"
	"github.com/mentat-spec/mentat-spec/engine/history"
)

// Flags are the history command's flags; they may stand anywhere on the
// line, before or after the subcommand.
type Flags struct {
	Opt      changepoint.Options
	Out      string
	Markdown bool
}

// Subcommands are history's own commands, each given the open store.
var Subcommands = map[string]func(st *history.Store, hf Flags, args []string, stdout, stderr io.Writer) int{
	"add":    historyAdd,
	"ls":     historyLs,
	"rm":     historyRm,
	"report": historyReport,
	"check":  historyCheck,
	"export": historyExport,
	"import": historyImport,
}

func historyAdd(st *history.Store, _ Flags, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "mentat-spec history add: name the results directories to import")
		return exitcode.Usage
	}
	code := exitcode.OK
	for _, dir := range args {
		r, added, err := st.Add(dir)
		switch {
		case err != nil:
			fmt.Fprintf(stderr, "mentat-spec history add: %v\n", err)
			code = exitcode.Unfinished
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

func historyLs(st *history.Store, _ Flags, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintf(stderr, "mentat-spec history ls: takes no arguments, got %q\n", args)
		return exitcode.Usage
	}
	runs, err := st.Runs()
	if err != nil {
		fmt.Fprintf(stderr, "mentat-spec history ls: %v\n", err)
		return exitcode.Unfinished
	}
	if len(runs) == 0 {
		fmt.Fprintf(stdout, "%s holds no run: mentat-spec history add DIR\n", st.Path())
		return exitcode.OK
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
		return exitcode.Unfinished
	}
	return exitcode.OK
}

func historyRm(st *history.Store, _ Flags, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "mentat-spec history rm: name the runs to remove")
		return exitcode.Usage
	}
	code := exitcode.OK
	for _, ref := range args {
		r, err := st.Find(ref)
		if err == nil {
			err = st.Remove(r.ID)
		}
		if err != nil {
			fmt.Fprintf(stderr, "mentat-spec history rm: %v\n", err)
			code = exitcode.Usage
			continue
		}
		fmt.Fprintf(stdout, "removed %s %s\n", r.ID, r.Name)
	}
	return code
}

func historyReport(st *history.Store, hf Flags, args []string, stdout, stderr io.Writer) int {
	out, markdown := &hf.Out, &hf.Markdown
	if len(args) > 0 {
		fmt.Fprintf(stderr, "mentat-spec history report: takes no arguments, got %q\n", args)
		return exitcode.Usage
	}
	if *out == "" && !*markdown {
		fmt.Fprintln(stderr, "mentat-spec history report: say where: -o trends.html, or -markdown")
		return exitcode.Usage
	}
	a, err := st.Analyze(hf.Opt)
	if err != nil {
		fmt.Fprintf(stderr, "mentat-spec history report: %v\n", err)
		return exitcode.Unfinished
	}
	if *markdown {
		if err := a.Markdown(stdout); err != nil {
			fmt.Fprintf(stderr, "mentat-spec history report: %v\n", err)
			return exitcode.Unfinished
		}
	}
	if *out != "" {
		if err := writeFileAtomic(*out, a.HTML); err != nil {
			fmt.Fprintf(stderr, "mentat-spec history report: %v\n", err)
			return exitcode.Unfinished
		}
		fmt.Fprintf(stderr, "wrote %s (%d runs, %d series, %d change points)\n", *out, len(a.Runs), len(a.Series), len(a.Changes()))
	}
	return exitcode.OK
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

func historyCheck(st *history.Store, hf Flags, args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintln(stderr, "mentat-spec history check: name one run (an id, a unique id prefix, a run name or its results directory)")
		return exitcode.Usage
	}
	r, err := st.Find(args[0])
	if err != nil {
		fmt.Fprintf(stderr, "mentat-spec history check: %v\n", err)
		if errors.Is(err, history.ErrNoRun) {
			fmt.Fprintf(stderr, "add it first: mentat-spec history add DIR\n")
		}
		return exitcode.Usage
	}
	a, err := st.Analyze(hf.Opt)
	if err != nil {
		fmt.Fprintf(stderr, "mentat-spec history check: %v\n", err)
		return exitcode.Unfinished
	}
	v := a.Check(r.ID)
	sort.SliceStable(v.Regressions, func(i, j int) bool { return v.Regressions[i].Pct() > v.Regressions[j].Pct() })
	if err := v.Write(stdout); err != nil {
		return exitcode.Unfinished
	}
	if len(v.Regressions) > 0 {
		return exitcode.Regression
	}
	return exitcode.OK
}

// historyExport copies every run of the history into another one.
func historyExport(st *history.Store, _ Flags, args []string, stdout, stderr io.Writer) int {
	return historyCopy("export", "DEST", st, args, stdout, stderr, func(other *history.Store) (dst, src *history.Store) { return other, st })
}

// historyImport copies every run of another history into this one.
func historyImport(st *history.Store, _ Flags, args []string, stdout, stderr io.Writer) int {
	return historyCopy("import", "SRC", st, args, stdout, stderr, func(other *history.Store) (dst, src *history.Store) { return st, other })
}

func historyCopy(sub, what string, st *history.Store, args []string, stdout, stderr io.Writer, ends func(other *history.Store) (dst, src *history.Store)) int {
	if len(args) != 1 {
		fmt.Fprintf(stderr, "mentat-spec history %s: name one other history %s (a file or a postgres:// URL)\n", sub, what)
		return exitcode.Usage
	}
	if history.Password(args[0]) != "" {
		fmt.Fprintf(stderr, "mentat-spec history %s: warning: %s carries a password, which the process list shows: put it in PGPASSWORD\n", sub, what)
	}
	other, err := history.Open(args[0])
	if err != nil {
		fmt.Fprintf(stderr, "mentat-spec history %s: %v\n", sub, err)
		return exitcode.Unfinished
	}
	defer other.Close()
	dst, src := ends(other)
	if dst.Path() == src.Path() {
		fmt.Fprintf(stderr, "mentat-spec history %s: %s is this history\n", sub, src.Path())
		return exitcode.Usage
	}
	res, err := history.Copy(dst, src)
	fmt.Fprintf(stdout, "copied %d runs from %s into %s (%d there already)\n", res.Copied, src.Path(), dst.Path(), res.Present)
	if err != nil {
		fmt.Fprintf(stderr, "mentat-spec history %s: %v\n", sub, err)
		return exitcode.Unfinished
	}
	return exitcode.OK
}
