package runner_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/results"
	"github.com/mentat-spec/mentat-spec/engine/runner"
)

// rowWatcher is a run's log: at each timing line the console prints, it
// notes how many raw.csv rows are on disk, which shows when the timing
// row was emitted among the reps.
type rowWatcher struct {
	t      *testing.T
	raw    string
	mu     sync.Mutex
	events []string
}

func (w *rowWatcher) Write(b []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) > 4 && f[3] == "clients" && strings.HasPrefix(f[0], "xs/"):
			w.note(fmt.Sprintf("%s %s c%s", f[1], f[2], f[4]))
		case len(f) > 2 && f[2] == "ceiling:":
			w.note(f[1] + " ceiling")
		}
	}
	return len(b), nil
}

func (w *rowWatcher) note(what string) {
	b, err := os.ReadFile(w.raw)
	if err != nil {
		w.t.Errorf("reading raw.csv at the timing row of %s: %v", what, err)
	}
	w.mu.Lock()
	w.events = append(w.events, fmt.Sprintf("%s after %d", what, bytes.Count(b, []byte("\n"))-1))
	w.mu.Unlock()
}

// The reps of a cell's read points run round-robin (rep 1 of every point,
// then rep 2, ...) up to a scenario that writes; the reads declared after
// it form their own round-robin after it. Every rep's raw row is on disk
// as it is measured, a point's timing row right after its last rep, a
// ceiling at the probe stops the point's later reps, and the sequential
// order keeps the seed suite's order.
func TestRepsRunRoundRobinUpToAWrite(t *testing.T) {
	const after = `
scenario "after_writes" {
  description = "q1 at 1 and 2 clients, declared after write_mixed"
  clients     = [1, 2]
  read {
    query = query.q1
  }
}

backend "postgres" {`
	q2 := `description = "q2: issues assigned to a user (email -> ref -> title, state)"`
	for _, tc := range []struct {
		name    string
		edits   []string
		raw     []string // scenario op clients rep, in raw.csv's order
		timings []string // timing rows, with the raw rows on disk then
	}{
		{
			name:  "interleaved",
			edits: []string{q2, q2 + "\n  sampling {\n    reps = 1\n  }"},
			raw: []string{"point_lookup read 1 1", "ref_traversal read 1 1", "point_lookup read 1 2", "point_lookup read 1 3",
				"write_mixed write 1 1", "write_mixed read 2 1",
				"after_writes read 1 1", "after_writes read 2 1", "after_writes read 1 2", "after_writes read 2 2", "after_writes read 1 3", "after_writes read 2 3"},
			timings: []string{"ref_traversal read c1 after 2", "point_lookup read c1 after 4", "write_mixed write c1 after 6", "write_mixed read c2 after 6",
				"after_writes read c1 after 11", "after_writes read c2 after 12"},
		},
		{
			name:  "sequential",
			edits: []string{q2, q2 + "\n  sampling {\n    reps = 1\n  }", "  probe_s = 20\n", "  probe_s = 20\n  order   = \"sequential\"\n"},
			raw: []string{"point_lookup read 1 1", "point_lookup read 1 2", "point_lookup read 1 3", "ref_traversal read 1 1",
				"write_mixed write 1 1", "write_mixed read 2 1",
				"after_writes read 1 1", "after_writes read 1 2", "after_writes read 1 3", "after_writes read 2 1", "after_writes read 2 2", "after_writes read 2 3"},
			timings: []string{"point_lookup read c1 after 3", "ref_traversal read c1 after 4", "write_mixed write c1 after 6", "write_mixed read c2 after 6",
				"after_writes read c1 after 9", "after_writes read c2 after 12"},
		},
		{
			name:  "a ceiling at the probe",
			edits: []string{q2, q2 + "\n  sampling {\n    probe_s = 0.000001\n  }"},
			raw: []string{"point_lookup read 1 1", "ref_traversal ceiling 1 1", "point_lookup read 1 2", "point_lookup read 1 3",
				"write_mixed write 1 1", "write_mixed read 2 1",
				"after_writes read 1 1", "after_writes read 2 1", "after_writes read 1 2", "after_writes read 2 2", "after_writes read 1 3", "after_writes read 2 3"},
			timings: []string{"ref_traversal ceiling after 2", "point_lookup read c1 after 4", "write_mixed write c1 after 6", "write_mixed read c2 after 6",
				"after_writes read c1 after 11", "after_writes read c2 after 12"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			edits := append([]string{"reps    = 2\n", "reps    = 3\n", "\nbackend \"postgres\" {", after}, tc.edits...)
			spec, data := quickstartText(t, true, edits...)
			dir := filepath.Join(t.TempDir(), "results")
			w := &rowWatcher{t: t, raw: filepath.Join(dir, "raw.csv")}
			o, _ := apply(t, spec, runner.Options{ResultsDir: dir, Log: w},
				config.VarArg{Name: "data_dir", Value: data},
				config.VarArg{Name: "scenarios", Value: `["point_lookup","ref_traversal","write_mixed","after_writes"]`},
				config.VarArg{Name: "mixed_s", Value: "0.3"})
			if o.Failed() {
				t.Fatalf("run failed: %v, checks %+v", o.Failures, o.Checks)
			}
			raw := readCSV(t, filepath.Join(dir, "raw.csv"))
			col := map[string]int{}
			for i, h := range raw[0] {
				col[h] = i
			}
			var got []string
			for _, r := range raw[1:] {
				got = append(got, strings.Join([]string{r[col["scenario"]], r[col["op"]], r[col["clients"]], r[col["rep"]]}, " "))
			}
			if !slices.Equal(got, tc.raw) {
				t.Errorf("raw.csv rows (scenario op clients rep):\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tc.raw, "\n  "))
			}
			w.mu.Lock()
			defer w.mu.Unlock()
			if !slices.Equal(w.events, tc.timings) {
				t.Errorf("timing rows (with the raw rows on disk then):\n  %s\nwant\n  %s", strings.Join(w.events, "\n  "), strings.Join(tc.timings, "\n  "))
			}
			// The checks of the reads ran, and passed, with the store as
			// it was before the writes.
			status := map[string]string{}
			for _, l := range readLines(t, filepath.Join(dir, results.ChecksFile)) {
				if f := strings.Fields(l); len(f) >= 5 {
					status[f[1]+" "+strings.TrimSuffix(f[4], ":")] = f[0]
				}
			}
			for _, name := range []string{"point_lookup names", "ref_traversal assigned"} {
				if status[name] != "PASS" {
					t.Errorf("check %s: %q, want PASS (checks: %v)", name, status[name], status)
				}
			}
		})
	}
}
