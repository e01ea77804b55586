package writemixed

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/answer"
	"github.com/mentat-spec/mentat-spec/engine/kind"
	"github.com/mentat-spec/mentat-spec/engine/ops"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// reader is one reader: a client of the read mix, and for a fraction of
// its calls a verify read of the entity the writer wrote last, checked
// against the values that entity could legally have during the read.
type reader struct {
	cl       kind.Client
	ocl      kind.OpClient // a stream of read operations instead of a mix
	log      *commitLog
	fraction float64
	rng      *rand.Rand
	sess     drivers.Session
	verify   drivers.Stmt
	answer   kind.Statement // the verify query's answer format and columns
	names    []string
	args     []any
	counts   counts
	classify ops.Classifier

	checked, failed, errs atomic.Int64
	firstFail             atomic.Pointer[string]
	firstErr              atomic.Pointer[string]
}

func newReader(ctx context.Context, env kind.WriteEnv, def *Definition, log *commitLog, index int) (*reader, error) {
	r := &reader{log: log, fraction: def.Fraction, rng: ops.ClientRand(env.Seed(), index), classify: env.ClassifyError}
	if len(def.Reads.Ops) > 0 {
		oe, ok := env.(kind.OpEnv)
		if !ok {
			return nil, fmt.Errorf("reader %d: this runner cannot run operations", index)
		}
		ocl, err := oe.OpenOps(ctx, def.Reads.Ops, index, env.Seed())
		if err != nil {
			return nil, fmt.Errorf("reader %d: %w", index, err)
		}
		r.ocl = ocl
	} else {
		cl, err := env.OpenClient(ctx, def.Reads.Mix, index, env.Seed())
		if err != nil {
			return nil, fmt.Errorf("reader %d: %w", index, err)
		}
		r.cl = cl
	}
	if def.Verify == "" {
		return r, nil
	}
	return r, r.prepareVerify(ctx, env, def, index)
}

// newVerifier is a reader that only verifies: the checker of the writes
// when the readers run in worker processes, which do not see the commit
// log. It has a session of its own in the writer's process.
func newVerifier(ctx context.Context, env kind.WriteEnv, def *Definition, log *commitLog) (*reader, error) {
	r := &reader{log: log, fraction: def.Fraction}
	return r, r.prepareVerify(ctx, env, def, -1)
}

// prepareVerify opens the session of the verify reads and prepares the
// verify query; on an error the reader is closed.
func (r *reader) prepareVerify(ctx context.Context, env kind.WriteEnv, def *Definition, index int) error {
	var err error
	sts, err := env.Statements(def.Verify)
	if err == nil && len(sts) != 1 {
		err = fmt.Errorf("verify query %s must be one statement, has %d", def.Verify, len(sts))
	}
	if err != nil {
		r.close()
		return err
	}
	for _, n := range sts[0].Names {
		if n != "e" {
			r.close()
			return fmt.Errorf("verify query %s uses :%s; it binds only :e, the entity written", def.Verify, n)
		}
	}
	if r.sess, err = env.Session(drivers.WithRole(ctx, drivers.RoleReader)); err != nil {
		r.close()
		return fmt.Errorf("reader %d: connecting: %w", index, err)
	}
	if r.verify, err = r.sess.Prepare(ctx, sts[0].SQL); err != nil {
		r.close()
		return fmt.Errorf("verify query %s: %w", def.Verify, err)
	}
	r.names, r.args, r.answer = sts[0].Names, make([]any, len(sts[0].Names)), sts[0]
	return nil
}

// verifyUntil makes verify reads until stop is closed or ctx ends, busy
// the declared fraction of the time (a read that took d is followed by a
// pause of d(1-f)/f), so that the checker loads the store about as much
// as the readers' own verify reads would have.
func (r *reader) verifyUntil(ctx context.Context, stop <-chan struct{}) {
	if r.fraction <= 0 {
		return // no verify read asked for: the check line says none was checked
	}
	for {
		select {
		case <-stop:
			return
		case <-ctx.Done():
			return
		default:
		}
		t0 := time.Now()
		r.check(ctx)
		if r.fraction >= 1 {
			continue
		}
		pause := time.Duration(float64(time.Since(t0)) * (1 - r.fraction) / r.fraction)
		select {
		case <-stop:
			return
		case <-ctx.Done():
			return
		case <-time.After(pause):
		}
	}
}

func (r *reader) close() {
	if r.verify != nil {
		r.verify.Close()
	}
	if r.sess != nil {
		r.sess.Close()
	}
	if r.cl != nil {
		r.cl.Close()
	}
	if r.ocl != nil {
		r.ocl.Close()
	}
}

// OpCall is Call for a stream of read operations: the operation drawn,
// then the verify read for the declared fraction of calls.
func (r *reader) OpCall(ctx context.Context) (int, error) {
	op, err := r.ocl.Call(ctx)
	if err != nil {
		r.counts.Inc(r.classify(err))
	}
	if r.verify != nil && r.rng.Float64() < r.fraction {
		r.check(ctx)
	}
	return op, err
}

// Call runs the next read of the mix, then, for the declared fraction of
// calls, a verify read (its time is part of the call: that is the cost
// of checking).
func (r *reader) Call(ctx context.Context) error {
	err := r.cl.Call(ctx)
	if err != nil {
		r.counts.Inc(r.classify(err))
	}
	if r.verify != nil && r.rng.Float64() < r.fraction {
		r.check(ctx)
	}
	return err
}

// check reads the fact the writer wrote last and compares it with the
// states that were legal during the read: the state after the writes
// committed before it began, and after each write begun before it ended.
func (r *reader) check(ctx context.Context) {
	r.log.mu.Lock()
	e := r.log.latest
	r.log.mu.Unlock()
	if e < 0 {
		return // nothing written yet
	}
	for i := range r.args {
		r.args[i] = e
	}
	from := r.log.committed.Load()
	var rows [][]any
	_, err := r.verify.Query(ctx, r.args, &rows)
	to := r.log.started.Load()
	if err != nil {
		if ctx.Err() == nil {
			r.errs.Add(1)
			msg := err.Error()
			r.firstErr.CompareAndSwap(nil, &msg)
		}
		return
	}
	r.checked.Add(1)
	if r.answer.Answer != "" && r.answer.Answer != answer.Rows {
		// A store answering in one value: its rows are what it decodes
		// to; one that does not decode is a wrong answer, not an error.
		var derr error
		if _, rows, derr = answer.Decode(r.answer.Answer, rows, r.answer.Columns); derr != nil {
			r.failed.Add(1)
			msg := fmt.Sprintf("entity %d: the verify query's %s answer does not decode: %v", e, r.answer.Answer, derr)
			r.firstFail.CompareAndSwap(nil, &msg)
			return
		}
	}
	legal, ks, err := r.log.legal(e, from, to)
	if err != nil {
		r.errs.Add(1)
		msg := err.Error()
		r.firstErr.CompareAndSwap(nil, &msg)
		return
	}
	if msg := judge(e, rows, legal, ks, from, to); msg != "" {
		r.failed.Add(1)
		r.firstFail.CompareAndSwap(nil, &msg)
	}
}

// judge returns "" when every row holds one and the same legal value, or
// says which write the read contradicts.
func judge(e int64, rows [][]any, legal []datagen.Value, ks []int64, from, to int64) string {
	if len(rows) == 0 {
		return fmt.Sprintf("entity %d: no row (states legal during the read: %s)", e, states(legal, ks))
	}
	var got []string
	for _, row := range rows {
		if len(row) != 1 {
			return fmt.Sprintf("entity %d: the verify query must return one column, got %d", e, len(row))
		}
		got = append(got, fmt.Sprint(row[0]))
	}
	for i := 1; i < len(got); i++ {
		if got[i] != got[0] {
			// Two places disagree: part of a write is visible, part not.
			return fmt.Sprintf("entity %d read as %s at once, a state that never existed: it contradicts write %d (in flight; states legal during the read: %s)",
				e, strings.Join(got, " and "), ks[len(ks)-1], states(legal, ks))
		}
	}
	for _, v := range legal {
		if v.String() == got[0] {
			return ""
		}
	}
	return fmt.Sprintf("entity %d read as %s, a state that never existed: it contradicts write %d (states legal during the read, writes %d..%d: %s)",
		e, got[0], ks[len(ks)-1], from, to-1, states(legal, ks))
}

func states(legal []datagen.Value, ks []int64) string {
	var b strings.Builder
	for i, v := range legal {
		if i > 0 {
			b.WriteString(", ")
		}
		if i == 0 {
			fmt.Fprintf(&b, "%s (before)", v.String())
		} else {
			fmt.Fprintf(&b, "%s (after write %d)", v.String(), ks[i])
		}
	}
	return b.String()
}

// verdict is the concurrent-read check's line in checks.txt.
// verdict is the concurrent_reads line of the readers' verify reads; by
// says who made them when it was not the readers (the verifier of the
// writer's process, when the readers run in worker processes).
func verdict(env kind.Env, def *Definition, readers []*reader, by string) results.CheckLine {
	row := env.Row()
	line := results.CheckLine{Scenario: row.Scenario, Backend: row.Backend, Scale: row.Scale, Name: "concurrent_reads"}
	var checked, failed, errs int64
	var first, firstErr string
	for _, r := range readers {
		checked += r.checked.Load()
		failed += r.failed.Load()
		errs += r.errs.Load()
		if p := r.firstFail.Load(); p != nil && first == "" {
			first = *p
		}
		if p := r.firstErr.Load(); p != nil && firstErr == "" {
			firstErr = *p
		}
	}
	switch {
	case failed > 0:
		line.Status = results.Fail
		line.Detail = fmt.Sprintf("%d of %d reads of %s saw a state that never existed; first: %s", failed, checked, def.Verify, first)
	case checked == 0:
		line.Status = results.Skip
		line.Detail = fmt.Sprintf("no read of %s was checked (fraction %g)", def.Verify, def.Fraction)
		if firstErr != "" {
			line.Status = results.Fail
			line.Detail = fmt.Sprintf("every read of %s failed (%d); first: %s", def.Verify, errs, firstErr)
		}
	default:
		line.Status = results.Pass
		line.Detail = fmt.Sprintf("%d reads of %s during the writes%s, each a legal state (before or after a write in flight)", checked, def.Verify, by)
		if errs > 0 {
			line.Detail += fmt.Sprintf("; %d failed to run, first: %s", errs, firstErr)
		}
	}
	return line
}
