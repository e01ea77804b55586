// Package tracker keeps the set of sessions and loaders a backend opened,
// so the backend's Close can close (or first interrupt) those still open,
// and nothing opens after Close. The embedded drivers share it.
package tracker

import (
	"errors"
	"fmt"
	"sync"
)

// ErrClosed is returned by Track once the set was closed.
var ErrClosed = errors.New("backend is closed")

// Closer is what a Set holds: a session or loader, which removes itself
// from the set when it closes.
type Closer interface {
	comparable
	Close() error
}

// Set is a set of open things. The zero value is ready to use.
type Set[T Closer] struct {
	mu     sync.Mutex
	open   map[T]struct{}
	closed bool
}

// Track records c, just opened, as open. After Close it refuses: it runs
// undo, which releases what c holds (outside the lock: undo may call
// Remove), and returns ErrClosed after what, the backend's name for
// errors.
func (s *Set[T]) Track(c T, what string, undo func()) error {
	s.mu.Lock()
	closed := s.closed
	if !closed {
		if s.open == nil {
			s.open = map[T]struct{}{}
		}
		s.open[c] = struct{}{}
	}
	s.mu.Unlock()
	if closed {
		undo()
		return fmt.Errorf("%s: %w", what, ErrClosed)
	}
	return nil
}

// Remove forgets c (it closed itself).
func (s *Set[T]) Remove(c T) {
	s.mu.Lock()
	delete(s.open, c)
	s.mu.Unlock()
}

// Close marks the set closed and closes what was still open, outside the
// lock (closing calls Remove), each after interrupt when it is not nil
// (to stop a call in flight, which Close would wait for). It returns
// their Close errors joined, and first false when the set was closed
// already (then it closes nothing).
func (s *Set[T]) Close(interrupt func(T)) (first bool, err error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return false, nil
	}
	s.closed = true
	open := make([]T, 0, len(s.open))
	for c := range s.open {
		open = append(open, c)
	}
	s.mu.Unlock()
	var errs []error
	for _, c := range open {
		if interrupt != nil {
			interrupt(c)
		}
		errs = append(errs, c.Close())
	}
	return true, errors.Join(errs...)
}
