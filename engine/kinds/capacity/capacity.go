// Package capacity is the capacity scenario kind: for one stream (a
// query, a mix or operations), the highest open-loop rate the backend
// sustains under a service level declared in HCL (a percentile's bound,
// errors, the achieved share of the offered rate, late calls), found by a
// bounded search of open-loop probes (Search), with a confidence interval
// from repeated bisections at the edge and the bound that limited it.
// It writes capacity.csv, every probe in logs/capacity-probes.csv, and a
// timing row of the probe at the capacity (op "read@capacity").
package capacity

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/engine/kind"
	"github.com/mentat-spec/mentat-spec/engine/measure"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// Name is the kind's name in HCL.
const Name = "capacity"

// DefaultClients is how many connections serve the stream's arrivals when
// it does not say: the capacity found is that of this many connections.
const DefaultClients = 8

// ServiceLevelBlock is the block declaring the service level.
const ServiceLevelBlock = "service_level"

// Kind is the capacity kind.
type Kind struct{}

// Name implements kind.Kind.
func (Kind) Name() string { return Name }

var searchAttrs = []string{"search", "start_rate", "min_rate", "max_rate", "max_clients", "min_gain_pct", "resolution_pct", "repeats", "max_probes", "max_s", "min_window_s", "max_window_s", "late_ms"}

// What a search finds.
const (
	SearchRate    = "rate"    // the highest open-loop rate (default)
	SearchClients = "clients" // the most closed-loop clients
)

var levelSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "percentile"}, {Name: "max_ms", Required: true}, {Name: "max_error_pct"}, {Name: "min_achieved_pct"}, {Name: "max_late_pct"},
}}

// Schema implements kind.Kind.
func (Kind) Schema() *hcl.BodySchema {
	s := &hcl.BodySchema{Blocks: append([]hcl.BlockHeaderSchema{{Type: ServiceLevelBlock}}, kind.StreamBlocks...)}
	for _, a := range searchAttrs {
		s.Attributes = append(s.Attributes, hcl.AttributeSchema{Name: a})
	}
	return s
}

// Definition is one capacity scenario.
type Definition struct {
	Stream  kind.StreamBlock
	Clients int // a rate search's connections; 0 for a clients search
	// ClientsSearch: the most closed-loop clients before the percentile
	// or the errors break their bounds or throughput grows by less than
	// MinGain per doubling of clients.
	ClientsSearch bool
	MinGain       float64
	Search        Search // Level and the rates, resolution and budgets
	// MinWindow and MaxWindow bound a probe's length (0: the sampling's
	// min_s and max_s); LateBound is open_loop's late_ms.
	MinWindow, MaxWindow time.Duration
	LateBound            time.Duration
}

// Decode implements kind.Kind.
func (Kind) Decode(content *hcl.BodyContent, ctx *hcl.EvalContext) (kind.Definition, hcl.Diagnostics) {
	def := &Definition{
		Search: Search{StartRate: 100, MinRate: 1, MaxRate: 1e6, Resolution: 0.02, Repeats: 3, MaxProbes: 40, MaxTime: 10 * time.Minute,
			Level: ServiceLevel{Percentile: 99, MaxErrorPct: 1, MinAchievedPct: 95, MaxLatePct: 5}},
		LateBound: 10 * time.Millisecond,
	}
	var diags hcl.Diagnostics
	num := func(name string, min float64, set func(float64)) {
		if a, ok := content.Attributes[name]; ok {
			v, d := kind.Number(a.Expr, ctx, name, min)
			diags = append(diags, d...)
			if !d.HasErrors() {
				set(v)
			}
		}
	}
	integer := func(name string, min int, set func(int)) {
		if a, ok := content.Attributes[name]; ok {
			v, d := kind.Int(a.Expr, ctx, name, min)
			diags = append(diags, d...)
			if !d.HasErrors() {
				set(v)
			}
		}
	}
	secs := func(v float64) time.Duration { return time.Duration(v * float64(time.Second)) }
	s := &def.Search
	def.MinGain = 0.25
	if a, ok := content.Attributes["search"]; ok {
		v, d := kind.String(a.Expr, ctx, "search")
		diags = append(diags, d...)
		switch {
		case d.HasErrors():
		case v == SearchClients:
			def.ClientsSearch = true
			s.StartRate, s.MinRate, s.MaxRate, s.Integer = 1, 1, 256, true
			for _, n := range []string{"start_rate", "min_rate", "max_rate", "late_ms"} {
				if b, ok := content.Attributes[n]; ok {
					diags = append(diags, kind.AttrError(b.Expr, "Not for a clients search", n+" belongs to a rate search; a clients search runs closed loop from 1 client up to max_clients."))
				}
			}
		case v != SearchRate:
			diags = append(diags, kind.AttrError(a.Expr, "Invalid search", fmt.Sprintf("search is %q (the highest open-loop rate) or %q (the most closed-loop clients), got %q.", SearchRate, SearchClients, v)))
		}
	}
	for _, n := range []string{"max_clients", "min_gain_pct"} {
		if a, ok := content.Attributes[n]; ok && !def.ClientsSearch {
			diags = append(diags, kind.AttrError(a.Expr, "Not for a rate search", n+` belongs to search = "clients".`))
		}
	}
	integer("max_clients", 1, func(v int) { s.MaxRate = float64(v) })
	num("min_gain_pct", 0, func(v float64) { def.MinGain = v / 100 })
	num("start_rate", 1e-3, func(v float64) { s.StartRate = v })
	num("min_rate", 1e-3, func(v float64) { s.MinRate = v })
	num("max_rate", 1e-3, func(v float64) { s.MaxRate = v })
	num("resolution_pct", 0.1, func(v float64) { s.Resolution = v / 100 })
	integer("repeats", 1, func(v int) { s.Repeats = v })
	integer("max_probes", 2, func(v int) { s.MaxProbes = v })
	num("max_s", 0.01, func(v float64) { s.MaxTime = secs(v) })
	num("min_window_s", 0.01, func(v float64) { def.MinWindow = secs(v) })
	num("max_window_s", 0.01, func(v float64) { def.MaxWindow = secs(v) })
	num("late_ms", 0, func(v float64) { def.LateBound = time.Duration(v * float64(time.Millisecond)) })

	var level *hcl.Block
	for _, b := range content.Blocks {
		if b.Type != ServiceLevelBlock {
			continue
		}
		if level != nil {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Duplicate service_level block",
				Detail: fmt.Sprintf("A service_level block was already declared at %s.", level.DefRange), Subject: b.DefRange.Ptr()})
			continue
		}
		level = b
		diags = append(diags, decodeLevel(b, ctx, &s.Level)...)
	}
	if level == nil {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Missing service_level block",
			Detail:  "A capacity scenario needs service_level { max_ms = N } (and optionally percentile, max_error_pct, min_achieved_pct, max_late_pct): the search finds the highest rate that keeps it.",
			Subject: content.MissingItemRange.Ptr()})
	}

	streams, d := kind.DecodeStreams(content, ctx)
	diags = append(diags, d...)
	switch {
	case len(streams) == 0 && !d.HasErrors():
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "No stream",
			Detail: "A capacity scenario needs a read or a write block: the stream whose rate it searches.", Subject: content.MissingItemRange.Ptr()})
	case len(streams) > 1:
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "More than one stream",
			Detail: "A capacity search offers one rate: declare one read or write block (a mix, or operations with weights, for several queries).", Subject: streams[1].Range.Ptr()})
	case len(streams) == 1 && def.ClientsSearch:
		def.Stream = streams[0]
		if streams[0].Clients != 0 && streams[0].Op == kind.ReadBlock {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Clients of a clients search",
				Detail: "A clients search finds the client count: drop the stream's clients (max_clients bounds the search).", Subject: streams[0].Range.Ptr()})
		}
	case len(streams) == 1:
		def.Stream = streams[0]
		def.Clients = streams[0].Clients
		if def.Clients == 0 {
			def.Clients = DefaultClients
		}
		diags = append(diags, kind.CheckWriters(def.Stream.Ops, def.Clients)...)
	}
	if def.ClientsSearch {
		s.Judge = ClientsJudge(s.Level, def.MinGain)
	}
	if !diags.HasErrors() {
		probe := *s
		probe.MaxTime = max(probe.MaxTime, time.Nanosecond)
		if err := probe.Validate(); err != nil {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid capacity search", Detail: err.Error() + ".", Subject: subjectOf(content, err.Error())})
		}
		if def.MinWindow > 0 && def.MaxWindow > 0 && def.MaxWindow < def.MinWindow {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid probe window",
				Detail: "max_window_s must be at least min_window_s.", Subject: content.Attributes["max_window_s"].Expr.Range().Ptr()})
		}
	}
	return def, diags
}

// subjectOf is the range of the first search attribute that msg names,
// else where the scenario's body is missing an item.
func subjectOf(content *hcl.BodyContent, msg string) *hcl.Range {
	for _, n := range searchAttrs {
		if a, ok := content.Attributes[n]; ok && strings.Contains(msg, n) {
			return a.Expr.Range().Ptr()
		}
	}
	return content.MissingItemRange.Ptr()
}

func decodeLevel(b *hcl.Block, ctx *hcl.EvalContext, sl *ServiceLevel) hcl.Diagnostics {
	c, diags := b.Body.Content(levelSchema)
	if diags.HasErrors() {
		return diags
	}
	set := func(name string, min, max float64, to *float64) {
		a, ok := c.Attributes[name]
		if !ok {
			return
		}
		v, d := kind.Number(a.Expr, ctx, name, min)
		diags = append(diags, d...)
		switch {
		case d.HasErrors():
		case v > max:
			diags = append(diags, kind.AttrError(a.Expr, "Invalid "+name, fmt.Sprintf("%s must be at most %v, got %v.", name, max, v)))
		default:
			*to = v
		}
	}
	set("percentile", 0.001, 99.999, &sl.Percentile)
	var maxMs float64
	set("max_ms", 0.001, math.MaxFloat64, &maxMs)
	sl.MaxLatency = time.Duration(maxMs * float64(time.Millisecond))
	set("max_error_pct", 0, 100, &sl.MaxErrorPct)
	set("min_achieved_pct", 0, 100, &sl.MinAchievedPct)
	set("max_late_pct", 0, 100, &sl.MaxLatePct)
	return diags
}

// Queries implements kind.Definition.
func (d *Definition) Queries() []string { return kind.StreamQueries(d.Stream.Mix, d.Stream.Ops) }

// Writes implements kind.Definition.
func (d *Definition) Writes() bool {
	return d.Stream.Op == results.OpWrite || kind.OpsWrite(d.Stream.Ops)
}

// WriteGenerators implements kind.WriteGenerators.
func (d *Definition) WriteGenerators() []string { return kind.OpGenerators(d.Stream.Ops) }

// Operations implements kind.Operationer.
func (d *Definition) Operations() []kind.Operation { return d.Stream.Ops }

// Points implements kind.Definition: one search per cell.
func (d *Definition) Points(s measure.Sampling) []kind.Point {
	p := &point{d: d, search: d.Search, warmup: s.Warmup, grace: s.Probe, minWin: d.MinWindow, maxWin: d.MaxWindow}
	if p.minWin <= 0 {
		p.minWin = max(s.MinDuration, 10*time.Millisecond)
	}
	if p.maxWin <= 0 {
		p.maxWin = max(s.MaxDuration, p.minWin)
	}
	p.maxWin = max(p.maxWin, p.minWin)
	if p.grace <= 0 {
		p.grace = time.Second
	}
	p.search.ProbeTime = p.probeTime
	return []kind.Point{p}
}

type point struct {
	d              *Definition
	search         Search
	warmup         int
	grace          time.Duration // the per-call ceiling: calls past it are cut, calls running at a window's end get this long
	minWin, maxWin time.Duration
}

// window is a probe's length at rate.
func (p *point) window(rate float64) time.Duration {
	return Window(rate, p.search.Level.Percentile, p.minWin, p.maxWin)
}

// probeTime is what a probe at rate is expected to take: its window and
// its clients' warm-up.
func (p *point) probeTime(rate float64) time.Duration { return p.window(rate) + 50*time.Millisecond }

func (p *point) Describe() string {
	s := p.search
	if p.d.ClientsSearch {
		return fmt.Sprintf("capacity clients %s %s: the most clients, 1 to %g, with p%s<=%sms errors<=%s%% and throughput +%s%% a doubling, %d passes, at most %d probes of %s-%s and %s",
			p.d.Stream.Op, kind.DescribeStream(p.d.Stream.Mix, p.d.Stream.Ops), s.MaxRate, num(s.Level.Percentile),
			num(float64(s.Level.MaxLatency)/float64(time.Millisecond)), num(s.Level.MaxErrorPct), num(100*p.d.MinGain), s.Repeats, s.MaxProbes, p.minWin, p.maxWin, s.MaxTime)
	}
	return fmt.Sprintf("capacity %s %s x%d: %s, rates from %g/s (down to %g/s, up to %g/s) within %g%%, %d passes, at most %d probes of %s-%s and %s",
		p.d.Stream.Op, kind.DescribeStream(p.d.Stream.Mix, p.d.Stream.Ops), p.d.Clients, s.Level, s.StartRate, s.MinRate, s.MaxRate,
		100*s.Resolution, s.Repeats, s.MaxProbes, p.minWin, p.maxWin, s.MaxTime)
}

// Estimate implements kind.Point: from the fewest probes a search that
// finds an edge runs, at the shortest window, to the probe budget at the
// longest window (each with the stop grace a window may end with), or the
// time budget and one probe more, whichever is less.
func (p *point) Estimate() (lo, hi time.Duration) {
	each := p.maxWin + p.grace + 50*time.Millisecond
	lo = time.Duration(p.search.MinProbes()) * p.minWin
	hi = min(time.Duration(p.search.MaxProbes)*each, p.search.MaxTime+each)
	return lo, max(hi, lo)
}

// Run implements kind.Point: the clients are opened once and serve every
// probe.
func (p *point) Run(ctx context.Context, env kind.Env) error {
	if p.d.ClientsSearch {
		return p.runClients(ctx, env)
	}
	st := p.d.Stream
	ms, closers, err := kind.OpenStream(ctx, env, st.Op, st.Mix, st.Ops, 0, p.d.Clients, kind.StreamSeed(env.Seed(), 0))
	if err != nil {
		return err
	}
	defer func() {
		for _, c := range closers {
			c.Close()
		}
	}()
	var measured []measure.Result // per probe, in order
	var evRows []ProbeEvidenceRow // the database's evidence per probe
	level := p.search.Level
	probe := func(ctx context.Context, rate float64) (Observation, error) {
		t := measure.Timed{Warmup: p.warmup, Duration: p.window(rate), LateBound: p.d.LateBound, Grace: p.grace, Probe: p.grace}
		var res []measure.Result
		ev, err := kind.Stretch(ctx, env, func() (_ []results.Row, err error) {
			res, err = measure.RunTimed(ctx, t, []measure.TimedStream{{Op: st.Op, Rate: rate, Calls: ms.Calls, Ops: ms.Ops, OpCalls: ms.OpCalls}}, nil)
			if err != nil {
				return nil, err
			}
			// An op at an offered rate: its split has no observed time
			// per call from the clients' pace.
			row := results.FromResult(env.Row(), res[0])
			row.Op = fmt.Sprintf("%s@%g", st.Op, rate)
			return []results.Row{row}, nil
		})
		if err != nil {
			return Observation{}, err
		}
		measured = append(measured, res[0])
		for _, r := range probeEvidenceRows(env.Row(), p.d.Clients, st.Op, len(measured), ev) {
			env.Emit(r)
			evRows = append(evRows, r)
		}
		o := Observe(res[0], rate, level.Percentile)
		env.Logf("capacity probe %d at %g/s: %.1f ops/s, p%g %.3f ms, errors %.2f%%, late %.2f%% %s", len(measured), rate, o.Achieved,
			level.Percentile, msOf(o.Latency), o.ErrorPct(), o.LatePct(), verdict(level.Judge(o)))
		return o, nil
	}
	began := time.Now()
	out, err := p.search.Run(ctx, probe)
	p.emit(env, out, measured, evRows, began)
	return err
}

func verdict(failed []string) string {
	if len(failed) == 0 {
		return "held"
	}
	return "broke " + joinBounds(failed)
}

// emit writes the search's probes, its capacity row and the timing row of
// the probe at the capacity (the highest rate that held; with none, the
// lowest probed, whose errors the row then shows).
func (p *point) emit(env kind.Env, out Outcome, measured []measure.Result, ev []ProbeEvidenceRow, began time.Time) {
	if len(out.Probes) == 0 {
		return
	}
	base := env.Row()
	st := p.d.Stream
	var rows []CapacityProbeRow
	for _, pr := range out.Probes {
		row := probeRow(base, st.Op, p.d.Clients, pr)
		if p.d.ClientsSearch {
			// A closed loop offers no rate: its share is not applicable.
			row.Clients, row.Rate, row.AchievedPct = int(pr.Rate), 0, math.NaN()
		}
		env.Emit(row)
		rows = append(rows, row)
	}
	unit, level := UnitRate, p.search.Level.String()
	if p.d.ClientsSearch {
		unit = UnitClients
		level = fmt.Sprintf("p%s<=%sms errors<=%s%% throughput+%s%%/doubling", num(p.search.Level.Percentile),
			num(float64(p.search.Level.MaxLatency)/float64(time.Millisecond)), num(p.search.Level.MaxErrorPct), num(100*p.d.MinGain))
	}
	capRow := CapacityRow{Scenario: base.Scenario, Backend: base.Backend, Scale: base.Scale, Clients: p.d.Clients, Op: st.Op,
		Capacity: out.Capacity, Low: out.Low, High: out.High, Unit: unit, LimitedBy: out.LimitedBy, ServiceLevel: level,
		Probes: len(out.Probes), Seconds: out.Elapsed.Seconds(), BudgetSpent: out.Budget}
	env.Emit(capRow)
	if out.Undecided != "" {
		env.Logf("capacity CANNOT BE DECIDED after %d probes in %s: %s (every probe in %s)", len(out.Probes), out.Elapsed.Round(time.Millisecond),
			out.Undecided, CapacityProbesFile)
	} else {
		env.Logf("capacity %.1f %s [%.1f, %.1f] limited by %s after %d probes in %s", out.Capacity, unit, out.Low, out.High, out.LimitedBy,
			len(out.Probes), out.Elapsed.Round(time.Millisecond))
		if line := breakLine(capRow, rows, ev); line != "" {
			env.Logf("%s", line)
		}
	}
	at := 0
	for i, pr := range out.Probes {
		if pr.Held() && (!out.Probes[at].Held() || pr.Rate > out.Probes[at].Rate) ||
			!pr.Held() && !out.Probes[at].Held() && pr.Rate < out.Probes[at].Rate {
			at = i
		}
	}
	if at >= len(measured) {
		return
	}
	r := measured[at]
	row := results.FromResult(base, r)
	row.Op = CapacityOp(st.Op)
	row.Rep, row.Reps = 1, 1
	env.Emit(results.Raw(row))
	env.Emit(results.Timing(row))
	if r.Hist != nil {
		env.Emit(results.Hist{Row: row, Intervals: []results.Interval{{Start: began, End: began.Add(r.Elapsed), Hist: r.Hist}}})
	}
	for _, m := range measured {
		if m.Errors > 0 {
			env.LogErrors(m)
		}
	}
}

// probeRow is a probe's row of capacity-probes.csv. What the probe
// could not measure is NaN, written empty, never 0: the percentile and
// the p50 and p99 of a probe that completed no call, the ends of the
// percentile's interval when too few calls lie on their side of it.
func probeRow(base results.Row, op string, clients int, p Probe) CapacityProbeRow {
	lat := func(d time.Duration) float64 {
		if p.Calls == 0 {
			return math.NaN()
		}
		return msOf(d)
	}
	end := func(d time.Duration) float64 {
		if d == 0 {
			return math.NaN()
		}
		return msOf(d)
	}
	return CapacityProbeRow{Scenario: base.Scenario, Backend: base.Backend, Scale: base.Scale, Clients: clients, Op: op,
		Probe: p.N, Phase: p.Phase, Pass: p.Pass, Rate: p.Rate, Seconds: p.Elapsed.Seconds(), Count: p.Calls, Errors: p.Errors,
		Late: p.Late, Dropped: p.Dropped, Achieved: p.Achieved, AchievedPct: p.AchievedPct(), PctlMs: lat(p.Latency),
		PctlLowMs: end(p.LatencyLow), PctlHighMs: end(p.LatencyHigh), P50Ms: lat(p.P50), P99Ms: lat(p.P99),
		ErrorPct: p.ErrorPct(), LatePct: p.LatePct(), Held: p.Held(), Failed: joinBounds(p.Failed)}
}

func msOf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// runClients is a clients search: closed-loop probes at client counts,
// the clients opened as the search first needs them and kept for the
// probes after.
func (p *point) runClients(ctx context.Context, env kind.Env) error {
	st := p.d.Stream
	var pool measure.Stream
	var closers []kind.Closer
	defer func() {
		for _, c := range closers {
			c.Close()
		}
	}()
	var measured []measure.Result
	var evRows []ProbeEvidenceRow
	lastX := 0.0
	probe := func(ctx context.Context, level float64) (Observation, error) {
		n := int(level)
		if have := len(pool.Calls) + len(pool.OpCalls); have < n {
			more, cls, err := kind.OpenStream(ctx, env, st.Op, st.Mix, st.Ops, have, n, kind.StreamSeed(env.Seed(), 0))
			if err != nil {
				return Observation{}, err
			}
			closers = append(closers, cls...)
			pool.Calls, pool.OpCalls, pool.Ops = append(pool.Calls, more.Calls...), append(pool.OpCalls, more.OpCalls...), more.Ops
		}
		win := p.maxWin
		if lastX > 0 {
			win = Window(lastX, p.search.Level.Percentile, p.minWin, p.maxWin)
		}
		ts := measure.TimedStream{Op: st.Op, Ops: pool.Ops}
		if len(pool.OpCalls) > 0 {
			ts.OpCalls = pool.OpCalls[:n]
		} else {
			ts.Calls = pool.Calls[:n]
		}
		var res []measure.Result
		ev, err := kind.Stretch(ctx, env, func() (_ []results.Row, err error) {
			res, err = measure.RunTimed(ctx, measure.Timed{Warmup: p.warmup, Duration: win, Grace: p.grace, Probe: p.grace}, []measure.TimedStream{ts}, nil)
			if err != nil {
				return nil, err
			}
			return []results.Row{results.FromResult(env.Row(), res[0])}, nil
		})
		if err != nil {
			return Observation{}, err
		}
		if res[0].Count+res[0].Errors == 0 {
			// A closed-loop call counts when it ends within the window:
			// none did, every client's call outlasted it (cut at the
			// ceiling, or slower than the window). Those are failures.
			res[0].Errors, res[0].FirstError = int64(n), fmt.Sprintf("no call of %d clients ended within the %s window", n, win)
		}
		measured = append(measured, res[0])
		for _, r := range probeEvidenceRows(env.Row(), n, st.Op, len(measured), ev) {
			env.Emit(r)
			evRows = append(evRows, r)
		}
		o := Observe(res[0], level, p.search.Level.Percentile)
		lastX = o.Achieved
		env.Logf("capacity probe %d at %d clients: %.1f ops/s, p%g %.3f ms, errors %.2f%%", len(measured), n, o.Achieved,
			p.search.Level.Percentile, msOf(o.Latency), o.ErrorPct())
		return o, nil
	}
	began := time.Now()
	out, err := p.search.Run(ctx, probe)
	p.emit(env, out, measured, evRows, began)
	return err
}
