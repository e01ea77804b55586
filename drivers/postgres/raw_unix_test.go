//go:build unix

package postgres

import (
	"context"
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRawDeadlineFallback stops the server process so the cancel request
// of a counted call goes unanswered: the call fails at the deadline
// fallback, says the session reconnects, and the next call does.
func TestRawDeadlineFallback(t *testing.T) {
	testDSN(t)
	old := cancelDeadlineDelay
	cancelDeadlineDelay = 300 * time.Millisecond
	defer func() { cancelDeadlineDelay = old }()
	b := openTest(t, rawVariants[0], nil)
	ctx := testCtx(t)
	s, err := b.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	pid := backendPID(t, s)
	st, err := s.Prepare(ctx, "SELECT 1")
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(int(pid), syscall.SIGSTOP); err != nil {
		t.Skipf("cannot stop the server process %d (a remote server, or no permission): %v", pid, err)
	}
	defer syscall.Kill(int(pid), syscall.SIGCONT)
	qctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = st.Query(qctx, nil, nil)
	elapsed := time.Since(start)
	syscall.Kill(int(pid), syscall.SIGCONT)
	if err == nil || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "reconnects") {
		t.Fatalf("counted query on a stopped server: %v; want a deadline error saying the session reconnects", err)
	}
	t.Logf("after %v: %v", elapsed, err)
	if elapsed > 2*time.Second {
		t.Errorf("gave up after %v", elapsed)
	}
	if n, err := st.Query(ctx, nil, nil); err != nil || n != 1 {
		t.Fatalf("after the reconnect: %d rows, %v", n, err)
	}
	if got := backendPID(t, s); got == pid {
		t.Error("same backend after the connection was closed")
	}
}
