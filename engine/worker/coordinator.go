package worker

import (
	"context"
	"errors"
	"fmt"
	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mentat-spec/mentat-spec/engine/kind"
	"github.com/mentat-spec/mentat-spec/engine/measure"
	"github.com/mentat-spec/mentat-spec/engine/worker/connadmit"
)

const (
	// startTimeout bounds a worker's start: process, spec, plan, clients.
	startTimeout = 2 * time.Minute
	// byeTimeout is how long workers get to exit after bye.
	byeTimeout = 10 * time.Second
)

// Launcher starts worker processes on this machine.
type Launcher struct {
	// Command starts one worker speaking the protocol on its stdin and
	// stdout, e.g. [mentat-spec worker]. With TCP, "-connect ADDR" is
	// appended and the worker dials the coordinator instead.
	Command []string
	TCP     bool
	// Listen, when set, starts no process: workers started elsewhere
	// (other machines, a Kubernetes Job) dial this address, and each
	// point takes the first ones to arrive. The listener stays open
	// across points until Close.
	Listen string
	Spec   SpecRef
	// Security is the run's secret and certificate: TCP connections are
	// TLS and must prove the secret before they get anything. Required
	// with TCP or Listen. Workers this launcher starts get its
	// credentials in their environment.
	Security *Security
	// Env is added to the environment of the workers this launcher
	// starts (sensitive variables' values, which never go on the wire).
	Env []string
	// Stderr receives the workers' stderr (nil: discarded).
	Stderr io.Writer

	mu        sync.Mutex // serialises the workers' writes to Stderr
	ln        net.Listener
	queue     chan remote // authenticated remote workers waiting for a point
	closed    bool
	refused   atomic.Int64
	onRefused func(*AuthError, int64)
	// early holds the refusals made before OnRefused was set (the port
	// listens from the start of apply, before its results directory
	// opens), replayed to it then.
	early []earlyRefusal
	rlog  refusalLog // which refusals are logged one by one
	// away are the remote workers sent bye and not yet back ("host/pid"):
	// Close waits for them (overLinger at most) to tell them the run is
	// over, rather than leave their redial to fail.
	away map[string]bool
	back chan struct{} // a worker came back while closed
}

// overLinger bounds how long Close keeps the port open for workers that
// served a point and have not dialled again yet.
const overLinger = 10 * time.Second

func workerKey(host string, pid int) string { return host + "/" + strconv.Itoa(pid) }

type earlyRefusal struct {
	err *AuthError
	n   int64
}

// maxEarly bounds the refusals kept for OnRefused; later ones are
// counted only.
const maxEarly = 100

// remote is a worker that dialled Listen and proved the secret.
type remote struct {
	conn  *Conn
	hello Msg
}

// maxPending bounds the connections authenticating at once; those past
// it are refused (a flood must not exhaust the coordinator).
const maxPending = 64

// OnRefused sets what is done with each connection refused by the
// authentication (logged by the run); n is the count so far.
//
// Setting nil (the run's log closes) first gives the old function the
// summaries of refusals counted and not yet logged.
func (l *Launcher) OnRefused(f func(err *AuthError, n int64)) {
	l.mu.Lock()
	old := l.onRefused
	var flushed []*AuthError
	if f == nil && old != nil {
		flushed = l.rlog.flush()
	}
	l.onRefused = f
	early := l.early
	if f != nil {
		l.early = nil
	}
	l.mu.Unlock()
	for _, e := range flushed {
		old(e, l.refused.Load())
	}
	if f != nil {
		for _, e := range early {
			f(e.err, e.n)
		}
	}
}

// Refused is how many connections failed the authentication.
func (l *Launcher) Refused() int64 { return l.refused.Load() }

func (l *Launcher) refuse(err error) {
	var ae *AuthError
	if !errors.As(err, &ae) {
		ae = &AuthError{Remote: "?", Err: err}
	}
	n := l.refused.Add(1)
	l.mu.Lock()
	line := l.rlog.admit(ae, time.Now())
	f := l.onRefused
	if line != nil && f == nil && len(l.early) < maxEarly {
		l.early = append(l.early, earlyRefusal{line, n})
	}
	l.mu.Unlock()
	if line != nil && f != nil {
		f(line, n)
	}
}

// Addr is the address remote workers dial, once the first point listened.
func (l *Launcher) Addr() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ln == nil {
		return ""
	}
	return l.ln.Addr().String()
}

// Listening opens the Listen address now rather than at the first point
// that needs workers, so that workers may connect (and authenticate)
// while the run loads.
func (l *Launcher) Listening() error {
	_, err := l.listener()
	return err
}

// listener opens the Listen address once and starts accepting on it.
func (l *Launcher) listener() (chan remote, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil, errors.New("the launcher is closed")
	}
	if l.ln == nil {
		if l.Security == nil {
			return nil, errors.New("listening for workers: no run secret")
		}
		ln, err := net.Listen("tcp", l.Listen)
		if err != nil {
			return nil, fmt.Errorf("listening for workers on %s: %w", l.Listen, err)
		}
		l.ln = ln
		l.queue = make(chan remote, 1024)
		go l.acceptLoop(ln, l.queue)
	}
	return l.queue, nil
}

// acceptLoop authenticates every connection to ln, each in its own
// goroutine and bounded in time, and queues those that prove the secret
// for the next point. The others are closed, counted and reported; they
// never end the run.
//
// Past maxPending connections authenticating at once, the oldest is
// closed to make room (connadmit.Pending). Once the launcher is closed, a
// worker that proves the secret is told the run is over.
func (l *Launcher) acceptLoop(ln net.Listener, queue chan remote) {
	silent, talking := &connadmit.Pending{}, &connadmit.Pending{MinAge: connadmit.EvictAge}
	for {
		nc, err := ln.Accept()
		if err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				continue
			}
			return // closed
		}
		if _, old, age := silent.Admit(nc, time.Now(), connadmit.MaxSilent); old != nil {
			old.Close()
			l.refuse(&AuthError{Remote: old.RemoteAddr().String(),
				Err: fmt.Errorf("closed after %s without sending anything, the oldest of %d such connections, to make room for a new one", age.Round(time.Millisecond), connadmit.MaxSilent)})
		}
		go l.authenticate(nc, silent, talking, queue)
	}
}

// authenticate waits for nc's first byte, then takes a place among the
// connections authenticating, and queues the worker once it proved the
// secret (or tells it the run is over, once the launcher is closed).
func (l *Launcher) authenticate(nc net.Conn, silent, talking *connadmit.Pending, queue chan remote) {
	pc, err := connadmit.FirstByte(nc)
	if silent.Done(nc) {
		return // closed to make room: counted then
	}
	if err != nil {
		nc.Close()
		l.refuse(&AuthError{Remote: nc.RemoteAddr().String(), Err: fmt.Errorf("nothing received: %w", err)})
		return
	}
	ok, old, age := talking.Admit(nc, time.Now(), maxPending)
	if !ok {
		nc.Close()
		l.refuse(&AuthError{Remote: nc.RemoteAddr().String(), Err: fmt.Errorf("%d connections already authenticating, none for %s yet", maxPending, connadmit.EvictAge)})
		return
	}
	if old != nil {
		old.Close()
		l.refuse(&AuthError{Remote: old.RemoteAddr().String(),
			Err: fmt.Errorf("closed after %s unauthenticated, the oldest of %d connections authenticating, to make room for a new one", age.Round(time.Millisecond), maxPending)})
	}
	c, hello, err := l.Security.accept(pc)
	evicted := talking.Done(nc)
	if err != nil {
		if !evicted {
			l.refuse(err)
		}
		return
	}
	l.mu.Lock()
	delete(l.away, workerKey(hello.Host, hello.PID))
	if l.closed {
		l.mu.Unlock()
		select {
		case l.back <- struct{}{}:
		default:
		}
		_ = c.Send(Msg{Type: TypeOver})
		c.Close()
		return
	}
	defer l.mu.Unlock()
	select {
	case queue <- remote{conn: c, hello: hello}:
	default:
		c.Close() // more workers waiting than any point takes
	}
}

// expect notes a remote worker sent bye: it dials again for the next
// point, and Close waits for it to tell it the run is over.
func (l *Launcher) expect(host string, pid int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.away == nil {
		l.away = map[string]bool{}
	}
	l.away[workerKey(host, pid)] = true
}

func (l *Launcher) unexpect(host string, pid int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.away, workerKey(host, pid))
}

// Close ends the run for remote workers: each one waiting for a point,
// and each one that served a point and dials again within overLinger,
// is told the run is over (and exits 0); then the port closes.
func (l *Launcher) Close() error {
	l.mu.Lock()
	l.closed = true
	if l.ln == nil {
		l.mu.Unlock()
		return nil
	}
	l.back = make(chan struct{}, 1)
	l.mu.Unlock()
	l.sendOver()
	deadline := time.NewTimer(overLinger)
	defer deadline.Stop()
wait:
	for {
		l.mu.Lock()
		n := len(l.away)
		l.mu.Unlock()
		if n == 0 {
			break
		}
		select {
		case <-l.back:
		case <-deadline.C:
			break wait
		}
	}
	l.mu.Lock()
	err := l.ln.Close()
	l.ln = nil
	l.mu.Unlock()
	l.sendOver()
	return err
}

// sendOver tells the workers waiting for a point that the run is over.
func (l *Launcher) sendOver() {
	for {
		select {
		case r := <-l.queue:
			_ = r.conn.Send(Msg{Type: TypeOver})
			r.conn.Close()
		default:
			return
		}
	}
}

// lockedWriter lets several workers' stderr copies share one writer.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Startup says how long a pool took to start, out of the timed window.
type Startup struct {
	Workers int
	// Total is from the first spawn to the last worker's opened.
	Total time.Duration
	// Spawn is the slowest worker's time from spawn to hello (process
	// start and runtime init); Open the slowest from assign to opened
	// (spec, plan, store and clients).
	Spawn, Open time.Duration
}

// Pool is the workers of one point.
type Pool struct {
	procs   []*proc
	events  chan event
	samp    measure.Sampling
	timed   *WireTimed // a timed assignment (RunTimed), nil for sampled points
	streams int
	rep     int
	ln      net.Listener
	remote  *Launcher // the launcher a remote pool's workers dial again
	Startup Startup
}

type proc struct {
	index  int
	host   string // a remote worker's, from its hello
	loop   bool   // a remote worker that dials again after bye
	assign Assign
	cmd    *exec.Cmd
	conn   *Conn
	pid    int
	exited chan struct{}
	wait   error
	dead   error // set once the worker is gone
}

type event struct {
	w   *proc
	m   Msg
	err error // the connection ended
}

// Start spawns one worker per assignment, sends each its assignment and
// waits until every worker has opened its clients. On error every worker
// started is killed.
func (l *Launcher) Start(ctx context.Context, assigns []Assign) (_ *Pool, err error) {
	if len(l.Command) == 0 && l.Listen == "" {
		return nil, errors.New("no worker command")
	}
	if len(assigns) == 0 {
		return nil, errors.New("no worker to start")
	}
	p := &Pool{events: make(chan event, 64*len(assigns)), samp: assigns[0].Sampling.Measure(), timed: assigns[0].Timed}
	for _, a := range assigns {
		for _, sh := range a.Streams {
			p.streams = max(p.streams, sh.Stream+1)
		}
	}
	defer func() {
		if err != nil {
			p.kill()
		}
	}()
	if l.Listen != "" {
		if err := p.startRemote(ctx, l, assigns); err != nil {
			return nil, err
		}
		return p, nil
	}
	argv := l.Command
	if l.TCP && l.Security == nil {
		return nil, errors.New("worker processes over TCP need the run's secret")
	}
	if l.TCP {
		if p.ln, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
			return nil, fmt.Errorf("listening for workers: %w", err)
		}
		argv = append(append([]string(nil), argv...), "-connect", p.ln.Addr().String())
	}
	t0 := time.Now()
	byPID := map[int]*proc{}
	env := append(workerEnviron(len(assigns)), l.Env...)
	if l.Security != nil {
		env = append(env, l.Security.Credentials().Environ()...)
	}
	for i, a := range assigns {
		a.Version, a.Worker, a.Spec = Version, i, l.Spec
		w := &proc{index: i, assign: a, exited: make(chan struct{})}
		w.cmd = exec.Command(argv[0], argv[1:]...)
		w.cmd.Env = env
		if l.Stderr != nil {
			w.cmd.Stderr = lockedWriter{mu: &l.mu, w: l.Stderr}
		}
		var conn *Conn
		if !l.TCP {
			stdin, err := w.cmd.StdinPipe()
			if err != nil {
				return nil, err
			}
			stdout, err := w.cmd.StdoutPipe()
			if err != nil {
				return nil, err
			}
			conn = NewConn(stdout, stdin, stdin)
		}
		if err := w.cmd.Start(); err != nil {
			return nil, fmt.Errorf("starting worker %d: %w", i, err)
		}
		w.pid = w.cmd.Process.Pid
		byPID[w.pid] = w
		go func() { w.wait = w.cmd.Wait(); close(w.exited) }()
		w.conn = conn
		p.procs = append(p.procs, w)
	}
	if l.TCP {
		if err := p.accept(ctx, l, byPID); err != nil {
			return nil, err
		}
	}
	if err := p.open(ctx, t0); err != nil {
		return nil, err
	}
	return p, nil
}

// workerEnviron is the environment of n local workers: this process's, with
// GOMAXPROCS set to each worker's share of the CPUs unless it is set
// already. A worker sized for the whole machine runs up to as many
// threads as there are CPUs: n of them oversubscribe the CPUs n times,
// and the kernel then preempts clients mid-call, which one process of
// goroutines (or pgbench -j n, n threads in all) never does.
func workerEnviron(n int) []string {
	env := os.Environ()
	if _, set := os.LookupEnv("GOMAXPROCS"); set {
		return env
	}
	share := (runtime.NumCPU() + n - 1) / n
	return append(env, "GOMAXPROCS="+strconv.Itoa(max(share, 1)))
}

// open sends each worker its assignment once it said hello and waits
// until every worker opened its clients.
func (p *Pool) open(ctx context.Context, t0 time.Time) error {
	deadline := time.NewTimer(startTimeout)
	defer deadline.Stop()
	for _, w := range p.procs {
		go p.read(w)
	}
	helloAt := map[*proc]time.Time{}
	opened := 0
	for opened < len(p.procs) {
		select {
		case ev := <-p.events:
			if ev.err != nil {
				return fmt.Errorf("while starting: %w", ev.err)
			}
			switch ev.m.Type {
			case TypeHello:
				if ev.m.Version != Version {
					return fmt.Errorf("worker %d speaks protocol %d, the coordinator %d", ev.w.index, ev.m.Version, Version)
				}
				helloAt[ev.w] = time.Now()
				p.Startup.Spawn = max(p.Startup.Spawn, time.Since(t0))
				if err := ev.w.conn.Send(Msg{Type: TypeAssign, Assign: &ev.w.assign}); err != nil {
					return fmt.Errorf("worker %d: %w", ev.w.index, err)
				}
			case TypeOpened:
				opened++
				p.Startup.Open = max(p.Startup.Open, time.Since(helloAt[ev.w]))
			case TypeError:
				return fmt.Errorf("worker %d: %s", ev.w.index, ev.m.Error)
			default:
				return fmt.Errorf("worker %d: unexpected %q while starting", ev.w.index, ev.m.Type)
			}
		case <-deadline.C:
			return fmt.Errorf("workers not ready after %s", startTimeout)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	p.Startup.Workers, p.Startup.Total = len(p.procs), time.Since(t0)
	return nil
}

// startRemote takes the first len(assigns) workers that dialled the
// listener and proved the secret; their hello is the first event read.
func (p *Pool) startRemote(ctx context.Context, l *Launcher, assigns []Assign) error {
	queue, err := l.listener()
	if err != nil {
		return err
	}
	p.remote = l
	t0 := time.Now()
	timeout := time.NewTimer(startTimeout)
	defer timeout.Stop()
	for i, a := range assigns {
		select {
		case r := <-queue:
			a.Version, a.Worker, a.Spec = Version, i, l.Spec
			w := &proc{index: i, host: r.hello.Host, loop: r.hello.Loop, assign: a, conn: r.conn, pid: r.hello.PID, exited: make(chan struct{})}
			p.procs = append(p.procs, w)
			p.events <- event{w: w, m: r.hello}
		case <-timeout.C:
			return fmt.Errorf("%d of %d workers connected within %s", i, len(assigns), startTimeout)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return p.open(ctx, t0)
}

// accept takes one authenticated TCP connection per worker and matches
// it to its process by the pid of its hello, which is handed to read as
// the first event. A connection that fails the authentication is
// refused and counted; the point goes on waiting for its own workers.
func (p *Pool) accept(ctx context.Context, l *Launcher, byPID map[int]*proc) error {
	type conn struct {
		c *Conn
		m Msg
	}
	got := make(chan conn, len(p.procs))
	go func() {
		for {
			nc, err := p.ln.Accept()
			if err != nil {
				return // closed once every worker is in, or the pool ends
			}
			go func() {
				c, m, err := l.Security.accept(nc)
				if err != nil {
					l.refuse(err)
					return
				}
				got <- conn{c: c, m: m}
			}()
		}
	}()
	defer p.ln.Close() // every worker is in, or the start failed
	timeout := time.NewTimer(startTimeout)
	defer timeout.Stop()
	for n := 0; n < len(p.procs); {
		select {
		case c := <-got:
			w := byPID[c.m.PID]
			if w == nil || w.conn != nil {
				c.c.Close()
				l.refuse(&AuthError{Remote: "127.0.0.1", Err: fmt.Errorf("pid %d is not one of this point's workers", c.m.PID)})
				continue
			}
			w.conn = c.c
			p.events <- event{w: w, m: c.m}
			n++
		case <-timeout.C:
			return fmt.Errorf("workers did not connect within %s", startTimeout)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// read forwards a worker's messages to the pool's events; when the
// connection ends it reports why, with the process's exit status.
func (p *Pool) read(w *proc) {
	for {
		m, err := w.conn.Recv()
		if err != nil {
			p.events <- event{w: w, err: w.death(err)}
			return
		}
		p.events <- event{w: w, m: m}
	}
}

// death describes a worker whose connection ended.
func (w *proc) death(err error) error {
	if w.cmd == nil {
		return fmt.Errorf("worker %d (remote pid %d): connection lost: %v", w.index, w.pid, err)
	}
	select {
	case <-w.exited:
	case <-time.After(2 * time.Second):
	}
	status := "still running"
	select {
	case <-w.exited:
		status = "exited"
		if w.wait != nil {
			status = w.wait.Error()
		}
	default:
	}
	if errors.Is(err, io.EOF) {
		return fmt.Errorf("worker %d (pid %d) went away: %s", w.index, w.pid, status)
	}
	return fmt.Errorf("worker %d (pid %d): %v (%s)", w.index, w.pid, err, status)
}

// PIDs lists the workers' process ids.
func (p *Pool) PIDs() []int {
	out := make([]int, len(p.procs))
	for i, w := range p.procs {
		out[i] = w.pid
	}
	return out
}

func (p *Pool) alive() []*proc {
	var out []*proc
	for _, w := range p.procs {
		if w.dead == nil {
			out = append(out, w)
		}
	}
	return out
}

func (p *Pool) sendAll(m Msg) {
	for _, w := range p.alive() {
		if err := w.conn.Send(m); err != nil && w.dead == nil {
			// A send fails once the worker's pipe is closed, which may be
			// before its exit was seen: say how it ended (killed, ...).
			w.dead = w.death(err)
		}
	}
}

// Rep measures one repetition: every worker warms up, the coordinator
// opens the barrier when all are ready, stops them together when the
// sampling says so, and merges their histograms per stream. A worker
// that dies after the barrier leaves its streams' rows with one error
// carrying why, next to the other workers' measurements; the error is
// also returned, and the pool is done.
func (p *Pool) Rep(ctx context.Context) ([]measure.Result, error) {
	return p.RepAlong(ctx, kind.Along{})
}

// RepAlong is Rep with clients of the coordinator's own process in the
// same window: the barrier opens once along.Ready is closed as well, and
// along's callbacks say when the workers start and are stopped.
func (p *Pool) RepAlong(ctx context.Context, along kind.Along) ([]measure.Result, error) {
	for _, w := range p.procs {
		if w.dead != nil {
			return nil, w.dead
		}
	}
	if out, err := p.barrier(ctx, along.Ready); err != nil {
		return out, err
	}
	p.sendAll(Msg{Type: TypeStart})
	t0 := time.Now()
	if along.Started != nil {
		along.Started()
	}
	calls := make([][]int64, len(p.procs))
	var lost []error
	// The stop conditions change only at the minimum and maximum time,
	// with a worker's progress and with the answers to a snapshot
	// request: the coordinator sleeps until one of them (a ticker here
	// woke a process sharing the cores with the clients hundreds of times
	// a second).
	ad := adaptive{samp: p.samp}
	timer := time.NewTimer(min(p.samp.MinDuration, p.samp.MaxDuration))
	defer timer.Stop()
	results := map[*proc]Msg{}
	// decide applies the stop conditions at el; when the point goes on it
	// sets the timer for the next moment they can change by time alone.
	decide := func(el time.Duration) bool {
		wait := ad.decide(el, firstCalls(p.procs, calls), p)
		if wait <= 0 {
			return true
		}
		timer.Reset(wait)
		return false
	}
measuring:
	for {
		select {
		case ev := <-p.events:
			if err := p.failed(ev); err != nil {
				lost = append(lost, err)
				break measuring
			}
			switch ev.m.Type {
			case TypeProgress:
				calls[ev.w.index] = ev.m.Calls
				if decide(time.Since(t0)) {
					break measuring
				}
			case TypeSnapshot:
				if ev.m.Rep != p.rep {
					continue
				}
				switch complete, precise := ad.answer(ev.w, ev.m, p, time.Since(t0)); {
				case precise:
					break measuring
				case complete && decide(time.Since(t0)):
					break measuring
				}
			case TypeResult:
				// A worker that stopped by itself (its ctx ended).
				results[ev.w] = ev.m
				break measuring
			}
		case <-timer.C:
			if decide(time.Since(t0)) {
				break measuring
			}
		case <-ctx.Done():
			ad.stoppedBy = measure.StopInterrupted
			break measuring
		}
	}
	elapsed := time.Since(t0)
	p.sendAll(Msg{Type: TypeStop})
	if along.Stopping != nil {
		along.Stopping()
	}
	grace := time.NewTimer(2*max(p.samp.Probe, 5*time.Second) + 5*time.Second)
	defer grace.Stop()
	for len(results) < len(p.alive()) {
		select {
		case ev := <-p.events:
			if err := p.failed(ev); err != nil {
				lost = append(lost, err)
				continue
			}
			if ev.m.Type == TypeResult {
				results[ev.w] = ev.m
			}
		case <-grace.C:
			for _, w := range p.alive() {
				if _, ok := results[w]; !ok {
					w.dead = fmt.Errorf("worker %d (pid %d) sent no result after the stop", w.index, w.pid)
					lost = append(lost, w.dead)
				}
			}
		}
	}
	out, err := p.merge(elapsed, results)
	if err != nil {
		lost = append(lost, err)
	}
	for i := range out {
		out[i].StoppedBy = ad.stoppedBy
	}
	if ctx.Err() != nil {
		lost = append(lost, fmt.Errorf("point interrupted: %w", context.Cause(ctx)))
	}
	return out, errors.Join(lost...)
}

// barrier starts the next repetition and waits until every worker (and
// ready, when not nil) is warmed up; the caller then sends start. A
// worker lost before that leaves rows with no calls and its error.
func (p *Pool) barrier(ctx context.Context, ready <-chan struct{}) ([]measure.Result, error) {
	p.rep++
	p.sendAll(Msg{Type: TypeRep, Rep: p.rep})
	n := 0
	for n < len(p.procs) {
		select {
		case ev := <-p.events:
			if err := p.failed(ev); err != nil {
				// Nobody measured: the rows carry the lost worker's error.
				out, _ := p.merge(0, nil)
				return out, fmt.Errorf("before the barrier: %w", err)
			}
			if ev.m.Type == TypeReady && ev.m.Rep == p.rep {
				n++
			}
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if ready != nil {
		select {
		case <-ready:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return nil, nil
}

// failed marks a worker dead on a closed connection or an error message.
func (p *Pool) failed(ev event) error {
	switch {
	case ev.err != nil:
		if ev.w.dead == nil {
			ev.w.dead = ev.err
		}
		return ev.w.dead
	case ev.m.Type == TypeError:
		ev.w.dead = fmt.Errorf("worker %d (pid %d): %s", ev.w.index, ev.w.pid, ev.m.Error)
		return ev.w.dead
	}
	return nil
}

// adaptive applies the sampling's stop conditions to the whole point, as
// measure does in one process: min and max time, min_n on the first
// stream's calls summed over the workers, and with a precision the
// adaptive rule on the workers' merged histograms of the first stream,
// asked for at the same times as measure asks its clients.
type adaptive struct {
	samp      measure.Sampling
	stoppedBy string
	nextCheck time.Duration
	// snaps are the answers to the pending snapshot request (nil: none).
	snaps map[*proc]*hdrhistogram.Histogram
}

// decide returns how long the point may go on before the conditions can
// change by time alone, or 0 to stop it now (stoppedBy says why).
func (a *adaptive) decide(el time.Duration, first int64, p *Pool) time.Duration {
	s := a.samp
	stop, wait, held := s.Bound(el, s.MinDuration, first)
	switch {
	case stop != "":
		a.stoppedBy = stop
		return 0
	case held && wait > 0:
		return wait
	case held:
		return s.MaxDuration - el // progress re-decides
	case a.snaps != nil:
		return s.MaxDuration - el // the answers re-decide
	case el < a.nextCheck:
		return min(a.nextCheck, s.MaxDuration) - el
	}
	a.snaps = map[*proc]*hdrhistogram.Histogram{}
	p.sendAll(Msg{Type: TypeSnapshot, Rep: p.rep})
	return s.MaxDuration - el
}

// answer takes a worker's snapshot; once every live worker answered
// (complete) it merges them and applies the rule (precise: the point
// stops, stoppedBy says so).
func (a *adaptive) answer(w *proc, m Msg, p *Pool, el time.Duration) (complete, precise bool) {
	if a.snaps == nil || len(m.Streams) != 1 {
		return false, false
	}
	r, err := m.Streams[0].Decode()
	if err != nil {
		// Not a stop reason: the point goes on to max_s without it.
		r.Hist = measure.NewHistogram()
	}
	a.snaps[w] = r.Hist
	alive := p.alive()
	for _, w := range alive {
		if a.snaps[w] == nil {
			return false, false
		}
	}
	merged := measure.NewHistogram()
	for _, w := range alive {
		merged.Merge(a.snaps[w])
	}
	a.snaps = nil
	a.nextCheck = measure.NextCheck(el)
	if measure.Precise(merged, a.samp) {
		a.stoppedBy = measure.StopPrecision
		return true, true
	}
	return true, false
}

// firstCalls sums the first stream's calls over the workers' progress.
func firstCalls(procs []*proc, calls [][]int64) int64 {
	var first int64
	for i, w := range procs {
		for j, sh := range w.assign.Streams {
			if sh.Stream == 0 && j < len(calls[i]) {
				first += calls[i][j]
			}
		}
	}
	return first
}

// merge combines the workers' results per stream; a dead worker's share
// of a stream is one error with the reason.
func (p *Pool) merge(elapsed time.Duration, results map[*proc]Msg) ([]measure.Result, error) {
	parts := make([][]measure.Result, p.streams)
	ops := make([]string, p.streams)
	var errs []error
	for _, w := range p.procs {
		m, ok := results[w]
		for j, sh := range w.assign.Streams {
			ops[sh.Stream] = sh.Op
			r, has, err := share(m, ok, j, sh)
			switch {
			case err != nil:
				errs = append(errs, fmt.Errorf("worker %d: %w", w.index, err))
			case !has && w.dead != nil:
				r = failedShare(sh, w.dead)
			case !has:
				// Alive but unmeasured: another worker was lost first.
				r = measure.Result{Op: sh.Op, Clients: sh.Clients()}
			}
			parts[sh.Stream] = append(parts[sh.Stream], r)
		}
		if ok && m.Error != "" {
			errs = append(errs, fmt.Errorf("worker %d: %s", w.index, m.Error))
		}
	}
	cpu := p.workersCPU(results)
	out := make([]measure.Result, p.streams)
	for i := range out {
		out[i] = measure.Combine(ops[i], elapsed, parts[i])
		out[i].ClientCPU = cpu
	}
	return out, errors.Join(errs...)
}

// Close sends bye and waits for the workers to exit, killing those that
// do not within byeTimeout.
func (p *Pool) Close() error {
	for _, w := range p.procs {
		// Expected back before the bye: its redial may come before the
		// bye's send returns.
		if w.cmd == nil && w.dead == nil && w.loop && p.remote != nil {
			p.remote.expect(w.host, w.pid)
		}
	}
	p.sendAll(Msg{Type: TypeBye})
	timeout := time.After(byeTimeout)
	var errs []error
	for _, w := range p.procs {
		if w.cmd == nil {
			if w.dead != nil && p.remote != nil {
				p.remote.unexpect(w.host, w.pid) // the bye did not reach it
			}
			w.conn.Close() // a remote worker dials again for the next point
			continue
		}
		select {
		case <-w.exited:
			if w.wait != nil && w.dead == nil {
				errs = append(errs, fmt.Errorf("worker %d (pid %d): %w", w.index, w.pid, w.wait))
			}
		case <-timeout:
			_ = w.cmd.Process.Kill()
			<-w.exited
			errs = append(errs, fmt.Errorf("worker %d (pid %d) did not exit after bye: killed", w.index, w.pid))
		}
		if w.conn != nil {
			w.conn.Close()
		}
	}
	if p.ln != nil {
		p.ln.Close()
	}
	return errors.Join(errs...)
}

// kill ends every worker at once (a failed start).
func (p *Pool) kill() {
	var wg sync.WaitGroup
	for _, w := range p.procs {
		if w.cmd != nil && w.cmd.Process != nil {
			_ = w.cmd.Process.Kill()
			wg.Add(1)
			go func() { defer wg.Done(); <-w.exited }()
		}
		if w.conn != nil {
			w.conn.Close()
		}
	}
	wg.Wait()
	if p.ln != nil {
		p.ln.Close()
	}
}

// workersCPU is the clients' CPU of a repetition: the workers' sum, known
// (non-zero) only when every worker measured and said.
func (p *Pool) workersCPU(results map[*proc]Msg) time.Duration {
	var cpu time.Duration
	for _, w := range p.procs {
		m, ok := results[w]
		if !ok || m.CPUNs <= 0 {
			return 0
		}
		cpu += time.Duration(m.CPUNs)
	}
	return cpu
}

// share is a worker's measurement of its j-th shard sh in m (got: m
// arrived). has is false when m holds none; a histogram that does not
// decode is returned as err, with the share counted as one failed call.
func share(m Msg, got bool, j int, sh Shard) (r measure.Result, has bool, err error) {
	if !got || j >= len(m.Streams) {
		return measure.Result{}, false, nil
	}
	if r, err = m.Streams[j].Decode(); err != nil {
		return failedShare(sh, err), true, err
	}
	return r, true, nil
}

// failedShare is a shard whose measurement was lost: one failed call
// saying why.
func failedShare(sh Shard, err error) measure.Result {
	return measure.Result{Op: sh.Op, Clients: sh.Clients(), Errors: 1, FirstError: err.Error()}
}
