package main

import (
	"bytes"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/history"
	"github.com/mentat-spec/mentat-spec/engine/history/historytest"
)

// historyProcess is `mentat-spec history ARGS` as a process of its own,
// its history in $MENTAT_SPEC_HISTORY_DB.
func historyProcess(db string, args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], append([]string{"history"}, args...)...)
	cmd.Env = append(os.Environ(), asCLI+"=1", history.EnvVar+"="+db)
	return cmd
}

// TestHistoryPostgresConcurrentAdds is the issue's case: four `history
// add` processes of 10 runs each, and two more adding the same two of
// those runs, from "other machines", all at once against one PostgreSQL
// history, while `history check` processes read it. 40 runs land, each
// once, whole; every check exits as a check does; `history ls` is the
// same before and after a check that runs beside an add.
func TestHistoryPostgresConcurrentAdds(t *testing.T) {
	if testing.Short() {
		t.Skip("runs processes")
	}
	pg := historyPG(t)
	if pg == "" {
		t.Skip("no PostgreSQL")
	}
	db, err := historytest.Schema(pg)
	if err != nil {
		t.Fatal(err)
	}
	dirs, err := historytest.History(filepath.Join(t.TempDir(), "runs"), 40, 3, 0.1, -1, 1)
	if err != nil {
		t.Fatal(err)
	}
	var batches [][]string
	for i := range 4 {
		batches = append(batches, dirs[10*i:10*i+10])
	}
	shared := []string{dirs[5], dirs[25]}
	batches = append(batches, shared, shared)

	var wg sync.WaitGroup
	outs := make([]string, len(batches))
	errs := make([]error, len(batches))
	for i, b := range batches {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, err := historyProcess(db, append([]string{"add"}, b...)...).CombinedOutput()
			outs[i], errs[i] = string(b), err
		}()
	}
	// Checks while the adds run: each sees whole runs (exit 0, or 2 while
	// the run it names is not in yet), never an error.
	stop := make(chan struct{})
	checked := make(chan int)
	go func() {
		n := 0
		defer func() { checked <- n }()
		for {
			select {
			case <-stop:
				return
			default:
			}
			cmd := historyProcess(db, "check", dirs[0])
			var o bytes.Buffer
			cmd.Stdout, cmd.Stderr = &o, &o
			err := cmd.Run()
			code := cmd.ProcessState.ExitCode()
			if code != exitOK && !(code == exitUsage && strings.Contains(o.String(), "no such run")) {
				t.Errorf("check during the adds: exit %d %v\n%s", code, err, o.String())
			}
			n++
		}
	}()
	wg.Wait()
	close(stop)
	t.Logf("%d checks ran during the adds", <-checked)

	added, already := 0, 0
	for i := range batches {
		if errs[i] != nil {
			t.Errorf("add %d: %v\n%s", i, errs[i], outs[i])
		}
		added += strings.Count(outs[i], "added ")
		already += strings.Count(outs[i], "already in the history")
	}
	if added != 40 || already != 4 {
		t.Errorf("%d added, %d already there; want 40 and 4", added, already)
	}
	st, err := history.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := st.Runs()
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range runs {
		if seen[r.Name] || r.Points != len(historytest.Scenarios) || r.Checks.Pass != len(historytest.Scenarios) {
			t.Errorf("run %s: twice %v, %d points, %d checks passed", r.Name, seen[r.Name], r.Points, r.Checks.Pass)
		}
		seen[r.Name] = true
	}
	if len(runs) != 40 {
		t.Errorf("%d runs in the history, want 40", len(runs))
	}

	ls := func() string {
		b, err := historyProcess(db, "ls").Output()
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	before := ls()
	check, add := historyProcess(db, "check", dirs[39]), historyProcess(db, append([]string{"add"}, shared...)...)
	var co, ao bytes.Buffer
	check.Stdout, add.Stdout = &co, &ao
	if err := check.Start(); err != nil {
		t.Fatal(err)
	}
	if err := add.Run(); err != nil {
		t.Errorf("add again: %v", err)
	}
	if err := check.Wait(); err != nil {
		t.Errorf("check: %v\n%s", err, co.String())
	}
	if after := ls(); after != before || strings.Count(before, "run-0") != 40 {
		t.Errorf("ls before and after a check beside an add:\n%s\n----\n%s", before, after)
	}
}

// TestHistoryExportImport: 60 runs in a file exported to PostgreSQL,
// imported from the file into another PostgreSQL history, and exported
// back to a file: `history report -markdown` is the same of all four.
func TestHistoryExportImport(t *testing.T) {
	pg := historyPG(t)
	if pg == "" {
		t.Skip("no PostgreSQL")
	}
	root := t.TempDir()
	dirs, err := historytest.History(filepath.Join(root, "runs"), 60, 5, 0.1, 40, 1.15)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(root, "history.db")
	if code, out, errs := historyCLI(t, append([]string{"history", "add", "-db", file}, dirs...)...); code != exitOK {
		t.Fatalf("add: exit %d\n%s%s", code, out, errs)
	}
	pg1, err := historytest.Schema(pg)
	if err != nil {
		t.Fatal(err)
	}
	pg2, err := historytest.Schema(pg)
	if err != nil {
		t.Fatal(err)
	}
	back := filepath.Join(root, "back", "history.db")
	for _, step := range [][]string{
		{"history", "-db", file, "export", pg1},
		{"history", "-db", pg2, "import", file},
		{"history", "-db", pg1, "export", back},
	} {
		code, out, errs := historyCLI(t, step...)
		if code != exitOK || !strings.HasPrefix(out, "copied 60 runs from ") || !strings.Contains(out, "(0 there already)") {
			t.Fatalf("%q: exit %d\n%s%s", step, code, out, errs)
		}
	}
	if code, out, _ := historyCLI(t, "history", "-db", pg2, "import", file); code != exitOK || !strings.HasPrefix(out, "copied 0 runs") {
		t.Errorf("importing again: exit %d %s", code, out)
	}
	if code, _, errs := historyCLI(t, "history", "-db", file, "export", file); code != exitUsage {
		t.Errorf("export into itself: exit %d %s", code, errs)
	}
	var want string
	for i, db := range []string{file, pg1, pg2, back} {
		code, md, errs := historyCLI(t, "history", "-db", db, "report", "-markdown")
		if code != exitOK || !strings.Contains(md, "60 runs from 1 machine(s)") || !strings.Contains(md, "regression**") {
			t.Fatalf("report of %s: exit %d\n%s%s", db, code, md, errs)
		}
		if i == 0 {
			want = md
		} else if md != want {
			t.Errorf("report -markdown of %s differs:\n%s\n----\n%s", history.Display(db), md, want)
		}
	}
}

// TestHistoryNoPassword: with a password in $MENTAT_SPEC_HISTORY_DB's URL
// (or, warned against, in -db's), no subcommand's output or error, nor
// the process list, shows it; the server the URL names reachable or not.
func TestHistoryNoPassword(t *testing.T) {
	const password = "Pw-7c1d9e2a-secret"
	pg := historyPG(t)
	var db string
	if pg != "" {
		s, err := historytest.Schema(pg)
		if err != nil {
			t.Fatal(err)
		}
		u, _ := url.Parse(s)
		u.User = url.UserPassword(u.User.Username(), password)
		db = u.String()
	}
	root := t.TempDir()
	dirs, err := historytest.History(filepath.Join(root, "runs"), 3, 3, 0.1, -1, 1)
	if err != nil {
		t.Fatal(err)
	}
	// Nothing listens on port 1: the driver's error names the server.
	unreachable := "postgres://bench:" + password + "@127.0.0.1:1/history?connect_timeout=5"
	file := filepath.Join(root, "h.db")
	type step struct {
		env  string
		args []string
	}
	steps := []step{
		{unreachable, []string{"ls"}},
		{unreachable, []string{"add", dirs[0]}},
		{file, []string{"export", unreachable}},
		{"", []string{"ls", "-db", unreachable}},
		// A URL net/url refuses (a bare % in the password): the error
		// quoting it must not show it either.
		{"postgres://bench:" + password + "%zz@127.0.0.1:1/history", []string{"ls"}},
	}
	if db != "" {
		steps = append(steps,
			step{db, append([]string{"add"}, dirs...)},
			step{db, []string{"add", dirs[0]}},
			step{db, []string{"ls"}},
			step{db, []string{"check", dirs[2]}},
			step{db, []string{"check", "nonesuch"}},
			step{db, []string{"report", "-markdown"}},
			step{db, []string{"report", "-o", filepath.Join(root, "trends.html")}},
			step{db, []string{"export", file}},
			step{file, []string{"import", db}},
			step{db, []string{"rm", "run-001"}},
			step{"", []string{"ls", "-db", db}},
		)
	}
	for _, s := range steps {
		cmd := historyProcess(s.env, s.args...)
		var o bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &o
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", cmd.Process.Pid))
		cmd.Wait()
		out := o.String()
		t.Logf("%q: exit %d\n%s", s.args, cmd.ProcessState.ExitCode(), out)
		if strings.Contains(out, password) || strings.Contains(out, url.QueryEscape(password)) {
			t.Errorf("%q: the password is in the output:\n%s", s.args, out)
		}
		onCommandLine := strings.Contains(strings.Join(s.args, " "), password)
		// (A process that has already exited shows an empty command line.)
		if !onCommandLine && strings.Contains(string(cmdline), password) {
			t.Errorf("%q: the password is in the process list: %q", s.args, cmdline)
		}
		if onCommandLine && !strings.Contains(out, "warning: ") {
			t.Errorf("%q: a password on the command line without a warning:\n%s", s.args, out)
		}
		if strings.HasPrefix(s.env, "postgres://bench:") && (cmd.ProcessState.ExitCode() != exitUnfinished || !strings.Contains(out, "127.0.0.1:1")) {
			t.Errorf("%q: an unreachable server: exit %d\n%s", s.args, cmd.ProcessState.ExitCode(), out)
		}
	}
	if b, err := os.ReadFile(filepath.Join(root, "trends.html")); db != "" && (err != nil || bytes.Contains(b, []byte(password))) {
		t.Errorf("trends.html: %v, or it holds the password", err)
	}
}
