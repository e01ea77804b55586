package pgwire

import (
	"runtime"
	"sync"

	"github.com/mentat-spec/mentat-spec/drivers"
)

// rawProcs keeps GOMAXPROCS above the number of open io = raw sessions:
// each holds a P while it waits for the server, and the process needs two
// more for everything else (the runner's watchdog and timers, cancel
// requests, the garbage collector). In a client process (a worker, see
// drivers.SetClientProcess) it keeps none: there everything else can wait
// for a session's next yield (rawYieldEvery), and an idle P would make
// each yield or preemption wake a second thread (at 32 workers on 2 cores,
// twice the client CPU per call of one process). The first session saves
// GOMAXPROCS, each raises it as needed, and the last one to close
// restores it, unless someone else changed it meanwhile.
var rawProcs struct {
	sync.Mutex
	open  int
	saved int // GOMAXPROCS before the first session
	set   int // the value last set here; 0: none
}

// rawSpare is how many Ps beyond the raw sessions the process keeps.
const rawSpare = 2

// spareProcs is rawSpare, or none in a client process.
func spareProcs() int {
	if drivers.ClientProcess() {
		return 0
	}
	return rawSpare
}

// RawSessionOpened counts a session on a DialRaw connection as open,
// raising GOMAXPROCS as rawProcs says. Every call is paired with a
// RawSessionClosed when the session ends.
func RawSessionOpened() {
	p := &rawProcs
	p.Lock()
	defer p.Unlock()
	cur := runtime.GOMAXPROCS(0)
	if p.open == 0 {
		p.saved, p.set = cur, 0
	}
	p.open++
	if want := p.open + spareProcs(); want > cur {
		runtime.GOMAXPROCS(want)
		p.set = want
	}
}

// RawSessionClosed counts a session of RawSessionOpened as closed; the
// last one restores GOMAXPROCS.
func RawSessionClosed() {
	p := &rawProcs
	p.Lock()
	defer p.Unlock()
	if p.open == 0 {
		return
	}
	p.open--
	if p.open == 0 && p.set != 0 && runtime.GOMAXPROCS(0) == p.set {
		runtime.GOMAXPROCS(p.saved)
		p.set = 0
	}
}
