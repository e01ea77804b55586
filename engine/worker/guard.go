package worker

import (
	"fmt"
	"net"
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
