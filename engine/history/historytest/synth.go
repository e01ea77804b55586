// Package historytest writes synthetic results directories for the tests
// and benchmarks of the history: runs of known reps, with a shift where a
// test puts one.
package historytest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

// Backend is the backend the synthetic runs measured: a name, no driver.
const Backend = "store"

// Machine is the env.txt of the machine the synthetic runs are on.
var Machine = []results.KV{
	{Key: "hostname", Value: "bench-1 (from uname)"},
	{Key: "os_arch", Value: "linux/amd64 (from the Go runtime)"},
	{Key: "cpus", Value: "2 (from the CPUs this process may use)"},
	{Key: "kernel", Value: "6.1.0 (from /proc/sys/kernel/osrelease)"},
	{Key: "cpu_model", Value: "Synthetic CPU @ 3.0GHz (from /proc/cpuinfo)"},
	{Key: "mem_total", Value: "8000000 kB (from /proc/meminfo)"},
}

// OtherMachine is another machine's.
var OtherMachine = []results.KV{
	{Key: "hostname", Value: "bench-2 (from uname)"},
	{Key: "os_arch", Value: "linux/amd64 (from the Go runtime)"},
	{Key: "cpus", Value: "64 (from the CPUs this process may use)"},
	{Key: "kernel", Value: "6.1.0 (from /proc/sys/kernel/osrelease)"},
	{Key: "cpu_model", Value: "Bigger CPU @ 2.0GHz (from /proc/cpuinfo)"},
	{Key: "mem_total", Value: "500000000 kB (from /proc/meminfo)"},
}

// Scenarios are the points of a synthetic run (sqlite, scale xs, one
// client, op read) and their p50 in ms.
var Scenarios = []struct {
	Name  string
	P50Ms float64
}{{"point_lookup", 0.2}, {"scan", 3}, {"aggregate", 0.7}}

// Run describes one synthetic run.
type Run struct {
	Started  time.Time
	Revision string
	Env      []results.KV // machine facts and more; Machine when nil
	Vars     map[string]string
	// OtherCPU and Steal are env.txt's noise_other_cpu_pct and
	// noise_steal_pct; 0 leaves each out.
	OtherCPU, Steal float64
	Reps            int
	CV              float64
	// Shift multiplies the p50 of the scenario ShiftScenario.
	Shift         float64
	ShiftScenario string
	Seed          uint64
	// Points adds that many points of p50 1 ms, over 20 scenarios
	// (extra_00 to extra_19) at as many client counts as it takes: a
	// large run.
	Points int
}

// Write writes the run into dir: env.txt, raw.csv, timings.csv,
// checks.txt and fingerprints.json.
func Write(dir string, r Run) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(r.Seed, 11))
	sigma := math.Sqrt(math.Log(1 + r.CV*r.CV))
	draw := func(m float64) float64 { return m * math.Exp(sigma*rng.NormFloat64()-sigma*sigma/2) }

	var env strings.Builder
	fmt.Fprintf(&env, "# invocation %s\n", r.Started.UTC().Format(time.RFC3339))
	kv := r.Env
	if kv == nil {
		kv = Machine
	}
	for _, e := range kv {
		fmt.Fprintf(&env, "%s: %s\n", e.Key, e.Value)
	}
	fmt.Fprintf(&env, "mentat_spec_revision: %s (from go build info)\n", r.Revision)
	fmt.Fprintf(&env, "spec_sha256: 0123456789abcdef\nscales: xs\n")
	if r.OtherCPU > 0 {
		fmt.Fprintf(&env, "noise_other_cpu_pct: %.1f\n", r.OtherCPU)
	}
	if r.Steal > 0 {
		fmt.Fprintf(&env, "noise_steal_pct: %.1f\n", r.Steal)
	}
	vars := map[string]string{"avet": "true (from default)"}
	for k, v := range r.Vars {
		vars[k] = v
	}
	for _, k := range []string{"avet"} {
		fmt.Fprintf(&env, "var.%s: %s\n", k, vars[k])
	}
	fmt.Fprintf(&env, "backend.sqlite.xs.driver: sqlite\nbackend.sqlite.xs.version: 3.54.1\nbackend.sqlite.xs.setting.journal_mode: wal\n")
	fmt.Fprintf(&env, "backend.sqlite.xs.option.path: %s\n", filepath.Join(dir, "store.sqlite"))

	raw := []string{results.RawHeader}
	timings := []string{results.TimingsHeader}
	var checks []string
	type point struct {
		name    string
		clients int
	}
	points := make([]point, 0, len(Scenarios)+r.Points)
	var names []string
	p50s := map[string]float64{}
	for _, s := range Scenarios {
		points = append(points, point{s.Name, 1})
		names = append(names, s.Name)
		p50s[s.Name] = s.P50Ms
	}
	for i := range min(r.Points, 20) {
		n := fmt.Sprintf("extra_%02d", i)
		names = append(names, n)
		p50s[n] = 1
	}
	for i := range r.Points {
		points = append(points, point{fmt.Sprintf("extra_%02d", i%20), 1 + i/20})
	}
	for _, pt := range points {
		name := pt.name
		m := p50s[name]
		if name == r.ShiftScenario && r.Shift != 0 {
			m *= r.Shift
		}
		var rows []results.Row
		for rep := 1; rep <= r.Reps; rep++ {
			row := results.Row{Scenario: name, Backend: Backend, Scale: "xs", NDatoms: 99124, Clients: pt.clients, Op: "read", Rep: rep,
				Count: 1000, P50Ms: draw(m), P95Ms: draw(2 * p50s[name]), P99Ms: draw(3 * p50s[name]), MaxMs: 10 * p50s[name],
				Throughput: draw(1000 / p50s[name])}
			rows = append(rows, row)
			raw = append(raw, fmt.Sprintf("%s,%s,%s,%d,%d,%s,%d,%d,%.6f,%.6f,%.6f,%.6f,%.3f,%d", row.Scenario, row.Backend, row.Scale,
				row.NDatoms, row.Clients, row.Op, row.Rep, row.Count, row.P50Ms, row.P95Ms, row.P99Ms, row.MaxMs, row.Throughput, row.Errors))
		}
		md := results.Median(rows)
		timings = append(timings, fmt.Sprintf("%s,%s,%s,%d,%d,%s,%d,%.6f,%.6f,%.6f,%.6f,%.3f,%d,%d", md.Scenario, md.Backend, md.Scale,
			md.NDatoms, md.Clients, md.Op, md.Count, md.P50Ms, md.P95Ms, md.P99Ms, md.MaxMs, md.Throughput, md.Errors, r.Reps))
	}
	for _, name := range names {
		checks = append(checks, fmt.Sprintf("PASS %s sqlite xs %s_answer: 10 of 10 rows", name, name))
	}
	checks = append(checks, fmt.Sprintf("TOTAL %d PASS, 0 FAIL, 0 SKIP", len(names)))

	backendFP := "backend-avet"
	if strings.HasPrefix(vars["avet"], "false") {
		backendFP = "backend-no-avet"
	}
	var scen []string
	for _, n := range names {
		scen = append(scen, fmt.Sprintf(`"%s": {"definition": "def-%s", "queries": ["q_%s"]}`, n, n, n))
	}
	fps := fmt.Sprintf(`{"version": 1, "cells": {"xs/`+Backend+`": {"scale": "xs", "backend": "`+Backend+`", "dataset": "ds-1", "backend_definition": %q, "queries": {}, "scenarios": {%s}}}}`,
		backendFP, strings.Join(scen, ", "))
	for name, body := range map[string]string{
		results.EnvFile:     env.String(),
		results.RawFile:     strings.Join(raw, "\n") + "\n",
		results.TimingsFile: strings.Join(timings, "\n") + "\n",
		results.ChecksFile:  strings.Join(checks, "\n") + "\n",
		"fingerprints.json": fps + "\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Revision is the synthetic revision of run i: a 40-digit hex.
func Revision(i int) string { return fmt.Sprintf("%012x%028x", 0xabc000+i, 0xfeed) }

// History writes runs runs of reps reps at coefficient of variation cv
// under root (run-000, run-001, ...), one hour apart, point_lookup's p50
// multiplied by shift from run shiftAt on (shiftAt < 0: none). It
// returns the directories, oldest first.
func History(root string, runs, reps int, cv float64, shiftAt int, shift float64) ([]string, error) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var dirs []string
	for i := range runs {
		r := Run{Started: start.Add(time.Duration(i) * time.Hour), Revision: Revision(i), Reps: reps, CV: cv, Seed: uint64(i + 1)}
		if shiftAt >= 0 && i >= shiftAt {
			r.Shift, r.ShiftScenario = shift, "point_lookup"
		}
		dir := filepath.Join(root, fmt.Sprintf("run-%03d", i))
		if err := Write(dir, r); err != nil {
			return nil, err
		}
		dirs = append(dirs, dir)
	}
	return dirs, nil
}
