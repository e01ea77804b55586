package opwrite

import (
	"context"
	"fmt"

	"github.com/mentat-spec/mentat-spec/datagen/writes"
	"github.com/mentat-spec/mentat-spec/engine/kind"
	"github.com/mentat-spec/mentat-spec/engine/ops"
	"github.com/mentat-spec/mentat-spec/engine/writetx"
)

// NeedsRead says why transaction operation o cannot run without a read
// query (plan says so first where the kind lists its operations).
func NeedsRead(decl writes.Decl, o kind.Operation) error {
	if o.Read != "" {
		return nil
	}
	if why := writes.ReadNeed(decl); why != "" {
		return fmt.Errorf("operation %s: %s: set the operation's read query", o.Name, why)
	}
	return nil
}

// txWriter is a client's state for a transaction write, built on its
// first transaction: the declaration, and the TxOp each transaction is
// drawn into (writes.TxOpInto), so a transaction looks up and allocates
// nothing but what the commit keeps.
type txWriter struct {
	decl writes.Decl
	op   writes.TxOp
	slab []int64 // the committed transactions' deltas, cut from one array
}

// deltas is a zeroed slice of n deltas that the commit may keep.
func (t *txWriter) deltas(n int) []int64 {
	if len(t.slab) < n {
		t.slab = make([]int64, max(1024, n))
	}
	d := t.slab[:n:n]
	t.slab = t.slab[n:]
	return d
}

// runTx runs write k of a transaction generator on tx: inside one
// transaction the operation's read, the abort condition and the run-time
// deltas over what it read, then every step's statements. The truth
// follows the deltas recorded with the commit; an intended abort writes
// nothing, is counted apart from errors and is not a failed call.
func (w *Writer) runTx(ctx context.Context, tx *writetx.Tx) error {
	k := w.Seq.Next()
	name := w.Op.Write
	t := w.tx
	if t == nil {
		t = &txWriter{}
		t.decl, _ = w.Writes.Decl(name)
		w.tx = t
	}
	op := &t.op
	if err := w.Writes.TxOpInto(op, name, k, tx.BindsValues()); err != nil {
		w.Seq.Fail(k)
		return err
	}
	decl := &t.decl
	deltas := t.deltas(len(op.Steps))
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
		return false, nil
	}
	aborted := false
	inDoubt, err := ops.Write(ctx, w.Op.MaxTries, w.Classify, &w.Tally.counts, &w.Tally.retries,
		func() (error, bool) {
			clear(deltas) // the read binds the entities and draws, no delta yet
			err, atCommit, ab := tx.RunOp(ctx, op, deltas, decide)
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
		w.Seq.Fail(k)
		w.Tally.aborted.Add(1)
		return nil
	case err == nil:
		w.Seq.CommitDeltas(k, e, deltas)
		return nil
	case inDoubt:
		w.Seq.InDoubtDeltas(k, e, deltas)
	default:
		w.Seq.Fail(k)
	}
	return fmt.Errorf("write %d of %s: %w", k, name, err)
}

// abortedField is the contention log's count of intended aborts, for an
// operation that had any.
func abortedField(t *Tally) string {
	if n := t.aborted.Load(); n > 0 {
		return fmt.Sprintf(" aborted=%d", n)
	}
	return ""
}
