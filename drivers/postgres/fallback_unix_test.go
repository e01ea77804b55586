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

// TestDeadlineFallback stops the server process so the cancel request goes
// unanswered: the socket is then closed at the deadline fallback, the call
// says the session reconnects, and the next call does.
func TestDeadlineFallback(t *testing.T) {
	testDSN(t) // skip once, not per subtest
	old := cancelDeadlineDelay
	cancelDeadlineDelay = 300 * time.Millisecond
	defer func() { cancelDeadlineDelay = old }()
	for _, v := range []variant{variants[0], variants[2], variants[4]} {
		t.Run(v.io, func(t *testing.T) {
			b := openTest(t, v, nil)
			ctx := testCtx(t)
			s, err := b.Session(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			pid := backendPID(t, s)
			if err := syscall.Kill(int(pid), syscall.SIGSTOP); err != nil {
				t.Skipf("cannot stop the server process %d (a remote server, or no permission): %v", pid, err)
			}
			defer syscall.Kill(int(pid), syscall.SIGCONT)
			qctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
			defer cancel()
			start := time.Now()
			err = s.Exec(qctx, "SELECT 1")
			elapsed := time.Since(start)
			syscall.Kill(int(pid), syscall.SIGCONT)
			if err == nil || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "reconnects") {
				t.Fatalf("Exec on a stopped server: %v; want a deadline error saying the session reconnects", err)
			}
			t.Logf("after %v: %v", elapsed, err)
			if elapsed > 2*time.Second {
				t.Errorf("gave up after %v", elapsed)
			}
			if got := backendPID(t, s); got == pid {
				t.Error("same backend after the connection was closed")
			}
		})
	}
}
