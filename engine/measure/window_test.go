package measure

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// The window-start hook runs once, after every client's warmup calls and
// before any timed one, with no call in flight; in RunPoint and RunTimed
// alike.
func TestWindowStartHook(t *testing.T) {
	const warmup, nClients = 3, 3
	cases := []struct {
		name string
		run  func(ctx context.Context, mk func(int) Call) error
	}{
		{"RunPoint", func(ctx context.Context, mk func(int) Call) error {
			_, err := RunPoint(ctx, Sampling{Warmup: warmup, MinSamples: 30, MaxDuration: 20 * time.Second},
				[]Stream{{Op: "read", Calls: clients(nClients, mk)}})
			return err
		}},
		{"RunTimed", func(ctx context.Context, mk func(int) Call) error {
			_, err := RunTimed(ctx, Timed{Warmup: warmup, Duration: 100 * time.Millisecond},
				[]TimedStream{{Op: "read", Calls: clients(nClients, mk)}}, nil)
			return err
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var calls, inFlight, hooks atomic.Int64
			var atHook, flightAtHook int64
			mk := func(int) Call {
				return func(context.Context) error {
					inFlight.Add(1)
					defer inFlight.Add(-1)
					calls.Add(1)
					time.Sleep(200 * time.Microsecond)
					return nil
				}
			}
			ctx := WithWindowStart(context.Background(), func() {
				if hooks.Add(1) == 1 {
					atHook, flightAtHook = calls.Load(), inFlight.Load()
				}
			})
			if err := tc.run(ctx, mk); err != nil {
				t.Fatal(err)
			}
			if n := hooks.Load(); n != 1 {
				t.Fatalf("hook ran %d times, want once", n)
			}
			if atHook != warmup*nClients || flightAtHook != 0 {
				t.Errorf("at the hook %d calls made and %d in flight, want the %d warmup calls and none", atHook, flightAtHook, warmup*nClients)
			}
			if calls.Load() <= atHook {
				t.Error("no timed call after the hook")
			}
		})
	}
}
