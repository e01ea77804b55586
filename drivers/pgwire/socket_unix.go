//go:build unix

package pgwire

import (
	"context"
	"fmt"
	"net"
	"syscall"
)

// dialSocket dials like net.Dialer and returns the connection's
// syscall.RawConn too: nil for a connection that has none (not a socket),
// which the caller then uses as it is.
func dialSocket(ctx context.Context, network, addr string) (net.Conn, syscall.RawConn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, nil, err
	}
	sc, ok := c.(syscall.Conn)
	if !ok {
		return c, nil, nil
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		c.Close()
		return nil, nil, err
	}
	return c, raw, nil
}

// socket is a connected socket taken over from Go's network poller: a
// blocking descriptor of this package's own, and the connection's
// addresses.
type socket struct {
	fd            int
	local, remote net.Addr
}

func (s *socket) LocalAddr() net.Addr  { return s.local }
func (s *socket) RemoteAddr() net.Addr { return s.remote }

// takeOver dials like dialSocket, then takes the socket over: a blocking
// duplicate of its descriptor (close-on-exec), Go's own closed, which
// leaves the connection open on the duplicate. c is the connection as
// dialled when it is not a socket (nothing to take over). what names the
// transport in errors.
func takeOver(ctx context.Context, network, addr, what string) (s socket, c net.Conn, err error) {
	c, raw, err := dialSocket(ctx, network, addr)
	if err != nil || raw == nil {
		return socket{fd: -1}, c, err
	}
	fd := -1
	var dupErr error
	if err := raw.Control(func(s uintptr) { fd, dupErr = dupCloexec(int(s)) }); err != nil {
		c.Close()
		return socket{fd: -1}, nil, fmt.Errorf("%s socket: %w", what, err)
	}
	if dupErr != nil {
		c.Close()
		return socket{fd: -1}, nil, fmt.Errorf("%s socket: dup: %w", what, dupErr)
	}
	s = socket{fd: fd, local: c.LocalAddr(), remote: c.RemoteAddr()}
	c.Close()
	if err := syscall.SetNonblock(fd, false); err != nil {
		syscall.Close(fd)
		return socket{fd: -1}, nil, fmt.Errorf("%s socket: %w", what, err)
	}
	return s, nil, nil
}

func dupCloexec(fd int) (int, error) {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	nfd, err := syscall.Dup(fd)
	if err != nil {
		return -1, err
	}
	syscall.CloseOnExec(nfd)
	return nfd, nil
}
