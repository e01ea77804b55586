//go:build unix

package pgwire

import (
	"context"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// blockingConn is a connection read and written with plain blocking system
// calls instead of Go's network poller. A query round trip then costs one
// write and one read, without the poller's failed read, epoll wait and
// goroutine wake-up: on 2 cores the client's CPU per query is the limit.
//
// Deadlines cannot interrupt a blocking call, so reaching one shuts the
// socket down: the pending call fails with a timeout and the connection is
// dead. pgx uses deadlines only that way (the fallback when a cancel
// request goes unanswered, and to bound the close handshake).
type blockingConn struct {
	socket
	timedOut atomic.Bool
	closed   atomic.Bool

	mu    sync.Mutex // guards timer
	timer *time.Timer
}

// DialBlocking is a pgconn.DialFunc for io = blocking: it dials like
// net.Dialer, then takes the socket over from Go's network poller.
func DialBlocking(ctx context.Context, network, addr string) (net.Conn, error) {
	s, c, err := takeOver(ctx, network, addr, "blocking")
	if c != nil || err != nil {
		return c, err
	}
	return &blockingConn{socket: s}, nil
}

// timeoutError satisfies net.Error so pgx reports a timeout.
type timeoutError struct{}

func (timeoutError) Error() string   { return "i/o timeout (socket shut down at its deadline)" }
func (timeoutError) Timeout() bool   { return true }
func (timeoutError) Temporary() bool { return true }
func (timeoutError) Unwrap() error   { return os.ErrDeadlineExceeded }

func (c *blockingConn) ioErr(op string, err error) error {
	if c.timedOut.Load() {
		return &net.OpError{Op: op, Net: c.remote.Network(), Source: c.local, Addr: c.remote, Err: timeoutError{}}
	}
	if c.closed.Load() {
		return &net.OpError{Op: op, Net: c.remote.Network(), Source: c.local, Addr: c.remote, Err: net.ErrClosed}
	}
	return &net.OpError{Op: op, Net: c.remote.Network(), Source: c.local, Addr: c.remote, Err: os.NewSyscallError(op, err)}
}

func (c *blockingConn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		n, err := syscall.Read(c.fd, p)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return 0, c.ioErr("read", err)
		case n == 0:
			if c.timedOut.Load() || c.closed.Load() {
				return 0, c.ioErr("read", syscall.ESHUTDOWN)
			}
			return 0, io.EOF
		}
		return n, nil
	}
}

func (c *blockingConn) Write(p []byte) (int, error) {
	done := 0
	for done < len(p) {
		n, err := syscall.Write(c.fd, p[done:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return done, c.ioErr("write", err)
		}
		done += n
	}
	return done, nil
}

func (c *blockingConn) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed.Swap(true) {
		return nil
	}
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
	// Shutdown wakes a call blocked on the socket; close alone would not.
	_ = syscall.Shutdown(c.fd, syscall.SHUT_RDWR)
	return syscall.Close(c.fd)
}

// expireLocked shuts the socket down at its deadline; c.mu is held, so the
// descriptor is still ours.
func (c *blockingConn) expireLocked() {
	if c.closed.Load() {
		return
	}
	c.timedOut.Store(true)
	_ = syscall.Shutdown(c.fd, syscall.SHUT_RDWR)
}

// SetDeadline arms the shutdown of the socket at t; zero disarms it.
func (c *blockingConn) SetDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
	if t.IsZero() || c.closed.Load() {
		return nil
	}
	d := time.Until(t)
	if d <= 0 {
		c.expireLocked()
		return nil
	}
	c.timer = time.AfterFunc(d, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.expireLocked()
	})
	return nil
}

func (c *blockingConn) SetReadDeadline(t time.Time) error  { return c.SetDeadline(t) }
func (c *blockingConn) SetWriteDeadline(t time.Time) error { return c.SetDeadline(t) }
