// Package during runs a scenario's invariant checks (during_ms) over and
// over while its points run, each at its own interval, and tallies each
// check's runs into one verdict line.
package during

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/mentat-spec/mentat-spec/checks"
)

// Check is one invariant: Run runs every case of it once and returns the
// first wrong case's account ("" when all were right); ok is false when
// the run was cut short and counts for nothing.
type Check struct {
	Every time.Duration
	Run   func(ctx context.Context) (bad string, ok bool)
}

// Tally counts one check's runs.
type Tally struct {
	Runs, Failed int
	First        string // the first wrong run's account
}

// Start runs the checks until the returned stop, which waits for the run
// in progress and returns each check's tally, in order.
func Start(ctx context.Context, list []Check) (stop func() []Tally) {
	dctx, cancel := context.WithCancel(ctx)
	tallies := make([]Tally, len(list))
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		next := make([]time.Time, len(list))
		for {
			now := time.Now()
			wait := time.Hour
			for i, ck := range list {
				if !now.Before(next[i]) {
					tallies[i].add(ck.Run(dctx))
					next[i] = time.Now().Add(ck.Every)
				}
				wait = min(wait, time.Until(next[i]))
			}
			select {
			case <-dctx.Done():
				return
			case <-time.After(max(wait, time.Millisecond)):
			}
		}
	}()
	return func() []Tally {
		cancel()
		wg.Wait()
		return tallies
	}
}

func (t *Tally) add(bad string, ok bool) {
	if !ok {
		return
	}
	t.Runs++
	if bad != "" {
		t.Failed++
		if t.First == "" {
			t.First = bad
		}
	}
}

// Verdict is the check line's status and detail of t.
func (t Tally) Verdict() (checks.Status, string) {
	switch {
	case t.Runs == 0:
		return checks.Skip, "the scenario ended before a run completed"
	case t.Failed > 0:
		return checks.Fail, fmt.Sprintf("%d of %d runs during the scenario wrong; first: %s", t.Failed, t.Runs, t.First)
	}
	return checks.Pass, fmt.Sprintf("%d runs during the scenario, all as expected", t.Runs)
}
