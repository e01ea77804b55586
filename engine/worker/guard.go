package worker

import (
	"fmt"
	"io"
	"net"
	"sync"
	"time"
)

// What the coordinator's port does about connections that are not the
// run's workers: it makes room for real workers among idle strangers,
// and it keeps its refusal log to a few lines per address.

const (
	// authLogBurst is how many refusals of one address are logged one
	// by one; past it they are counted and summarised.
	authLogBurst = 5
	// authLogEvery is how often, at most, an address's summary is
	// logged while its refusals go on.
	authLogEvery = time.Minute
	// authLogHosts bounds the addresses tracked; refusals from more are
	// summarised together.
	authLogHosts = 256
	// otherHosts names the addresses past authLogHosts.
	otherHosts = "other addresses"
)

// refusalLog decides which refusals are written one by one and which
// are summarised: a worker with the wrong secret that dials in a loop, or
// a flood, must not grow the log without bound.
type refusalLog struct {
	hosts map[string]*hostRefusals
}

type hostRefusals struct {
	logged     int // one by one
	suppressed int64
	since      time.Time // the first suppressed since the last summary
	next       time.Time // no summary before this
	last       error
}

func hostOf(remote string) string {
	if h, _, err := net.SplitHostPort(remote); err == nil {
		return h
	}
	return remote
}

// admit returns what to log for one refusal: itself, a summary of the
// refusals of its address since the last line, or nothing.
func (r *refusalLog) admit(ae *AuthError, now time.Time) *AuthError {
	if r.hosts == nil {
		r.hosts = map[string]*hostRefusals{}
	}
	host := hostOf(ae.Remote)
	h := r.hosts[host]
	if h == nil {
		if len(r.hosts) >= authLogHosts {
			host = otherHosts
			h = r.hosts[host]
		}
		if h == nil {
			h = &hostRefusals{}
			r.hosts[host] = h
		}
	}
	if h.logged < authLogBurst && host != otherHosts {
		h.logged++
		return ae
	}
	if h.suppressed == 0 {
		h.since = now
		if h.next.IsZero() {
			h.next = now.Add(authLogEvery)
		}
	}
	h.suppressed++
	h.last = ae.Err
	if now.Before(h.next) {
		return nil
	}
	h.next = now.Add(authLogEvery)
	return h.summary(host)
}

// summary is the line for an address's suppressed refusals, which it
// resets; nil when there are none.
func (h *hostRefusals) summary(host string) *AuthError {
	if h.suppressed == 0 {
		return nil
	}
	s := &AuthError{Remote: host, Err: fmt.Errorf("%d more refusal(s) since %s, counted and not logged one by one; the last: %w",
		h.suppressed, h.since.UTC().Format(time.RFC3339), h.last)}
	h.suppressed = 0
	return s
}

// flush returns the summaries not yet logged (the run ends).
func (r *refusalLog) flush() []*AuthError {
	var out []*AuthError
	for host, h := range r.hosts {
		if s := h.summary(host); s != nil {
			out = append(out, s)
		}
	}
	return out
}

const (
	// maxSilent bounds the connections accepted that have sent nothing
	// yet; past it the oldest is closed.
	maxSilent = 256
	// silentTimeout is how long a connection may stay silent.
	silentTimeout = 5 * time.Second
)

// firstByte waits up to silentTimeout for nc's first byte and returns a
// connection that reads it again.
func firstByte(nc net.Conn) (net.Conn, error) {
	_ = nc.SetReadDeadline(time.Now().Add(silentTimeout))
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

// evictAge is how long a connection must have been authenticating
// before a new one may take its place: far longer than a worker's
// handshake (a few round trips), so a connection is closed this way only
// when it has been idle, never in the middle of a worker's proof.
const evictAge = time.Second

// pendingConns are the connections authenticating at once. When the
// limit is reached the oldest one, if it has been authenticating for
// evictAge, is closed to make room for the new one; otherwise the new
// one is refused (a looping worker tries again). Connections opened and
// left idle (a stranger holding the port) cannot then keep the run's
// own workers out for the authentication timeout.
//
// Connections that have not sent a byte yet are kept apart (silent, its
// own pendingConns with no minimum age and maxSilent places): a worker
// sends its TLS hello as soon as it connects, so idle connections, held
// or reopened as fast as they close, only ever push out each other.
type pendingConns struct {
	minAge  time.Duration // the oldest is closed for a new one only past this age
	mu      sync.Mutex
	conns   map[net.Conn]time.Time
	evicted map[net.Conn]bool
}

// admit adds nc and returns true, or false when limit connections are
// in and none of them is evictable. With limit connections in, it
// removes the oldest, which the caller closes (oldest is nil when there
// was room).
func (p *pendingConns) admit(nc net.Conn, now time.Time, limit int) (ok bool, oldest net.Conn, age time.Duration) {
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
		if age = now.Sub(at); age < p.minAge {
			return false, nil, 0
		}
		delete(p.conns, oldest)
		p.evicted[oldest] = true
	}
	p.conns[nc] = now
	return true, oldest, age
}

// done removes nc once its authentication ended, and says whether it
// was closed to make room (its failure is then already logged).
func (p *pendingConns) done(nc net.Conn) (evicted bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.conns, nc)
	evicted = p.evicted[nc]
	delete(p.evicted, nc)
	return evicted
}
