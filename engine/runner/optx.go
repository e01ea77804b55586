package runner

import (
	"context"
	"fmt"

	"github.com/mentat-spec/mentat-spec/datagen/writes"
	"github.com/mentat-spec/mentat-spec/engine/kind"
	"github.com/mentat-spec/mentat-spec/engine/ops"
	"github.com/mentat-spec/mentat-spec/engine/writetx"
)

// needsRead says why transaction operation o cannot run without a read
// query (plan says so first where the kind lists its operations).
func needsRead(decl writes.Decl, o kind.Operation) error {
	if o.Read != "" {
		return nil
	}
	if why := writes.ReadNeed(decl); why != "" {
		return fmt.Errorf("operation %s: %s: set the operation's read query", o.Name, why)
	}
	return nil
}

// runTx runs write k of a transaction generator on tx: inside one
// transaction the operation's read, the abort condition and the run-time
// deltas over what it read, then every step's statements. The truth
// follows the deltas recorded with the commit; an intended abort writes
// nothing, is counted apart from errors and is not a failed call.
func (w *opWriter) runTx(ctx context.Context, tx *writetx.Tx) error {
	k := w.seq.Next()
	name := w.op.Write
	op, err := w.writes.TxOp(name, k)
	if err != nil {
		w.seq.Fail(k)
		return err
	}
	decl, _ := w.writes.Decl(name)
	steps := w.writes.Steps(name)
	deltas := make([]int64, len(op.Steps))
	var args map[string]any
	many := func(attr string) bool { a, _ := w.gen.Attr(attr); return a.Many }
	decide := func(read map[string]any) (bool, error) {
		if decl.AbortIf != nil {
			abort, err := decl.AbortIf.Bool(op.Draws, read)
			if err != nil || abort {
				return abort, err
			}
		}
		for i, s := range decl.Steps {
			switch {
			case s.DeltaExpr != nil:
				d, err := s.DeltaExpr.Int(op.Draws, read)
				if err != nil {
					return false, fmt.Errorf("step %s: %w", s.Name, err)
				}
				deltas[i] = d
			case op.Steps[i].Add:
				deltas[i] = op.Steps[i].Value.Int
			}
		}
		args = writetx.TxArgs(op, steps, deltas, many)
		return false, nil
	}
	pre := writetx.TxArgs(op, steps, deltas, many) // what the read binds: the entities and draws
	arg := func(n string) any {
		if args == nil {
			return pre[n]
		}
		return args[n]
	}
	aborted := false
	inDoubt, err := ops.Write(ctx, w.op.MaxTries, w.classify, w.counts, w.retries,
		func() (error, bool) {
			args = nil
			err, atCommit, ab := tx.RunDecide(ctx, arg, decide)
			aborted = ab
			if ab {
				_ = tx.Session.Exec(context.WithoutCancel(ctx), "ROLLBACK")
			}
			return err, atCommit
		},
		func() { _ = tx.Session.Exec(context.WithoutCancel(ctx), "ROLLBACK") })
	e := op.Steps[0].E
	switch {
	case err == nil && aborted:
		w.seq.Fail(k)
		if w.aborted != nil {
			w.aborted.Add(1)
		}
		return nil
	case err == nil:
		w.seq.CommitDeltas(k, e, deltas)
		return nil
	case inDoubt:
		w.seq.InDoubtDeltas(k, e, append([]int64(nil), deltas...))
	default:
		w.seq.Fail(k)
	}
	return fmt.Errorf("write %d of %s: %w", k, name, err)
}

// abortedField is the contention log's count of intended aborts, for an
// operation that had any.
func abortedField(oc *opContention) string {
	if n := oc.aborted.Load(); n > 0 {
		return fmt.Sprintf(" aborted=%d", n)
	}
	return ""
}
