package runner

import (
	"context"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/results"
	"github.com/mentat-spec/mentat-spec/engine/sampler"
)

// startSamplers starts the scenario's samplers; sql samplers each get a
// session of their own. Their rows go through the run's sink.
func (c *cell) startSamplers(ctx context.Context, sc *plan.Scenario) *sampler.Group {
	be := c.be
	env := sampler.Env{
		Open: func(ctx context.Context) (sampler.Querier, error) {
			s, err := be.Session(ctx)
			if err != nil {
				return nil, err
			}
			return &sessionQuerier{s: s}, nil
		},
		Emit: func(s results.Sample) {
			if err := c.run.sink.Emit(s); err != nil {
				c.run.logf("%s %s: sampler %s: %v", c.name(), sc.Name, s.Sampler, err)
			}
		},
	}
	names := make([]string, len(sc.Samplers))
	for i, s := range sc.Samplers {
		names[i] = s.Name
	}
	c.run.logf("%s %s: samplers %v every few seconds into %s/sampler-<name>.csv", c.name(), sc.Name, names, results.LogsDir)
	return sampler.Start(ctx, sc.Samplers, env)
}

// sessionQuerier runs a sampler's query on its own session.
type sessionQuerier struct{ s drivers.Session }

func (q *sessionQuerier) Query(ctx context.Context, sql string) ([]string, [][]any, error) {
	st, err := q.s.Prepare(ctx, sql)
	if err != nil {
		return nil, nil, err
	}
	defer st.Close()
	var rows [][]any
	if _, err := st.Query(ctx, nil, &rows); err != nil {
		return nil, nil, err
	}
	return columnsOf(st), rows, nil
}

func (q *sessionQuerier) Close() { q.s.Close() }
