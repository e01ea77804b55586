package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mentat-spec/mentat-spec/engine/kind"
	"github.com/mentat-spec/mentat-spec/engine/measure"
)

// The test binary doubles as a worker process when this variable is set:
// its cell's clients sleep instead of querying, which is all the protocol
// needs (the database side is tested end to end in cmd/mentat-spec).
const workerEnv = "MENTAT_SPEC_WORKER_PACKAGE_TEST"

func TestMain(m *testing.M) {
	if os.Getenv(workerEnv) == "1" {
		os.Exit(testWorker(os.Args[1:]))
	}
	os.Exit(m.Run())
}

func testWorker(args []string) int {
	ctx := context.Background()
	conn := NewConn(os.Stdin, os.Stdout, nil)
	if len(args) == 2 && args[0] == "-connect" {
		c, err := Dial(ctx, args[1], Credentials{Secret: []byte(os.Getenv(EnvSecret)), Fingerprint: NormalizeFingerprint(os.Getenv(EnvFingerprint))})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		conn = c
	}
	if err := Serve(ctx, conn, openSleepCell); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// sleepCell's clients each sleep 200µs per call; a mix naming "fail"
// fails every call.
type sleepCell struct{ opened atomic.Int64 }

func openSleepCell(ctx context.Context, a *Assign) (Cell, error) {
	if a.Scenario == "missing" {
		return nil, fmt.Errorf("no scenario %q in the plan", a.Scenario)
	}
	return &sleepCell{}, nil
}

func (c *sleepCell) OpenClient(ctx context.Context, mix []string, index int, seed uint64) (kind.Client, error) {
	c.opened.Add(1)
	return &sleepClient{fail: mix[0] == "fail"}, nil
}

func (c *sleepCell) Close() {}

type sleepClient struct{ fail bool }

func (s *sleepClient) Call(ctx context.Context) error {
	time.Sleep(200 * time.Microsecond)
	if s.fail {
		return fmt.Errorf("relation does not exist")
	}
	return nil
}

func (s *sleepClient) Close() {}

func TestSplit(t *testing.T) {
	read := PointStream{Op: "read", Mix: []string{"q1"}, Clients: 5}
	write := PointStream{Op: "write", Mix: []string{"w"}, Clients: 1}
	for _, tc := range []struct {
		name    string
		streams []PointStream
		n       int
		want    string
	}{
		{"one worker", []PointStream{read}, 1, "[0:read 0-5]"},
		{"one per client", []PointStream{read}, 9, "[0:read 0-1] [0:read 1-2] [0:read 2-3] [0:read 3-4] [0:read 4-5]"},
		{"uneven", []PointStream{read}, 2, "[0:read 0-3] [0:read 3-5]"},
		{"across streams", []PointStream{read, write}, 4, "[0:read 0-2] [0:read 2-4] [0:read 4-5] [1:write 0-1]"},
		{"spanning", []PointStream{read, write}, 2, "[0:read 0-3] [0:read 3-5 1:write 0-1]"},
		{"none", nil, 3, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, w := range Split(tc.streams, tc.n) {
				var parts []string
				for _, sh := range w {
					parts = append(parts, fmt.Sprintf("%d:%s %d-%d", sh.Stream, sh.Op, sh.From, sh.To))
				}
				got = append(got, "["+strings.Join(parts, " ")+"]")
			}
			if s := strings.Join(got, " "); s != tc.want {
				t.Errorf("Split(%d) = %s, want %s", tc.n, s, tc.want)
			}
		})
	}
}

func TestEncodeDecode(t *testing.T) {
	h := measure.NewHistogram()
	for v := int64(1000); v < 5_000_000; v += 997 {
		_ = h.RecordValue(v)
	}
	r := measure.Result{Op: "read", Clients: 3, Count: h.TotalCount(), Errors: 2, Timeouts: 1, Max: 4_999_000, FirstError: "x", Hist: h}
	sr, err := Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(sr)
	var back StreamResult
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	got, err := back.Decode()
	if err != nil {
		t.Fatal(err)
	}
	if !got.Hist.Equals(h) {
		t.Error("the histogram changed on the wire")
	}
	got.Hist, r.Hist = nil, nil
	if !reflect.DeepEqual(got, r) {
		t.Errorf("got %+v, want %+v", got, r)
	}
	back.Count++
	if _, err := back.Decode(); err == nil {
		t.Error("a count that disagrees with the histogram must be refused")
	}
	t.Logf("%d values: %d bytes encoded", r.Count, len(sr.Hist))
}

// fakeCoordinator drives Serve over pipes, message by message.
type fakeCoordinator struct {
	t    *testing.T
	conn *Conn
}

func (f *fakeCoordinator) expect(typ string) Msg {
	f.t.Helper()
	for {
		m, err := f.conn.Recv()
		if err != nil {
			f.t.Fatalf("waiting for %s: %v", typ, err)
		}
		if m.Type == TypeProgress && typ != TypeProgress {
			continue
		}
		if m.Type != typ {
			f.t.Fatalf("got %s (%s), want %s", m.Type, m.Error, typ)
		}
		return m
	}
}

func (f *fakeCoordinator) send(m Msg) {
	f.t.Helper()
	if err := f.conn.Send(m); err != nil {
		f.t.Fatal(err)
	}
}

func startServe(t *testing.T) (*fakeCoordinator, chan error) {
	cr, ww := io.Pipe() // worker -> coordinator
	wr, cw := io.Pipe() // coordinator -> worker
	done := make(chan error, 1)
	go func() {
		err := Serve(context.Background(), NewConn(wr, ww, nil), openSleepCell)
		ww.Close()
		done <- err
	}()
	t.Cleanup(func() { cw.Close() })
	return &fakeCoordinator{t: t, conn: NewConn(cr, cw, closers{cw, cr})}, done
}

type closers []io.Closer

func (cs closers) Close() error {
	for _, c := range cs {
		c.Close()
	}
	return nil
}

func testAssign() *Assign {
	return &Assign{Version: Version, Scale: "xs", Backend: "sqlite", Scenario: "sweep",
		Sampling: SamplingToWire(measure.Sampling{Warmup: 2, MaxDuration: time.Minute, Reps: 2}),
		Streams:  []Shard{{Stream: 0, Op: "read", Mix: []string{"q1"}, From: 2, To: 5}, {Stream: 1, Op: "write", Mix: []string{"fail"}, From: 0, To: 1}}}
}

func TestServeWithFakeCoordinator(t *testing.T) {
	f, done := startServe(t)
	hello := f.expect(TypeHello)
	if hello.Version != Version || hello.PID != os.Getpid() {
		t.Fatalf("hello %+v", hello)
	}
	f.send(Msg{Type: TypeAssign, Assign: testAssign()})
	if m := f.expect(TypeOpened); m.OpenNs <= 0 {
		t.Errorf("opened without its time: %+v", m)
	}
	for rep := 1; rep <= 2; rep++ {
		f.send(Msg{Type: TypeRep, Rep: rep})
		if m := f.expect(TypeReady); m.Rep != rep {
			t.Fatalf("ready for rep %d, want %d", m.Rep, rep)
		}
		f.send(Msg{Type: TypeStart})
		p := f.expect(TypeProgress)
		if len(p.Calls) != 2 {
			t.Fatalf("progress %v: want one count per stream", p.Calls)
		}
		time.Sleep(50 * time.Millisecond)
		f.send(Msg{Type: TypeStop})
		res := f.expect(TypeResult)
		if res.Rep != rep || len(res.Streams) != 2 {
			t.Fatalf("result %+v", res)
		}
		read, err := res.Streams[0].Decode()
		if err != nil {
			t.Fatal(err)
		}
		write, err := res.Streams[1].Decode()
		if err != nil {
			t.Fatal(err)
		}
		if read.Op != "read" || read.Clients != 3 || read.Count == 0 || read.Errors != 0 || read.Hist.TotalCount() != read.Count {
			t.Errorf("read stream %+v", read)
		}
		if read.Max < 200*time.Microsecond {
			t.Errorf("max %s below the client's sleep", read.Max)
		}
		if write.Clients != 1 || write.Count != 0 || write.Errors == 0 || !strings.Contains(write.FirstError, "does not exist") {
			t.Errorf("failing stream %+v: errors must be counted with the first one", write)
		}
	}
	f.send(Msg{Type: TypeBye})
	if err := <-done; err != nil {
		t.Fatalf("Serve after bye: %v", err)
	}
}

func TestServeRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		msg  Msg
		want string
	}{
		{"another version", Msg{Type: TypeAssign, Assign: func() *Assign { a := testAssign(); a.Version = Version + 1; return a }()}, "protocol version"},
		{"not an assignment", Msg{Type: TypeStart}, "expected an assignment"},
		{"a cell that cannot open", Msg{Type: TypeAssign, Assign: func() *Assign { a := testAssign(); a.Scenario = "missing"; return a }()}, "no scenario"},
		{"an empty shard", Msg{Type: TypeAssign, Assign: func() *Assign { a := testAssign(); a.Streams[0].To = 2; return a }()}, "no client"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, done := startServe(t)
			f.expect(TypeHello)
			f.send(tc.msg)
			m := f.expect(TypeError)
			if !strings.Contains(m.Error, tc.want) {
				t.Errorf("error %q, want %q", m.Error, tc.want)
			}
			if err := <-done; err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Serve returned %v", err)
			}
		})
	}
}

// The coordinator going away mid-measurement ends the worker.
func TestServeCoordinatorGone(t *testing.T) {
	f, done := startServe(t)
	f.expect(TypeHello)
	f.send(Msg{Type: TypeAssign, Assign: testAssign()})
	f.expect(TypeOpened)
	f.send(Msg{Type: TypeRep, Rep: 1})
	f.expect(TypeReady)
	f.send(Msg{Type: TypeStart})
	f.expect(TypeProgress)
	f.conn.Close()
	// The closed connection wakes the measuring worker: it stops at once,
	// not at its next progress or at max_s (a minute here).
	t0 := time.Now()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "coordinator") {
			t.Errorf("Serve returned %v", err)
		}
		if el := time.Since(t0); el > 2*time.Second {
			t.Errorf("the worker stopped %s after losing its coordinator", el)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the worker kept measuring without its coordinator")
	}
}

func testLauncher(t *testing.T, tcp bool) *Launcher {
	t.Setenv(workerEnv, "1")
	return &Launcher{Command: []string{os.Args[0]}, TCP: tcp, Stderr: os.Stderr, Security: testSecurity(t)}
}

func testSecurity(t testing.TB) *Security {
	t.Helper()
	secret, err := GenerateSecret()
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSecurity(secret, "", "")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func testAssigns(n int) []Assign {
	streams := []PointStream{{Op: "read", Mix: []string{"q1"}, Clients: 4}, {Op: "write", Mix: []string{"w"}, Clients: 1}}
	var out []Assign
	for _, sh := range Split(streams, n) {
		out = append(out, Assign{Scenario: "sweep", Streams: sh,
			Sampling: SamplingToWire(measure.Sampling{Warmup: 1, MinDuration: 100 * time.Millisecond, MinSamples: 10, MaxDuration: 2 * time.Second})})
	}
	return out
}

func TestPool(t *testing.T) {
	for _, tcp := range []bool{false, true} {
		t.Run(fmt.Sprintf("tcp=%v", tcp), func(t *testing.T) {
			l := testLauncher(t, tcp)
			p, err := l.Start(context.Background(), testAssigns(3))
			if err != nil {
				t.Fatal(err)
			}
			if p.Startup.Workers != 3 || p.Startup.Spawn <= 0 || p.Startup.Open <= 0 || p.Startup.Total < p.Startup.Spawn {
				t.Errorf("startup %+v", p.Startup)
			}
			for _, pid := range p.PIDs() {
				if err := syscall.Kill(pid, 0); err != nil {
					t.Errorf("worker %d is not running: %v", pid, err)
				}
			}
			for rep := 0; rep < 2; rep++ {
				res, err := p.Rep(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				if len(res) != 2 || res[0].Clients != 4 || res[1].Clients != 1 || res[0].Count < 10 || res[1].Count == 0 {
					t.Fatalf("rep %d: %+v", rep, res)
				}
				if res[0].Elapsed < 100*time.Millisecond || res[0].Elapsed > 2*time.Second || res[0].Hist.TotalCount() != res[0].Count {
					t.Errorf("rep %d: elapsed %s, hist %d of %d", rep, res[0].Elapsed, res[0].Hist.TotalCount(), res[0].Count)
				}
				// The workers' CPU during the window, summed, on every stream.
				if res[0].ClientCPU <= 0 || res[1].ClientCPU != res[0].ClientCPU {
					t.Errorf("rep %d: client CPU %s and %s", rep, res[0].ClientCPU, res[1].ClientCPU)
				}
			}
			if err := p.Close(); err != nil {
				t.Fatal(err)
			}
			for _, pid := range p.PIDs() {
				if err := syscall.Kill(pid, 0); err == nil {
					t.Errorf("worker %d still running after Close", pid)
				}
			}
		})
	}
}

// A worker killed while measuring: the other workers' measurements stay,
// the killed one's share is an error saying so, and the pool is done.
func TestPoolWorkerKilled(t *testing.T) {
	l := testLauncher(t, false)
	as := testAssigns(2)
	for i := range as {
		as[i].Sampling.MinNs, as[i].Sampling.MaxNs = int64(5*time.Second), int64(5*time.Second)
	}
	p, err := l.Start(context.Background(), as)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	victim := p.PIDs()[1]
	go func() {
		time.Sleep(300 * time.Millisecond)
		_ = syscall.Kill(victim, syscall.SIGKILL)
	}()
	t0 := time.Now()
	res, err := p.Rep(context.Background())
	if err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("Rep error %v: want the killed worker", err)
	}
	if time.Since(t0) > 4*time.Second {
		t.Errorf("the point ran on for %s after the worker died", time.Since(t0))
	}
	// Worker 0 has read clients 0-2, worker 1 read clients 3 and the writer.
	if len(res) != 2 || res[0].Clients != 4 || res[0].Count == 0 || res[0].Errors != 1 || !strings.Contains(res[0].FirstError, "killed") {
		t.Errorf("read stream %+v", res[0])
	}
	if res[1].Clients != 1 || res[1].Errors != 1 || res[1].Count != 0 {
		t.Errorf("write stream %+v", res[1])
	}
	if _, err := p.Rep(context.Background()); err == nil {
		t.Error("a pool with a dead worker must not measure again")
	}
}

func TestStartFails(t *testing.T) {
	l := testLauncher(t, false)
	as := testAssigns(2)
	as[1].Scenario = "missing"
	if _, err := l.Start(context.Background(), as); err == nil || !strings.Contains(err.Error(), "no scenario") {
		t.Fatalf("Start: %v", err)
	}
	if _, err := (&Launcher{}).Start(context.Background(), as); err == nil {
		t.Fatal("Start without a command must fail")
	}
}

// A worker lost before the barrier: nobody measured, and the rows still
// say which worker was lost.
func TestPoolWorkerLostBeforeBarrier(t *testing.T) {
	l := testLauncher(t, false)
	p, err := l.Start(context.Background(), testAssigns(2))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	victim := p.PIDs()[0]
	if err := syscall.Kill(victim, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	res, err := p.Rep(context.Background())
	if err == nil || !strings.Contains(err.Error(), "before the barrier") {
		t.Fatalf("Rep error %v", err)
	}
	if len(res) != 2 || res[0].Clients != 4 || res[0].Count != 0 || res[0].Errors != 1 || !strings.Contains(res[0].FirstError, fmt.Sprint(victim)) {
		t.Errorf("read stream %+v", res[0])
	}
	if res[1].Clients != 1 || res[1].Errors != 0 {
		t.Errorf("write stream (the surviving worker's) %+v", res[1])
	}
}

// Adaptive stopping across workers: with a precision the coordinator asks
// the workers for the first stream's histograms, merges them and stops
// the repetition once p50 is known within it, long before max_s; without
// one it stops at min_s; a precision nothing can reach runs to max_s.
// Each result says why it stopped, as in one process.
func TestPoolStopsAdaptively(t *testing.T) {
	for _, tc := range []struct {
		name      string
		precision float64
		min, max  time.Duration
		want      string
		atMost    time.Duration
	}{
		{"precision", 0.05, 100 * time.Millisecond, 20 * time.Second, measure.StopPrecision, 5 * time.Second},
		{"fixed", 0, 100 * time.Millisecond, 20 * time.Second, measure.StopMin, 2 * time.Second},
		{"unreachable", 1e-9, 100 * time.Millisecond, 600 * time.Millisecond, measure.StopMax, 3 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := testLauncher(t, false)
			as := testAssigns(3)
			for i := range as {
				as[i].Sampling = SamplingToWire(measure.Sampling{Warmup: 1, MinDuration: tc.min, MinSamples: 10, MaxDuration: tc.max, Precision: tc.precision})
			}
			p, err := l.Start(context.Background(), as)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			res, err := p.Rep(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range res {
				if r.StoppedBy != tc.want {
					t.Errorf("%s stopped by %q, want %q", r.Op, r.StoppedBy, tc.want)
				}
			}
			if el := res[0].Elapsed; el < tc.min || el > tc.atMost {
				t.Errorf("the repetition took %s, want between %s and %s", el, tc.min, tc.atMost)
			}
		})
	}
}
