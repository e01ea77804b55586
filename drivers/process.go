package drivers

import "sync/atomic"

var clientProcess atomic.Bool

// SetClientProcess says whether this process runs benchmark clients and
// nothing that must run while they wait: a worker of apply, whose
// coordinator keeps the run's clock. A driver whose sessions keep their
// thread while the server answers may then give the sessions the whole
// process: the worker's controller, its coordinator's messages and the
// garbage collector run when a session next yields or is preempted (every
// few ms), instead of on spare processors whose idle presence makes each
// of those yields wake a second thread to take the session over.
func SetClientProcess(on bool) { clientProcess.Store(on) }

// ClientProcess reports what SetClientProcess said; false by default.
func ClientProcess() bool { return clientProcess.Load() }
