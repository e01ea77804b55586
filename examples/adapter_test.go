package examples

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestQuickstartThroughAdapter applies the quickstart unchanged with its
// backend switched by -var to SQLite through the reference adapter
// program, with goroutine clients, one worker process per client and two
// worker processes: exit 0, every check PASS, the adapter's hello in
// env.txt, and the store's own time as each point's execution time in
// latency-split.csv.
func TestQuickstartThroughAdapter(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a database per client model")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	for _, model := range []string{"goroutine", "process", "2"} {
		t.Run(model, func(t *testing.T) {
			spec := filepath.Join(workspace(t, "quickstart.hcl"), "examples", "quickstart.hcl")
			shortSampling(t, spec)
			out := filepath.Join(t.TempDir(), "results")
			r := applyTo(t, spec, out, "-var", `backends=["sqlite_adapter"]`, "-var", "client_model="+model)
			if r.code != 0 {
				t.Fatalf("exit %d, want 0\n%s", r.code, r.output)
			}
			for _, l := range r.checks {
				if !strings.HasPrefix(l, "PASS ") {
					t.Errorf("checks.txt: %s", l)
				}
			}
			if len(r.checks) < 8 {
				t.Errorf("%d checks, want at least 8", len(r.checks))
			}
			env, err := os.ReadFile(filepath.Join(out, "env.txt"))
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range []string{"adapter.name: sqlite-python", "adapter.protocol: 1.1", "adapter.capabilities: transactions yes, writers 1"} {
				if !strings.Contains(string(env), w) {
					t.Errorf("env.txt lacks %q", w)
				}
			}
			split, err := os.ReadFile(filepath.Join(out, "latency-split.csv"))
			if err != nil {
				t.Fatal(err)
			}
			timed := 0
			for _, l := range strings.Split(string(split), "\n")[1:] {
				// scenario,backend,scale,point,rep,clients,calls,observed_ms,server_exec_ms,...
				if f := strings.Split(l, ","); len(f) > 8 && f[1] == "sqlite_adapter" {
					if f[8] == "" {
						t.Errorf("latency-split.csv: no store time in %s", l)
					}
					timed++
				}
			}
			if timed == 0 {
				t.Errorf("latency-split.csv has no point of sqlite_adapter:\n%s", split)
			}
		})
	}
}

// TestAdapterSessionRoles: in a run of point_lookup and write_mixed with
// two worker processes, every adapter is opened in its session's role
// (the loader, write_mixed's writer and readers, the checker), and the
// point's clients' adapters are started by a worker, not by the process
// that loaded the store.
func TestAdapterSessionRoles(t *testing.T) {
	spec := adapterQuickstart(t)
	log := filepath.Join(t.TempDir(), "opens")
	over := faultyAdapter(t, spec, `{ OPEN_LOG = "`+log+`" }`)
	r := apply(t, spec, over, "-var", `backends=["sqlite_adapter"]`, "-var", `scenarios=["point_lookup", "write_mixed"]`,
		"-var", "mixed_s=0.5", "-var", "client_model=2")
	if r.code != 0 {
		t.Fatalf("exit %d, want 0\n%s", r.code, r.output)
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	parents := map[string]map[string]bool{} // role: the processes that started its adapters
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(l)
		if len(f) != 2 {
			t.Fatalf("open log line %q", l)
		}
		if parents[f[0]] == nil {
			parents[f[0]] = map[string]bool{}
		}
		parents[f[0]][f[1]] = true
	}
	for _, role := range []string{"admin", "client", "loader", "reader", "writer", "checker"} {
		if len(parents[role]) == 0 {
			t.Errorf("no adapter opened as %s; opened: %v", role, parents)
		}
	}
	var coordinator string
	for p := range parents["loader"] {
		coordinator = p
	}
	workers := 0
	for p := range parents["reader"] {
		if p != coordinator {
			workers++
		}
	}
	if workers == 0 {
		t.Errorf("every reader's adapter was started by the loading process %s, none by a worker: %v", coordinator, parents)
	}
}

// faultyAdapter writes an override file that runs the quickstart's
// sqlite_adapter backend through the test adapter with fault env.
func faultyAdapter(t *testing.T, spec string, env string) string {
	t.Helper()
	adapter := filepath.Join(repoRoot(t), "drivers", "adapter", "testdata", "faulty_adapter.py")
	path := filepath.Join(filepath.Dir(spec), "faulty_override.hcl")
	body := "backend \"sqlite_adapter\" {\n  command = [\"python3\", \"" + adapter + "\"]\n  env = " + env + "\n}\n"
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return filepath.Base(path)
}

// TestAdapterWrongRowFails: an adapter whose answers are off by one
// value makes its checks FAIL and apply exit 1.
func TestAdapterWrongRowFails(t *testing.T) {
	spec := adapterQuickstart(t)
	over := faultyAdapter(t, spec, `{ FAULT = "wrong_row" }`)
	r := apply(t, spec, over, "-var", `backends=["sqlite_adapter"]`, "-var", `scenarios=["point_lookup"]`)
	if r.code != 1 {
		t.Fatalf("exit %d, want 1\n%s", r.code, r.output)
	}
	if len(r.checks) == 0 || !strings.HasPrefix(r.checks[0], "FAIL ") {
		t.Errorf("checks.txt: %v, want a FAIL", r.checks)
	}
}

// TestAdapterRefusingTheChecker: an adapter that will not open the
// checker's session leaves the answers unchecked: each check FAILs
// saying why (never PASS, never left out), the points are measured all
// the same, and apply exits 1.
func TestAdapterRefusingTheChecker(t *testing.T) {
	spec := adapterQuickstart(t)
	over := faultyAdapter(t, spec, `{ FAULT = "refuse_role", FAULT_ROLE = "checker" }`)
	out := filepath.Join(t.TempDir(), "results")
	r := applyTo(t, spec, out, over, "-var", `backends=["sqlite_adapter"]`, "-var", `scenarios=["point_lookup"]`)
	if r.code != 1 || strings.Contains(r.output, "panic") {
		t.Fatalf("exit %d, want 1\n%s", r.code, r.output)
	}
	if len(r.checks) == 0 {
		t.Fatal("no checks in checks.txt")
	}
	for _, l := range r.checks {
		if !strings.HasPrefix(l, "FAIL ") || !strings.Contains(l, "a session for the checks") || !strings.Contains(l, "no session of role checker") {
			t.Errorf("checks.txt: %s; want a FAIL saying the checker's session was refused", l)
		}
	}
	timings, err := os.ReadFile(filepath.Join(out, "timings.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(timings), "\npoint_lookup,") {
		t.Errorf("timings.csv has no row of point_lookup:\n%s", timings)
	}
}

// TestAdapterExitingMidPoint: an adapter that exits after some calls
// loses its session, the run goes on to the next points, the output
// quotes the adapter's stderr, and the checks, each scenario's on a
// checker adapter of its own making fewer calls, PASS: apply exits 7 for
// the points that ended early, not 1.
func TestAdapterExitingMidPoint(t *testing.T) {
	spec := adapterQuickstart(t)
	over := faultyAdapter(t, spec, `{ FAULT = "exit_after", FAULT_N = "50" }`)
	out := filepath.Join(t.TempDir(), "results")
	r := applyTo(t, spec, out, over, "-var", `backends=["sqlite_adapter"]`, "-var", `scenarios=["point_lookup", "ref_traversal"]`)
	if r.code != 7 || strings.Contains(r.output, "panic") {
		t.Errorf("exit %d, want 7\n%s", r.code, r.output)
	}
	for _, l := range r.checks {
		if !strings.HasPrefix(l, "PASS ") {
			t.Errorf("checks.txt: %s", l)
		}
	}
	if !strings.Contains(r.output, "faulty: giving up after 50 calls") {
		t.Errorf("the output does not quote the adapter's stderr")
	}
	timings, err := os.ReadFile(filepath.Join(out, "timings.csv"))
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range []string{"point_lookup", "ref_traversal"} {
		if !strings.Contains(string(timings), "\n"+sc+",") {
			t.Errorf("timings.csv has no row of %s:\n%s", sc, timings)
		}
	}
}

// TestFullSuiteThroughAdapterAt8Clients: the release suite's
// concurrency_sweep at 8 clients and write_mixed with 8 readers checked
// during the writes, through the reference adapter: exit 0, every check
// PASS.
func TestFullSuiteThroughAdapterAt8Clients(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a database")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	spec := filepath.Join(repoRoot(t), "specs", "full.hcl")
	r := apply(t, spec, "-var", "data_dir="+t.TempDir(), "-var", `backends=["sqlite_adapter"]`, "-var", `scales=["xs"]`, "-var", "clients=[8]",
		"-var", `scenarios=["concurrency_sweep","write_mixed"]`, "-var", "mixed_readers=8", "-var", "mixed_s=1",
		"-var", "precision=0", "-var", "min_s=0.2", "-var", "max_s=0.5", "-var", "min_n=10", "-var", "reps=1")
	if r.code != 0 {
		t.Fatalf("exit %d, want 0\n%s", r.code, r.output)
	}
	for _, l := range r.checks {
		if !strings.HasPrefix(l, "PASS ") {
			t.Errorf("checks.txt: %s", l)
		}
	}
	if len(r.checks) < 5 {
		t.Errorf("%d checks, want at least 5:\n%s", len(r.checks), r.output)
	}
}

// TestAdapterCutInWriteMixed: a reader's adapter that sleeps past
// probe_s during write_mixed is cut and counted, a fresh adapter serves
// that client's next calls, and the run's checks all PASS.
func TestAdapterCutInWriteMixed(t *testing.T) {
	spec := adapterQuickstart(t)
	edit(t, spec, "probe_s = 20", "probe_s = 1")
	mark := filepath.Join(t.TempDir(), "slept")
	over := faultyAdapter(t, spec, `{ FAULT = "sleep_once", FAULT_MARK = "`+mark+`", FAULT_SQL = "q1, point lookup" }`)
	out := filepath.Join(t.TempDir(), "results")
	r := applyTo(t, spec, out, over, "-var", `backends=["sqlite_adapter"]`, "-var", `scenarios=["write_mixed"]`, "-var", "mixed_s=1")
	if r.code != 0 {
		t.Fatalf("exit %d, want 0\n%s", r.code, r.output)
	}
	for _, l := range r.checks {
		if !strings.HasPrefix(l, "PASS ") {
			t.Errorf("checks.txt: %s", l)
		}
	}
	if _, err := os.Stat(mark); err != nil {
		t.Fatalf("the adapter never slept: %v", err)
	}
	logs, _ := filepath.Glob(filepath.Join(out, "logs", "statements-*write_mixed*.log"))
	var all strings.Builder
	for _, l := range logs {
		b, _ := os.ReadFile(l)
		all.Write(b)
	}
	if !strings.Contains(all.String(), "adapter calls cut by probe_s: 1; fresh adapters started for them: 1") {
		t.Errorf("the statement logs do not count the cut:\n%s", all.String())
	}
}

// TestAdapterWritersFromHello: a stream of writes asking four writers on
// an adapter backend shares as many writing sessions as the adapter's
// hello declares (capabilities.writers; 0 is any number, so the stream's
// four), and plan says so under the scenario, naming the hello.
func TestAdapterWritersFromHello(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a database")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	tests := []struct {
		hello   string // the adapter's capabilities.writers
		writers int    // writing sessions opened for the point
		note    string // plan's line under the scenario
	}{
		{"1", 1, "writes: one writing session shared by the clients (adapter sqlite-python 1.0 says writers = 1 at hello; writers = 4 asked)"},
		{"2", 2, "writes: 2 writing sessions shared by the clients (adapter sqlite-python 1.0 says writers = 2 at hello; writers = 4 asked)"},
		{"0", 4, "writes: 4 writing sessions shared by the clients (writers = 4)"},
	}
	for _, tt := range tests {
		t.Run("hello writers "+tt.hello, func(t *testing.T) {
			spec := filepath.Join(workspace(t, "quickstart.hcl"), "examples", "quickstart.hcl")
			shortSampling(t, spec)
			log := filepath.Join(t.TempDir(), "opens")
			over := faultyAdapter(t, spec, `{ FAULT = "writers", FAULT_N = "`+tt.hello+`", OPEN_LOG = "`+log+`" }`)
			stream := `
scenario "op_writes" {
  description = "reads and issue state changes, four writers asked"
  clients     = [4]
  read {
    writers = 4
    operation "read" {
      weight = 1
      query  = query.q1
    }
    operation "state" {
      weight = 1
      write  = "state_change"
      query  = query.write_state
    }
  }
}
`
			if err := os.WriteFile(filepath.Join(filepath.Dir(spec), "op_writes.hcl"), []byte(stream), 0o644); err != nil {
				t.Fatal(err)
			}
			args := []string{filepath.Base(spec), over, "op_writes.hcl", "-var", `backends=["sqlite_adapter"]`, "-var", `scenarios=["op_writes"]`}
			cmd := exec.Command(binary(t), append([]string{"plan"}, args...)...)
			cmd.Dir = filepath.Dir(spec)
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), tt.note) {
				t.Errorf("plan (%v) lacks %q:\n%s", err, tt.note, out)
			}
			os.Remove(log) // plan's hello opens nothing, but say so plainly
			r := apply(t, spec, args[1:]...)
			if r.code != 0 {
				t.Fatalf("exit %d, want 0\n%s", r.code, r.output)
			}
			b, err := os.ReadFile(log)
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(string(b), "writer "); n != tt.writers {
				t.Errorf("%d writing sessions opened, want %d:\n%s", n, tt.writers, b)
			}
		})
	}
}

// adapterQuickstart is the quickstart in a workspace of its own with
// short sampling, for a test through the reference adapter: skipped in
// -short (it loads a database) and where python3 is not installed.
func adapterQuickstart(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("loads a database")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	spec := filepath.Join(workspace(t, "quickstart.hcl"), "examples", "quickstart.hcl")
	shortSampling(t, spec)
	return spec
}
