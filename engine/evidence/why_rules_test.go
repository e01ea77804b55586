package evidence

import (
	"math"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/compare"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// fact is one statement's (or, with query "", the session's) counter.
type fact struct {
	query, name string
	value       float64
}

// rulesRun writes a results directory of one PostgreSQL point's split and
// facts, and loads it.
func rulesRun(t *testing.T, split results.SplitRow, facts []fact) *results.Run {
	t.Helper()
	split.Scenario, split.Backend, split.Scale, split.Point, split.Clients = "mixed", "postgres", "xs", 1, 1
	recs := []results.Record{split}
	for _, f := range facts {
		src := "pg_stat_statements"
		if f.query == "" || strings.HasPrefix(f.name, "wait:") {
			src = "pg_stat_activity"
		}
		recs = append(recs, results.EvidenceRow{Scenario: "mixed", Backend: "postgres", Scale: "xs", Point: 1, Source: src, Query: f.query, Name: f.name, Value: f.value})
	}
	return writeRun(t, recs...)
}

// TestExplainRules: which evidence names a cause, and in which order,
// for the injected causes of inject_pg_test.go, on fixed evidence.
func TestExplainRules(t *testing.T) {
	nan := math.NaN()
	fast := results.SplitRow{ObservedMs: 0.5, ServerExecMs: 0.3, PlanningMs: nan, RoundTripMs: 0.1, RestMs: 0.1, Calls: 1000}
	slow := results.SplitRow{ObservedMs: 2.5, ServerExecMs: 2.3, PlanningMs: nan, RoundTripMs: 0.1, RestMs: 0.1, Calls: 1000}
	const upd, sel, other = "UPDATE cur_text SET v = $1", "SELECT e FROM cur_text WHERE e = $1", "SELECT e FROM cur_text FOR UPDATE"
	stmts := func(updCalls, selCalls, selHit float64, extra ...fact) []fact {
		return append([]fact{
			{upd, "calls", updCalls}, {upd, "shared_blks_hit", 4 * updCalls}, {upd, "shared_blks_read", 0}, {upd, "wal_records", 3 * updCalls}, {upd, "wal_bytes", 300 * updCalls}, {upd, "rows", updCalls},
			{sel, "calls", selCalls}, {sel, "shared_blks_hit", selHit}, {sel, "shared_blks_read", 0}, {sel, "rows", selCalls},
		}, extra...)
	}
	waits := func(lock, cpu float64) []fact {
		return []fact{{"", "wait:Lock:transactionid", lock}, {"", "wait:CPU:running", cpu}}
	}
	cases := []struct {
		name       string
		oldS, newS results.SplitRow
		oldF, newF []fact
		noise      string
		first      string // the first reason starts with it; "" none at all
		notIn      []string
	}{
		{"a lock wait comes before the execution it lengthened", fast, slow,
			append(stmts(100, 900, 2700), waits(0, 1)...), append(stmts(100, 900, 2700), waits(0.6, 0.4)...), "",
			"wait events (share of active sessions): Lock:transactionid 0% -> 60%", []string{"cache per call", "per call"}},
		{"the writes blocked shift the mix: no counter per call moves", fast, slow,
			append(stmts(100, 900, 2700), waits(0, 1)...), append(stmts(10, 990, 2970), waits(0.6, 0.4)...), "",
			"wait events", []string{"cache per call", "WAL per call", "per call"}},
		{"a statement of another session is not the run's", fast, fast,
			stmts(100, 900, 2700), stmts(100, 900, 2700, fact{other, "calls", 1}, fact{other, "rows", 13000}, fact{other, "shared_blks_read", 500}, fact{other, "wal_records", 13000}), "",
			"", nil},
		{"hits alone moving is not the cache", fast, fast,
			stmts(100, 900, 2700), stmts(100, 900, 1800), "", "", nil},
		{"WAL bytes alone moving (full-page images) is not a cause", fast, fast,
			stmts(100, 900, 2700), append(stmts(100, 900, 2700), fact{upd, "wal_bytes", 5000 * 100}), "", "", nil},
		{"reads instead of hits: the cache, before the execution", fast, slow,
			stmts(100, 900, 2700), append(stmts(100, 900, 900), fact{sel, "shared_blks_read", 1800}), "",
			"cache per call: blocks read 0 -> 2, blocks hit 7 -> 5", nil},
		{"the noise comes before the time's parts", fast, slow,
			append(stmts(100, 900, 2700), waits(0, 1)...), append(stmts(100, 900, 2700), waits(0, 1)...), "other processes took 55% of the CPU",
			"noise: other processes took 55% of the CPU", []string{Undecided}},
		{"only the time moved, the noise alike: undecided", fast, slow,
			stmts(100, 900, 2700), stmts(100, 900, 2700), "",
			Undecided + ": only the time moved", []string{"noise"}},
		{"a WAL flush waited under several events, none by 15 points alone", fast, slow,
			append(stmts(100, 900, 2700), fact{"", "wait:CPU:running", 1}),
			append(stmts(100, 900, 2700), fact{"", "wait:CPU:running", 0.71}, fact{"", "wait:IO:WALSync", 0.14}, fact{"", "wait:LWLock:WALWrite", 0.1}, fact{"", "wait:IO:WALWrite", 0.05}), "",
			"wait events (share of active sessions): IO:WALSync 0% -> 14%, LWLock:WALWrite 0% -> 10%, IO:WALWrite 0% -> 5%, CPU:running 100% -> 71%", nil},
		{"each write waits for its WAL flush (synchronous_commit on): the flushes per write, before the execution", fast, slow,
			append(stmts(100, 900, 2700), fact{"", "own_writes", 100}, fact{"", "wal_sync", 1}, fact{"", "wal_write", 14}),
			append(stmts(100, 900, 2700), fact{"", "own_writes", 100}, fact{"", "wal_sync", 100}, fact{"", "wal_write", 101}), "",
			"WAL flushes per write (server-wide, the run's writes only): WAL syncs 0.01 -> 1, WAL writes 0.14 -> 1.01", []string{Undecided}},
		{"a side whose server WAL was not the run's alone says nothing of flushes", fast, slow,
			append(stmts(100, 900, 2700), fact{"", "wal_unattributed", 900}),
			append(stmts(100, 900, 2700), fact{"", "own_writes", 100}, fact{"", "wal_sync", 100}, fact{"", "wal_write", 101}), "",
			Undecided, []string{"WAL flushes"}},
		{"a side that counted half its flushes (its sessions' counters late) is not a cause", fast, slow,
			append(stmts(100, 900, 2700), fact{"", "own_writes", 100}, fact{"", "wal_sync", 50}),
			append(stmts(100, 900, 2700), fact{"", "own_writes", 100}, fact{"", "wal_sync", 100}), "",
			Undecided, []string{"WAL flushes"}},
		{"fewer writes (blocked) flush as much each: not a cause", fast, slow,
			append(stmts(100, 900, 2700), fact{"", "own_writes", 100}, fact{"", "wal_sync", 100}),
			append(stmts(10, 990, 2970), fact{"", "own_writes", 10}, fact{"", "wal_sync", 10}), "",
			Undecided, []string{"WAL flushes"}},
		{"sessions on the CPU more is not a cause", fast, slow,
			append(stmts(100, 900, 2700), waits(0.3, 0.7)...), append(stmts(100, 900, 2700), waits(0, 1)...), "",
			Undecided, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			oldRun, newRun := rulesRun(t, tc.oldS, tc.oldF), rulesRun(t, tc.newS, tc.newF)
			w := compare.Why{What: "point", Key: results.Key{Scenario: "mixed", Backend: "postgres", Scale: "xs", Clients: 1, Op: "write"}}
			if err := explain(&w, &compare.Verdict{NoiseReason: tc.noise}, oldRun, newRun); err != nil {
				t.Fatal(err)
			}
			all := strings.Join(w.Reasons, "\n")
			if tc.first == "" {
				if len(w.Reasons) != 0 {
					t.Fatalf("reasons\n%s\nwant none", all)
				}
				return
			}
			if len(w.Reasons) == 0 || !strings.HasPrefix(w.Reasons[0], tc.first) {
				t.Fatalf("reasons\n%s\nwant first %q", all, tc.first)
			}
			for _, r := range w.Reasons {
				for _, b := range tc.notIn {
					if strings.HasPrefix(r, b) {
						t.Errorf("reason %q blames %q", r, b)
					}
				}
			}
		})
	}
}
