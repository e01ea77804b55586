// Package storelock gives a run exclusive use of a store or a directory
// for as long as it uses it: a lock file held with flock(2), which the
// kernel releases when the process ends however it ends (SIGKILL
// included), so a lock left by a killed run is free at once. The file
// says who holds it (pid, host, since) for the message of a run that
// waits.
package storelock

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Holder is who holds a lock, as its lock file says.
type Holder struct {
	PID   int
	Host  string
	Since time.Time
	// Stale is set when the holder is a process of this host that no
	// longer runs: its lock is free (the kernel released it) and is taken.
	Stale bool
}

func (h Holder) String() string {
	if h.PID == 0 {
		return "another run (it has not written its pid yet)"
	}
	s := fmt.Sprintf("pid %d on %s", h.PID, h.Host)
	if !h.Since.IsZero() {
		s += " since " + h.Since.UTC().Format(time.RFC3339)
	}
	if h.Stale {
		s += " (no longer running: its lock is being taken over)"
	}
	return s
}

// Wait says what to do when another run holds the lock.
type Wait struct {
	// Timeout is how long to wait: 0 waits as long as the context lasts,
	// a negative value refuses at once.
	Timeout time.Duration
	// Waiting, when set, is called once when the lock is found held,
	// before waiting: the caller says who it waits for.
	Waiting func(what string, h Holder)
}

// HeldError is a lock another run holds that this one did not get.
type HeldError struct {
	What   string
	Holder Holder
	Waited time.Duration
}

func (e *HeldError) Error() string {
	if e.Waited > 0 {
		return fmt.Sprintf("%s is in use by %s: waited %s (another run measures or writes it; -lock-wait sets how long to wait)", e.What, e.Holder, e.Waited.Round(time.Second))
	}
	return fmt.Sprintf("%s is in use by %s: refusing to share it (another run measures or writes it; wait for it, or raise -lock-wait)", e.What, e.Holder)
}

// Lock is a held lock.
type Lock interface {
	// Release gives the lock up; later calls do nothing.
	Release() error
}

// Checker is implemented by locks that can be lost while held (a
// PostgreSQL advisory lock dies with its session when the server
// restarts): Held says whether it still is.
type Checker interface {
	Held(ctx context.Context) bool
}

// holderGrace is how long a run looks again for the holder's pid before
// it says (or refuses) without it.
const holderGrace = time.Second

// pollEvery is how often a waiting run tries the lock again.
const pollEvery = 100 * time.Millisecond

// File takes the exclusive lock file path (what names the locked thing
// in messages), waiting as w says.
func File(ctx context.Context, path, what string, w Wait) (Lock, error) {
	return Poll(ctx, what, w, func() (Lock, *Holder, error) { return tryFile(path) })
}

// Poll runs try until it takes the lock, waiting as w says; try returns
// the holder when the lock is held.
func Poll(ctx context.Context, what string, w Wait, try func() (Lock, *Holder, error)) (Lock, error) {
	start := time.Now()
	told := false
	for {
		l, h, err := try()
		if err != nil || l != nil {
			return l, err
		}
		// A holder that has just taken the lock may not have written who
		// it is yet: look again, briefly, so the message names it.
		unknown := h.PID == 0 && time.Since(start) < holderGrace
		if w.Timeout < 0 && !unknown {
			return nil, &HeldError{What: what, Holder: *h}
		}
		if !told && w.Waiting != nil && !unknown {
			w.Waiting(what, *h)
			told = true
		}
		if w.Timeout > 0 && time.Since(start) >= w.Timeout {
			return nil, &HeldError{What: what, Holder: *h, Waited: time.Since(start)}
		}
		next := pollEvery
		if unknown {
			next = pollEvery / 10
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for %s held by %s: %w", what, h, ctx.Err())
		case <-time.After(next):
		}
	}
}

type fileLock struct {
	f    *os.File
	path string
}

// tryFile takes the lock once: it returns the lock, or who holds it.
func tryFile(path string) (Lock, *Holder, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("opening the lock file: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			h := readHolder(path)
			return nil, &h, nil
		}
		return nil, nil, fmt.Errorf("locking %s: %w", path, err)
	}
	// The holder before may have removed the file after we opened it: the
	// lock is then on a file no other run finds. Take the one in place.
	var st, fst syscall.Stat_t
	if syscall.Stat(path, &st) != nil || syscall.Fstat(int(f.Fd()), &fst) != nil || st.Ino != fst.Ino || st.Dev != fst.Dev {
		f.Close()
		return tryFile(path)
	}
	host, _ := os.Hostname()
	text := fmt.Sprintf("pid=%d\nhost=%s\nsince=%s\n", os.Getpid(), host, time.Now().UTC().Format(time.RFC3339))
	if err := f.Truncate(0); err == nil {
		_, err = f.WriteAt([]byte(text), 0)
	}
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("writing the lock file %s: %w", path, err)
	}
	return &fileLock{f: f, path: path}, nil, nil
}

// Release removes the lock file while still holding it (a waiter that
// opened it before finds it gone and opens the new one) and unlocks it.
func (l *fileLock) Release() error {
	if l.f == nil {
		return nil
	}
	err := os.Remove(l.path)
	if errors.Is(err, os.ErrNotExist) {
		err = nil
	}
	err = errors.Join(err, l.f.Close())
	l.f = nil
	return err
}

// readHolder reads who holds path's lock.
func readHolder(path string) Holder {
	b, _ := os.ReadFile(path)
	return ParseHolder(string(b))
}

// ParseHolder reads a lock file's pid=, host= and since= lines.
func ParseHolder(text string) Holder {
	var h Holder
	for _, line := range strings.Split(text, "\n") {
		k, v, _ := strings.Cut(strings.TrimSpace(line), "=")
		switch k {
		case "pid":
			h.PID, _ = strconv.Atoi(v)
		case "host":
			h.Host = v
		case "since":
			h.Since, _ = time.Parse(time.RFC3339, v)
		}
	}
	if host, _ := os.Hostname(); h.PID > 0 && h.Host == host {
		h.Stale = syscall.Kill(h.PID, 0) == syscall.ESRCH
	}
	return h
}
