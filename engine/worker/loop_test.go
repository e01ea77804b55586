package worker

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mentat-spec/mentat-spec/engine/worker/connadmit"
)

// fastLoop is LoopOptions with short pauses, for tests.
func fastLoop(log *syncBuffer) LoopOptions {
	return LoopOptions{Wait: 20 * time.Second, Backoff: 10 * time.Millisecond, MaxBackoff: 80 * time.Millisecond, Log: log}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// listening starts a coordinator's port on 127.0.0.1 that records what
// it would write to logs/auth.log.
func listening(t *testing.T, sec *Security) (*Launcher, *syncBuffer) {
	t.Helper()
	l := &Launcher{Listen: "127.0.0.1:0", Security: sec, Spec: SpecRef{Paths: []string{"/spec.hcl"}}}
	t.Cleanup(func() { l.Close() })
	authLog := &syncBuffer{}
	l.OnRefused(func(err *AuthError, n int64) { fmt.Fprintf(authLog, "refused=%d %v\n", n, err) })
	if err := l.Listening(); err != nil {
		t.Fatal(err)
	}
	return l, authLog
}

// A looping worker with the wrong secret gives up after MaxRefusals
// refusals in a row, pausing between them; before, it dialled again at
// once, forever (37,090 refusals a minute).
func TestLoopWrongSecretGivesUp(t *testing.T) {
	for _, tc := range []struct {
		name  string
		creds func(sec *Security) Credentials
	}{
		// The worker cannot check the coordinator's proof: it refuses it.
		{"another secret", func(*Security) Credentials { return Credentials{Secret: []byte("not-the-secret-of-this-run")} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sec := testSecurity(t)
			l, _ := listening(t, sec)
			var log syncBuffer
			o := fastLoop(&log)
			o.MaxRefusals = 4
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			t0 := time.Now()
			err := Loop(ctx, l.Addr(), tc.creds(sec), openSleepCell, o)
			if !errors.Is(err, ErrGaveUp) || !strings.Contains(err.Error(), "4 refusals") || ctx.Err() != nil {
				t.Fatalf("Loop: %v, want it to give up after 4 refusals", err)
			}
			// Three pauses of at least half of 10, 20 and 40 ms.
			if el := time.Since(t0); el < 35*time.Millisecond {
				t.Errorf("gave up after %s: no pause between refusals", el)
			}
			if n := strings.Count(log.String(), "dialling again in"); n != 3 {
				t.Errorf("%d retries logged, want 3:\n%s", n, log.String())
			}
			waitFor(t, func() bool { return l.Refused() >= 4 })
			time.Sleep(50 * time.Millisecond)
			if n := l.Refused(); n != 4 {
				t.Errorf("the coordinator refused %d connections, want 4", n)
			}
		})
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting")
		}
	}
}

// The coordinator's refusal log is bounded: a few lines per address, then
// a summary at most every authLogEvery, and one when the run ends, whose
// counts add up. Before, each of 37,090 refusals a minute was a line.
func TestRefusalLogBounded(t *testing.T) {
	l := &Launcher{}
	var lines []string
	l.OnRefused(func(e *AuthError, n int64) { lines = append(lines, fmt.Sprintf("%d %v", n, e)) })
	const n = 5000
	for i := range n {
		l.refuse(&AuthError{Remote: fmt.Sprintf("10.0.0.9:%d", 1000+i), Err: errors.New("wrong secret")})
	}
	l.refuse(&AuthError{Remote: "10.0.0.7:1", Err: errors.New("wrong secret")}) // another address: its own line
	l.OnRefused(nil)
	if len(lines) != authLogBurst+2 {
		t.Fatalf("%d lines for %d refusals, want %d:\n%s", len(lines), n+1, authLogBurst+2, strings.Join(lines, "\n"))
	}
	last := lines[len(lines)-1]
	if want := fmt.Sprintf("connection from 10.0.0.9 refused: %d more refusal(s) since", n-authLogBurst); !strings.Contains(last, want) || !strings.Contains(last, "the last: wrong secret") {
		t.Errorf("summary %q, want %q", last, want)
	}
	if !strings.Contains(lines[authLogBurst], "10.0.0.7:1") {
		t.Errorf("the other address's refusal: %q", lines[authLogBurst])
	}
	if l.Refused() != n+1 {
		t.Errorf("counted %d", l.Refused())
	}
	// Past authLogEvery a summary is written while refusals go on.
	var r refusalLog
	t0 := time.Now()
	var got []*AuthError
	for i := range 100 {
		if e := r.admit(&AuthError{Remote: "10.0.0.9:1", Err: errors.New("x")}, t0.Add(time.Duration(i)*time.Second)); e != nil {
			got = append(got, e)
		}
	}
	// 5 one by one, then summaries at about 1 min after the first
	// suppressed, and none after (the flush gives the rest).
	if len(got) != authLogBurst+1 || !strings.Contains(got[authLogBurst].Error(), "61 more") {
		t.Errorf("%d lines over 100 s: %v", len(got), got)
	}
	if f := r.flush(); len(f) != 1 || !strings.Contains(f[0].Error(), "34 more") {
		t.Errorf("flush %v", f)
	}
}

// Idle connections held past the port's limit do not keep the run's own
// worker out: they wait apart until they send something, and past
// maxSilent the oldest of them is closed. Before, 70 idle connections
// made every worker's dial fail for the authentication timeout, and a
// looping worker took that for the end of the run.
func TestIdleStrangersDoNotStarveWorkers(t *testing.T) {
	sec := testSecurity(t)
	l, authLog := listening(t, sec)
	var idle []net.Conn
	defer func() {
		for _, c := range idle {
			c.Close()
		}
	}()
	for range connadmit.MaxSilent + 6 {
		c, err := net.DialTimeout("tcp", l.Addr(), 2*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		idle = append(idle, c)
	}
	waitFor(t, func() bool { return l.Refused() >= 6 }) // the six oldest made room
	started := make(chan error, 1)
	var pool *Pool
	go func() {
		p, err := l.Start(context.Background(), testAssigns(1))
		pool = p
		started <- err
	}()
	// One dial, no retry: it must get in while the strangers hold on.
	served := make(chan error, 1)
	go func() { served <- serveRemote(l.Addr(), sec.Credentials()) }()
	select {
	case err := <-started:
		if err != nil {
			t.Fatal(err)
		}
	case err := <-served:
		t.Fatalf("the run's worker was kept out: %v", err)
	case <-time.After(connadmit.SilentTimeout - time.Second):
		t.Fatal("the run's worker did not get in while strangers held the port")
	}
	if res, err := pool.Rep(context.Background()); err != nil || res[0].Count == 0 {
		t.Fatalf("rep: %v %+v", err, res)
	}
	if err := pool.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	// Six, and one more for the worker's own connection, which arrived
	// while the place was full; past the first five lines of the address,
	// the rest are summarised when the run ends.
	l.OnRefused(nil)
	if n := l.Refused(); n != 7 || !strings.Contains(authLog.String(), "2 more refusal(s)") || !strings.Contains(authLog.String(), "without sending anything") {
		t.Errorf("%d refusals:\n%s", n, authLog.String())
	}
}

// A looping worker exits 0 when, and only when, the coordinator says its
// run is over: also when the run ends between its bye and its redial.
// A coordinator that goes away without saying so is retried, with a
// message, until Wait; then the worker gives up (it used to exit 0).
func TestLoopRunOver(t *testing.T) {
	sec := testSecurity(t)
	t.Run("over", func(t *testing.T) {
		l, _ := listening(t, sec)
		var log syncBuffer
		done := make(chan error, 1)
		go func() { done <- Loop(context.Background(), l.Addr(), sec.Credentials(), openSleepCell, fastLoop(&log)) }()
		for range 2 {
			pool, err := l.Start(context.Background(), testAssigns(1))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := pool.Rep(context.Background()); err != nil {
				t.Fatal(err)
			}
			if err := pool.Close(); err != nil {
				t.Fatal(err)
			}
		}
		// The run ends right after the last bye, before the redial.
		t0 := time.Now()
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		if el := time.Since(t0); el >= overLinger {
			t.Errorf("Close took %s: it waited for no one", el)
		}
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("Loop: %v\n%s", err, log.String())
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the worker did not exit after the run ended")
		}
		if !strings.Contains(log.String(), "run is over") {
			t.Errorf("log:\n%s", log.String())
		}
	})
	t.Run("coordinator gone without a word", func(t *testing.T) {
		// A port that takes connections and drops them, as a coordinator
		// that died would leave: never "over".
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				c.Close()
			}
		}()
		var log syncBuffer
		o := fastLoop(&log)
		o.Wait = 500 * time.Millisecond
		err = Loop(context.Background(), ln.Addr().String(), sec.Credentials(), openSleepCell, o)
		if !errors.Is(err, ErrGaveUp) || !strings.Contains(err.Error(), "never said its run is over") {
			t.Fatalf("Loop: %v", err)
		}
		if n := strings.Count(log.String(), "dialling again in"); n < 2 {
			t.Errorf("%d retries:\n%s", n, log.String())
		}
	})
}

func TestBackoff(t *testing.T) {
	for n, want := range []time.Duration{0, 100, 200, 400, 800, 1000, 1000} {
		if n == 0 {
			continue
		}
		for range 50 {
			d := backoff(100, 1000, n)
			if d < want/2 || d > want {
				t.Fatalf("backoff(%d) = %d, want in [%d, %d]", n, d, want/2, want)
			}
		}
	}
}
