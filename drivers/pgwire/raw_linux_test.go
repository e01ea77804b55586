package pgwire

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mentat-spec/mentat-spec/drivers/internal/pgtest"
)

// TestRawYield checks that raw sessions pass through Go's scheduler on
// their own, so that its sysmon never has to signal them (SIGURG: each
// signal costs tens of µs of CPU and ends a raw call with EINTR): one
// session runs a fast query back to back, another waits on slow ones. The
// same load with the yield turned off is the control: sysmon then signals
// the sessions every 10 ms or so.
func TestRawYield(t *testing.T) {
	testDSN(t)
	const window = time.Second
	for _, pk := range pgtest.ProcessKinds {
		t.Run(pk.Name, func(t *testing.T) {
			pgtest.AsProcess(t, pk.Client)
			yielding := rawSignalsDuring(t, window)
			old := rawYieldEvery
			t.Cleanup(func() { rawYieldEvery = old })
			rawYieldEvery = time.Hour
			control := rawSignalsDuring(t, window)
			t.Logf("preemption signals in %v: %d with the yield, %d without", window, yielding, control)
			if control < 20 {
				t.Fatalf("the control without the yield saw %d signals in %v, want about %d: the test measures nothing here", control, window, 2*window/(10*time.Millisecond))
			}
			// At most half: a loaded host stretches the slices the sessions
			// run between yields, so a few signals get through (21 against
			// 75 at load 15); without the yield they come every 10 ms.
			if yielding*2 > control {
				t.Errorf("%d preemption signals with the yield, against %d without: want at most half", yielding, control)
			}
		})
	}
}

// rawSignalsDuring runs the two sessions for window and counts the
// preemption signals (SIGURG) the process received meanwhile.
func rawSignalsDuring(t *testing.T, window time.Duration) int {
	queries := []struct {
		sql  string
		args []any
	}{{"SELECT $1::int", []any{int64(1)}}, {"SELECT pg_sleep($1)", []any{0.05}}}
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make(chan error, len(queries))
	for _, q := range queries {
		s := newTestSession(t, rawDial)
		st := s.prepare(q.sql)
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for end := time.Now().Add(window); time.Now().Before(end); {
				if _, ok, err := s.c.Query(context.Background(), s.conn, st, q.args); err != nil || !ok {
					errs <- fmt.Errorf("%s: counted %v: %v", q.sql, ok, err)
					return
				}
			}
		}()
	}
	// The runtime passes its own SIGURGs on to a program that asks for
	// them; the buffer holds far more than a window's worth.
	sigs := make(chan os.Signal, 100_000)
	signal.Notify(sigs, syscall.SIGURG)
	close(start)
	wg.Wait()
	signal.Stop(sigs)
	close(errs)
	for err := range errs {
		t.Fatalf("query: %v", err)
	}
	return len(sigs)
}
