// Package tracker keeps the set of sessions and loaders a backend opened,
// so the backend's Close can close (or first interrupt) those still open,
// and nothing opens after Close. The embedded drivers share it.
package tracker

import (
	"errors"
	"sync"
)

// ErrClosed is returned by Add once the set was closed.
var ErrClosed = errors.New("backend is closed")

// Set is a set of open things. The zero value is ready to use.
type Set[T comparable] struct {
	mu     sync.Mutex
	open   map[T]struct{}
	closed bool
}

// Add records c as open; after Close it refuses with ErrClosed.
func (s *Set[T]) Add(c T) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	if s.open == nil {
		s.open = map[T]struct{}{}
	}
	s.open[c] = struct{}{}
	return nil
}

// Remove forgets c (it closed itself).
func (s *Set[T]) Remove(c T) {
	s.mu.Lock()
	delete(s.open, c)
	s.mu.Unlock()
}

// Close marks the set closed and returns what was still open, for the
// caller to close outside the lock (closing calls Remove). A second Close
// returns nothing and false.
func (s *Set[T]) Close() ([]T, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, false
	}
	s.closed = true
	out := make([]T, 0, len(s.open))
	for c := range s.open {
		out = append(out, c)
	}
	return out, true
}
