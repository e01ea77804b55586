package worker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"time"
)

// LoopOptions bound a looping worker's retries. Zero fields take the
// defaults below.
type LoopOptions struct {
	// Wait is how long the worker keeps dialling without reaching the
	// coordinator (no connection it proved and was accepted on) before it
	// gives up: at the start, while the coordinator starts, and between
	// points, while something keeps it from the coordinator.
	Wait time.Duration
	// MaxRefusals is how many authentication failures in a row (the
	// coordinator refused this worker's proof, or could not prove the
	// worker's secret) make it give up.
	MaxRefusals int
	// Backoff is the first pause after a failure, doubled at each
	// failure in a row up to MaxBackoff; each pause is drawn between half
	// of it and all of it, so that workers refused together do not dial
	// again together.
	Backoff, MaxBackoff time.Duration
	// Log receives a line per failure and what the worker does next.
	Log io.Writer
}

const (
	defaultWait        = time.Minute
	defaultMaxRefusals = 5
	defaultBackoff     = 200 * time.Millisecond
	defaultMaxBackoff  = 5 * time.Second
)

func (o *LoopOptions) defaults() {
	if o.Wait <= 0 {
		o.Wait = defaultWait
	}
	if o.MaxRefusals <= 0 {
		o.MaxRefusals = defaultMaxRefusals
	}
	if o.Backoff <= 0 {
		o.Backoff = defaultBackoff
	}
	if o.MaxBackoff < o.Backoff {
		o.MaxBackoff = max(defaultMaxBackoff, o.Backoff)
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
}

// ErrGaveUp is returned (wrapped, saying why) by Loop when it stopped
// trying: the run is not known to be over.
var ErrGaveUp = errors.New("gave up")

// Loop serves one point per connection to the coordinator at addr until
// the coordinator says its run is over (nil). Anything else (a dial that
// fails, a connection closed before an assignment, a refusal) is retried
// after a pause that grows with each failure in a row, until
// MaxRefusals refusals in a row or Wait without reaching the
// coordinator: then it returns an error wrapping ErrGaveUp.
func Loop(ctx context.Context, addr string, creds Credentials, open Opener, o LoopOptions) error {
	o.defaults()
	reached := time.Now() // the start counts as reaching: Wait runs from it
	refusals, failures := 0, 0
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		err := serveOnce(ctx, addr, creds, open, &reached)
		switch {
		case err == nil:
			failures, refusals = 0, 0
			continue // a point served: dial again for the next one
		case errors.Is(err, ErrRunOver):
			fmt.Fprintln(o.Log, "mentat-spec worker: the coordinator says its run is over")
			return nil
		case ctx.Err() != nil:
			return ctx.Err()
		case errors.Is(err, errServed):
			// The point failed here (reported to the coordinator); the
			// coordinator answered, so dial again at once.
			fmt.Fprintf(o.Log, "mentat-spec worker: %v\n", err)
			failures, refusals = 0, 0
			continue
		case errors.Is(err, ErrRefused) || errors.Is(err, ErrWrongSecret):
			refusals++
			if refusals >= o.MaxRefusals {
				return fmt.Errorf("%w after %d refusals in a row: %w", ErrGaveUp, refusals, err)
			}
		default:
			refusals = 0
			if since := time.Since(reached); since >= o.Wait {
				return fmt.Errorf("%w: the coordinator at %s has not been reached for %s (and never said its run is over): %w", ErrGaveUp, addr, since.Round(time.Second), err)
			}
		}
		failures++
		pause := backoff(o.Backoff, o.MaxBackoff, failures)
		fmt.Fprintf(o.Log, "mentat-spec worker: %v; dialling again in %s\n", err, pause.Round(time.Millisecond))
		select {
		case <-time.After(pause):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// errServed marks an error after an assignment: the coordinator was
// reached and gave this worker a point, which failed here.
var errServed = errors.New("the point failed on this worker")

// serveOnce dials, serves one connection and says how it ended; reached
// is moved to now when the coordinator accepted this worker's proof.
func serveOnce(ctx context.Context, addr string, creds Credentials, open Opener, reached *time.Time) error {
	c, err := Dial(ctx, addr, creds)
	if err != nil {
		return err
	}
	defer c.Close()
	c.loop = true
	assigned := false
	err = Serve(ctx, c, func(ctx context.Context, a *Assign) (Cell, error) {
		assigned = true
		return open(ctx, a)
	})
	if c.proved && !errors.Is(err, ErrRefused) {
		*reached = time.Now()
	}
	if err != nil && assigned {
		return fmt.Errorf("%w: %w", errServed, err)
	}
	return err
}

// backoff is the pause after the n-th failure in a row (n >= 1): base
// doubled n-1 times, at most ceiling, drawn uniformly from its upper half.
func backoff(base, ceiling time.Duration, n int) time.Duration {
	d := base
	for i := 1; i < n && d < ceiling; i++ {
		d *= 2
	}
	d = min(d, ceiling)
	return d/2 + rand.N(d/2+1)
}
