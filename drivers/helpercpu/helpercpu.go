// Package helpercpu sums the CPU of processes a driver runs on the
// client's behalf (an adapter process per session), so that the client
// CPU the engine measures for a point counts them as its own: a store
// reached through a pipe costs the client that process's work too.
package helpercpu

import (
	"sync"
	"time"
)

var (
	mu      sync.Mutex
	sources []func() time.Duration
)

// Register adds a source: a function returning the CPU its processes
// have used so far (the live ones and the ones that ended), never
// decreasing.
func Register(f func() time.Duration) {
	mu.Lock()
	sources = append(sources, f)
	mu.Unlock()
}

// Total is the CPU of every registered source so far.
func Total() time.Duration {
	mu.Lock()
	fs := sources
	mu.Unlock()
	var t time.Duration
	for _, f := range fs {
		t += f()
	}
	return t
}
