package kind

import (
	"context"

	"github.com/mentat-spec/mentat-spec/engine/measure"
)

// WorkerEnv is the Env of a backend whose clients run in worker
// processes (client models "process" and processes = N). A kind that
// runs clients asks for it with a type assertion; the Env of a backend
// whose clients are goroutines does not implement it.
type WorkerEnv interface {
	Env
	// StartWorkers starts the workers of point number index (in the
	// scenario's order, as describe says it), opens their share of the
	// streams' clients and warms nothing up yet: each Rep does. The
	// spawn and connection time stays out of every measured window.
	StartWorkers(ctx context.Context, index int, describe string, streams []WorkerStream) (Workers, error)
}

// WorkerRunner is implemented by the Definitions of kinds whose points
// run their clients in worker processes when the backend's client model
// asks for it. The points of other kinds run their clients as goroutines
// of the coordinator whatever the model; plan says so.
type WorkerRunner interface {
	RunsInWorkers() bool
}

// WorkerStream is one stream of a point run by workers.
type WorkerStream struct {
	Op      string
	Mix     []string
	Seed    uint64 // the stream's seed, as OpenClient takes it
	Clients int
}

// Workers are the started workers of one point.
type Workers interface {
	// Rep measures one repetition across every worker: one Result per
	// stream, with percentiles from the merged histograms. A worker lost
	// mid-repetition returns the results with its share counted as an
	// error, and an error; no further Rep is possible.
	Rep(ctx context.Context) ([]measure.Result, error)
	Close() error
}
