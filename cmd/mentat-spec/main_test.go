package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

const quickstart = "../../examples/quickstart.hcl"

// runT runs the CLI in-process and returns its exit code and output.
func runT(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	noCrash(t, stderr.String())
	return code, stdout.String(), stderr.String()
}

// noCrash fails on anything that looks like a Go panic or stack trace.
func noCrash(t *testing.T, stderr string) {
	t.Helper()
	for _, s := range []string{"panic:", "goroutine ", "runtime error", ".go:"} {
		if strings.Contains(stderr, s) {
			t.Fatalf("stderr looks like a crash (%q):\n%s", s, stderr)
		}
	}
}

func TestRunCommands(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		code       int
		stdout     string // a substring; "" checks nothing
		stderr     string
		noStdout   bool
		quietError bool // stderr must be empty
	}{
		{name: "no arguments", args: nil, code: exitUsage, stderr: "Usage: mentat-spec <command>", noStdout: true},
		{name: "unknown command", args: []string{"frobnicate"}, code: exitUsage, stderr: `unknown command "frobnicate"`, noStdout: true},
		{name: "help", args: []string{"help"}, code: exitOK, stdout: "Usage: mentat-spec <command>", quietError: true},
		{name: "-help", args: []string{"-help"}, code: exitOK, stdout: "Exit codes: 0 ok", quietError: true},
		{name: "--help", args: []string{"--help"}, code: exitOK, stdout: "validate", quietError: true},
		{name: "-h", args: []string{"-h"}, code: exitOK, stdout: "compare", quietError: true},
		{name: "version", args: []string{"version"}, code: exitOK, stdout: "mentat-spec " + version, quietError: true},
		{name: "--version", args: []string{"--version"}, code: exitOK, stdout: "mentat-spec ", quietError: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runT(t, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout, stderr)
			}
			if !strings.Contains(stdout, tt.stdout) {
				t.Errorf("stdout lacks %q:\n%s", tt.stdout, stdout)
			}
			if !strings.Contains(stderr, tt.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderr, stderr)
			}
			if tt.noStdout && stdout != "" {
				t.Errorf("unexpected stdout:\n%s", stdout)
			}
			if tt.quietError && stderr != "" {
				t.Errorf("unexpected stderr:\n%s", stderr)
			}
		})
	}
}

func TestCommandHelp(t *testing.T) {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		if name == "version" {
			continue // takes no flags
		}
		for _, flag := range []string{"-help", "--help", "-h"} {
			t.Run(name+flag, func(t *testing.T) {
				code, stdout, stderr := runT(t, name, flag)
				if code != exitOK {
					t.Errorf("exit %d, want 0", code)
				}
				if !strings.Contains(stderr, "Usage: mentat-spec "+name) || !strings.Contains(stderr, "Flags:") {
					t.Errorf("no usage in stderr:\n%s", stderr)
				}
				if stdout != "" {
					t.Errorf("unexpected stdout:\n%s", stdout)
				}
			})
		}
	}
}

func TestValidate(t *testing.T) {
	invalid := filepath.Join("testdata", "invalid.hcl")
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr []string // substrings
	}{
		{name: "valid", args: []string{"validate", "testdata/valid.hcl"}, code: exitOK},
		{name: "quickstart", args: []string{"validate", quickstart}, code: exitOK},
		{name: "quickstart with every backend", args: []string{"validate", quickstart, "-var", `backends=["sqlite","duckdb","postgres"]`}, code: exitOK},
		{name: "two paths", args: []string{"validate", "testdata/valid.hcl", "testdata/valid.hcl"}, code: exitUsage, stderr: []string{`Duplicate scale "xs"`}},
		{name: "invalid", args: []string{"validate", invalid}, code: exitUsage,
			stderr: append(markerLines(t, invalid), "4 error(s)", "Unknown driver", `has no option "journal"`)},
		{name: "variable failing its validation", args: []string{"validate", quickstart, "-var", `scales=["xs","huge"]`}, code: exitUsage,
			stderr: []string{"quickstart.hcl:21:", "Scales are xs, s, m, l and xl."}},
		{name: "undeclared variable", args: []string{"validate", "testdata/valid.hcl", "-var", "nope=1"}, code: exitUsage, stderr: []string{"Undeclared variable"}},
		{name: "-var without =", args: []string{"validate", "testdata/valid.hcl", "-var", "nope"}, code: exitUsage, stderr: []string{"want -var name=value"}},
		{name: "missing file", args: []string{"validate", "testdata/nope.hcl"}, code: exitUsage, stderr: []string{"Cannot read spec"}},
		{name: "no path", args: []string{"validate"}, code: exitUsage, stderr: []string{"Usage: mentat-spec validate"}},
		{name: "unknown flag", args: []string{"validate", "-frob", "testdata/valid.hcl"}, code: exitUsage, stderr: []string{"flag provided but not defined: -frob"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runT(t, tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout, stderr)
			}
			if code == exitOK && (!strings.Contains(stdout, "The spec is valid.") || stderr != "") {
				t.Errorf("stdout:\n%s\nstderr:\n%s", stdout, stderr)
			}
			if code != exitOK && strings.Contains(stdout, "valid") {
				t.Errorf("an invalid spec printed on stdout:\n%s", stdout)
			}
			for _, s := range tt.stderr {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr lacks %q:\n%s", s, stderr)
				}
			}
		})
	}
}

// markerLines returns "path:line:" for each line of path marked # ERROR.
func markerLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i, line := range strings.Split(string(b), "\n") {
		if strings.Contains(line, "# ERROR") {
			out = append(out, fmt.Sprintf("%s:%d:", path, i+1))
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s has no # ERROR marker", path)
	}
	return out
}

func TestPlan(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		want string // stdout prefix, or stderr substring on error
	}{
		{name: "-var after the path", args: []string{"plan", quickstart, "-var", `scales=["xs"]`}, code: exitOK,
			want: `Plan: dataset "issues"; scales xs; backends sqlite; 9 scenarios`},
		{name: "--var after the path", args: []string{"plan", quickstart, "--var", `scales=["xs"]`}, code: exitOK,
			want: `Plan: dataset "issues"; scales xs; backends sqlite; 9 scenarios`},
		{name: "-var= before the path", args: []string{"plan", `-var=scales=["xs"]`, "--var=backends=[\"duckdb\"]", quickstart}, code: exitOK,
			want: `Plan: dataset "issues"; scales xs; backends duckdb; 9 scenarios`},
		{name: "-- ends the flags", args: []string{"plan", "-var", `scales=["xs"]`, "--", quickstart}, code: exitOK,
			want: `Plan: dataset "issues"; scales xs;`},
		{name: "unknown scale", args: []string{"plan", quickstart, "-var", `scales=["xs","nope"]`}, code: exitUsage,
			want: "Scales are xs, s, m, l and xl."},
		{name: "no path", args: []string{"plan", "-var", `scales=["xs"]`}, code: exitUsage, want: "Usage: mentat-spec plan"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runT(t, tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout, stderr)
			}
			if code == exitOK {
				// On a busy machine plan adds its note on stderr (busyNote).
				if !strings.HasPrefix(stdout, tt.want) || withoutBusyNote(stderr) != "" {
					t.Errorf("stdout:\n%s\nstderr:\n%s", stdout, stderr)
				}
				if !strings.Contains(stdout, "\nscale xs: ") || strings.Contains(stdout, "\nscale s: ") {
					t.Errorf("plan does not hold exactly scale xs:\n%s", stdout)
				}
				return
			}
			if !strings.Contains(stderr, tt.want) {
				t.Errorf("stderr lacks %q:\n%s", tt.want, stderr)
			}
		})
	}
}

// TestGenShards: the datom files of one class concatenated in name order
// are the same bytes whatever the shard count, and so is truth.json.
func TestGenShards(t *testing.T) {
	dirs := map[int]string{1: t.TempDir(), 3: t.TempDir()}
	for shards, dir := range dirs {
		code, stdout, stderr := runT(t, "gen", quickstart, "-scale", "xs", "-o", dir, "-shards", fmt.Sprint(shards))
		if code != exitOK {
			t.Fatalf("gen -shards %d: exit %d\n%s", shards, code, stderr)
		}
		if !strings.HasPrefix(stdout, `Wrote dataset "issues" at scale xs to `+dir) {
			t.Errorf("gen -shards %d: stdout %q", shards, stdout)
		}
	}
	for _, class := range []string{"text", "int", "real"} {
		one := concat(t, dirs[1], class, 1)
		three := concat(t, dirs[3], class, 3)
		if len(one) == 0 {
			t.Errorf("class %s: no datoms", class)
		}
		if !bytes.Equal(one, three) {
			t.Errorf("class %s: 1 shard gives %d bytes, 3 shards %d bytes, not the same", class, len(one), len(three))
		}
	}
	for _, f := range []string{"truth.json", "schema.csv"} {
		a, errA := os.ReadFile(filepath.Join(dirs[1], f))
		b, errB := os.ReadFile(filepath.Join(dirs[3], f))
		if errA != nil || errB != nil {
			t.Fatal(errA, errB)
		}
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s differs between 1 and 3 shards", f)
		}
	}
}

// concat reads datoms-<class>-*.csv of dir in name order, requiring
// exactly shards files.
func concat(t *testing.T, dir, class string, shards int) []byte {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "datoms-"+class+"-*.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != shards {
		t.Fatalf("%s: %d %s files, want %d", dir, len(files), class, shards)
	}
	sort.Strings(files)
	var b []byte
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		b = append(b, data...)
	}
	return b
}

func TestGenErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"no scale", []string{"gen", quickstart, "-o", dir}, "Usage: mentat-spec gen"},
		{"no output", []string{"gen", quickstart, "-scale", "xs"}, "Usage: mentat-spec gen"},
		{"unknown scale", []string{"gen", quickstart, "-scale", "xxl", "-o", dir}, `no scale "xxl"`},
		{"invalid spec", []string{"gen", "testdata/invalid.hcl", "-scale", "xs", "-o", dir}, "Unknown driver"},
		{"bad shard count", []string{"gen", quickstart, "-scale", "xs", "-o", dir, "-shards", "x"}, "invalid value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runT(t, tt.args...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d", code, exitUsage)
			}
			if !strings.Contains(stderr, tt.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderr, stderr)
			}
		})
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a failed gen wrote %d files", len(entries))
	}
}

func TestCompare(t *testing.T) {
	base := filepath.Join("testdata", "results", "base")
	slower := filepath.Join("testdata", "results", "slower")
	reps := func(name string) string { return filepath.Join("testdata", "results", "reps-"+name) }
	tests := []struct {
		name string
		args []string
		code int
	}{
		{"a directory with itself", []string{"compare", base, base}, exitOK},
		{"a regression", []string{"compare", "-method", "threshold", base, slower}, exitRegression},
		{"a regression under a loose threshold is still a missing row", []string{"compare", "-method", "threshold", base, slower, "-threshold", "1000"}, exitRegression},
		// Without raw.csv stats cannot judge the metrics; the missing row is still found.
		{"stats without reps still finds the missing row", []string{"compare", base, slower}, exitRegression},
		{"stats: a significant regression", []string{"compare", reps("base"), reps("slower")}, exitRegression},
		{"stats: an improvement", []string{"compare", reps("slower"), reps("base")}, exitOK},
		{"stats: within a loose threshold", []string{"compare", reps("base"), reps("slower"), "-threshold", "60"}, exitOK},
		{"stats: reps = 1 cannot decide", []string{"compare", reps("single_old"), reps("single_new")}, exitOK},
		{"stats: reps = 1 cannot decide, and -fail-undecided fails", []string{"compare", "-fail-undecided", reps("single_old"), reps("single_new")}, exitUndecided},
		{"-fail-undecided with everything decided", []string{"compare", "-fail-undecided", reps("base"), reps("slower"), "-threshold", "60"}, exitOK},
		{"not comparable: refused", []string{"compare", reps("base"), reps("settings")}, exitUndecided},
		{"not comparable: -force", []string{"compare", "-force", reps("base"), reps("settings")}, exitOK},
		// The same reps under the seed suite's rule: p99 noise of one rep's median is a "regression".
		{"not comparable: -force, threshold method", []string{"compare", "-force", "-method", "threshold", reps("base"), reps("settings")}, exitRegression},
		{"one directory", []string{"compare", base}, exitUsage},
		{"a missing directory", []string{"compare", base, filepath.Join("testdata", "results", "nope")}, exitUsage},
		{"a negative threshold", []string{"compare", base, base, "-threshold", "-1"}, exitUsage},
		{"an unknown method", []string{"compare", "-method", "mean", base, base}, exitUsage},
		{"alpha out of range", []string{"compare", "-alpha", "1.5", base, base}, exitUsage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runT(t, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout, stderr)
			}
			if code != exitUsage && stdout == "" {
				t.Error("no report on stdout")
			}
			if strings.HasPrefix(tt.name, "not comparable") && !strings.Contains(stdout, "var.avet") {
				t.Errorf("the differences are not listed:\n%s", stdout)
			}
		})
	}
}

func TestReport(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join("testdata", "results", "base", "timings.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "timings.csv"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runT(t, "report", dir)
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, name := range []string{"summary.md", "report.html", "results.json"} {
		if !strings.Contains(stdout, filepath.Join(dir, name)) {
			t.Errorf("stdout %q lacks %s", stdout, name)
		}
		if st, err := os.Stat(filepath.Join(dir, name)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", name, err)
		}
	}

	for _, args := range [][]string{
		{"report", filepath.Join("testdata", "valid.hcl")},       // a file
		{"report", filepath.Join("testdata", "results", "nope")}, // missing
		{"report"},
		{"report", dir, dir},
	} {
		code, _, stderr := runT(t, args...)
		if code != exitUsage {
			t.Errorf("%v: exit %d, want %d\n%s", args, code, exitUsage, stderr)
		}
	}
}

func TestRedactArgs(t *testing.T) {
	sensitive := map[string]bool{"var.pg_dsn": true}
	tests := []struct {
		args, want []string
	}{
		{[]string{"spec.hcl", "-var", "pg_dsn=postgres://u:pw@h/db"}, []string{"spec.hcl", "-var", "pg_dsn=(redacted)"}},
		{[]string{"spec.hcl", "--var", "pg_dsn=x"}, []string{"spec.hcl", "--var", "pg_dsn=(redacted)"}},
		{[]string{"-var=pg_dsn=x", "spec.hcl"}, []string{"-var=pg_dsn=(redacted)", "spec.hcl"}},
		{[]string{"--var=pg_dsn=x", "spec.hcl"}, []string{"-var=pg_dsn=(redacted)", "spec.hcl"}},
		{[]string{"spec.hcl", "-var", `scales=["xs"]`, "-var-file", "pg_dsn=x"}, []string{"spec.hcl", "-var", `scales=["xs"]`, "-var-file", "pg_dsn=x"}},
		{[]string{"spec.hcl", "-o", "pg_dsn=x"}, []string{"spec.hcl", "-o", "pg_dsn=x"}},
	}
	for _, tt := range tests {
		got := redactArgs(tt.args, sensitive)
		if strings.Join(got, " ") != strings.Join(tt.want, " ") {
			t.Errorf("redactArgs(%q) = %q, want %q", tt.args, got, tt.want)
		}
		if tt.args[len(tt.args)-1] == "(redacted)" {
			t.Errorf("redactArgs changed its input")
		}
	}
}

var diagLineRE = regexp.MustCompile(`(?m)^  \S+\.hcl:\d+:\d+: `)

// TestDiagnosticsSorted: the errors of a spec print in file order, the
// same way every time, whatever order the loader found them in.
func TestDiagnosticsSorted(t *testing.T) {
	var first string
	for i := 0; i < 10; i++ {
		code, _, stderr := runT(t, "validate", filepath.Join("testdata", "invalid.hcl"))
		if code != exitUsage {
			t.Fatalf("exit %d", code)
		}
		if i == 0 {
			first = stderr
			lines := diagLineRE.FindAllString(stderr, -1)
			want := markerLines(t, filepath.Join("testdata", "invalid.hcl"))
			if len(lines) != len(want) {
				t.Fatalf("%d file:line:col lines, want %d:\n%s", len(lines), len(want), stderr)
			}
			for i, l := range lines {
				if !strings.HasPrefix(strings.TrimSpace(l), want[i]) {
					t.Errorf("error %d at %s, want %s (file order)", i, l, want[i])
				}
			}
			continue
		}
		if stderr != first {
			t.Fatalf("run %d printed differently:\n%s\n---\n%s", i, stderr, first)
		}
	}
}

// TestSensitiveNotPrinted: an error in an expression that reads a
// sensitive variable, directly or through a local, does not show its value;
// other variables' values still show.
func TestSensitiveNotPrinted(t *testing.T) {
	path := filepath.Join("testdata", "sensitive.hcl")
	for _, args := range [][]string{
		{"validate", path},
		{"validate", path, "-var", "pg_dsn=postgres://x:s3cret@h/db"},
		{"plan", path, "-var", "pg_dsn=postgres://x:s3cret@h/db"},
	} {
		code, _, stderr := runT(t, args...)
		if code != exitUsage {
			t.Fatalf("%v: exit %d, want %d\n%s", args, code, exitUsage, stderr)
		}
		for _, secret := range []string{"hunter2", "s3cret"} {
			if strings.Contains(stderr, secret) {
				t.Errorf("%v: stderr shows the sensitive value:\n%s", args, stderr)
			}
		}
		if !strings.Contains(stderr, `"data-dir-value"`) {
			t.Errorf("%v: stderr does not show the non-sensitive value:\n%s", args, stderr)
		}
		if n := strings.Count(stderr, "Too many function arguments"); n != 3+3 { // three blocks, three list lines
			t.Errorf("%v: %d mentions of the error, want 6:\n%s", args, n, stderr)
		}
	}
}

// TestApplyExitCodes: a run whose checks pass exits 0, a wrong answer
// exits 1 with everything still written, a spec error exits 2, a store
// that cannot be created exits 7 (could not finish).
func TestApplyExitCodes(t *testing.T) {
	tests := []struct {
		name string
		vars []string
		want int
	}{
		{"right answers", nil, exitOK},
		{"wrong answer", []string{"-var", "name_sql=upper(n.v)"}, exitCheck},
		{"spec error", []string{"-var", "nope=1"}, exitUsage},
		{"could not finish", []string{"-var", "data_dir=/dev/null/data"}, exitUnfinished},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{"apply", "testdata/apply.hcl", "-q", "-o", filepath.Join(dir, "results"),
				"-var", "data_dir=" + filepath.Join(dir, "data")}, tt.vars...)
			var stdout, stderr bytes.Buffer
			if got := run(args, &stdout, &stderr); got != tt.want {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", got, tt.want, stdout.String(), stderr.String())
			}
			if tt.want == exitUsage {
				return
			}
			if tt.want == exitUnfinished {
				// The store's lock is taken before it opens: either names the path.
				reason := strings.Contains(stderr.String(), "opening the store") || strings.Contains(stderr.String(), "locking /dev/null/data")
				if !reason || strings.Contains(stdout.String(), "timings.csv") {
					t.Errorf("want the reason, and no timings.csv offered:\nstdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
				}
				return
			}
			checks, err := os.ReadFile(filepath.Join(dir, "results", "checks.txt"))
			if err != nil {
				t.Fatal(err)
			}
			wantLine := "PASS lookup sqlite xs names"
			if tt.want == exitCheck {
				wantLine = "FAIL lookup sqlite xs names"
			}
			if !strings.Contains(string(checks), wantLine) {
				t.Errorf("checks.txt lacks %q:\n%s", wantLine, checks)
			}
			if _, err := os.Stat(filepath.Join(dir, "results", "timings.csv")); err != nil {
				t.Errorf("timings.csv: %v", err)
			}
			// The machine's noise: a row per measured point, a summary in env.txt.
			noise, err := results.ReadNoise(filepath.Join(dir, "results"))
			if err != nil || len(noise) == 0 || noise[0].Scenario != "lookup" || noise[0].CPUs < 1 || noise[0].Seconds <= 0 {
				t.Errorf("noise.csv: %+v %v", noise, err)
			}
			if env, _ := os.ReadFile(filepath.Join(dir, "results", "env.txt")); !strings.Contains(string(env), "\nnoise: other processes ") {
				t.Errorf("env.txt has no noise summary:\n%s", env)
			}
			// Every run gets its reports; report.html refers to nothing
			// outside itself.
			for _, name := range []string{"summary.md", "report.html", "results.json"} {
				b, err := os.ReadFile(filepath.Join(dir, "results", name))
				if err != nil || len(b) == 0 {
					t.Errorf("%s: %v", name, err)
				}
				if name == "report.html" && (strings.Contains(string(b), "http") || strings.Contains(string(b), "<script") || strings.Contains(string(b), " src=")) {
					t.Errorf("report.html refers outside itself")
				}
			}
		})
	}
}

// TestApplyProgress: piped output shows progress lines with ETA before
// the first result line; -q silences them.
func TestApplyProgress(t *testing.T) {
	for _, quiet := range []bool{false, true} {
		dir := t.TempDir()
		args := []string{"apply", "testdata/apply.hcl", "-progress_s", "0.05", "-o", filepath.Join(dir, "results"),
			"-var", "data_dir=" + filepath.Join(dir, "data")}
		if quiet {
			args = append(args, "-q")
		}
		var stdout, stderr bytes.Buffer
		if got := run(args, &stdout, &stderr); got != exitOK {
			t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", got, stdout.String(), stderr.String())
		}
		out := stdout.String()
		eta := strings.Index(out, "ETA ")
		result := strings.Index(out, "xs/sqlite lookup")
		switch {
		case quiet && eta >= 0:
			t.Errorf("-q printed progress:\n%s", out)
		case !quiet && (eta < 0 || result < 0 || eta > result):
			t.Errorf("no progress line with ETA before the first result line:\n%s", out)
		}
	}
}
