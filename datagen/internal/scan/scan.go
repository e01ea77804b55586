// Package scan runs a function over an id range in chunks on several
// goroutines: the parallel scans of datagen's statistics and truth.
package scan

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
)

// Chunk is the number of ids a worker takes at a time: large enough
// to amortise scheduling, small enough to balance and to notice a
// cancelled context quickly.
const Chunk = 1 << 16

// Workers resolves a requested worker count (<= 0: GOMAXPROCS).
func Workers(workers int) int {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	return max(workers, 1)
}

// Chunks runs fn over [0, n) in chunks on up to workers goroutines.
// fn gets its worker number, so callers keep per-worker accumulators and
// merge them afterwards without locks. The first error stops the scan.
func Chunks(ctx context.Context, n int64, workers int, fn func(w int, lo, hi int64) error) error {
	if n <= 0 {
		return ctx.Err()
	}
	nChunks := (n + Chunk - 1) / Chunk
	workers = int(min(int64(Workers(workers)), nChunks))
	var (
		next     atomic.Int64
		stop     atomic.Bool
		errOnce  sync.Once
		firstErr error
		wg       sync.WaitGroup
	)
	fail := func(err error) {
		errOnce.Do(func() { firstErr = err })
		stop.Store(true)
	}
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for !stop.Load() {
				ch := next.Add(1) - 1
				if ch >= nChunks {
					return
				}
				if err := ctx.Err(); err != nil {
					fail(fmt.Errorf("datagen: scan cancelled: %w", err))
					return
				}
				lo := ch * Chunk
				if err := fn(w, lo, min(lo+Chunk, n)); err != nil {
					fail(err)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	return firstErr
}
