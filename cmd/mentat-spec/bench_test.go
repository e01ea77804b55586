package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkClientModels measures the concurrency sweep's read mix at 1, 8
// and 32 clients with goroutine clients and with one worker process per
// client, on SQLite and (with MENTAT_SPEC_PG_DSN) PostgreSQL, alternating
// the models round by round. It reports the median over rounds of each
// model's p50 and throughput and of the per-round ratio process /
// goroutine, and the median worker start-up time per client count.
//
//	MENTAT_SPEC_BENCH_ROUNDS=5 go test ./cmd/mentat-spec -run '^$' -bench ClientModels -benchtime 1x
func BenchmarkClientModels(b *testing.B) {
	b.Setenv(asCLI, "1")
	rounds := 3
	if n, err := strconv.Atoi(os.Getenv("MENTAT_SPEC_BENCH_ROUNDS")); err == nil && n > 0 {
		rounds = n
	}
	backends := []string{"sqlite"}
	if os.Getenv("MENTAT_SPEC_PG_DSN") != "" {
		backends = append(backends, "postgres")
	}
	clients := []string{"1", "8", "32"}
	for _, be := range backends {
		for _, sc := range []string{"parity_q1", "concurrency_sweep"} {
			b.Run(be+"/"+sc, func(b *testing.B) { benchClientModels(b, be, sc, rounds, clients) })
		}
	}
}

func benchClientModels(b *testing.B, be, scenario string, rounds int, clients []string) {
	{
		{
			data := b.TempDir()
			// p50 and throughput per model, client count and round.
			type key struct{ model, clients string }
			p50s, tputs := map[key][]float64{}, map[key][]float64{}
			startup := map[string][]float64{}
			for r := 0; r < rounds; r++ {
				for _, model := range []string{"goroutine", "process"} {
					out := filepath.Join(b.TempDir(), "out")
					args := []string{"apply", fullSpec, "testdata/parity.hcl", "-var", `scales=["xs"]`, "-var", `backends=["` + be + `"]`,
						"-var", `scenarios=["` + scenario + `"]`, "-var", "clients=[1,8,32]", "-var", "client_model=" + model,
						"-var", "data_dir=" + data, "-var", "min_s=3", "-var", "max_s=3", "-var", "reps=1", "-o", out, "-q"}
					code := run(args, devNull{}, os.Stderr)
					if code != exitOK {
						b.Fatalf("%s %s: exit %d", be, model, code)
					}
					for _, row := range readCSV(b, filepath.Join(out, "timings.csv")) {
						k := key{model, row["clients"]}
						p50, _ := strconv.ParseFloat(row["p50_ms"], 64)
						tp, _ := strconv.ParseFloat(row["throughput_ops_s"], 64)
						p50s[k] = append(p50s[k], p50)
						tputs[k] = append(tputs[k], tp)
					}
					if model == "process" {
						log, _ := os.ReadFile(filepath.Join(out, "logs", "workers.log"))
						for _, m := range regexp.MustCompile(`workers=(\d+) startup_ms=([0-9.]+)`).FindAllStringSubmatch(string(log), -1) {
							v, _ := strconv.ParseFloat(m[2], 64)
							startup[m[1]] = append(startup[m[1]], v)
						}
					}
				}
			}
			var lines []string
			for _, c := range clients {
				g, p := key{"goroutine", c}, key{"process", c}
				p50Ratio, tpRatio := ratios(p50s[p], p50s[g]), ratios(tputs[p], tputs[g])
				lines = append(lines, fmt.Sprintf("%s %s clients=%s p50 ms goroutine %.3f process %.3f ratio %.3f | ops/s goroutine %.0f process %.0f ratio %.3f | startup ms %.0f",
					be, scenario, c, median(p50s[g]), median(p50s[p]), median(p50Ratio), median(tputs[g]), median(tputs[p]), median(tpRatio), median(startup[c])))
				b.ReportMetric(median(p50Ratio), "p50-ratio-c"+c)
				b.ReportMetric(median(tpRatio), "tput-ratio-c"+c)
				b.ReportMetric(median(startup[c]), "startup-ms-c"+c)
			}
			fmt.Fprintf(os.Stderr, "%d rounds:\n%s\n", rounds, strings.Join(lines, "\n"))
		}
	}
}

type devNull struct{}

func (devNull) Write(p []byte) (int, error) { return len(p), nil }

func ratios(a, b []float64) []float64 {
	var out []float64
	for i := range min(len(a), len(b)) {
		if b[i] > 0 {
			out = append(out, a[i]/b[i])
		}
	}
	return out
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
