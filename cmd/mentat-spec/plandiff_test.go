package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/plandiff"
)

// reviewFixture is a small spec with SQL files, shared with the
// plandiff package's tests.
const reviewFixture = "../../engine/plandiff/testdata/review"

func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func replaceIn(t *testing.T, path, old, new string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), old) {
		t.Fatalf("%s does not contain %q", path, old)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

func gitT(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// changeLine matches a change's title line in the text output.
var changeLine = regexp.MustCompile(`(?m)^[~+-] (matrix|dataset|cell|backend|query|scenario) .*$`)

// TestPlanDiffGitRevision reviews a commit that changes one query's SQL
// for one dialect and one scenario's clients: plan -diff HEAD~1 names
// exactly those, with the SQL diff and the duration change.
func TestPlanDiffGitRevision(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	repo := t.TempDir()
	spec := filepath.Join(repo, "specs", "review")
	gitT(t, repo, "init", "-q")
	// A first revision with a syntax error, to check errors name their side.
	if err := os.MkdirAll(spec, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(spec, "spec.hcl"), []byte("scale \"xs\" {\n  users = \n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitT(t, repo, "add", "-A")
	gitT(t, repo, "commit", "-qm", "broken")
	copyTree(t, reviewFixture, spec)
	gitT(t, repo, "add", "-A")
	gitT(t, repo, "commit", "-qm", "the spec")
	replaceIn(t, filepath.Join(spec, "sql", "duckdb", "name.sql"), "'user/name')\n", "'user/name')\nLIMIT 1\n")
	replaceIn(t, filepath.Join(spec, "spec.hcl"), "clients = [1]", "clients = [1, 2]")
	gitT(t, repo, "commit", "-qam", "the change")
	t.Chdir(repo)
	path := filepath.Join("specs", "review", "spec.hcl")

	code, out, errOut := runT(t, "plan", path, "-diff", "HEAD~1")
	if code != exitOK {
		t.Fatalf("plan -diff HEAD~1: exit %d\n%s%s", code, out, errOut)
	}
	got := changeLine.FindAllString(out, -1)
	want := []string{
		"~ query name changed on xs/duckdb",
		"~ scenario total changed on xs/sqlite, xs/duckdb",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("changes:\n%s\nwant:\n%s\noutput:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), out)
	}
	for _, s := range []string{
		"    sql (duckdb):\n      --- name (old)\n      +++ name (new)\n",
		"\n      +LIMIT 1\n",
		"\n      +clients 2    read count x2\n",
		"    estimated xs/sqlite 100ms -> 100ms to 200ms; xs/duckdb 100ms -> 100ms to 200ms\n",
		"Estimated duration: 300ms to 500ms -> 400ms to 600ms; points: 6 -> 8\n",
		"2 change(s): 0 added, 0 removed, 2 changed\n",
	} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
	if regexp.MustCompile(`\n      -[^-]`).MatchString(out) {
		t.Errorf("a line was reported removed:\n%s", out)
	}

	code, out, _ = runT(t, "plan", path, "-diff", "HEAD~1", "-json")
	var rep plandiff.Diff
	if err := json.Unmarshal([]byte(out), &rep); code != exitOK || err != nil || len(rep.Changes) != 2 {
		t.Errorf("-json: exit %d, %v, %d changes:\n%s", code, err, len(rep.Changes), out)
	}
	code, out, _ = runT(t, "plan", path, "-diff", "HEAD~1", "-markdown")
	if code != exitOK || !strings.Contains(out, "```diff\n--- name (old)") || !strings.Contains(out, "#### ~ scenario total changed on xs/sqlite, xs/duckdb") {
		t.Errorf("-markdown: exit %d:\n%s", code, out)
	}
	if code, _, _ = runT(t, "plan", path, "-diff", "HEAD~1", "-detailed-exitcode"); code != exitChanges {
		t.Errorf("-detailed-exitcode with changes: exit %d, want %d", code, exitChanges)
	}
	code, out, _ = runT(t, "plan", path, "-diff", "HEAD", "-detailed-exitcode")
	if code != exitOK || !strings.Contains(out, "No changes") || changeLine.MatchString(out) {
		t.Errorf("no changes: exit %d:\n%s", code, out)
	}

	// A spec error in either side: exit 2, the side named, file:line:col.
	code, _, errOut = runT(t, "plan", path, "-diff", "HEAD~2")
	if code != exitUsage || !strings.Contains(errOut, "In OLD (HEAD~2)") || !regexp.MustCompile(`HEAD~2:specs/review/spec\.hcl:2:\d+: `).MatchString(errOut) {
		t.Errorf("broken OLD: exit %d:\n%s", code, errOut)
	}
	replaceIn(t, filepath.Join(spec, "spec.hcl"), "clients = [1, 2]", "clients = [1, 2")
	code, _, errOut = runT(t, "plan", path, "-diff", "HEAD~1")
	if code != exitUsage || !strings.Contains(errOut, "In NEW (working tree)") || !strings.Contains(errOut, "spec.hcl:") {
		t.Errorf("broken NEW: exit %d:\n%s", code, errOut)
	}
	if code, _, errOut = runT(t, "plan", path, "-diff", "no-such-revision"); code != exitUsage || !strings.Contains(errOut, "neither a path nor a git revision") {
		t.Errorf("unknown revision: exit %d:\n%s", code, errOut)
	}
}

// TestPlanDiffPaths compares two spec paths outside any repository.
func TestPlanDiffPaths(t *testing.T) {
	before, after := t.TempDir(), t.TempDir()
	copyTree(t, reviewFixture, before)
	copyTree(t, reviewFixture, after)
	replaceIn(t, filepath.Join(after, "spec.hcl"), "seed = 11", "seed = 12")
	code, out, errOut := runT(t, "plan", filepath.Join(after, "spec.hcl"), "-diff", filepath.Join(before, "spec.hcl"))
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	got := changeLine.FindAllString(out, -1)
	if len(got) != 1 || got[0] != "~ dataset d changed at scale xs" || !strings.Contains(out, `+dataset d: seed 12, tx_size`) {
		t.Errorf("changes %q:\n%s", got, out)
	}
	if code, _, _ := runT(t, "plan", filepath.Join(after, "spec.hcl"), "-diff", filepath.Join(before, "spec.hcl"), "-json", "-markdown"); code != exitUsage {
		t.Errorf("-json with -markdown: exit %d, want %d", code, exitUsage)
	}
}
