package writemixed

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/datagen/writes"
	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/kind"
	"github.com/mentat-spec/mentat-spec/engine/ops"
)

// commitLog is what readers know of the writer: which writes have begun
// and which committed, and per entity the values the writes give it. A
// read that starts after `committed` writes and ends before `started`
// more may see the state after any of the writes in between.
type commitLog struct {
	writes    *writes.Writes
	gen       string
	first     int64        // the first k of this scenario
	started   atomic.Int64 // writes begun (k+1 once write k began)
	committed atomic.Int64 // writes committed

	mu     sync.Mutex
	byE    map[int64][]entry // entity -> the writes to it, in k order
	latest int64             // entity of the write begun last
	base   map[int64]datagen.Value
}

type entry struct {
	k int64
	v datagen.Value
}

func newCommitLog(w *writes.Writes, gen string, first int64) *commitLog {
	l := &commitLog{writes: w, gen: gen, first: first, byE: map[int64][]entry{}, base: map[int64]datagen.Value{}, latest: -1}
	l.started.Store(first)
	l.committed.Store(first)
	return l
}

// begin records that write op is about to run.
func (l *commitLog) begin(op writes.Op) {
	l.mu.Lock()
	es := l.byE[op.E]
	if len(es) == 0 || es[len(es)-1].k != op.K {
		l.byE[op.E] = append(es, entry{k: op.K, v: op.Value})
	}
	l.latest = op.E
	l.mu.Unlock()
	l.started.Store(op.K + 1)
}

// abort records that write k rolled back: it will be tried again.
func (l *commitLog) abort(k int64) { l.started.Store(k) }

func (l *commitLog) commit(k int64) { l.committed.Store(k + 1) }

// legal returns the values entity e may have in a read that began after
// `from` writes committed and ended before `to` began: the state after
// from writes, then each write to e in [from, to).
func (l *commitLog) legal(e, from, to int64) ([]datagen.Value, []int64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	es := l.byE[e]
	var cur datagen.Value
	have := false
	var ks []int64
	var out []datagen.Value
	for _, x := range es {
		if x.k < from {
			cur, have = x.v, true
		}
	}
	if !have {
		v, ok := l.base[e]
		if !ok {
			var err error
			if v, err = l.writes.Value(l.gen, l.first, e); err != nil {
				return nil, nil, err
			}
			l.base[e] = v
		}
		cur = v
	}
	out, ks = append(out, cur), append(ks, from-1)
	for _, x := range es {
		if x.k >= from && x.k < to {
			out, ks = append(out, x.v), append(ks, x.k)
		}
	}
	return out, ks, nil
}

// writer runs write k, k+1, ... each as one transaction of the write
// query's statements.
type writer struct {
	env      kind.WriteEnv
	log      *commitLog
	sess     drivers.Session
	stmts    []drivers.Stmt
	names    [][]string
	args     [][]any
	maxTries int
	k        int64
	inDoubt  bool
	counts   counts
	retries  atomic.Int64
}

func newWriter(ctx context.Context, env kind.WriteEnv, def *Definition, log *commitLog) (*writer, error) {
	sts, err := env.Statements(def.WriteSQL)
	if err != nil {
		return nil, fmt.Errorf("write query: %w", err)
	}
	sess, err := env.Session(drivers.WithRole(ctx, drivers.RoleWriter))
	if err != nil {
		return nil, fmt.Errorf("writer: connecting: %w", err)
	}
	wr := &writer{env: env, log: log, sess: sess, maxTries: max(def.MaxTries, 1), k: log.first}
	for _, st := range sts {
		for _, n := range st.Names {
			if !writeParams[n] {
				wr.close()
				return nil, fmt.Errorf("write query %s uses :%s; a write binds :e, :a, :v, :tx and :k", def.WriteSQL, n)
			}
		}
		ps, err := sess.Prepare(ctx, st.SQL)
		if err != nil {
			wr.close()
			return nil, fmt.Errorf("write query %s: preparing %q: %w", def.WriteSQL, st.SQL, err)
		}
		wr.stmts = append(wr.stmts, ps)
		wr.names = append(wr.names, st.Names)
		wr.args = append(wr.args, make([]any, len(st.Names)))
	}
	return wr, nil
}

// writeParams are the parameters a write query may use: the entity, the
// attribute id, the new value, the transaction id and the write number.
var writeParams = map[string]bool{"e": true, "a": true, "v": true, "tx": true, "k": true}

func (wr *writer) close() {
	for _, st := range wr.stmts {
		st.Close()
	}
	wr.sess.Close()
}

// committed returns how many writes committed and whether the next was
// left in doubt.
func (wr *writer) committed() (int64, bool) { return wr.k, wr.inDoubt }

// errInDoubt stops the writer: after a failed commit the store's state is
// one of two, and later writes would not tell which.
var errInDoubt = errors.New("the previous write failed while committing: its outcome is in doubt, so the writer stopped")

// Call runs write k in one transaction, retrying a contention failure up
// to max_tries times.
func (wr *writer) Call(ctx context.Context) error {
	if wr.inDoubt {
		<-ctx.Done()
		return ctx.Err()
	}
	op, err := wr.log.writes.Op(wr.log.gen, wr.k)
	if err != nil {
		return err
	}
	for i, names := range wr.names {
		for j, n := range names {
			wr.args[i][j] = opParam(op, n)
		}
	}
	inDoubt, err := ops.Write(ctx, wr.maxTries, wr.env.ClassifyError, &wr.counts, &wr.retries,
		func() (error, bool) {
			wr.log.begin(op)
			return wr.tx(ctx)
		},
		func() {
			_ = wr.sess.Exec(context.WithoutCancel(ctx), "ROLLBACK")
			wr.log.abort(op.K)
		})
	switch {
	case err == nil:
		wr.log.commit(op.K)
		wr.k++
		return nil
	case inDoubt:
		wr.inDoubt = true
	}
	return fmt.Errorf("write %d: %w", op.K, err)
}

// tx runs the statements between BEGIN and COMMIT. atCommit is set when
// COMMIT itself failed.
func (wr *writer) tx(ctx context.Context) (err error, atCommit bool) {
	if err := wr.sess.Exec(ctx, "BEGIN"); err != nil {
		return err, false
	}
	for i, st := range wr.stmts {
		if _, err := st.Query(ctx, wr.args[i], nil); err != nil {
			return err, false
		}
	}
	if err := wr.sess.Exec(ctx, "COMMIT"); err != nil {
		return err, true
	}
	return nil, false
}

func opParam(op writes.Op, name string) any {
	switch name {
	case "e":
		return op.E
	case "a":
		return int64(op.A)
	case "v":
		return op.Value.Any()
	case "tx":
		return op.Tx
	}
	return op.K
}

// counts are a row's failed calls by contention class.
type counts = ops.Contention
