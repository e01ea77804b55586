package connadmit

import (
	"net"
	"testing"
	"time"
)

// Among connections that are authenticating, the oldest makes room for a
// new one only once it has been at it for EvictAge, far longer than a
// worker's proof takes: a worker is never cut off mid-handshake.
func TestPendingEvictOnlyIdle(t *testing.T) {
	p := &Pending{MinAge: EvictAge}
	conns := make([]net.Conn, 4)
	for i := range conns {
		a, b := net.Pipe()
		defer a.Close()
		defer b.Close()
		conns[i] = a
	}
	t0 := time.Now()
	for i, at := range []time.Duration{0, 100 * time.Millisecond} {
		if ok, old, _ := p.Admit(conns[i], t0.Add(at), 2); !ok || old != nil {
			t.Fatalf("admit %d: %v %v", i, ok, old)
		}
	}
	if ok, _, _ := p.Admit(conns[2], t0.Add(EvictAge/2), 2); ok {
		t.Error("a new connection pushed out one authenticating for less than EvictAge")
	}
	ok, old, age := p.Admit(conns[3], t0.Add(EvictAge+time.Millisecond), 2)
	if !ok || old != conns[0] || age <= EvictAge {
		t.Errorf("admit past EvictAge: %v, evicted the first %v, age %s", ok, old == conns[0], age)
	}
	if !p.Done(conns[0]) || p.Done(conns[1]) {
		t.Error("done does not say which was evicted")
	}
}
