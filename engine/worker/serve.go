package worker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/mentat-spec/mentat-spec/engine/kind"
	"github.com/mentat-spec/mentat-spec/engine/measure"
)

// progressEvery is how often a measuring worker reports its calls once
// min_s is near: the coordinator's stop is at most this late for min_n.
// Before that the coordinator has nothing to decide, and a worker sends
// nothing, so that 32 workers on two cores do not spend their time on
// messages.
const (
	progressEvery = 10 * time.Millisecond
	progressLead  = 50 * time.Millisecond
)

// Cell is what a worker's clients run against: the store of one cell,
// which the coordinator loaded.
type Cell interface {
	OpenClient(ctx context.Context, mix []string, index int, seed uint64) (kind.Client, error)
	Close()
}

// Opener opens the cell an assignment names: it loads the spec, rebuilds
// the plan, checks the point and opens the store without loading it.
type Opener func(ctx context.Context, a *Assign) (Cell, error)

// ErrNotAssigned is returned by Serve when the connection ended before an
// assignment came, without the coordinator saying its run is over.
var ErrNotAssigned = errors.New("no assignment")

// ErrRunOver is returned by Serve when the coordinator said its run has
// ended (over) instead of an assignment: the one way a looping worker's
// work is done.
var ErrRunOver = errors.New("the coordinator's run is over")

// Serve is the worker's side of the protocol on c: hello, then one
// assignment, its repetitions, and bye. It returns nil after bye; an
// error (also sent to the coordinator when the connection still works)
// otherwise.
func Serve(ctx context.Context, c *Conn, open Opener) (err error) {
	defer func() {
		if err != nil && !errors.Is(err, ErrRunOver) {
			_ = c.Send(Msg{Type: TypeError, Error: err.Error()})
		}
	}()
	host, _ := os.Hostname()
	hello := Msg{Type: TypeHello, Version: Version, PID: os.Getpid(), Host: host, Loop: c.loop}
	if c.tls != nil {
		if hello.Nonce, err = nonce(); err != nil {
			return err
		}
	}
	if err := c.Send(hello); err != nil {
		return err
	}
	in := newInbox(c)
	if c.tls != nil {
		// Over TCP nothing is taken from a coordinator that has not
		// proved the run's secret, and it sends nothing before the proof.
		if err := c.prove(ctx, in, hello.Nonce); err != nil {
			return err
		}
	}
	m, err := in.next(ctx)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrNotAssigned, err)
	}
	if m.Type == TypeRefused {
		return fmt.Errorf("%w: %s", ErrRefused, m.Error)
	}
	if m.Type == TypeOver {
		return ErrRunOver
	}
	if m.Type != TypeAssign || m.Assign == nil {
		return fmt.Errorf("expected an assignment, got %q", m.Type)
	}
	a := m.Assign
	if a.Version != Version {
		return fmt.Errorf("protocol version %d, this worker speaks %d", a.Version, Version)
	}
	t0 := time.Now()
	cell, err := open(ctx, a)
	if err != nil {
		return err
	}
	defer cell.Close()
	var clients []kind.Closer
	defer func() {
		for _, cl := range clients {
			cl.Close()
		}
	}()
	var streams []measure.Stream
	for _, sh := range a.Streams {
		if sh.Clients() < 1 {
			return fmt.Errorf("stream %s: shard [%d,%d) has no client", sh.Op, sh.From, sh.To)
		}
		st, cls, err := kind.OpenStream(ctx, cell, sh.Op, sh.Mix, sh.Ops, sh.From, sh.To, sh.Seed)
		if err != nil {
			return err
		}
		clients = append(clients, cls...)
		streams = append(streams, st)
	}
	if err := c.Send(Msg{Type: TypeOpened, OpenNs: int64(time.Since(t0))}); err != nil {
		return err
	}
	for {
		m, err := in.next(ctx)
		if err != nil {
			return err
		}
		switch m.Type {
		case TypeBye:
			return nil
		case TypeStop:
			// A stop that crossed a timed run's own end: nothing to stop.
		case TypeRep:
			if a.Timed != nil {
				if err := timedRep(ctx, c, in, a.Timed.Measure(), a.Streams, streams, m.Rep); err != nil {
					return err
				}
				continue
			}
			if err := rep(ctx, c, in, a.Sampling.Measure(), streams, m.Rep, len(a.Streams) > 0 && a.Streams[0].Stream == 0); err != nil {
				return err
			}
		default:
			return fmt.Errorf("unexpected %q between repetitions", m.Type)
		}
	}
}

// next waits for the coordinator's next message.
func (in *inbox) next(ctx context.Context) (Msg, error) {
	select {
	case m, ok := <-in.ch:
		if !ok {
			return Msg{}, in.lost()
		}
		return m, nil
	case <-ctx.Done():
		return Msg{}, ctx.Err()
	}
}

func (in *inbox) lost() error {
	if in.err == nil || errors.Is(in.err, io.EOF) {
		return errors.New("the coordinator closed the connection")
	}
	return fmt.Errorf("the coordinator's connection: %w", in.err)
}

// rep measures one repetition behind the coordinator's barrier.
//
// hasFirst says the worker runs clients of the point's first stream, the
// one adaptive stopping looks at.
func rep(ctx context.Context, c *Conn, in *inbox, s measure.Sampling, streams []measure.Stream, n int, hasFirst bool) error {
	g := &gate{c: c, in: in, rep: n, quiet: s.MinDuration - progressLead, hasFirst: hasFirst}
	if len(streams) > 0 {
		g.op = streams[0].Op
	}
	defer in.notify.Store(nil)
	res, runErr := measure.RunPointGated(ctx, s, streams, g)
	if g.err != nil {
		return g.err
	}
	if runErr != nil && res == nil {
		return runErr
	}
	out := Msg{Type: TypeResult, Rep: n}
	if runErr != nil {
		// A panicking client: its calls are counted, the rest is reported.
		out.Error = runErr.Error()
	}
	if len(res) > 0 {
		out.CPUNs = int64(res[0].ClientCPU)
	}
	var err error
	if out.Streams, err = encodeAll(res); err != nil {
		return err
	}
	return c.Send(out)
}

// gate is measure.Gate over the protocol: ready, then wait for start;
// progress every progressEvery until stop.
type gate struct {
	c     *Conn
	in    *inbox
	rep   int
	quiet time.Duration // no progress this long after the start
	start time.Time
	last  time.Time
	err   error // the coordinator went away or broke the protocol
	// wanted: the coordinator asked for a snapshot (measure.SnapshotGate).
	wanted   bool
	op       string // the first stream's
	hasFirst bool   // this worker runs clients of the point's first stream
}

// SnapshotWanted implements measure.SnapshotGate.
func (g *gate) SnapshotWanted() bool {
	w := g.wanted
	g.wanted = false
	return w
}

// Snapshot sends the first stream's histogram so far to the coordinator,
// which merges the workers' and applies the adaptive stopping rule.
func (g *gate) Snapshot(h *hdrhistogram.Histogram) {
	if !g.hasFirst {
		// This worker runs no client of the first stream: it adds nothing.
		h = measure.NewHistogram()
	}
	sr, err := Encode(measure.Result{Op: g.op, Count: h.TotalCount(), Hist: h})
	if err == nil {
		err = g.c.Send(Msg{Type: TypeSnapshot, Rep: g.rep, Streams: []StreamResult{sr}})
	}
	if err != nil && g.err == nil {
		g.err = err
	}
}

// Wake implements measure.GateWaker: a message from the coordinator
// (its stop) wakes the controller, which otherwise sleeps until the next
// progress report is due (NextTick) or a call can reach the ceiling.
func (g *gate) Wake(f func()) { g.in.notify.Store(&f) }

// NextTick is when the next progress report is due: none before quiet,
// then every progressEvery.
func (g *gate) NextTick() time.Time {
	return maxTime(g.start.Add(g.quiet), g.last.Add(progressEvery))
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func (g *gate) Start(ctx context.Context) error {
	if err := g.c.Send(Msg{Type: TypeReady, Rep: g.rep}); err != nil {
		g.err = err
		return err
	}
	m, err := g.in.next(ctx)
	if err == nil && m.Type != TypeStart {
		err = fmt.Errorf("expected start, got %q", m.Type)
	}
	if err != nil {
		g.err = err
		return err
	}
	g.start = time.Now()
	g.last = g.start
	return nil
}

func (g *gate) Tick(calls []int64) bool {
	if g.err != nil {
		return true
	}
	for done := false; !done; {
		select {
		case m, ok := <-g.in.ch:
			switch {
			case !ok:
				g.err = g.in.lost()
				return true
			case m.Type == TypeSnapshot:
				g.wanted = true
				continue
			case m.Type != TypeStop:
				g.err = fmt.Errorf("expected stop or snapshot, got %q", m.Type)
			}
			return true
		default:
			done = true
		}
	}
	if now := time.Now(); now.Sub(g.last) >= progressEvery && now.Sub(g.start) >= g.quiet {
		g.last = now
		if err := g.c.Send(Msg{Type: TypeProgress, Calls: calls}); err != nil {
			g.err = err
			return true
		}
	}
	return false
}

// errCoordinatorStop is why a timed run ends early when the coordinator
// sends stop (its run was interrupted).
var errCoordinatorStop = errors.New("stopped by the coordinator")

// timedRep runs a timed assignment behind the coordinator's barrier: the
// worker ends it by itself at the duration, sends each window as it
// closes and then its totals. The coordinator's stop (an interruption)
// or its loss ends it early.
func timedRep(ctx context.Context, c *Conn, in *inbox, t measure.Timed, shards []Shard, streams []measure.Stream, n int) error {
	ts := make([]measure.TimedStream, len(streams))
	for i, st := range streams {
		ts[i] = measure.TimedStream{Op: st.Op, Calls: st.Calls, Ops: st.Ops, OpCalls: st.OpCalls, Rate: shards[i].Rate, Offset: time.Duration(shards[i].OffsetNs)}
	}
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	// lost is set by the watcher before it cancels the run: the
	// coordinator went away or broke the protocol.
	var lost error
	stopped := false
	watching, stopWatch, watchDone := false, make(chan struct{}), make(chan struct{})
	t.Barrier = func(bctx context.Context) error {
		if err := c.Send(Msg{Type: TypeReady, Rep: n}); err != nil {
			lost = err
			return err
		}
		m, err := in.next(bctx)
		if err == nil && m.Type != TypeStart {
			err = fmt.Errorf("expected start, got %q", m.Type)
		}
		if err != nil {
			lost = err
			return err
		}
		watching = true
		go func() {
			defer close(watchDone)
			select {
			case m, ok := <-in.ch:
				switch {
				case !ok:
					lost = in.lost()
					cancel(lost)
				case m.Type == TypeStop:
					stopped = true
					cancel(errCoordinatorStop)
				default:
					lost = fmt.Errorf("expected stop, got %q", m.Type)
					cancel(lost)
				}
			case <-stopWatch:
			}
		}()
		return nil
	}
	var sendErr error
	onWindow := func(ws []measure.Window) {
		if sendErr != nil || len(ws) == 0 {
			return
		}
		m := Msg{Type: TypeWindow, Rep: n, Index: ws[0].Index, StartNs: int64(ws[0].Start), EndNs: int64(ws[0].End)}
		rs := make([]measure.Result, len(ws))
		for i, w := range ws {
			rs[i] = w.Result
		}
		if m.Streams, sendErr = encodeAll(rs); sendErr == nil {
			sendErr = c.Send(m)
		}
	}
	res, runErr := measure.RunTimed(runCtx, t, ts, onWindow)
	close(stopWatch)
	if watching {
		<-watchDone
	}
	switch {
	case lost != nil:
		return lost
	case sendErr != nil:
		return sendErr
	case res == nil:
		return runErr
	}
	out := Msg{Type: TypeResult, Rep: n, ElapsedNs: int64(res[0].Elapsed), CPUNs: int64(res[0].ClientCPU)}
	if runErr != nil && !(stopped && errors.Is(runErr, errCoordinatorStop)) {
		// A panicking client: its calls are counted, the rest is reported.
		out.Error = runErr.Error()
	}
	var err error
	if out.Streams, err = encodeAll(res); err != nil {
		return err
	}
	return c.Send(out)
}

// encodeAll is the wire form of measured streams, in order.
func encodeAll(rs []measure.Result) ([]StreamResult, error) {
	out := make([]StreamResult, 0, len(rs))
	for _, r := range rs {
		sr, err := Encode(r)
		if err != nil {
			return nil, err
		}
		out = append(out, sr)
	}
	return out, nil
}
