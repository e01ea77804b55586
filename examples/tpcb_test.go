package examples

import (
	"bytes"
	"encoding/csv"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// tpcbUnit is the tests' scale unit: pgbench's shape (10 tellers and 1
// branch per unit) with 1,000 accounts a branch instead of 100,000.
var tpcbUnit = []string{"-var", "accounts_per_branch=1000", "-var", "customers=2000"}

// smallbankShares are the SmallBank mix's declared shares in percent.
var smallbankShares = map[string]float64{
	"amalgamate": 15, "balance": 15, "deposit_checking": 15,
	"send_payment": 25, "transact_savings": 15, "write_check": 15,
}

// TestTPCBPasses applies examples/tpcb unchanged on every backend at
// hand: exit 0, every check PASS (per-account and per-teller balances
// after the deltas, the totals, the per-branch sums, conservation, and
// SmallBank's balances and totals), and each SmallBank operation's share
// of the calls within 2 points of its weight.
func TestTPCBPasses(t *testing.T) {
	if testing.Short() {
		t.Skip("loads databases")
	}
	for _, b := range backends() {
		t.Run(b, func(t *testing.T) {
			spec := filepath.Join(workspace(t, "tpcb"), "examples", "tpcb")
			res := t.TempDir()
			r := applyTo(t, spec, res, append(tpcbUnit, "-var", `backends=["`+b+`"]`, "-var", "calls=3000")...)
			if r.code != 0 {
				t.Fatalf("exit %d, want 0\n%s", r.code, r.output)
			}
			names := map[string]bool{}
			for _, l := range r.checks {
				if !strings.HasPrefix(l, "PASS ") {
					t.Errorf("checks.txt: %s", l)
				}
				if f := strings.Fields(l); len(f) > 4 {
					names[f[1]+" "+strings.TrimSuffix(f[4], ":")] = true
				}
			}
			for _, want := range []string{"tpcb_like accounts", "tpcb_like tellers", "tpcb_like totals", "tpcb_like by_branch", "tpcb_like conservation", "smallbank customers", "smallbank totals"} {
				if !names[want] {
					t.Errorf("no check %s in checks.txt: %v", want, r.checks)
				}
			}
			if !strings.Contains(strings.Join(r.checks, "\n"), "PASS tpcb_like "+b+" s1 conservation (during): ") {
				t.Errorf("no PASS of conservation during the scenario: %v", r.checks)
			}
			counts := timingCounts(t, filepath.Join(res, "timings.csv"))
			if counts["tpcb_like"]["tpcb"] < 3000 {
				t.Errorf("tpcb_like: %d transactions, want at least 3000", counts["tpcb_like"]["tpcb"])
			}
			total := counts["smallbank"]["total"]
			for op, want := range smallbankShares {
				got := 100 * float64(counts["smallbank"][op]) / float64(total)
				if got < want-2 || got > want+2 {
					t.Errorf("smallbank %s: %.1f%% of %d calls, want %.0f%% within 2 points", op, got, total, want)
				}
			}
		})
	}
}

// TestTPCBSerializableWritersRetry runs tpcb_like on PostgreSQL with 4
// writers under SERIALIZABLE: every transaction updates the one branch,
// so they fail with serialization errors, which are retried and counted,
// and every check, conservation included, still passes.
func TestTPCBSerializableWritersRetry(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a database")
	}
	if os.Getenv("MENTAT_SPEC_PG_DSN") == "" {
		t.Skip("MENTAT_SPEC_PG_DSN is not set")
	}
	spec := filepath.Join(workspace(t, "tpcb"), "examples", "tpcb")
	override := `backend "postgres" {
  settings = { default_transaction_isolation = "serializable" }
}
`
	if err := os.WriteFile(filepath.Join(spec, "serializable_override.hcl"), []byte(override), 0o644); err != nil {
		t.Fatal(err)
	}
	res := t.TempDir()
	r := applyTo(t, spec, res, append(tpcbUnit, "-var", `backends=["postgres"]`, "-var", `scenarios=["tpcb_like"]`,
		"-var", "clients=[4]", "-var", "writers=4", "-var", "max_tries=100", "-var", "calls=1000")...)
	if r.code != 0 {
		t.Fatalf("exit %d, want 0\n%s", r.code, r.output)
	}
	for _, l := range r.checks {
		if !strings.HasPrefix(l, "PASS ") {
			t.Errorf("checks.txt: %s", l)
		}
	}
	if len(r.checks) != 6 {
		t.Errorf("%d checks, want tpcb_like's 5 and conservation during it", len(r.checks))
	}
	line := contentionLine(t, res, "tpcb_like", "tpcb")
	if field(line, "serialization=") == 0 || field(line, "retries=") == 0 || !strings.Contains(line, "clients=4") {
		t.Errorf("contention.log: %q: want 4 clients' serialization failures, retried", line)
	}
}

// TestTPCBConservationFailsWithoutTheBranchStep drops the branch's
// update from the transaction, from its declaration and its SQL alike:
// the truth follows what the transaction now does, so the balance checks
// pass, but the money no longer reaches the branch and conservation
// fails.
func TestTPCBConservationFailsWithoutTheBranchStep(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a database")
	}
	spec := filepath.Join(workspace(t, "tpcb"), "examples", "tpcb")
	edit(t, filepath.Join(spec, "dataset.hcl"), `    step "branch" {
      entity = "branch"
      target = ref("branch")
      attr   = "branch/balance"
      delta  = draw.delta
    }
`, "")
	edit(t, filepath.Join(spec, "queries.hcl"), `    replace(local.add, "STEP", "branch"),
`, "")
	hist := filepath.Join(spec, "sql", "history.sql")
	b, err := os.ReadFile(hist)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(hist, bytes.ReplaceAll(b, []byte("CAST(:branch_e AS BIGINT)"), []byte("CAST(0 AS BIGINT)")), 0o644); err != nil {
		t.Fatal(err)
	}
	r := applyTo(t, spec, t.TempDir(), append(tpcbUnit, "-var", `scenarios=["tpcb_like"]`, "-var", "calls=300")...)
	if r.code != 1 {
		t.Fatalf("exit %d, want 1\n%s", r.code, r.output)
	}
	status := checkStatus(r.checks)
	if status["conservation"] != "FAIL" {
		t.Errorf("conservation %q, want FAIL:\n%s", status["conservation"], strings.Join(r.checks, "\n"))
	}
	for _, c := range []string{"accounts", "tellers", "totals"} {
		if status[c] != "PASS" {
			t.Errorf("%s %q, want PASS (the truth follows the steps declared):\n%s", c, status[c], strings.Join(r.checks, "\n"))
		}
	}
}

// TestTPCBAccountCommittedAloneFailsTheAccounts makes the account's
// update commit in a transaction of its own, and the rest of the
// transaction fail every third time: the engine records those as not
// committed, so their account deltas are in the store but not in the
// truth, and the per-account check fails.
func TestTPCBAccountCommittedAloneFailsTheAccounts(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a database")
	}
	spec := filepath.Join(workspace(t, "tpcb"), "examples", "tpcb")
	edit(t, filepath.Join(spec, "queries.hcl"), `    file("sql/abalance.sql"), ";",`, `    file("sql/abalance.sql"), ";",
    "COMMIT;", "BEGIN;",
    "INSERT INTO attrs SELECT * FROM attrs WHERE CAST(:k AS BIGINT) % 3 = 2 LIMIT 1;",`)
	res := t.TempDir()
	r := applyTo(t, spec, res, append(tpcbUnit, "-var", `scenarios=["tpcb_like"]`, "-var", "calls=300")...)
	if r.code != 1 {
		t.Fatalf("exit %d, want 1\n%s", r.code, r.output)
	}
	status := checkStatus(r.checks)
	if status["accounts"] != "FAIL" {
		t.Errorf("accounts %q, want FAIL:\n%s", status["accounts"], strings.Join(r.checks, "\n"))
	}
	if status["tellers"] != "PASS" {
		t.Errorf("tellers %q, want PASS (their updates rolled back with the failed transactions)", status["tellers"])
	}
	if counts := timingErrors(t, filepath.Join(res, "timings.csv")); counts["tpcb_like"]["tpcb"] == 0 {
		t.Error("the failed transactions are not counted as errors")
	}
}

// TestTPCBDuringCatchesAHalfCommittedTransaction commits the account's
// update in a transaction of its own and the rest, after a slow
// statement, in a second one that always succeeds: after the scenario
// every check passes (everything committed in the end), but conservation
// run during the scenario reads the store between the two commits and
// fails.
func TestTPCBDuringCatchesAHalfCommittedTransaction(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a database")
	}
	spec := filepath.Join(workspace(t, "tpcb"), "examples", "tpcb")
	edit(t, filepath.Join(spec, "queries.hcl"), `    file("sql/abalance.sql"), ";",`, `    file("sql/abalance.sql"), ";",
    "COMMIT;", "BEGIN;",
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 30000) SELECT COUNT(*) FROM n;",`)
	r := applyTo(t, spec, t.TempDir(), append(tpcbUnit, "-var", `scenarios=["tpcb_like"]`, "-var", "calls=100")...)
	if r.code != 1 {
		t.Fatalf("exit %d, want 1\n%s", r.code, r.output)
	}
	var during string
	for _, l := range r.checks {
		if strings.Contains(l, "conservation (during)") {
			during = l
		} else if !strings.HasPrefix(l, "PASS ") {
			t.Errorf("after the scenario: %s", l)
		}
	}
	if !strings.HasPrefix(during, "FAIL ") {
		t.Errorf("conservation during the scenario: %q, want FAIL", during)
	}
}

// TestSmallBankAbortIsNotAnError makes send_payment abort about half the
// time (abort_if over the balance it read): the aborts are counted in
// contention.log apart from errors, the operation has no errors, and the
// checks pass because an aborted transaction leaves the truth unchanged.
func TestSmallBankAbortIsNotAnError(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a database")
	}
	spec := filepath.Join(workspace(t, "tpcb"), "examples", "tpcb")
	edit(t, filepath.Join(spec, "dataset.hcl"), "abort_if = read.checking < draw.amount", "abort_if = read.checking < 30000")
	res := t.TempDir()
	r := applyTo(t, spec, res, append(tpcbUnit, "-var", `scenarios=["smallbank"]`, "-var", "calls=1000")...)
	if r.code != 0 {
		t.Fatalf("exit %d, want 0\n%s", r.code, r.output)
	}
	for _, l := range r.checks {
		if !strings.HasPrefix(l, "PASS ") {
			t.Errorf("checks.txt: %s", l)
		}
	}
	line := contentionLine(t, res, "smallbank", "send_payment")
	n := timingCounts(t, filepath.Join(res, "timings.csv"))["smallbank"]["send_payment"]
	aborted := field(line, "aborted=")
	if aborted == 0 || aborted >= n {
		t.Errorf("contention.log: %q: want some of the %d send_payments aborted", line, n)
	}
	if e := timingErrors(t, filepath.Join(res, "timings.csv"))["smallbank"]["send_payment"]; e != 0 {
		t.Errorf("send_payment: %d errors, want 0 (an intended abort is not an error)", e)
	}
}

// TestTPCBValidateAndPlan: validate and plan of the example succeed
// without generating data; how long they took is logged, not asserted
// (a busy machine's timing proves nothing).
func TestTPCBValidateAndPlan(t *testing.T) {
	spec := filepath.Join(workspace(t, "tpcb"), "examples", "tpcb")
	bin := binary(t)
	for _, cmd := range []string{"validate", "plan"} {
		start := time.Now()
		r := runIn(t, bin, filepath.Dir(spec), cmd, "tpcb")
		if r.code != 0 {
			t.Fatalf("%s: exit %d\n%s", cmd, r.code, r.output)
		}
		t.Logf("%s took %v", cmd, time.Since(start))
	}
}

// contentionLine is the last contention.log line of an operation.
func contentionLine(t *testing.T, res, scenario, op string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(res, "logs", "contention.log"))
	if err != nil {
		t.Fatal(err)
	}
	line := ""
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, " "+scenario+" ") && strings.Contains(l, "op="+op+" ") {
			line = l
		}
	}
	return line
}

// checkStatus maps a check's name to its status (PASS, FAIL, SKIP).
func checkStatus(lines []string) map[string]string {
	out := map[string]string{}
	for _, l := range lines {
		if f := strings.Fields(l); len(f) > 4 {
			out[strings.TrimSuffix(f[4], ":")] = f[0]
		}
	}
	return out
}

// timingErrors reads timings.csv as scenario -> op -> failed calls.
func timingErrors(t *testing.T, path string) map[string]map[string]int64 {
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
		e, _ := strconv.ParseInt(r[col["errors"]], 10, 64)
		if out[r[col["scenario"]]] == nil {
			out[r[col["scenario"]]] = map[string]int64{}
		}
		out[r[col["scenario"]]][r[col["op"]]] += e
	}
	return out
}

// runIn runs the binary with args in dir.
func runIn(t *testing.T, bin, dir string, args ...string) run {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err := cmd.Run()
	r := run{output: buf.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestDuringCheckOfAReadScenario: a read-only scenario with a check run
// during it (during_ms) runs alone, not interleaved with its neighbours'
// reps, so its during line is there.
func TestDuringCheckOfAReadScenario(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a database")
	}
	tmp := workspace(t, "quickstart.hcl")
	edit(t, filepath.Join(tmp, "specs", "mentat", "scenarios.hcl"), `  check "names" {
    query         = query.q1`, `  check "one" {
    query       = query.q1
    params      = { email = "user1@example.com" }
    expect_rows = 1
    during_ms   = 20
  }
  check "names" {
    query         = query.q1`)
	r := applyTo(t, filepath.Join(tmp, "examples", "quickstart.hcl"), t.TempDir(), "-var", `scenarios=["point_lookup","ref_traversal"]`, "-var", `backends=["sqlite"]`)
	if r.code != 0 {
		t.Fatalf("exit %d, want 0\n%s", r.code, r.output)
	}
	if !strings.Contains(strings.Join(r.checks, "\n"), "PASS point_lookup sqlite xs one (during): ") {
		t.Errorf("no PASS line of the check during point_lookup:\n%s", strings.Join(r.checks, "\n"))
	}
}

// TestTPCBPlanRefusesATransactionWithoutItsRead: send_payment's abort_if
// reads read.checking; without the operation's read query, plan refuses
// the scenario (exit 2) instead of every call failing.
func TestTPCBPlanRefusesATransactionWithoutItsRead(t *testing.T) {
	spec := filepath.Join(workspace(t, "tpcb"), "examples", "tpcb")
	edit(t, filepath.Join(spec, "scenarios.hcl"), "      read      = query.send_payment_read\n", "")
	for _, cmd := range []string{"validate", "plan"} { // validate refuses what plan refuses
		r := runIn(t, binary(t), filepath.Dir(spec), cmd, "tpcb")
		if r.code != 2 || !strings.Contains(r.output, "Transaction needs a read") || !strings.Contains(r.output, "abort_if reads read.*") {
			t.Errorf("%s: exit %d, want 2 naming the missing read:\n%s", cmd, r.code, r.output)
		}
	}
}
