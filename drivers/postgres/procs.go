package postgres

import (
	"runtime"
	"sync"
)

// rawProcs keeps GOMAXPROCS above the number of open io = raw sessions:
// each holds a P while it waits for the server, and the process needs two
// more for everything else (the runner's watchdog and timers, cancel
// requests, the garbage collector). The first session saves GOMAXPROCS,
// each raises it as needed, and the last one to close restores it, unless
// someone else changed it meanwhile.
var rawProcs struct {
	sync.Mutex
	open  int
	saved int // GOMAXPROCS before the first session
	set   int // the value last set here; 0: none
}

// rawSpare is how many Ps beyond the raw sessions the process keeps.
const rawSpare = 2

func rawSessionOpened() {
	p := &rawProcs
	p.Lock()
	defer p.Unlock()
	cur := runtime.GOMAXPROCS(0)
	if p.open == 0 {
		p.saved, p.set = cur, 0
	}
	p.open++
	if want := p.open + rawSpare; want > cur {
		runtime.GOMAXPROCS(want)
		p.set = want
	}
}

func rawSessionClosed() {
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
