package runner

import (
	"context"
	"errors"
	"fmt"
	"github.com/mentat-spec/mentat-spec/drivers"

	"github.com/mentat-spec/mentat-spec/engine/client"
	"github.com/mentat-spec/mentat-spec/engine/kind"
	"github.com/mentat-spec/mentat-spec/engine/opwrite"
)

var _ kind.OpEnv = (*pointEnv)(nil)

// OpenOps implements kind.OpEnv.
func (e *pointEnv) OpenOps(ctx context.Context, list []kind.Operation, index int, seed uint64) (kind.OpClient, error) {
	cl, err := e.c.openOps(ctx, list, index, seed, !e.sc.Writes)
	if err != nil {
		return nil, err
	}
	if err := e.addWriters(ctx, cl, list); err != nil {
		cl.Close()
		return nil, err
	}
	e.mu.Lock()
	e.clients = append(e.clients, cl.Counted())
	e.mu.Unlock()
	return cl, nil
}

// OpenOps opens one client of a stream of operations in a worker
// process (reads only: write operations run in the coordinator).
func (w *WorkerCell) OpenOps(ctx context.Context, list []kind.Operation, index int, seed uint64) (kind.OpClient, error) {
	if kind.OpsWrite(list) {
		return nil, errors.New("write operations run in the coordinator, not in workers")
	}
	return w.c.openOps(ctx, list, index, seed, w.reader)
}

func (c *cell) openOps(ctx context.Context, list []kind.Operation, index int, seed uint64, reader bool) (*client.Ops, error) {
	s, err := c.clientSession(ctx, index, reader)
	if err != nil {
		return nil, err
	}
	return client.OpenOps(ctx, s, list, c.clientQuery, index, seed)
}

// addWriters gives the client its write operations: each numbers its
// writes from the cell's sequence of its generator and runs them on the
// client's own session, or on a writing session it shares with the
// point's other clients where the database lets fewer connections write
// than there are clients (SQLite, DuckDB: one) or the stream says
// `writers`.
func (e *pointEnv) addWriters(ctx context.Context, cl *client.Ops, list []kind.Operation) error {
	if !kind.OpsWrite(list) {
		return nil
	}
	c := e.c
	writes := c.pc.Scale.Writes
	limit, _ := drivers.WriteLimit(c.drv, c.cfg.Options) // as plan says it
	for i, o := range list {
		if !o.IsWrite() {
			continue
		}
		if _, ok := writes.Decl(o.Write); !ok {
			return fmt.Errorf("operation %s: the dataset declares no write %q", o.Name, o.Write)
		}
		w := &opwrite.Writer{Op: o, Writes: writes, Seq: c.writeSeq(o.Write), Gen: c.pc.Scale.Gen, Classify: c.classifyError}
		e.mu.Lock()
		if e.contention == nil {
			e.contention = map[string]*opwrite.Tally{}
		}
		oc := e.contention[o.Name]
		if oc == nil {
			oc = &opwrite.Tally{}
			e.contention[o.Name] = oc
		}
		oc.Clients++
		e.mu.Unlock()
		w.Tally = oc
		n := o.Writers
		if limit > 0 && (n == 0 || n > limit) {
			n = limit
		}
		if n > 0 {
			p, err := e.pool(ctx, n)
			if err != nil {
				return err
			}
			w.Pool = p
			cl.OnClosed(p.Unref)
		} else {
			tx, err := c.prepareWrite(ctx, cl.Counted().Session(), o)
			if err != nil {
				return err
			}
			w.Own = tx
			cl.OnClosed(tx.Close)
		}
		cl.SetWrite(i, w.Run)
	}
	return nil
}
