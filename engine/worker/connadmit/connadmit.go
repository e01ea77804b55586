// Package connadmit is how a coordinator's port admits connections
// before they authenticate: the silent ones and those authenticating are
// bounded apart, and the oldest idle one makes room for a new one, so
// strangers holding the port cannot keep the run's workers out.
package connadmit

import (
	"io"
	"net"
	"sync"
	"time"
)

const (
	// MaxSilent bounds the connections accepted that have sent nothing
	// yet; past it the oldest is closed.
	MaxSilent = 256
	// SilentTimeout is how long a connection may stay silent.
	SilentTimeout = 5 * time.Second
)

// FirstByte waits up to SilentTimeout for nc's first byte and returns a
// connection that reads it again.
func FirstByte(nc net.Conn) (net.Conn, error) {
	_ = nc.SetReadDeadline(time.Now().Add(SilentTimeout))
	b := make([]byte, 1)
	if _, err := io.ReadFull(nc, b); err != nil {
		return nil, err
	}
	_ = nc.SetReadDeadline(time.Time{})
	return &prefixConn{Conn: nc, first: b}, nil
}

// prefixConn is a connection whose first bytes were read already.
type prefixConn struct {
	net.Conn
	first []byte
}

func (c *prefixConn) Read(p []byte) (int, error) {
	if len(c.first) > 0 {
		n := copy(p, c.first)
		c.first = c.first[n:]
		return n, nil
	}
	return c.Conn.Read(p)
}

// EvictAge is how long a connection must have been authenticating
// before a new one may take its place: far longer than a worker's
// handshake (a few round trips), so a connection is closed this way only
// when it has been idle, never in the middle of a worker's proof.
const EvictAge = time.Second

// Pending are the connections authenticating at once. When the
// limit is reached the oldest one, if it has been authenticating for
// EvictAge, is closed to make room for the new one; otherwise the new
// one is refused (a looping worker tries again). Connections opened and
// left idle (a stranger holding the port) cannot then keep the run's
// own workers out for the authentication timeout.
//
// Connections that have not sent a byte yet are kept apart (silent, its
// own Pending with no minimum age and MaxSilent places): a worker
// sends its TLS hello as soon as it connects, so idle connections, held
// or reopened as fast as they close, only ever push out each other.
type Pending struct {
	MinAge  time.Duration // the oldest is closed for a new one only past this age
	mu      sync.Mutex
	conns   map[net.Conn]time.Time
	evicted map[net.Conn]bool
}

// Admit adds nc and returns true, or false when limit connections are
// in and none of them is evictable. With limit connections in, it
// removes the oldest, which the caller closes (oldest is nil when there
// was room).
func (p *Pending) Admit(nc net.Conn, now time.Time, limit int) (ok bool, oldest net.Conn, age time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conns == nil {
		p.conns, p.evicted = map[net.Conn]time.Time{}, map[net.Conn]bool{}
	}
	if len(p.conns) >= limit {
		var at time.Time
		for c, t := range p.conns {
			if oldest == nil || t.Before(at) {
				oldest, at = c, t
			}
		}
		if age = now.Sub(at); age < p.MinAge {
			return false, nil, 0
		}
		delete(p.conns, oldest)
		p.evicted[oldest] = true
	}
	p.conns[nc] = now
	return true, oldest, age
}

// Done removes nc once its authentication ended, and says whether it
// was closed to make room (its failure is then already logged).
func (p *Pending) Done(nc net.Conn) (evicted bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.conns, nc)
	evicted = p.evicted[nc]
	delete(p.evicted, nc)
	return evicted
}
