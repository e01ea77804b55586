package report

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// The summary's sections that read across files: overview, settings,
// dataset.

// headline is one (backend, scale) of the overview table.
type headline struct {
	backend, scale string
	datoms         int64
	load           *results.LoadRow
	size           int64
	fastest        *results.Row // lowest p50 of the measured rows
	slowest        *results.Row // highest p50
	peak           *results.Row // highest throughput
	ceilings       int
	errors         int64
	checks         results.CheckCounts
}

func headlines(r *results.Run, timings []results.Row, loads []results.LoadRow, rank map[string]int) []*headline {
	at := map[[2]string]*headline{}
	get := func(backend, scale string) *headline {
		k := [2]string{backend, scale}
		if h := at[k]; h != nil {
			return h
		}
		h := &headline{backend: backend, scale: scale}
		at[k] = h
		return h
	}
	for _, t := range timings {
		h := get(t.Backend, t.Scale)
		h.datoms = max(h.datoms, t.NDatoms)
		h.errors += t.Errors
		if t.Op == "ceiling" {
			h.ceilings++
			continue
		}
		if !measured(t) {
			continue
		}
		if h.fastest == nil || t.P50Ms < h.fastest.P50Ms {
			h.fastest = &t
		}
		if h.slowest == nil || t.P50Ms > h.slowest.P50Ms {
			h.slowest = &t
		}
		if h.peak == nil || t.Throughput > h.peak.Throughput {
			h.peak = &t
		}
	}
	for i := range loads {
		h := get(loads[i].Backend, loads[i].Scale)
		h.load = &loads[i]
		if !loads[i].Ceiling {
			h.datoms = max(h.datoms, loads[i].NDatoms)
		}
	}
	for _, s := range r.LatestSizes() {
		get(s.Backend, s.Scale).size = s.Bytes
	}
	for _, c := range r.Checks {
		h := get(c.Backend, c.Scale)
		h.checks.Add(c.Status)
	}
	out := make([]*headline, 0, len(at))
	for _, h := range at {
		out = append(out, h)
	}
	slices.SortFunc(out, func(x, y *headline) int {
		return cmp.Or(cmp.Compare(x.backend, y.backend), cmp.Compare(rank[x.scale], rank[y.scale]), cmp.Compare(x.scale, y.scale))
	})
	return out
}

func writeOverview(b *bytes.Buffer, r *results.Run, timings []results.Row, loads []results.LoadRow, rank map[string]int) {
	var scenarios []string
	for _, t := range timings {
		if !slices.Contains(scenarios, t.Scenario) {
			scenarios = append(scenarios, t.Scenario)
		}
	}
	backends, scales := r.Backends(), results.ByRank(rank)
	if len(backends) == 0 && len(scenarios) == 0 {
		b.WriteString("## Overview\n\nNothing was measured: the directory has no timings, loads or checks.\n\n")
		return
	}
	b.WriteString("## Overview\n\n")
	fmt.Fprintf(b, "- **What ran:** %s on %s %s at %s %s",
		Plural(len(scenarios), "scenario", "scenarios"), Plural(len(backends), "backend", "backends")[2:], strings.Join(backends, ", "),
		Plural(len(scales), "scale", "scales")[2:], strings.Join(scales, ", "))
	if d := r.EnvValue("dataset"); d != "" {
		fmt.Fprintf(b, ", dataset %s", d)
	}
	if p := r.EnvValue("phase"); p != "" {
		fmt.Fprintf(b, ", phase %s", p)
	}
	b.WriteString(".")
	if len(scenarios) > 0 {
		fmt.Fprintf(b, " Scenarios: %s.", strings.Join(scenarios, ", "))
	}
	b.WriteString("\n")
	if start := r.Started(); !start.IsZero() {
		fmt.Fprintf(b, "- **When:** started %s", start.UTC().Format("2006-01-02 15:04:05 UTC"))
		if n := len(r.Invocations); n > 1 {
			fmt.Fprintf(b, " (%s appended to this directory)", Plural(n, "invocation", "invocations"))
		}
		if d := r.LastWrite.Sub(start); !r.LastWrite.IsZero() && d >= 0 {
			fmt.Fprintf(b, "; %s until the last result was written", fmtDuration(d))
		}
		b.WriteString(".\n")
	}
	if len(loads) > 0 {
		var total float64
		for _, l := range loads {
			total += l.WallS
		}
		fmt.Fprintf(b, "- **Loads:** %s, %s s in all.\n", Plural(len(loads), "bulk load", "bulk loads"), FormatSecs(total, 1))
	}
	var c results.CheckCounts
	var fails []results.CheckLine
	for _, l := range r.Checks {
		c.Add(l.Status)
		if l.Status == results.Fail {
			fails = append(fails, l)
		}
	}
	switch {
	case len(r.Checks) == 0:
		b.WriteString("- **Checks:** none recorded.\n")
	case c.Fail == 0 && c.Threshold > 0:
		fmt.Fprintf(b, "- **Checks:** %s: no check failed, but a threshold was CROSSED (the THRESHOLD lines below).\n", c.String())
	case c.Fail == 0:
		fmt.Fprintf(b, "- **Checks:** %s: no check failed.\n", c.String())
	default:
		fmt.Fprintf(b, "- **Checks:** %s: the run FAILED; first failure: %s %s %s %s: %s.\n",
			c.String(), fails[0].Scenario, fails[0].Backend, fails[0].Scale, fails[0].Name, fails[0].Detail)
	}
	var errs int64
	var ceilings []string
	for _, t := range timings {
		errs += t.Errors
		if t.Op == "ceiling" {
			ceilings = append(ceilings, fmt.Sprintf("%s on %s %s", t.Scenario, t.Backend, t.Scale))
		}
	}
	if errs > 0 {
		fmt.Fprintf(b, "- **Errors:** %s failed calls (their first messages are in logs/).\n", results.Thousands(errs))
	}
	if len(ceilings) > 0 {
		fmt.Fprintf(b, "- **Skipped at the probe ceiling** (the first call was too slow): %s.\n", strings.Join(ceilings, ", "))
	}
	b.WriteString("\n")

	hs := headlines(r, timings, loads, rank)
	if len(hs) == 0 {
		return
	}
	t := table{head: headlineHead, right: headlineRight, rows: headlineRows(hs)}
	t.write(b)
}

// The overview table's columns.
var (
	headlineHead  = []string{"backend", "scale", "datoms", "load datoms/s", "store size", "fastest p50 ms", "slowest p50 ms", "peak ops/s", "errors", "checks"}
	headlineRight = []bool{false, false, true, true, true, false, false, false, true, false}
)

// headlineRows formats the overview table; empty cells are unknown.
func headlineRows(hs []*headline) [][]string {
	var rows [][]string
	for _, h := range hs {
		row := []string{h.backend, h.scale, "", "", "", "", "", "", results.Thousands(h.errors), ""}
		if h.datoms > 0 {
			row[2] = results.Thousands(h.datoms)
		}
		if h.load != nil {
			row[3] = results.Thousands(int64(math.Round(h.load.DatomsPerS)))
		}
		if h.size > 0 {
			row[4] = results.HumanBytes(h.size)
		}
		if h.fastest != nil {
			row[5] = fmt.Sprintf("%s (%s)", FormatMs(h.fastest.P50Ms), h.fastest.Scenario)
			row[6] = fmt.Sprintf("%s (%s)", FormatMs(h.slowest.P50Ms), h.slowest.Scenario)
			row[7] = fmt.Sprintf("%s (%s, %s)", FormatRate(h.peak.Throughput), h.peak.Scenario, Plural(h.peak.Clients, "client", "clients"))
		}
		if n := h.checks.Total(); n > 0 {
			row[9] = fmt.Sprintf("%d/%d pass", h.checks.Pass, n)
			if h.checks.Threshold > 0 {
				row[9] += fmt.Sprintf(", %d THRESHOLD", h.checks.Threshold)
			}
			if h.checks.Fail > 0 {
				row[9] += fmt.Sprintf(", %d FAIL", h.checks.Fail)
			}
		}
		rows = append(rows, row)
	}
	return rows
}

func fmtDuration(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%.0f s", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%d min %02d s", int(d.Minutes()), int(d.Seconds())%60)
	default:
		return fmt.Sprintf("%d h %02d min", int(d.Hours()), int(d.Minutes())%60)
	}
}

func writeSettings(b *bytes.Buffer, r *results.Run) {
	set := r.BackendSettings()
	if len(set) == 0 {
		return
	}
	scales := r.Scales()
	b.WriteString("## Settings in force per backend\n\n")
	b.WriteString("Read back from each database after it was configured (env.txt's backend.* lines); a value that differs by scale is shown per scale.\n\n")
	t := table{head: []string{"backend", "key", "value"}, right: []bool{false, false, false}}
	full := 0
	var kinds []string // the drivers' names of the detailed settings counted
	for _, s := range set {
		if name, detail := drivers.Default.Detailed(s.Key); detail {
			if full++; !slices.Contains(kinds, name) {
				kinds = append(kinds, name)
			}
			continue
		}
		t.rows = append(t.rows, []string{s.Backend, s.Key, s.Value(scales)})
	}
	t.write(b)
	if full > 0 {
		fmt.Fprintf(b, "The databases' full settings in force (%s: %s) are in env.txt.\n\n", Plural(full, "line", "lines"), strings.Join(kinds, ", "))
	}
}

// cacheName names the buffer cache sizes.txt records for a backend: the
// setting its driver names (env.txt's cache_setting, e.g. DuckDB's
// memory_limit), else what sizes.txt calls it.
func cacheName(r *results.Run, backend, scale string) string {
	if v := r.EnvValue("backend." + backend + "." + scale + "." + results.CacheSettingKey); v != "" {
		return v
	}
	return results.SizesCacheLabel
}

// datasetDetail returns env.txt's dataset.<scale> without the datom count
// the line already shows.
// and with its transaction count written as the datoms are: "1,203
// transactions, seed 42".
func datasetDetail(v string) string {
	f := strings.SplitN(v, ", ", 2)
	if len(f) == 2 && strings.HasSuffix(f[0], " datoms") {
		if _, err := strconv.ParseInt(strings.TrimSuffix(f[0], " datoms"), 10, 64); err == nil {
			v = f[1]
		}
	}
	v = txCount.ReplaceAllStringFunc(v, func(m string) string {
		n, _ := strconv.ParseInt(strings.Fields(m)[0], 10, 64)
		return results.Thousands(n) + " transactions"
	})
	// The entity and history counts the run writes read as the datoms
	// do (13,000); other text is kept as written.
	i := strings.Index(v, "; entities: ")
	if i < 0 {
		i = strings.Index(v, "; history datoms: ")
	}
	if i < 0 {
		return v
	}
	return v[:i] + bigCount.ReplaceAllStringFunc(v[i:], func(m string) string {
		n, _ := strconv.ParseInt(m, 10, 64)
		return results.Thousands(n)
	})
}

var (
	txCount  = regexp.MustCompile(`\b\d+ txs\b`)
	bigCount = regexp.MustCompile(`\b\d{4,}\b`)
)

// datasetLine is the one wording of a scale's dataset: "101,234 datoms
// (1,203 transactions, seed 42)".
func datasetLine(r *results.Run, scale string, datoms int64) string {
	line := "datoms unknown"
	if datoms > 0 {
		line = results.Thousands(datoms) + " datoms"
	}
	if d := datasetDetail(r.EnvValue("dataset." + scale)); d != "" {
		line += " (" + d + ")"
	}
	return line
}

// scaleDatoms returns each scale's datom count from the timings and the
// loads that completed.
func scaleDatoms(timings []results.Row, loads []results.LoadRow) map[string]int64 {
	nd := map[string]int64{}
	for _, t := range timings {
		nd[t.Scale] = max(nd[t.Scale], t.NDatoms)
	}
	for _, l := range loads {
		if !l.Ceiling {
			nd[l.Scale] = max(nd[l.Scale], l.NDatoms)
		}
	}
	return nd
}

func writeDatasets(b *bytes.Buffer, r *results.Run, rank map[string]int, timings []results.Row, loads []results.LoadRow) {
	scales := results.ByRank(rank)
	if len(scales) == 0 {
		return
	}
	nd := scaleDatoms(timings, loads)
	sizes := r.LatestSizes()
	slices.SortStableFunc(sizes, func(x, y results.SizeRow) int { return cmp.Compare(x.Backend, y.Backend) })
	b.WriteString("## Dataset and store sizes\n\n")
	for _, s := range scales {
		fmt.Fprintf(b, "- %s: %s", s, datasetLine(r, s, nd[s]))
		var stores []string
		for _, z := range sizes {
			if z.Scale != s {
				continue
			}
			st := z.Backend + " " + results.HumanBytes(z.Bytes)
			if z.SharedBuffers > 0 {
				larger := ""
				if z.Bytes > z.SharedBuffers {
					larger = ": larger than the cache"
				}
				st += fmt.Sprintf(" (%s%% of %s %s%s)",
					strconv.FormatFloat(100*float64(z.Bytes)/float64(z.SharedBuffers), 'f', 1, 64), cacheName(r, z.Backend, z.Scale), results.HumanBytes(z.SharedBuffers), larger)
			}
			stores = append(stores, st)
		}
		if len(stores) > 0 {
			fmt.Fprintf(b, "; stores: %s", strings.Join(stores, ", "))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
}
