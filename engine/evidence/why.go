package evidence

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/compare"
	"github.com/mentat-spec/mentat-spec/engine/report"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// Why a verdict moved: compare asks, for each point whose verdict moved,
// which of the evidence moved with it, and lists it ranked: the plan,
// where the time went (execution, planning, round trip), the work the
// database counted per call, the cache, wait events, rows, the machine's
// noise.

func init() { compare.RegisterExplainer(explain) }

// Bounds of "moved": a counter per call moved when it changed by more
// than movedRel of its old value and by at least movedAbs; a part of the
// time when it changed by more than movedRel and accounts for at least
// partShare of the observed change; a wait event's share when it changed
// by more than waitShare.
const (
	movedRel  = 0.25
	movedAbs  = 1.0
	partShare = 0.2
	waitShare = 0.15
)

// Undecided starts the first reason when only the time moved: no plan,
// counter or wait event of the database did, and no noise difference was
// given, so the cause cannot be told.
const Undecided = "cause undecided"

// pointEvidence is one point's evidence over its reps.
type pointEvidence struct {
	found    bool
	calls    float64                       // calls of the most-called statement
	totals   map[string]float64            // each counter of the session (no statement) summed over reps
	stmts    map[string]map[string]float64 // each statement's counters summed over reps
	stmtCall map[string]float64            // each statement's calls summed over reps
	waits    map[string]float64            // wait:<type>:<event> shares, mean over reps
	observed float64                       // mean over reps, NaN unknown
	parts    [3]float64                    // execution, planning, round-trip floor, mean over reps
}

var partNames = [3]string{"execution", "planning", "round-trip floor"}

// gather collects the evidence of a side's points.
func gather(sd Side) pointEvidence {
	pe := pointEvidence{totals: map[string]float64{}, stmts: map[string]map[string]float64{}, stmtCall: map[string]float64{},
		waits: map[string]float64{}, observed: math.NaN()}
	var sums [4]float64
	var ns [4]int
	for _, s := range sd.Splits {
		for i, v := range []float64{s.ServerExecMs, s.PlanningMs, s.RoundTripMs, s.ObservedMs} {
			if !math.IsNaN(v) {
				sums[i] += v
				ns[i]++
			}
		}
	}
	for i := range 3 {
		pe.parts[i] = math.NaN()
		if ns[i] > 0 {
			pe.parts[i] = sums[i] / float64(ns[i])
		}
	}
	if ns[3] > 0 {
		pe.observed = sums[3] / float64(ns[3])
	}
	calls := map[string]float64{}
	waitReps := map[int]bool{}
	for _, f := range sd.Facts {
		if math.IsNaN(f.Value) {
			continue
		}
		pe.found = true
		switch {
		case strings.HasPrefix(f.Name, "wait:"):
			pe.waits[f.Name] += f.Value
			waitReps[f.Rep] = true
		case f.Name == drivers.EvidenceCalls:
			calls[f.Query] += f.Value
		case f.Query != "":
			if pe.stmts[f.Query] == nil {
				pe.stmts[f.Query] = map[string]float64{}
			}
			pe.stmts[f.Query][f.Name] += f.Value
		case f.Source != "":
			pe.totals[f.Name] += f.Value
		}
	}
	for q, c := range calls {
		pe.calls = math.Max(pe.calls, c)
		pe.stmtCall[q] = c
	}
	for w := range pe.waits {
		pe.waits[w] /= float64(max(len(waitReps), 1))
	}
	return pe
}

// counters are the per-call counters compare reads, in the order of the
// ranking's groups: the database's work, the cache, WAL, rows. A group
// moved only when one of its counters marked key did: hits alone moving
// is a query's parameters touching more or fewer pages, not the cache;
// WAL bytes alone moving is full-page images after a checkpoint, which
// come and go with the server's timing, not with the statement.
//
// The flush group is per write (perWrite), not per call: the server's
// WAL writes and syncs over the run's own calls that wrote, as the
// PostgreSQL collector gives them only when it can put them on the run.
// A commit that waits for its flush makes about one sync a write; one
// that does not (synchronous_commit off) leaves them to the WAL writer,
// a few a second. The server's counters of a session still open at the
// stretch's end arrive up to a second late, so a side may count part of
// its flushes: the group moved only by a factor of flushFactor, as a
// flush per commit against none does. abs is the least change that
// counts (0: movedAbs).
var counters = []struct {
	group, name, say string
	key, perWrite    bool
	abs              float64
}{
	{group: "flush", name: "wal_sync", say: "WAL syncs", key: true, perWrite: true, abs: 0.1},
	{group: "flush", name: "wal_sync_time", say: "WAL sync ms", key: true, perWrite: true, abs: 0.02},
	{group: "flush", name: "wal_write", say: "WAL writes", perWrite: true, abs: 0.1},
	{group: "flush", name: "wal_write_time", say: "WAL write ms", perWrite: true, abs: 0.02},
	{group: "work", name: "fullscan_steps", say: "full-scan steps", key: true},
	{group: "work", name: "sorts", say: "sorts", key: true},
	{group: "work", name: "autoindex_rows", say: "rows into automatic indexes", key: true},
	{group: "work", name: "vm_steps", say: "VM steps", key: true},
	{group: "work", name: "temp_blks_written", say: "temp blocks written", key: true},
	{group: "cache", name: "shared_blks_read", say: "blocks read", key: true},
	{group: "cache", name: "shared_blks_hit", say: "blocks hit"},
	{group: "cache", name: "cache_miss", say: "page-cache misses", key: true},
	{group: "cache", name: "cache_hit", say: "page-cache hits"},
	{group: "wal", name: "wal_records", say: "WAL records", key: true},
	{group: "wal", name: "wal_bytes", say: "WAL bytes"},
	{group: "rows", name: "rows", say: "rows returned", key: true},
}

// flushFactor is how many times the WAL flushes per write must change by.
const flushFactor = 3

// groupLabels start each group's reason.
var groupLabels = map[string]string{
	"flush": "WAL flushes per write (server-wide, the run's writes only)",
	"work":  "work per call", "cache": "cache per call", "wal": "WAL per call", "rows": "per call",
}

// explain fills w.Reasons, ranked: the point's evidence in the two runs.
func explain(w *compare.Why, rep *compare.Verdict, oldRun, newRun *results.Run) error {
	o, n, err := explainSides(w, oldRun, newRun)
	if err != nil {
		return err
	}
	if !o.recorded() || !n.recorded() {
		return compare.ErrNoEvidence
	}
	w.Reasons = Rank(o, n, rep.NoiseReason)
	return nil
}

// partReasons are the parts of the time that moved, the largest change
// first: only those that account for a fair share of the observed change.
func partReasons(o, n pointEvidence) []string {
	type moved struct {
		say   string
		delta float64
	}
	var ms []moved
	total := math.Abs(n.observed - o.observed)
	for i, name := range partNames {
		a, b := o.parts[i], n.parts[i]
		if math.IsNaN(a) || math.IsNaN(b) {
			continue
		}
		d := b - a
		// A change too small to show (0.001 -> 0.001 ms) says nothing.
		if math.Abs(d) <= movedRel*a || (!math.IsNaN(total) && math.Abs(d) < partShare*total) || report.FormatMs(a) == report.FormatMs(b) {
			continue
		}
		ms = append(ms, moved{fmt.Sprintf("%s %s -> %s ms per call", name, report.FormatMs(a), report.FormatMs(b)), math.Abs(d)})
	}
	sort.SliceStable(ms, func(i, j int) bool { return ms[i].delta > ms[j].delta })
	var out []string
	for _, m := range ms {
		out = append(out, m.say)
	}
	return out
}

// perCall is a counter per call: each statement's per call of its own
// calls, summed over the statements both sides ran, so that a mix whose
// statements' shares of the calls shift (writers blocked, readers running
// on) does not move it, nor does a statement of another session in the
// database (its text is not the run's). A counter of the session is per
// call of the most-called statement.
func perCall(pe, other pointEvidence, name string) (float64, bool) {
	var sum float64
	ok := false
	for q, cs := range pe.stmts {
		v, has := cs[name]
		if _, both := other.stmtCall[q]; has && both && pe.stmtCall[q] > 0 {
			sum += v / pe.stmtCall[q]
			ok = true
		}
	}
	if v, has := pe.totals[name]; has && pe.calls > 0 {
		sum += v / pe.calls
		ok = true
	}
	return sum, ok
}

// perWrite is a server counter over the side's own writing calls, both
// summed over the reps that gave them (the collector gives the pair or
// neither).
func perWrite(pe pointEvidence, name string) (float64, bool) {
	v, has := pe.totals[name]
	w := pe.totals[drivers.EvidenceOwnWrites]
	if !has || w <= 0 {
		return 0, false
	}
	return v / w, true
}

// counterReasons are group's counters per call that moved, said together.
func counterReasons(o, n pointEvidence, group string) []string {
	var parts []string
	key := false
	for _, c := range counters {
		if c.group != group {
			continue
		}
		a, okA := perCall(o, n, c.name)
		b, okB := perCall(n, o, c.name)
		if c.perWrite {
			a, okA = perWrite(o, c.name)
			b, okB = perWrite(n, c.name)
		}
		least := movedAbs
		if c.abs > 0 {
			least = c.abs
		}
		if !okA || !okB || math.Abs(b-a) < least || math.Abs(b-a) <= movedRel*a {
			continue
		}
		if c.perWrite && max(a, b) < flushFactor*min(a, b) {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %s -> %s", c.say, num(a), num(b)))
		key = key || c.key
	}
	if !key {
		return nil
	}
	return []string{groupLabels[group] + ": " + strings.Join(parts, ", ")}
}

// waitReasons are the wait events whose share of the active sessions
// moved (or that grew, when the waits off the CPU grew together by
// waitShare), those that grew and wait on something other than the CPU
// first, then the largest change. onCPU: none such grew (the sessions' time on
// the CPU, or a wait that shrank, is a symptom, not a cause).
func waitReasons(o, n pointEvidence) (_ []string, onCPU bool) {
	if len(o.waits) == 0 || len(n.waits) == 0 {
		return nil, true
	}
	names := map[string]bool{}
	for w := range o.waits {
		names[w] = true
	}
	for w := range n.waits {
		names[w] = true
	}
	type moved struct {
		name  string
		a, b  float64
		delta float64
	}
	// Off the CPU: the share of the sessions waiting on anything. One
	// cause may wait under several events (a WAL flush is IO:WALSync,
	// IO:WALWrite or LWLock:WALWrite, whoever flushes), none of which
	// moves by waitShare alone while together they do.
	var offA, offB float64
	for w := range names {
		if !strings.HasPrefix(w, "wait:"+cpuWait) {
			offA += o.waits[w]
			offB += n.waits[w]
		}
	}
	offGrew := offB-offA > waitShare
	var ms []moved
	for w := range names {
		a, b := o.waits[w], n.waits[w]
		grewOff := offGrew && b-a > waitPart && !strings.HasPrefix(w, "wait:"+cpuWait)
		if math.Abs(b-a) > waitShare || grewOff {
			ms = append(ms, moved{strings.TrimPrefix(w, "wait:"), a, b, math.Abs(b - a)})
		}
	}
	cause := func(m moved) bool { return m.b > m.a && !strings.HasPrefix(m.name, cpuWait) }
	onCPU = true
	for _, m := range ms {
		onCPU = onCPU && !cause(m)
	}
	sort.Slice(ms, func(i, j int) bool {
		if ci, cj := cause(ms[i]), cause(ms[j]); ci != cj {
			return ci
		}
		if ms[i].delta != ms[j].delta {
			return ms[i].delta > ms[j].delta
		}
		return ms[i].name < ms[j].name
	})
	var parts []string
	for _, m := range ms {
		parts = append(parts, fmt.Sprintf("%s %.0f%% -> %.0f%%", m.name, 100*m.a, 100*m.b))
	}
	if len(parts) == 0 {
		return nil, true
	}
	return []string{"wait events (share of active sessions): " + strings.Join(parts, ", ")}, onCPU
}

// waitPart is the least growth of an event named as part of a growth of
// the waits off the CPU (waitShare together).
const waitPart = 0.02

// cpuWait is how the PostgreSQL sampler names an active session waiting
// on nothing: running, or ready to run and waiting for a CPU.
const cpuWait = "CPU:"

func num(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.2f", v)
}
