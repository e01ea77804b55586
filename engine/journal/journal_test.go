package journal

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/drivers"
	_ "github.com/mentat-spec/mentat-spec/drivers/all"
	"github.com/mentat-spec/mentat-spec/engine/config"
	_ "github.com/mentat-spec/mentat-spec/engine/kinds/all"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/planbuild"
	"github.com/mentat-spec/mentat-spec/engine/resolve"
)

func appendFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A resume cuts every results file back to the last record, keeps what
// it cut under interrupted/, moves files born after it there whole, and
// knows the recorded points and checks; a torn last record is ignored.
func TestResumeCutsBackToTheLastRecord(t *testing.T) {
	root := t.TempDir()
	timings := filepath.Join(root, "timings.csv")
	appendFile(t, timings, "header\n")
	j, err := Start(root, "d1", nil)
	if err != nil {
		t.Fatal(err)
	}
	appendFile(t, timings, "point 0\n")
	appendFile(t, filepath.Join(root, "hdr", "a.hlog"), "hist 0\n")
	if err := j.Point("xs", "sqlite", "lookup", 0); err != nil {
		t.Fatal(err)
	}
	if err := j.Check("xs", "sqlite", "lookup"); err != nil {
		t.Fatal(err)
	}
	appendFile(t, timings, "point 1, cut short\n")
	appendFile(t, filepath.Join(root, "hdr", "b.hlog"), "hist 1\n")
	j.Close()
	appendFile(t, filepath.Join(root, File), "point\txs\tsqlite\tlookup\t1\ttimings.csv=9") // torn by a crash

	r, err := Resume(root, "d1", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := read(t, timings); got != "header\npoint 0\n" {
		t.Errorf("timings.csv after the resume: %q", got)
	}
	if got := read(t, filepath.Join(root, interruptedDir, "timings.csv")); got != "point 1, cut short\n" {
		t.Errorf("the cut rows kept: %q", got)
	}
	if _, err := os.Stat(filepath.Join(root, "hdr", "b.hlog")); !os.IsNotExist(err) {
		t.Errorf("a file born after the last record stayed: %v", err)
	}
	if got := read(t, filepath.Join(root, interruptedDir, "hdr", "b.hlog")); got != "hist 1\n" {
		t.Errorf("the moved file: %q", got)
	}
	if !r.HasPoint("xs", "sqlite", "lookup", 0) || r.HasPoint("xs", "sqlite", "lookup", 1) || !r.HasCheck("xs", "sqlite", "lookup") || !r.ResumedCell("xs/sqlite") {
		t.Error("the records read back are not the ones written")
	}
	if strings.Contains(read(t, filepath.Join(root, File)), "\tlookup\t1\t") {
		t.Error("the torn record was kept")
	}
	if _, err := Resume(root, "d2", nil); err == nil || !strings.Contains(err.Error(), "not the one of the run") {
		t.Errorf("a resume of another plan: %v", err)
	}
	if _, err := Resume(t.TempDir(), "d1", nil); err == nil || !strings.Contains(err.Error(), "no record of an interrupted run") {
		t.Errorf("a resume with no journal: %v", err)
	}
	var none *Journal
	if none.HasPoint("xs", "sqlite", "lookup", 0) || none.Point("xs", "sqlite", "lookup", 0) != nil {
		t.Error("a nil journal recorded something")
	}
}

// A file shorter than recorded was changed by someone else: nothing is
// cut then.
func TestResumeRefusesAChangedFile(t *testing.T) {
	root := t.TempDir()
	timings := filepath.Join(root, "timings.csv")
	appendFile(t, timings, "header\npoint 0\n")
	j, err := Start(root, "d", nil)
	if err != nil {
		t.Fatal(err)
	}
	j.Close()
	if err := os.WriteFile(timings, []byte("h\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Resume(root, "d", nil); err == nil || !strings.Contains(err.Error(), "changed since") {
		t.Errorf("resume over a shortened file: %v", err)
	}
}

// A rep is recorded with what it saved: a resume knows the last rep of
// each point not recorded whole and gives back what every rep before
// saved, cuts the files to the last rep's record, and removes saved reps
// no record names; a point recorded whole has none left.
func TestResumeGivesBackTheRecordedReps(t *testing.T) {
	root := t.TempDir()
	raw := filepath.Join(root, "raw.csv")
	appendFile(t, raw, "header\n")
	j, err := Start(root, "d", nil)
	if err != nil {
		t.Fatal(err)
	}
	// Interleaved: rep 1 of a, rep 1 of b, rep 2 of a (its last), rep 2
	// of b cut short.
	appendFile(t, raw, "a 1\n")
	if err := j.Rep("xs", "sqlite", "a", 0, 1, []byte("a1")); err != nil {
		t.Fatal(err)
	}
	appendFile(t, raw, "b 1\n")
	if err := j.Rep("xs", "sqlite", "b", 0, 1, []byte("b1")); err != nil {
		t.Fatal(err)
	}
	appendFile(t, raw, "a 2\n")
	if err := j.Rep("xs", "sqlite", "a", 0, 2, []byte("a2")); err != nil {
		t.Fatal(err)
	}
	if err := j.Point("xs", "sqlite", "a", 0); err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(repPrefix(root, pointKey("xs", "sqlite", "a", 0)) + "-*"); len(left) > 0 {
		t.Errorf("saved reps of a whole point left: %v", left)
	}
	appendFile(t, raw, "b 2, cut short\n")
	// Saved, but killed before its record.
	if err := writeSynced(repFile(root, pointKey("xs", "sqlite", "b", 0), 2), []byte("b2")); err != nil {
		t.Fatal(err)
	}
	j.Close()

	r, err := Resume(root, "d", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := read(t, raw); got != "header\na 1\nb 1\na 2\n" {
		t.Errorf("raw.csv after the resume: %q", got)
	}
	if !r.HasPoint("xs", "sqlite", "a", 0) || r.Reps("xs", "sqlite", "a", 0) != nil {
		t.Error("the whole point a is not recorded as whole")
	}
	if got := r.Reps("xs", "sqlite", "b", 0); len(got) != 1 || string(got[0]) != "b1" {
		t.Errorf("b's reps given back: %q, want [b1]", got)
	}
	if _, err := os.Stat(repFile(root, pointKey("xs", "sqlite", "b", 0), 2)); !os.IsNotExist(err) {
		t.Errorf("the saved rep no record names stayed: %v", err)
	}
	// Resumed, b goes on and finishes; the next resume gives back its
	// reps from both parts.
	appendFile(t, raw, "b 2\n")
	if err := r.Rep("xs", "sqlite", "b", 0, 2, []byte("b2")); err != nil {
		t.Fatal(err)
	}
	r.Close()
	r2, err := Resume(root, "d", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	if got := r2.Reps("xs", "sqlite", "b", 0); len(got) != 2 || string(got[0]) != "b1" || string(got[1]) != "b2" {
		t.Errorf("b's reps after two parts: %q", got)
	}
	// A new run into the directory starts with no saved rep.
	r2.Close()
	s, err := Start(root, "d", nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if left, _ := filepath.Glob(filepath.Join(root, repsDir, "*.rep")); len(left) > 0 {
		t.Errorf("a new run kept an earlier run's saved reps: %v", left)
	}
}

// A rep recorded whose saved file is gone cannot be resumed: the point
// could neither go on nor start again without measuring a rep twice.
func TestResumeRefusesALostRep(t *testing.T) {
	root := t.TempDir()
	j, err := Start(root, "d", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Rep("xs", "sqlite", "a", 0, 1, []byte("a1")); err != nil {
		t.Fatal(err)
	}
	j.Close()
	if err := os.Remove(repFile(root, pointKey("xs", "sqlite", "a", 0), 1)); err != nil {
		t.Fatal(err)
	}
	if _, err := Resume(root, "d", nil); err == nil || !strings.Contains(err.Error(), "rep 1 of xs sqlite a 0 was recorded") {
		t.Errorf("resume without a saved rep: %v", err)
	}
}

// Every input the run was made from is checked before anything is cut:
// a changed or removed file is named; the same files resume.
func TestResumeChecksEveryInput(t *testing.T) {
	inputs := t.TempDir()
	files := map[string]string{"spec.hcl": "query {}\n", "q1.sql": "SELECT 1\n"}
	var in []plan.Input
	for name, text := range files {
		path := filepath.Join(inputs, name)
		appendFile(t, path, text)
		in = append(in, plan.Input{Path: path, SHA256: Digest([]byte(text))})
	}
	added := filepath.Join(inputs, "more.hcl")
	for _, tc := range []struct {
		name   string
		change func(dir string)
		now    []plan.Input // the inputs of the resumed plan
		digest string       // the resumed plan's
		want   string
	}{
		{"unchanged", func(string) {}, in, "d", ""},
		{"a query changed", func(dir string) { appendFile(t, filepath.Join(dir, "q1.sql"), " AND 1 = 1") }, in, "d", "q1.sql changed since"},
		{"a spec file removed", func(dir string) { os.Remove(filepath.Join(dir, "spec.hcl")) }, in, "d", "spec.hcl of the interrupted run is gone"},
		// A new input changes the digest: the refusal names it.
		{"a file read now only", func(string) {}, append(slices.Clone(in), plan.Input{Path: added, SHA256: Digest(nil)}), "d2",
			"(input file " + added + " was not read by the interrupted run)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			raw := filepath.Join(root, "raw.csv")
			appendFile(t, raw, "header\n")
			j, err := Start(root, "d", in)
			if err != nil {
				t.Fatal(err)
			}
			appendFile(t, raw, "cut\n")
			j.Close()
			defer func() {
				for name, text := range files {
					os.WriteFile(filepath.Join(inputs, name), []byte(text), 0o644)
				}
			}()
			tc.change(inputs)
			r, err := Resume(root, tc.digest, tc.now)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				r.Close()
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("resume: %v, want %q", err, tc.want)
			}
			if got := read(t, raw); got != "header\ncut\n" {
				t.Errorf("a refused resume cut raw.csv: %q", got)
			}
		})
	}
}

// Started gives each file's size at the run's start, what was there
// before the run.
func TestStartedSizes(t *testing.T) {
	root := t.TempDir()
	appendFile(t, filepath.Join(root, "checks.txt"), "TOTAL 0 PASS, 0 FAIL, 0 SKIP\n")
	j, err := Start(root, "d", nil)
	if err != nil {
		t.Fatal(err)
	}
	appendFile(t, filepath.Join(root, "checks.txt"), "PASS a b c d: e\n")
	if err := j.Check("xs", "sqlite", "a"); err != nil {
		t.Fatal(err)
	}
	j.Close()
	r, err := Resume(root, "d", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := r.Started("checks.txt"); got != 29 {
		t.Errorf("checks.txt at the start: %d bytes, want 29", got)
	}
	var none *Journal
	if none.Started("checks.txt") != 0 {
		t.Error("a nil journal has a start")
	}
}

// The plan digest changes with a query's SQL, a backend's options and
// an input's content, whatever the plan's text says.
func TestPlanDigestCoversTheInputs(t *testing.T) {
	data := t.TempDir()
	build := func() *plan.Plan {
		spec, diags := config.Load([]string{"../../examples/quickstart.hcl"}, config.Options{Env: []string{}, Vars: []config.VarArg{{Name: "data_dir", Value: data}}})
		if !diags.HasErrors() {
			diags = append(diags, resolve.Validate(spec, plan.Drivers(drivers.Default))...)
		}
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		p, diags := planbuild.Build(context.Background(), spec, plan.Drivers(drivers.Default), 1)
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		return p
	}
	digest := func(p *plan.Plan) string {
		d, err := PlanDigest(p)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	base := digest(build())
	if again := digest(build()); again != base {
		t.Fatalf("the same spec digests %s then %s", base, again)
	}
	for name, change := range map[string]func(p *plan.Plan){
		"a query's SQL": func(p *plan.Plan) {
			q := p.Scales[0].Cells[0].Queries["q1"]
			q.SQL += " AND 1 = 1"
		},
		"a backend's options": func(p *plan.Plan) {
			p.Scales[0].Cells[0].Backend.Options = map[string]string{"path": "elsewhere.sqlite"}
		},
		"an input's content": func(p *plan.Plan) { p.Inputs[0].SHA256 = Digest([]byte("changed")) },
		"the dataset's seed": func(p *plan.Plan) { p.Scales[0].Gen.Seed++ },
	} {
		p := build()
		change(p)
		if digest(p) == base {
			t.Errorf("%s changed, the digest did not", name)
		}
	}
}
