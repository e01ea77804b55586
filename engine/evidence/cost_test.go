package evidence_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/evidence"
)

// BenchmarkEvidenceCost measures what collecting the evidence costs: the
// quickstart's point lookup, one fixed-length point per run, with
// sampling { evidence = false } and = true interleaved (off, on, off,
// on, ...) on the same store, on SQLite, DuckDB and, with
// MENTAT_SPEC_PG_DSN, PostgreSQL. Per backend it reports the throughput
// with evidence on over off (calls/s, all the run's points) and the
// engine process's CPU per call on over off (everything the run did,
// the round-trip floor and EXPLAIN ANALYZE after the point included), and
// logs each run with the load average. Run it alone, once:
//
//	go test -run '^$' -bench EvidenceCost -benchtime 1x ./engine/evidence/
//
// MENTAT_SPEC_COST_ROUNDS (default 4), MENTAT_SPEC_COST_SECONDS (the
// point's length, default 3) and MENTAT_SPEC_COST_BACKENDS (a comma list)
// change the rounds, the point and the backends.
func BenchmarkEvidenceCost(b *testing.B) {
	rounds := envInt("MENTAT_SPEC_COST_ROUNDS", 4)
	secs := envInt("MENTAT_SPEC_COST_SECONDS", 3)
	backends := []string{"sqlite", "duckdb"}
	pgDSN := os.Getenv("MENTAT_SPEC_PG_DSN")
	if pgDSN != "" {
		backends = append(backends, "postgres")
	}
	if only := os.Getenv("MENTAT_SPEC_COST_BACKENDS"); only != "" {
		backends = strings.Split(only, ",")
	}
	for range b.N {
		for _, backend := range backends {
			data := b.TempDir()
			vars := []config.VarArg{{Name: "backends", Value: `["` + backend + `"]`}, {Name: "data_dir", Value: filepath.Join(data, "data")}}
			ov := map[string]string{}
			if backend == "postgres" {
				db := fmt.Sprintf("mentat_evcost_%d_%d", os.Getpid(), time.Now().UnixNano()%1e9)
				b.Cleanup(func() { dropPG(b, pgDSN, db) })
				vars = append(vars, config.VarArg{Name: "pg_dsn", Value: pgDSN})
				ov["pg_override.hcl"] = "backend \"postgres\" {\n  database = \"" + db + "\"\n}\n"
			}
			// The load, untimed: every measured run reuses the store.
			runScenario(b, "point_lookup", nil, withSampling(ov, false, 1), vars...)
			var thr, cpu [2][]float64
			for r := range rounds {
				// Off first in odd rounds, on first in even ones: a cost
				// of running second (the heap the first run left, the
				// machine's drift) falls on both alike.
				order := []bool{false, true}
				if r%2 == 1 {
					order = []bool{true, false}
				}
				for _, on := range order {
					i := 0
					if on {
						i = 1
					}
					cpu0 := evidence.CPU()
					run := runScenario(b, "point_lookup", nil, withSampling(ov, on, secs), vars...)
					used := evidence.CPU() - cpu0
					calls, seconds := 0.0, 0.0
					for _, row := range run.Points() {
						if row.Throughput > 0 {
							calls += float64(row.Count)
							seconds += float64(row.Count) / row.Throughput
						}
					}
					if calls == 0 {
						b.Fatalf("%s: no calls measured", backend)
					}
					thr[i] = append(thr[i], calls/seconds)
					cpu[i] = append(cpu[i], float64(used.Microseconds())/calls)
					// The PostgreSQL wait sampler's own share of the point's
					// wall time on the server, as the point recorded it.
					sampler := ""
					for _, f := range evidence.Of(run).Facts {
						if f.Name == "sampler_busy_share" {
							sampler += fmt.Sprintf(", sampler_busy_share %.4f", f.Value)
						}
					}
					// To stderr: a benchmark's log keeps only its first lines.
					fmt.Fprintf(os.Stderr, "%s round %d evidence=%v: %.0f calls/s, %.2f µs CPU/call, load %s%s\n", backend, r+1, on, calls/seconds, float64(used.Microseconds())/calls, loadavg(), sampler)
				}
			}
			// The median of each round's on/off: a round's two runs are
			// next to each other, so the machine's drift between rounds
			// cancels out of it.
			tr, cr := medianRatio(thr[1], thr[0]), medianRatio(cpu[1], cpu[0])
			b.Logf("%s: evidence on/off over %d rounds: throughput %.3f (means %.0f vs %.0f calls/s), engine CPU per call %.3f (means %.2f vs %.2f µs)",
				backend, rounds, tr, mean(thr[1]), mean(thr[0]), cr, mean(cpu[1]), mean(cpu[0]))
			b.ReportMetric(tr, backend+"-throughput-on/off")
			b.ReportMetric(cr, backend+"-cpu/call-on/off")
		}
	}
}

// withSampling is ov with a sampling block of one fixed-length point.
func withSampling(ov map[string]string, evidence bool, secs int) map[string]string {
	out := map[string]string{}
	for k, v := range ov {
		out[k] = v
	}
	out["quick_override.hcl"] = fmt.Sprintf("sampling {\n  warmup = 3\n  min_s = %d\n  max_s = %d\n  min_n = 5\n  reps = 1\n  probe_s = 20\n  evidence = %v\n}\n", secs, secs, evidence)
	return out
}

func envInt(name string, def int) int {
	var v int
	if _, err := fmt.Sscan(os.Getenv(name), &v); err != nil || v < 1 {
		return def
	}
	return v
}

// medianRatio is the median over i of a[i]/b[i].
func medianRatio(a, b []float64) float64 {
	r := make([]float64, len(a))
	for i := range a {
		r[i] = a[i] / b[i]
	}
	sort.Float64s(r)
	if n := len(r); n%2 == 0 {
		return (r[n/2-1] + r[n/2]) / 2
	}
	return r[len(r)/2]
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}
