package kind

import (
	"context"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

// Stretches is implemented by an Env whose cell can collect the
// database's evidence over a stretch of a point: one window of timed
// calls (a capacity probe) among several, so that what the database
// said is known per window and not only over the whole point.
type Stretches interface {
	// Stretch runs fn, which makes the stretch's timed calls and returns
	// their rows (scenario, backend and scale set, as Row gives them),
	// between a start and a stop of the database's evidence collector:
	// neither is inside fn's timed calls. It returns the stretch's
	// evidence (none when the scenario samples no evidence) and fn's
	// error.
	Stretch(ctx context.Context, fn func() ([]results.Row, error)) (Evidence, error)
}

// Evidence is what the database said over a stretch: its facts and,
// from the stretch's rows, where its latency went (nil when it made no
// call). Point and Rep of both are 0: the kind keys them as it names
// its stretches.
type Evidence struct {
	Facts []results.EvidenceRow
	Split *results.SplitRow
}

// Stretch runs fn as a stretch of env's point with its evidence when
// env can collect it; otherwise it just runs fn.
func Stretch(ctx context.Context, env Env, fn func() ([]results.Row, error)) (Evidence, error) {
	if s, ok := env.(Stretches); ok {
		return s.Stretch(ctx, fn)
	}
	_, err := fn()
	return Evidence{}, err
}
