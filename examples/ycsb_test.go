package examples

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// ycsbShares are the declared shares of each workload's operations, in
// percent (YCSB's readproportion, updateproportion, ...).
var ycsbShares = map[string]map[string]float64{
	"workload_a": {"read": 50, "update": 50},
	"workload_b": {"read": 95, "update": 5},
	"workload_c": {"read": 100},
	"workload_d": {"read": 95, "insert": 5},
	"workload_e": {"scan": 95, "insert": 5},
	"workload_f": {"read": 50, "read_modify_write": 50},
}

// TestYCSBPasses applies examples/ycsb unchanged on every backend at hand:
// exit 0, every check PASS, a timings.csv row per operation and a total
// per workload, and each operation's share of the calls within 2 points
// of the declared one.
func TestYCSBPasses(t *testing.T) {
	if testing.Short() {
		t.Skip("loads databases")
	}
	for _, b := range backends() {
		t.Run(b, func(t *testing.T) {
			spec := filepath.Join(workspace(t, "ycsb"), "examples", "ycsb")
			res := t.TempDir()
			r := applyTo(t, spec, res, "-var", `backends=["`+b+`"]`)
			if r.code != 0 {
				t.Fatalf("exit %d, want 0\n%s", r.code, r.output)
			}
			for _, l := range r.checks {
				if !strings.HasPrefix(l, "PASS ") {
					t.Errorf("checks.txt: %s", l)
				}
			}
			if len(r.checks) < 9 {
				t.Errorf("%d checks, want at least 9", len(r.checks))
			}
			counts := timingCounts(t, filepath.Join(res, "timings.csv"))
			for w, shares := range ycsbShares {
				total := counts[w]["total"]
				if total < 2000 {
					t.Errorf("%s: %d calls in all, want at least 2000", w, total)
					continue
				}
				var sum int64
				for op, want := range shares {
					n, ok := counts[w][op]
					if !ok {
						t.Errorf("%s: no timings row for op %s (rows: %v)", w, op, counts[w])
						continue
					}
					sum += n
					if got := 100 * float64(n) / float64(total); got < want-2 || got > want+2 {
						t.Errorf("%s: %s took %.2f%% of %d calls, declared %g%%", w, op, got, total, want)
					}
				}
				if sum != total || len(counts[w]) != len(shares)+1 {
					t.Errorf("%s: rows %v: the operations' calls sum to %d, total %d", w, counts[w], sum, total)
				}
			}
		})
	}
}

// TestYCSBInsertSkippingAStatementFails: an insert that logs the new
// record but leaves it out of the current state commits as fast, and the
// check of the record count after workload D catches it.
func TestYCSBInsertSkippingAStatementFails(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a database")
	}
	tmp := workspace(t, "ycsb")
	spec := filepath.Join(tmp, "examples", "ycsb")
	path := filepath.Join(spec, "sql", "insert.sql")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(b), "INSERT INTO cur_text")
	if i < 0 {
		t.Fatal("insert.sql no longer inserts into cur_text")
	}
	if err := os.WriteFile(path, b[:i], 0o644); err != nil {
		t.Fatal(err)
	}
	r := applyTo(t, spec, t.TempDir(), "-var", `scenarios=["workload_d"]`, "-var", "calls=500")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1\n%s", r.code, r.output)
	}
	failed := false
	for _, l := range r.checks {
		if strings.HasPrefix(l, "FAIL ") && strings.Contains(l, "workload_d ") && strings.Contains(l, " records: ") {
			failed = true
		}
	}
	if !failed {
		t.Errorf("no FAIL of workload_d's records check:\n%s", strings.Join(r.checks, "\n"))
	}
}

// TestYCSBSerializableWritersRetry runs workload A on PostgreSQL with 4
// writers under SERIALIZABLE: concurrent updates of the hot records fail
// with serialization errors, which are retried and counted by class in
// logs/contention.log, and every check still passes.
func TestYCSBSerializableWritersRetry(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a database")
	}
	if os.Getenv("MENTAT_SPEC_PG_DSN") == "" {
		t.Skip("MENTAT_SPEC_PG_DSN is not set")
	}
	tmp := workspace(t, "ycsb")
	spec := filepath.Join(tmp, "examples", "ycsb")
	override := `backend "postgres" {
  settings = { default_transaction_isolation = "serializable" }
}
`
	if err := os.WriteFile(filepath.Join(spec, "serializable_override.hcl"), []byte(override), 0o644); err != nil {
		t.Fatal(err)
	}
	res := t.TempDir()
	r := applyTo(t, spec, res, "-var", `backends=["postgres"]`, "-var", `scenarios=["workload_a"]`,
		"-var", "writers=4", "-var", "threads=[4]", "-var", "max_tries=50", "-var", "calls=4000")
	if r.code != 0 {
		t.Fatalf("exit %d, want 0\n%s", r.code, r.output)
	}
	for _, l := range r.checks {
		if !strings.HasPrefix(l, "PASS ") {
			t.Errorf("checks.txt: %s", l)
		}
	}
	b, err := os.ReadFile(filepath.Join(res, "logs", "contention.log"))
	if err != nil {
		t.Fatal(err)
	}
	line := ""
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, " workload_a ") && strings.Contains(l, "op=update") {
			line = l
		}
	}
	ser, retries := field(line, "serialization="), field(line, "retries=")
	if ser == 0 || retries == 0 {
		t.Errorf("contention.log: %q: want serialization failures, retried", line)
	}
	if !strings.Contains(line, "clients=4") {
		t.Errorf("contention.log: %q: want the update's 4 clients", line)
	}
}

// field reads the whole number after key in line.
func field(line, key string) int64 {
	i := strings.Index(line, key)
	if i < 0 {
		return 0
	}
	s := line[i+len(key):]
	if j := strings.IndexByte(s, ' '); j >= 0 {
		s = s[:j]
	}
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}

// timingCounts reads timings.csv as scenario -> op -> calls (count plus
// errors: a call that failed was drawn too).
func timingCounts(t *testing.T, path string) map[string]map[string]int64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	out := map[string]map[string]int64{}
	for _, r := range rows[1:] {
		n, _ := strconv.ParseInt(r[col["count"]], 10, 64)
		e, _ := strconv.ParseInt(r[col["errors"]], 10, 64)
		sc := r[col["scenario"]]
		if out[sc] == nil {
			out[sc] = map[string]int64{}
		}
		out[sc][r[col["op"]]] += n + e
	}
	return out
}
