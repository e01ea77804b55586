package kind

import (
	"context"
	"errors"

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
	// spawn and connection time stays out of every measured window. samp
	// is how the point samples (write_mixed: its fixed duration).
	//
	// A backend whose database takes one writing process (DuckDB) refuses
	// the workers of a scenario that writes with ErrOneWritingProcess.
	StartWorkers(ctx context.Context, index int, describe string, samp measure.Sampling, streams []WorkerStream) (Workers, error)
	// StartTimedWorkers starts the workers of a timed point (sustained,
	// open_loop) as StartWorkers does: each will run t over its shard,
	// an open-loop stream's Rate split over the workers in proportion to
	// their share of its clients. It refuses as StartWorkers does.
	StartTimedWorkers(ctx context.Context, index int, describe string, t measure.Timed, streams []WorkerStream) (TimedWorkers, error)
}

// TimedWorkers are the started workers of one timed point.
type TimedWorkers interface {
	// Run measures the point: every worker warms up, they start
	// together and each stops by itself at the duration. onWindow gets
	// window k merged over the workers (histograms merged, counts
	// summed, the streams' declared rates) as soon as every live worker
	// closed it; Run returns the totals per stream. A worker lost mid-run
	// leaves the others running; its share of the windows from then on
	// and of the totals is an error, and Run returns an error as well.
	Run(ctx context.Context, onWindow func([]measure.Window)) ([]measure.Result, error)
	Close() error
}

// ErrOneWritingProcess is StartWorkers' refusal on a database that takes
// one writing process while the scenario writes: its clients then run
// in this process.
var ErrOneWritingProcess = errors.New("the database allows one writing process: a scenario that writes runs its clients in this process")

// WorkerRunner is implemented by the Definitions of kinds whose points
// run their clients in worker processes when the backend's client model
// asks for it. The points of other kinds run their clients as goroutines
// of the coordinator whatever the model; plan says so.
type WorkerRunner interface {
	RunsInWorkers() bool
}

// WorkerNoter is implemented by WorkerRunners that run only some of
// their clients in workers: plan prints the note under the scenario.
type WorkerNoter interface {
	WorkersNote() string
}

// WorkerStream is one stream of a point run by workers.
type WorkerStream struct {
	Op      string
	Mix     []string
	Ops     []Operation // a stream of operations (reads only in workers)
	Seed    uint64      // the stream's seed, as OpenClient takes it
	Clients int
	// Rate (timed points, open loop): the stream's declared calls per
	// second over all its clients; 0 is closed loop.
	Rate float64
}

// Workers are the started workers of one point.
type Workers interface {
	// Rep measures one repetition across every worker: one Result per
	// stream, with percentiles from the merged histograms. A worker lost
	// mid-repetition returns the results with its share counted as an
	// error, and an error; no further Rep is possible.
	Rep(ctx context.Context) ([]measure.Result, error)
	// RepAlong is Rep with clients of this process measured in the same
	// window (write_mixed's writer next to reader processes).
	RepAlong(ctx context.Context, along Along) ([]measure.Result, error)
	Close() error
}

// Along ties clients of this process to a repetition of the workers:
// the workers start once Ready is closed (this process's clients are
// warmed up too), Started is called when they start measuring and
// Stopping when the coordinator stops them. Zero fields are skipped.
type Along struct {
	Ready    <-chan struct{}
	Started  func()
	Stopping func()
}
