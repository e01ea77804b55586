package pgwire

import (
	"context"
	"io"
	"net"
	"os"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// autoConn waits for the server's reply in the kernel (ppoll, then read)
// while the backend has no more sessions than cores, and through Go's
// network poller beyond. Few clients gain most from the kernel wait: no
// poller round, no goroutine park and wake-up on another thread. Many
// clients do better with the poller, which serves them on few threads.
// The socket stays Go's, so deadlines and Close behave as usual.
type autoConn struct {
	net.Conn
	raw      syscall.RawConn
	few      func() bool
	deadline atomic.Int64 // read deadline in Unix nanoseconds; 0: none
	closed   atomic.Bool
}

// pollSlice bounds one kernel wait, so a new deadline or a Close is seen
// soon even while a long statement runs.
const pollSlice = 20 * time.Millisecond

// DialAuto returns a pgconn.DialFunc for io = auto: its connections wait
// in the kernel while few reports true (the backend has no more sessions
// than cores) and through Go's network poller otherwise.
func DialAuto(few func() bool) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, raw, err := dialSocket(ctx, network, addr)
		if err != nil || raw == nil {
			return c, err
		}
		return &autoConn{Conn: c, raw: raw, few: few}, nil
	}
}

func (c *autoConn) Read(p []byte) (int, error) {
	if len(p) == 0 || !c.few() {
		return c.Conn.Read(p)
	}
	var n int
	var err error
	rerr := c.raw.Read(func(fd uintptr) bool {
		for {
			n, err = syscall.Read(int(fd), p)
			if err == syscall.EINTR {
				continue
			}
			if err != syscall.EAGAIN {
				return true
			}
			wait := pollSlice
			if dl := c.deadline.Load(); dl != 0 {
				left := time.Until(time.Unix(0, dl))
				if left <= 0 {
					err = os.ErrDeadlineExceeded
					return true
				}
				wait = min(wait, left)
			}
			if c.closed.Load() {
				err = net.ErrClosed
				return true
			}
			if perr := ppollIn(int(fd), wait); perr != nil && perr != syscall.EINTR {
				err = perr
				return true
			}
		}
	})
	if rerr != nil {
		return 0, rerr
	}
	if err != nil {
		return 0, &net.OpError{Op: "read", Net: c.RemoteAddr().Network(), Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

func (c *autoConn) Close() error {
	c.closed.Store(true)
	return c.Conn.Close()
}

func (c *autoConn) SetDeadline(t time.Time) error {
	c.setReadDeadline(t)
	return c.Conn.SetDeadline(t)
}

func (c *autoConn) SetReadDeadline(t time.Time) error {
	c.setReadDeadline(t)
	return c.Conn.SetReadDeadline(t)
}

func (c *autoConn) setReadDeadline(t time.Time) {
	if t.IsZero() {
		c.deadline.Store(0)
		return
	}
	c.deadline.Store(t.UnixNano())
}

// ppollIn waits up to d for fd to be readable.
func ppollIn(fd int, d time.Duration) error {
	pfd := struct {
		fd      int32
		events  int16
		revents int16
	}{fd: int32(fd), events: 0x1} // POLLIN
	ts := syscall.NsecToTimespec(int64(d))
	_, _, e := syscall.Syscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&pfd)), 1, uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}
