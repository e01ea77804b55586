package store

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/datagen/export"
	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/resolve"
	"github.com/mentat-spec/mentat-spec/engine/sqltext"
)

// StatementLoad loads the dataset through the store's own API: the
// schema first (every attribute, one call), then lc.Jobs parallel jobs on
// disjoint transaction ranges, each passing batches of at most
// lc.BatchDatoms datoms, rendered as lc.Format tx-data, to lc.Statement's
// :tx. A statement of several SQL statements runs them in one
// transaction per batch. Datoms committed are added to datoms (nil: none)
// for the live progress; capDur > 0 cuts the load as BulkLoad's cap does.
func StatementLoad(ctx context.Context, be drivers.Backend, gen *datagen.Dataset, lc resolve.Load, capDur time.Duration, datoms *atomic.Int64) (Result, error) {
	res := Result{Statement: lc.Statement}
	if len(lc.Tables) > 0 {
		// Only read to count what a load cut by the cap left.
		res.Tables = loadTables(lc)
	}
	var stmts []sqltext.Bound
	for _, text := range sqltext.Statements(lc.Statement) {
		b, err := sqltext.Bind(text, be.Placeholder)
		if err != nil {
			return res, fmt.Errorf("load statement: %w", err)
		}
		stmts = append(stmts, b)
	}
	if len(stmts) == 0 {
		return res, fmt.Errorf("load statement: no SQL statement in %q", lc.Statement)
	}
	if datoms == nil {
		datoms = new(atomic.Int64)
	}
	start := time.Now()
	lctx := ctx
	var cancel context.CancelFunc = func() {}
	if capDur > 0 {
		lctx, cancel = context.WithTimeout(ctx, capDur)
	}
	defer cancel()
	capped := func(err error) (Result, error) {
		res.Datoms, res.Elapsed = datoms.Load(), time.Since(start)
		if err != nil && lctx.Err() != nil && ctx.Err() == nil {
			res.Capped = true
			return res, nil
		}
		return res, err
	}

	tempids := lc.IDs == resolve.IDsTempid
	// The schema: one call before any datom, so every job's datoms find
	// their attributes.
	sj, err := newStmtJob(lctx, be, stmts)
	if err != nil {
		return capped(err)
	}
	td, err := export.NewTxData(gen.Attrs(), lc.Format, tempids)
	if err != nil {
		sj.close()
		return capped(err)
	}
	t0 := time.Now()
	err = sj.call(lctx, td.Schema())
	sj.close()
	res.SchemaTook, res.SchemaAttrs = time.Since(t0), len(gen.Attrs())
	if err != nil {
		return capped(fmt.Errorf("the schema batch (%d attributes): %w", len(gen.Attrs()), err))
	}

	jobs := lc.Jobs
	total := gen.TxCount()
	if int64(jobs) > total && total > 0 {
		jobs = int(total)
	}
	jobs = max(jobs, 1)
	res.Jobs = make([]jobLog, jobs)
	var wg sync.WaitGroup
	for j := 0; j < jobs; j++ {
		from, to := total*int64(j)/int64(jobs), total*int64(j+1)/int64(jobs)
		res.Jobs[j] = jobLog{from: from, to: to}
		wg.Add(1)
		go func(jl *jobLog) {
			defer wg.Done()
			jl.err = stmtRange(lctx, be, stmts, gen, lc, tempids, datoms, jl)
		}(&res.Jobs[j])
	}
	wg.Wait()
	for _, jl := range res.Jobs {
		if jl.err != nil {
			return capped(jl.err)
		}
	}
	return capped(nil)
}

// stmtJob is the statement prepared on one session.
type stmtJob struct {
	s     drivers.Session
	stmts []drivers.Stmt
	nargs []int // markers per statement, each bound to the batch (:tx)
}

func newStmtJob(ctx context.Context, be drivers.Backend, bound []sqltext.Bound) (*stmtJob, error) {
	s, err := be.Session(ctx)
	if err != nil {
		return nil, fmt.Errorf("opening a load session: %w", err)
	}
	j := &stmtJob{s: s}
	for _, b := range bound {
		st, err := s.Prepare(ctx, b.SQL)
		if err != nil {
			j.close()
			return nil, fmt.Errorf("preparing the load statement %q: %w", b.SQL, err)
		}
		j.stmts = append(j.stmts, st)
		j.nargs = append(j.nargs, len(b.Names))
	}
	return j, nil
}

// call passes one batch; several statements run in one transaction.
func (j *stmtJob) call(ctx context.Context, batch []byte) error {
	text := string(batch) // a copy: the renderer reuses its buffer
	multi := len(j.stmts) > 1
	if multi {
		if err := j.s.Exec(ctx, "BEGIN"); err != nil {
			return err
		}
	}
	for i, st := range j.stmts {
		args := make([]any, j.nargs[i])
		for k := range args {
			args[k] = text
		}
		if _, err := st.Query(ctx, args, nil); err != nil {
			if multi {
				_ = j.s.Exec(context.WithoutCancel(ctx), "ROLLBACK")
			}
			return err
		}
	}
	if multi {
		return j.s.Exec(ctx, "COMMIT")
	}
	return nil
}

func (j *stmtJob) close() {
	for _, st := range j.stmts {
		st.Close()
	}
	j.s.Close()
}

// stmtRange passes transactions [jl.from, jl.to) in batches.
func stmtRange(ctx context.Context, be drivers.Backend, bound []sqltext.Bound, gen *datagen.Dataset, lc resolve.Load,
	tempids bool, datoms *atomic.Int64, jl *jobLog) error {
	sj, err := newStmtJob(ctx, be, bound)
	if err != nil {
		return err
	}
	defer sj.close()
	td, err := export.NewTxData(gen.Attrs(), lc.Format, tempids)
	if err != nil {
		return err
	}
	var done, lastTx int64
	flush := func() error {
		n := td.Len()
		if n == 0 {
			return nil
		}
		t0 := time.Now()
		if err := sj.call(ctx, td.Bytes()); err != nil {
			return fmt.Errorf("batch %d (%d datoms through tx %d): %w", len(jl.commits)+1, n, lastTx, err)
		}
		done += int64(n)
		jl.commit(t0, lastTx, done)
		datoms.Add(int64(n))
		td.Reset()
		return nil
	}
	err = gen.Stream(ctx, jl.from, jl.to, func(tx *datagen.Tx) error {
		for i := range tx.Datoms {
			td.Add(&tx.Datoms[i])
			lastTx = tx.ID
			if td.Len() >= lc.BatchDatoms {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return flush()
}

// LoadKind names the load path of lc, for messages.
func LoadKind(lc resolve.Load) string {
	if lc.Statement != "" {
		return "load through the statement"
	}
	return "bulk load"
}
