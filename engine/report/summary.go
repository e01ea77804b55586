package report

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

// AbridgedEnv lists the env.txt keys the summary shows, in this order;
// keys ending in "_version" or ".version" and the spec's variables
// (var.*) follow in env.txt order. Backend keys (backend.*) have their
// own section.
var AbridgedEnv = []string{
	"run", "started", "instance_type", "hostname", "os_arch", "kernel", "cpu_model", "cpus",
	"sockets", "numa_nodes", "sockets/numa", "mem_total", "mem_total_gib", "hugepages",
	"transparent_hugepage_enabled", "cpu_governor", "data_fs", "data_fs_options", "go", "git",
	"mentat_spec_version", "mentat_spec_revision",
	"spec_files", "spec_sha256", "dataset", "scales", "backends", "phase", "sampling",
}

// SummaryMD is the summary.md format. It teaches top down: an overview
// (what ran, how long, the checks, the headline numbers per backend and
// scale), findings.md if present, the settings in force per backend, the
// dataset and store sizes, the environment abridged, the bulk_load table,
// one table per scenario in first-seen order, the engine's memory by
// phase and the checks. A section
// that does not apply to the run is left out.
func SummaryMD(r *results.Run, w io.Writer) error {
	timings := r.Points()
	loads := r.LatestLoads()
	rank := results.ScaleRanks(timings, loads, r.Sizes)

	var b bytes.Buffer
	fmt.Fprintf(&b, "# mentat-spec benchmark: %s\n\n", r.Name)
	writeOverview(&b, r, timings, loads, rank)
	writeKindSections(&b, r)
	if r.Findings != "" {
		b.WriteString("## Findings (hand-written; the tables below are generated)\n\n")
		b.WriteString(r.Findings)
		b.WriteString("\n\n")
	}
	writeSettings(&b, r)
	writeDatasets(&b, r, rank, timings, loads)
	writeEnv(&b, r.Env)
	writeLoads(&b, loads, rank)
	writeScenarios(&b, timings, rank)
	if err := writeWindows(&b, r.Windows); err != nil {
		return err
	}
	if err := writeOpenLoop(&b, r.OpenLoop); err != nil {
		return err
	}
	writeColdStarts(&b, r.Checks)
	if err := writeMemory(&b, r.Memory, rank); err != nil {
		return err
	}
	writeChecks(&b, r.Checks, checkWhys(r))
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("results: summary: %w", err)
	}
	return nil
}

func writeEnv(b *bytes.Buffer, env []results.KV) {
	var show []results.KV
	at := map[string]string{}
	for _, kv := range env {
		at[kv.Key] = kv.Value
	}
	for _, k := range AbridgedEnv {
		if v, ok := at[k]; ok {
			show = append(show, results.KV{Key: k, Value: v})
		}
	}
	for _, kv := range env {
		if slices.Contains(AbridgedEnv, kv.Key) || strings.HasPrefix(kv.Key, "backend.") {
			continue
		}
		if strings.HasSuffix(kv.Key, "_version") || strings.HasSuffix(kv.Key, ".version") || strings.HasPrefix(kv.Key, "var.") {
			show = append(show, kv)
		}
	}
	if len(show) == 0 {
		return
	}
	width := 0
	for _, kv := range show {
		width = max(width, len(kv.Key)+1)
	}
	b.WriteString("## Environment (abridged; full detail in env.txt)\n\n```\n")
	for _, kv := range show {
		v := kv.Value
		if !strings.HasPrefix(kv.Key, "var.") { // a variable's source is part of what it says
			v = withoutSource(v)
		}
		fmt.Fprintf(b, "%-*s   %s\n", width, kv.Key+":", strings.ReplaceAll(v, "\n", " "))
	}
	b.WriteString("```\n\n")
}

func writeLoads(b *bytes.Buffer, loads []results.LoadRow, rank map[string]int) {
	if len(loads) == 0 {
		return
	}
	slices.SortStableFunc(loads, func(x, y results.LoadRow) int {
		return cmp.Or(cmp.Compare(x.Backend, y.Backend), cmp.Compare(rank[x.Scale], rank[y.Scale]))
	})
	t := table{head: []string{"backend", "scale", "datoms", "wall s", "datoms/s", "post-load s", "ANALYZE s", "VACUUM s", "store size", "jobs", "note"},
		right: []bool{false, false, true, true, true, true, true, true, true, true, false}}
	for _, l := range loads {
		size, jobs, note := "", "", ""
		if l.SizeBytes != nil {
			size = results.HumanBytes(*l.SizeBytes)
		}
		if l.Jobs > 0 {
			jobs = strconv.Itoa(l.Jobs)
		}
		if l.Ceiling {
			note = "ceiling (load cap hit; the rate reached)"
		}
		t.rows = append(t.rows, []string{l.Backend, l.Scale, results.Thousands(l.NDatoms), FormatSecs(l.WallS, 1), results.Thousands(int64(math.Round(l.DatomsPerS))),
			optSecs(l.PostLoadS), optSecs(l.AnalyzeS), optSecs(l.VacuumS), size, jobs, note})
	}
	b.WriteString("## bulk_load\n\n")
	t.write(b)
}

func writeScenarios(b *bytes.Buffer, timings []results.Row, rank map[string]int) {
	var order []string
	by := map[string][]results.Row{}
	for _, r := range timings {
		if _, ok := by[r.Scenario]; !ok {
			order = append(order, r.Scenario)
		}
		by[r.Scenario] = append(by[r.Scenario], r)
	}
	for _, sc := range order {
		rows := by[sc]
		slices.SortStableFunc(rows, func(x, y results.Row) int {
			return cmp.Or(cmp.Compare(x.Backend, y.Backend), cmp.Compare(rank[x.Scale], rank[y.Scale]), cmp.Compare(x.Clients, y.Clients))
		})
		t := table{head: []string{"backend", "scale", "datoms", "clients", "op", "n", "p50 ms", "p95 ms", "p99 ms", "max ms", "ops/s", "errors", "reps"},
			right: []bool{false, false, true, true, false, true, true, true, true, true, true, true, true}}
		for _, r := range rows {
			t.rows = append(t.rows, []string{r.Backend, r.Scale, results.Thousands(r.NDatoms), strconv.Itoa(r.Clients), r.Op,
				strconv.FormatInt(r.Count, 10), FormatMs(r.P50Ms), FormatMs(r.P95Ms), FormatMs(r.P99Ms), FormatMs(r.MaxMs),
				FormatRate(r.Throughput), strconv.FormatInt(r.Errors, 10), strconv.Itoa(r.Reps)})
		}
		fmt.Fprintf(b, "## %s\n\n", sc)
		t.write(b)
	}
}

func writeChecks(b *bytes.Buffer, checks []results.CheckLine, whys map[results.CheckLine]CheckWhy) {
	var c results.CheckCounts
	type run struct{ backend, scale string }
	failed := map[run]bool{}
	var runs []run
	for _, l := range checks {
		k := run{l.Backend, l.Scale}
		if _, ok := failed[k]; !ok {
			runs = append(runs, k)
			failed[k] = false
		}
		c.Add(l.Status)
		if l.Status == results.Fail {
			failed[k] = true
		}
	}
	bad := 0
	for _, k := range runs {
		if failed[k] {
			bad++
		}
	}
	b.WriteString("## Correctness checks\n\n")
	b.WriteString(c.String())
	if len(checks) == 0 {
		b.WriteString("; no checks recorded\n")
		return
	}
	fmt.Fprintf(b, "; %s OK, %d FAILED (all FAIL lines in %s)\n", Plural(len(runs)-bad, "backend check run", "backend check runs"), bad, results.ChecksFile)
	// The failures themselves, a page at most: they are what to read next.
	const most = 20
	n := 0
	for _, l := range checks {
		if l.Status != results.Fail {
			continue
		}
		if n == 0 {
			b.WriteString("\n")
		}
		if n++; n > most {
			fmt.Fprintf(b, "- ... and %d more in %s\n", c.Fail-most, results.ChecksFile)
			break
		}
		fmt.Fprintf(b, "- FAIL %s %s %s %s: %s\n", l.Scenario, l.Backend, l.Scale, l.Name, l.Detail)
	}
	// Every crossed threshold: a gate the spec set, so each is named.
	first := true
	for _, l := range checks {
		if l.Status != results.Threshold {
			continue
		}
		if first {
			b.WriteString("\n")
			first = false
		}
		fmt.Fprintf(b, "- THRESHOLD %s %s %s %s: %s\n", l.Scenario, l.Backend, l.Scale, l.Name, l.Detail)
		if w, ok := whys[l]; ok {
			writeCheckWhy(b, w)
		}
	}
}

// writeCheckWhy lists a crossed threshold's reasons under its line.
func writeCheckWhy(b *bytes.Buffer, w CheckWhy) {
	fmt.Fprintf(b, "  - why, against %s:", w.Against)
	if len(w.Reasons) == 0 {
		b.WriteString(" " + NoEvidenceMoved + "\n")
		return
	}
	b.WriteString("\n")
	for i, r := range w.Reasons {
		fmt.Fprintf(b, "    %d. %s\n", i+1, r)
	}
}

// table is a Markdown table; right marks right-aligned (numeric) columns.
type table struct {
	head  []string
	right []bool
	rows  [][]string
}

func (t *table) write(b *bytes.Buffer) {
	line := func(cells []string) {
		b.WriteString("|")
		for _, c := range cells {
			b.WriteString(" ")
			b.WriteString(strings.ReplaceAll(c, "|", `\|`))
			b.WriteString(" |")
		}
		b.WriteString("\n")
	}
	line(t.head)
	b.WriteString("|")
	for _, r := range t.right {
		if r {
			b.WriteString(" ---: |")
		} else {
			b.WriteString(" --- |")
		}
	}
	b.WriteString("\n")
	for _, r := range t.rows {
		line(r)
	}
	b.WriteString("\n")
}

// withoutSource drops the " (from <source>)" env.txt writes after a
// machine fact: the summary shows values, env.txt where they came from.
func withoutSource(v string) string {
	if i := strings.LastIndex(v, " (from "); i > 0 && strings.HasSuffix(v, ")") && !strings.HasPrefix(v, "unknown (") {
		return v[:i]
	}
	return v
}
