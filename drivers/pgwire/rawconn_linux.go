package pgwire

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"github.com/mentat-spec/mentat-spec/drivers"
)

// rawConn is a blocking socket read and written with raw system calls: the
// calling goroutine keeps its thread and its P (processor) while the
// kernel waits for the server, so a query costs one write and one read and
// no scheduler hand-off, as pgbench's threads do.
//
// A thread blocked in a raw call is invisible to Go's scheduler, which
// could otherwise wait on it forever; three things bound that wait:
//
//   - the socket's receive and send timeouts (rawSlice) end every blocking
//     call after a slice, and a signal ends it at once: with a timeout set
//     the kernel fails the call with EINTR instead of restarting it. Go
//     signals a running goroutine's thread (SIGURG) to preempt it, for a
//     stop-the-world GC too; after either the goroutine passes a
//     preemption check (see pause), then calls again, so a GC pause stays
//     within a slice;
//   - deadlines are checked between slices (pgx uses them when a cancel
//     request goes unanswered, and to bound the close handshake);
//   - sessions in this mode raise GOMAXPROCS to their number plus two while
//     they are open (rawProcs), so the Ps they hold never starve the rest of
//     the process (the runner's watchdog, timers, the cancel request).
//
// The session also passes through the scheduler on its own every
// rawYieldEvery (see yield), so that the scheduler never has to signal it.
type rawConn struct {
	socket
	yieldAt  time.Duration // monoNow of the next yield (see yield)
	deadline atomic.Int64  // Unix ns; 0: none
	closed   atomic.Bool
	mu       sync.Mutex // serialises Close
}

// rawSlice bounds one blocking call: the longest a deadline, a Close or a
// GC without signals (GODEBUG=asyncpreemptoff=1) waits for this thread.
// It is as long as rawYieldEvery, so that a session waiting on a slow
// query yields between slices before sysmon signals it (two sessions on
// 50 ms queries for 6 s: 250 signals with 10 ms slices, 18 with 4 ms, and
// 10% less CPU).
const rawSlice = 4 * time.Millisecond

// rawYieldEvery is how long a raw session runs between two passes through
// the scheduler. Go's sysmon signals a goroutine that has not passed
// through it for 10 ms (its forcePreemptNS) and the goroutine then yields
// anyway; a signal, the interrupted call and, with an idle P, a second
// thread woken for the yield cost about 80 µs of CPU on a VM, which at 8
// sessions of 5,000 simple-protocol queries a second is 10 µs a query.
// Yielding first, at a point of the session's choosing, costs a few
// hundred nanoseconds. A variable for tests, which turn it off.
var rawYieldEvery = rawSlice

// monoBase anchors monoNow, a monotonic clock cheaper to compare than
// time.Time.
var monoBase = time.Now()

func monoNow() time.Duration { return time.Since(monoBase) }

// goyield puts the goroutine at the back of its own P's run queue and
// runs the scheduler, which starts a new time slice: runtime.Gosched
// without the wake-up of an idle P's thread (runtime.Gosched puts the
// goroutine on the global queue and wakes a thread to take it). The
// runtime keeps it for packages that link to it (go.dev/issue/67401).
//
//go:linkname goyield runtime.goyield
func goyield()

// yield passes through the scheduler once every rawYieldEvery, so that
// sysmon never needs to signal this thread, and lets other goroutines of
// its P run. In a client process (no spare P, see spareProcs) it uses
// runtime.Gosched, whose global queue is fair to goroutines woken there
// (the coordinator's messages, timers) and whose wake-up finds no idle P.
func (c *rawConn) yield() {
	now := monoNow()
	if now < c.yieldAt {
		return
	}
	c.yieldAt = now + rawYieldEvery
	if drivers.ClientProcess() {
		runtime.Gosched()
		return
	}
	goyield()
}

// RawAvailable reports whether io = raw has its own transport here.
const RawAvailable = true

// DialRaw is a pgconn.DialFunc for io = raw: it dials like net.Dialer,
// then takes the socket over from Go's network poller, with receive and
// send timeouts of rawSlice. A session on it must be counted by
// RawSessionOpened and RawSessionClosed.
func DialRaw(ctx context.Context, network, addr string) (net.Conn, error) {
	s, c, err := takeOver(ctx, network, addr, "raw")
	if c != nil || err != nil {
		return c, err
	}
	tv := syscall.NsecToTimeval(int64(rawSlice))
	for _, err := range []error{
		syscall.SetsockoptTimeval(s.fd, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &tv),
		syscall.SetsockoptTimeval(s.fd, syscall.SOL_SOCKET, syscall.SO_SNDTIMEO, &tv),
	} {
		if err != nil {
			syscall.Close(s.fd)
			return nil, fmt.Errorf("raw socket: %w", err)
		}
	}
	return &rawConn{socket: s}, nil
}

func (c *rawConn) opErr(op string, err error) error {
	return &net.OpError{Op: op, Net: c.remote.Network(), Source: c.local, Addr: c.remote, Err: err}
}

// pause runs between two slices of a blocking call: it reports a Close
// or a passed deadline. Calling it is also what lets the scheduler stop or
// preempt this goroutine (a raw call gives it no chance): a pending
// request (a stop-the-world GC, or sysmon's preemption of a goroutine
// running for 10 ms) marks the goroutine's stack bound, and the check at
// the start of a call that is not inlined acts on it. It yields only as
// yield allows: a yield on every signal cost one per profiling signal too.
//
//go:noinline
func (c *rawConn) pause(op string) error {
	if c.closed.Load() {
		return c.opErr(op, net.ErrClosed)
	}
	if dl := c.deadline.Load(); dl != 0 && time.Now().UnixNano() >= dl {
		return c.opErr(op, os.ErrDeadlineExceeded)
	}
	c.yield()
	return nil
}

func (c *rawConn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	c.yield()
	for {
		// recvfrom and sendto rather than read and write: the same on a
		// connected socket, without the file layer (position lock, access
		// checks, iterators) read(2) and write(2) pass through.
		n, _, e := syscall.RawSyscall6(syscall.SYS_RECVFROM, uintptr(c.fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)), 0, 0, 0)
		switch {
		case e == syscall.EAGAIN || e == syscall.EINTR:
			if err := c.pause("read"); err != nil {
				return 0, err
			}
		case e != 0:
			if c.closed.Load() {
				return 0, c.opErr("read", net.ErrClosed)
			}
			return 0, c.opErr("read", os.NewSyscallError("read", e))
		case n == 0:
			if c.closed.Load() {
				return 0, c.opErr("read", net.ErrClosed)
			}
			return 0, io.EOF
		default:
			return int(n), nil
		}
	}
}

func (c *rawConn) Write(p []byte) (int, error) {
	done := 0
	for done < len(p) {
		// MSG_NOSIGNAL: a closed peer fails the call with EPIPE and
		// raises no SIGPIPE (which Go drops for a socket anyway).
		n, _, e := syscall.RawSyscall6(syscall.SYS_SENDTO, uintptr(c.fd), uintptr(unsafe.Pointer(&p[done])), uintptr(len(p)-done), syscall.MSG_NOSIGNAL, 0, 0)
		switch {
		case e == syscall.EAGAIN || e == syscall.EINTR:
			if err := c.pause("write"); err != nil {
				return done, err
			}
		case e != 0:
			if c.closed.Load() {
				return done, c.opErr("write", net.ErrClosed)
			}
			return done, c.opErr("write", os.NewSyscallError("write", e))
		default:
			done += int(n)
		}
	}
	return done, nil
}

// Close shuts the socket down, which wakes a call blocked on it, then
// closes it.
func (c *rawConn) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed.Swap(true) {
		return nil
	}
	_ = syscall.Shutdown(c.fd, syscall.SHUT_RDWR)
	return syscall.Close(c.fd)
}

func (c *rawConn) SetDeadline(t time.Time) error {
	if t.IsZero() {
		c.deadline.Store(0)
	} else {
		c.deadline.Store(max(t.UnixNano(), 1))
	}
	return nil
}

func (c *rawConn) SetReadDeadline(t time.Time) error  { return c.SetDeadline(t) }
func (c *rawConn) SetWriteDeadline(t time.Time) error { return c.SetDeadline(t) }
