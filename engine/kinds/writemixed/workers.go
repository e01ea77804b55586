package writemixed

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mentat-spec/mentat-spec/engine/kind"
	"github.com/mentat-spec/mentat-spec/engine/kinds/closedloop"
	"github.com/mentat-spec/mentat-spec/engine/measure"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// startReaders starts the readers in worker processes when the backend's
// client model asks for them, as the seed suite ran one writer next to reader
// processes. It returns nil workers when the readers run here: the
// backend's clients are goroutines, or its database takes one writing
// process (the writer is this process).
func (p *Point) startReaders(ctx context.Context, env kind.Env) (kind.Workers, error) {
	we, ok := env.(kind.WorkerEnv)
	if !ok || !p.def.HasReads {
		return nil, nil
	}
	ws, err := we.StartWorkers(ctx, 0, p.Describe(), p.sampling(), []kind.WorkerStream{
		{Op: results.OpRead, Mix: p.def.Reads.Mix, Ops: p.def.Reads.Ops, Seed: env.Seed(), Clients: p.def.Reads.Clients}})
	if errors.Is(err, kind.ErrOneWritingProcess) {
		env.Logf("readers run in this process: %v", err)
		return nil, nil
	}
	return ws, err
}

// measureAlong measures the writer (streams, this process) and the
// readers (workers) in one window: the workers start once the writer is
// warmed up, and the writer stops when the coordinator stops them.
//
// A verifier, when given, makes its verify reads during the window.
func (p *Point) measureAlong(ctx context.Context, env kind.Env, streams []measure.Stream, ws kind.Workers, verifier *reader) error {
	return closedloop.MeasureRepsWith(ctx, env, max(p.def.Reps, 1), func(ctx context.Context) ([]measure.Result, error) {
		g := newAlongGate()
		wctx, cancel := context.WithCancel(ctx)
		defer cancel()
		type outcome struct {
			res []measure.Result
			err error
		}
		done := make(chan outcome, 1)
		go func() {
			res, err := measure.RunPointGated(wctx, p.sampling(), streams, g)
			g.setReady() // the workers never wait for a writer that gave up
			done <- outcome{res, err}
		}()
		verified := make(chan struct{})
		go func() {
			defer close(verified)
			if verifier == nil {
				return
			}
			select {
			case <-g.started:
				verifier.verifyUntil(wctx, g.stopping)
			case <-wctx.Done():
			}
		}()
		reads, readErr := ws.RepAlong(ctx, kind.Along{Ready: g.ready, Started: g.start, Stopping: g.stop})
		g.stop()
		if !g.hasStarted() {
			cancel() // the workers never started: neither does the writer
		}
		w := <-done
		<-verified
		res := append(w.res, reads...)
		// One window: the coordinator's stop ends both, and the clients'
		// CPU is this process's and the workers' together.
		var cpu time.Duration
		stoppedBy := ""
		if len(reads) > 0 && len(w.res) > 0 && reads[0].ClientCPU > 0 && w.res[0].ClientCPU > 0 {
			cpu = reads[0].ClientCPU + w.res[0].ClientCPU
		}
		if len(reads) > 0 {
			stoppedBy = reads[0].StoppedBy
		}
		for i := range res {
			res[i].ClientCPU, res[i].StoppedBy = cpu, stoppedBy
		}
		return res, errors.Join(w.err, readErr)
	})
}

// alongGate is the writer's measure.Gate: its window opens when the
// workers start and closes when they are stopped.
type alongGate struct {
	ready, started, stopping chan struct{}
	readyOnce, startOnce     sync.Once
	stopOnce                 sync.Once
	wake                     atomic.Pointer[func()]
}

func newAlongGate() *alongGate {
	return &alongGate{ready: make(chan struct{}), started: make(chan struct{}), stopping: make(chan struct{})}
}

func (g *alongGate) setReady() { g.readyOnce.Do(func() { close(g.ready) }) }
func (g *alongGate) start()    { g.startOnce.Do(func() { close(g.started) }) }

func (g *alongGate) stop() {
	g.stopOnce.Do(func() {
		close(g.stopping)
		if f := g.wake.Load(); f != nil {
			(*f)()
		}
	})
}

func (g *alongGate) hasStarted() bool {
	select {
	case <-g.started:
		return true
	default:
		return false
	}
}

func (g *alongGate) stopped() bool {
	select {
	case <-g.stopping:
		return true
	default:
		return false
	}
}

// Start implements measure.Gate.
func (g *alongGate) Start(ctx context.Context) error {
	g.setReady()
	select {
	case <-g.started:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Tick implements measure.Gate.
func (g *alongGate) Tick([]int64) bool { return g.stopped() }

// Wake implements measure.GateWaker.
func (g *alongGate) Wake(f func()) {
	g.wake.Store(&f)
	if g.stopped() {
		f()
	}
}

// NextTick implements measure.GateWaker: only the stop is news.
func (g *alongGate) NextTick() time.Time { return time.Now().Add(time.Hour) }

var _ measure.GateWaker = (*alongGate)(nil)
