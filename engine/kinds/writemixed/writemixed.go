// Package writemixed is the write_mixed scenario kind: one writer runs
// the dataset's write generator (write k, k = 0, 1, ..., each a
// transaction of the write query's statements) while readers run a mix of
// queries, for a fixed duration. It emits a `write` and a `read` timing
// row, counts contention (busy, serialization, deadlock, conflict) per
// row in logs/contention.log, records which writes committed so the
// checks after it see the truth those writes lead to, and checks a
// fraction of the readers' calls against the states that were legal
// while they ran.
//
// One writer per store, always: SQLite and DuckDB allow one writing
// transaction at a time, and with one writer the commit order is the
// order of k, which is what makes truth after the writes knowable.
package writemixed

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/datagen/writes"
	"github.com/mentat-spec/mentat-spec/engine/kind"
	"github.com/mentat-spec/mentat-spec/engine/kinds/closedloop"
	"github.com/mentat-spec/mentat-spec/engine/measure"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// Name is the kind's name in HCL.
const Name = "write_mixed"

// Kind is the write_mixed kind.
type Kind struct{}

// Name implements kind.Kind.
func (Kind) Name() string { return Name }

// Schema implements kind.Kind.
func (Kind) Schema() *hcl.BodySchema {
	return &hcl.BodySchema{
		Attributes: []hcl.AttributeSchema{{Name: "duration_s", Required: true}, {Name: "reps"}},
		Blocks:     []hcl.BlockHeaderSchema{{Type: "write"}, {Type: "read"}, {Type: "verify"}},
	}
}

var writeSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "generator", Required: true}, {Name: "query", Required: true}, {Name: "max_tries"}, {Name: "writers"},
}}

var verifySchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "query", Required: true}, {Name: "fraction", Required: true},
}}

// Definition is one write_mixed scenario.
type Definition struct {
	Duration time.Duration
	// Reps are the repetitions of duration_s (default 1): each rep's rows
	// are a sample for compare, as closed_loop's reps are. The writer goes
	// on from one rep to the next, so each starts on the store the ones
	// before wrote, and the truth follows every commit of all of them.
	Reps      int
	Generator string // the dataset's write block
	// GeneratorRange is where generator = names it.
	GeneratorRange hcl.Range
	WriteSQL       string // the query whose statements are one write
	MaxTries       int    // tries of a write failing on contention (1: no retry)
	Reads          closedloop.Stream
	HasReads       bool
	Verify         string  // the query reading the written fact, "" for none
	Fraction       float64 // of the readers' calls followed by a verify read
}

// Decode implements kind.Kind.
func (Kind) Decode(content *hcl.BodyContent, ctx *hcl.EvalContext) (kind.Definition, hcl.Diagnostics) {
	def := &Definition{MaxTries: 1, Reps: 1}
	var diags hcl.Diagnostics
	secs, d := kind.Number(content.Attributes["duration_s"].Expr, ctx, "duration_s", 0.1)
	diags = append(diags, d...)
	def.Duration = time.Duration(secs * float64(time.Second))
	if a, ok := content.Attributes["reps"]; ok {
		def.Reps, d = kind.Int(a.Expr, ctx, "reps", 1)
		diags = append(diags, d...)
	}
	var hasWrite bool
	for _, blk := range content.Blocks {
		switch blk.Type {
		case "write":
			if hasWrite {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Duplicate write block",
					Detail: "A write_mixed scenario has one writer.", Subject: blk.DefRange.Ptr()})
				continue
			}
			hasWrite = true
			c, d := blk.Body.Content(writeSchema)
			diags = append(diags, d...)
			if d.HasErrors() {
				continue
			}
			def.Generator, d = kind.String(c.Attributes["generator"].Expr, ctx, "generator")
			def.GeneratorRange = c.Attributes["generator"].Expr.Range()
			diags = append(diags, d...)
			def.WriteSQL, d = kind.String(c.Attributes["query"].Expr, ctx, "query")
			diags = append(diags, d...)
			if a, ok := c.Attributes["max_tries"]; ok {
				def.MaxTries, d = kind.Int(a.Expr, ctx, "max_tries", 1)
				diags = append(diags, d...)
			}
			if a, ok := c.Attributes["writers"]; ok {
				n, d := kind.Int(a.Expr, ctx, "writers", 1)
				diags = append(diags, d...)
				if !d.HasErrors() && n != 1 {
					diags = append(diags, kind.AttrError(a.Expr, "One writer per store",
						"write_mixed runs one writer: the embedded databases allow one writing transaction at a time, and one writer's commit order is what makes the truth after the writes knowable."))
				}
			}
		case "verify":
			c, d := blk.Body.Content(verifySchema)
			diags = append(diags, d...)
			if d.HasErrors() {
				continue
			}
			def.Verify, d = kind.String(c.Attributes["query"].Expr, ctx, "query")
			diags = append(diags, d...)
			def.Fraction, d = kind.Number(c.Attributes["fraction"].Expr, ctx, "fraction", 0)
			diags = append(diags, d...)
			if !d.HasErrors() && def.Fraction > 1 {
				diags = append(diags, kind.AttrError(c.Attributes["fraction"].Expr, "Invalid fraction", "fraction is a share of the readers' calls, in [0, 1]."))
			}
		}
	}
	if !hasWrite {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Missing write block",
			Detail: `A write_mixed scenario needs write { generator = "..." query = query.NAME }.`, Subject: content.MissingItemRange.Ptr()})
	}
	reads := &hcl.BodyContent{Attributes: hcl.Attributes{}}
	for _, blk := range content.Blocks {
		if blk.Type == results.OpRead {
			reads.Blocks = append(reads.Blocks, blk)
		}
	}
	streams, d := closedloop.Streams(reads, ctx)
	diags = append(diags, d...)
	for _, st := range streams {
		if st.Op == results.OpRead {
			if kind.OpsWrite(st.Ops) {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Write operation among write_mixed's readers",
					Detail: "A write_mixed scenario writes through its write block; its readers' operations are reads. Use a closed_loop scenario for a stream of write operations.", Subject: content.MissingItemRange.Ptr()})
			}
			def.Reads, def.HasReads = st, true
			if def.Reads.Clients == 0 {
				def.Reads.Clients = 1
			}
		}
	}
	if def.Verify != "" && !def.HasReads {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "verify without readers",
			Detail: "verify checks a fraction of the readers' calls: add a read block.", Subject: content.MissingItemRange.Ptr()})
	}
	return def, diags
}

// Queries implements kind.Definition: the readers' mix. The write and
// verify queries take their parameters from the writes, not from params,
// so they are not run as reads.
func (d *Definition) Queries() []string {
	if !d.HasReads {
		return nil
	}
	return kind.StreamQueries(d.Reads.Mix, d.Reads.Ops)
}

// Writes implements kind.Definition.
func (d *Definition) Writes() bool { return true }

// RunsInWorkers implements kind.WorkerRunner: with a process client
// model the readers run in worker processes and the writer in the
// coordinator, as the seed suite ran one writer next to reader processes.
func (d *Definition) RunsInWorkers() bool { return d.HasReads }

// WorkersNote implements kind.WorkerNoter.
func (d *Definition) WorkersNote() string {
	return "readers in worker processes, the writer in this process (a database with one writing process: all in this process)"
}

// CheckWrite implements kind.WriteFormChecker: the writer binds one
// attribute and value per write, and its verify follows one attribute.
func (d *Definition) CheckWrite(decl writes.Decl) error {
	switch {
	case decl.Insert:
		return fmt.Errorf("write_mixed runs updates of one attribute, and %q is an insert", decl.Name)
	case len(decl.Attrs) > 1:
		return fmt.Errorf("write_mixed runs updates of one attribute, and %q updates one of %d", decl.Name, len(decl.Attrs))
	case len(decl.Steps) > 0:
		// Its journal of one writer's prefix has no deltas, and verify
		// reads one entity: a transaction runs as a write operation.
		return fmt.Errorf("write_mixed runs updates of one attribute, and %q is a transaction of %d steps (run it as a write operation)", decl.Name, len(decl.Steps))
	case decl.Delta.Kind != "":
		// verify's legal values are the assignments in flight.
		return fmt.Errorf("write_mixed runs assignments of one attribute, and %q adds a delta (run it as a write operation)", decl.Name)
	}
	return nil
}

// WriteRange implements kind.WriteRanger.
func (d *Definition) WriteRange(generator string) (hcl.Range, bool) {
	return d.GeneratorRange, generator == d.Generator && d.GeneratorRange.Filename != ""
}

// BoundQueries implements kind.QueryBinder: the writer binds its write,
// verify binds the entity written.
func (d *Definition) BoundQueries() []kind.BoundQuery {
	out := []kind.BoundQuery{{Query: d.WriteSQL, Allowed: []string{"a", "e", "k", "tx", "v"}, Text: "a write binds :e, :a, :v, :tx and :k"}}
	if d.Verify != "" {
		out = append(out, kind.BoundQuery{Query: d.Verify, Allowed: []string{"e"}, Text: "verify binds only :e, the entity written"})
	}
	return out
}

// WriteGenerators implements kind.WriteGenerators.
func (d *Definition) WriteGenerators() []string { return []string{d.Generator} }

// Operations implements kind.Operationer: the readers' operations.
func (d *Definition) Operations() []kind.Operation { return d.Reads.Ops }

// Points implements kind.Definition: one point.
func (d *Definition) Points(s measure.Sampling) []kind.Point {
	return []kind.Point{&Point{def: d, samp: s}}
}

// Point is the scenario's one point.
type Point struct {
	def  *Definition
	samp measure.Sampling
}

// Describe implements kind.Point.
func (p *Point) Describe() string {
	s := fmt.Sprintf("%s: write %s (%s) x1", p.def.Duration, p.def.Generator, p.def.WriteSQL)
	if p.def.HasReads {
		s += fmt.Sprintf("; read %s x%d", readText(p.def.Reads), p.def.Reads.Clients)
	}
	if p.def.Verify != "" {
		s += fmt.Sprintf("; verify %s on %.0f%% of reads", p.def.Verify, p.def.Fraction*100)
	}
	if p.def.Reps > 1 {
		s += fmt.Sprintf("; %d reps", p.def.Reps)
	}
	return s
}

// Estimate implements kind.Point.
func (p *Point) Estimate() (lo, hi time.Duration) {
	d := p.def.Duration * time.Duration(max(p.def.Reps, 1))
	return d, d
}

// sampling is the scenario's sampling run for exactly the duration, reps
// times.
func (p *Point) sampling() measure.Sampling {
	s := p.samp
	s.MinDuration, s.MaxDuration, s.MinSamples, s.Reps = p.def.Duration, p.def.Duration, 1, max(p.def.Reps, 1)
	s.Precision, s.PrecisionP99 = 0, 0 // a fixed duration, as the seed suite: the writes run for mixed_s
	return s
}

// Run implements kind.Point.
func (p *Point) Run(ctx context.Context, env kind.Env) error {
	wenv, ok := env.(kind.WriteEnv)
	if !ok {
		return fmt.Errorf("the runner cannot run writes (no kind.WriteEnv)")
	}
	writes := wenv.Writes()
	decl, ok := writes.Decl(p.def.Generator)
	if !ok {
		return fmt.Errorf("the dataset declares no write %q", p.def.Generator)
	}
	if err := p.def.CheckWrite(decl); err != nil {
		return err
	}
	log := newCommitLog(writes, p.def.Generator, wenv.NextWrite(p.def.Generator))
	wr, err := newWriter(ctx, wenv, p.def, log)
	if err != nil {
		return err
	}
	defer wr.close()
	streams := []measure.Stream{{Op: results.OpWrite, Calls: []measure.Call{wr.Call}}}
	var readers []*reader
	defer func() {
		for _, r := range readers {
			r.close()
		}
	}()
	workers, err := p.startReaders(ctx, env)
	if err != nil {
		return err
	}
	if workers != nil {
		defer workers.Close()
	}
	if p.def.HasReads && workers == nil {
		rs := measure.Stream{Op: results.OpRead}
		if len(p.def.Reads.Ops) > 0 {
			rs.Ops = kind.OperationNames(p.def.Reads.Ops)
		}
		for i := 0; i < p.def.Reads.Clients; i++ {
			r, err := newReader(ctx, wenv, p.def, log, i)
			if err != nil {
				return err
			}
			readers = append(readers, r)
			if r.ocl != nil {
				rs.OpCalls = append(rs.OpCalls, r.OpCall)
			} else {
				rs.Calls = append(rs.Calls, r.Call)
			}
		}
		streams = append(streams, rs)
	}
	var runErr error
	if workers != nil {
		// The readers' processes do not see the commit log: a verifier in
		// this process, next to the writer, checks reads during the
		// writes instead.
		var verifier *reader
		if p.def.Verify != "" {
			if verifier, err = newVerifier(ctx, wenv, p.def, log); err != nil {
				return err
			}
			readers = append(readers, verifier) // closed with them
		}
		runErr = p.measureAlong(ctx, env, streams, workers, verifier)
	} else {
		runErr = closedloop.MeasureReps(ctx, env, p.sampling(), streams)
	}
	// What committed is recorded whatever happened: the checks after the
	// scenario compare with the truth those writes lead to.
	n, inDoubt := wr.committed()
	wenv.Committed(p.def.Generator, n, inDoubt)
	env.Logf("%d write(s) of %s committed (k = %d..%d)%s", n-log.first, p.def.Generator, log.first, n-1, doubtText(inDoubt, n))
	wenv.Log("contention", "%s op=write clients=1 %s retries=%d\n", rowKey(env), wr.counts.String(), wr.retries.Load())
	if len(readers) > 0 && workers == nil {
		var c counts
		for _, r := range readers {
			c.Add(&r.counts)
		}
		wenv.Log("contention", "%s op=read clients=%d %s retries=0\n", rowKey(env), len(readers), c.String())
	}
	if workers != nil {
		wenv.Log("contention", "%s op=read clients=%d in worker processes: their errors are in the read row, not classified here\n", rowKey(env), p.def.Reads.Clients)
	}
	if p.def.Verify != "" {
		by := ""
		if workers != nil {
			by = fmt.Sprintf(" by a verifier in the writer's process, busy %g of the time (the readers ran in worker processes)", p.def.Fraction)
		}
		env.Emit(verdict(env, p.def, readers, by))
	}
	return runErr
}

// readText is the readers' stream in plan: the mix as it always printed
// ([q1 q2]), or the operations with their shares.
func readText(st closedloop.Stream) string {
	if len(st.Ops) == 0 {
		return fmt.Sprint(st.Mix)
	}
	return kind.DescribeStream(st.Mix, st.Ops)
}

func doubtText(inDoubt bool, n int64) string {
	if !inDoubt {
		return ""
	}
	return fmt.Sprintf("; write %d failed while committing: in doubt", n)
}

func rowKey(env kind.Env) string {
	r := env.Row()
	return fmt.Sprintf("%s %s %s %s", time.Now().UTC().Format(time.RFC3339), r.Scenario, r.Backend, r.Scale)
}
