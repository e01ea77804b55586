package runner

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/host"
	"github.com/mentat-spec/mentat-spec/engine/kind"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// topStatements is how many statements each point's statistics file keeps.
const topStatements = 20

// backendFacts returns what the backend reports of itself beyond the
// spec's settings (EnvReporter) and whether its server log is kept, each
// under prefix; a fact that cannot be read says why.
func (c *cell) backendFacts(ctx context.Context, prefix string) []results.KV {
	var kv []results.KV
	if r, ok := c.be.(drivers.EnvReporter); ok {
		facts, err := r.EnvFacts(ctx)
		if err != nil {
			kv = append(kv, results.KV{Key: prefix + "facts", Value: "unknown (" + err.Error() + ")"})
		}
		for _, f := range facts {
			kv = append(kv, results.KV{Key: prefix + f.Key, Value: f.Value})
		}
	}
	if _, ok := c.be.(drivers.StatementStats); ok {
		kv = append(kv, results.KV{Key: prefix + "statement_stats", Value: c.statsNote()})
	}
	if _, ok := c.be.(drivers.ServerLog); ok {
		v := "logs/" + c.serverLogName() + ".log"
		if c.serverLogErr != nil {
			v = "unknown (" + c.serverLogErr.Error() + ")"
		}
		kv = append(kv, results.KV{Key: prefix + "server_log", Value: v})
	}
	return kv
}

// statsNote says where the per-point statement statistics go, or why
// there are none.
func (c *cell) statsNote() string {
	if c.statsErr != nil {
		return "SKIP (" + c.statsErr.Error() + ")"
	}
	return fmt.Sprintf("logs/statements-%s-%s-<scenario>-<point>.log per point (top %d by total time)",
		c.pc.Scale.Name, c.pc.Backend.Name, topStatements)
}

// probeStats learns, before any point runs, whether the server keeps
// statement statistics.
func (c *cell) probeStats(ctx context.Context) {
	if ss, ok := c.be.(drivers.StatementStats); ok {
		c.statsErr = ss.ResetStatementStats(ctx)
	}
}

// runPoint runs one point between a reset of the server's statement
// statistics and a snapshot of them into logs/, so a slow point can be
// explained from the server's side.
func (c *cell) runPoint(ctx context.Context, sc *plan.Scenario, i int, pt kind.Point, env kind.Env) error {
	return c.withStatementStats(ctx, sc, i, 0, pt, func() error {
		if rp, ok := pt.(kind.Repeatable); ok {
			// Between reps, a threshold with abort may end the scenario.
			return kind.RunRepsWhile(ctx, rp.Reps(env), func() bool { return !c.aborted(sc) })
		}
		return pt.Run(ctx, env)
	})
}

// withStatementStats runs fn, point number i of sc (or its rep, 0 for
// all), between a reset of the server's statement statistics and a
// snapshot of them appended to the point's file in logs/, with the
// point's evidence collected around it.
func (c *cell) withStatementStats(ctx context.Context, sc *plan.Scenario, i, rep int, pt kind.Point, fn func() error) error {
	fn = c.withEvidence(ctx, sc, i, rep, fn)
	what := ""
	if rep > 0 {
		what = fmt.Sprintf(" rep %d", rep)
	}
	ss, ok := c.be.(drivers.StatementStats)
	if !ok || c.statsErr != nil {
		return fn()
	}
	if err := ss.ResetStatementStats(ctx); err != nil {
		c.run.logf("%s %s: resetting statement statistics: %v", c.name(), sc.Name, err)
	}
	start := time.Now().UTC()
	err := fn()
	name := fmt.Sprintf("statements-%s-%s-%s-%02d", c.pc.Scale.Name, c.pc.Backend.Name, sc.Name, i+1)
	text, serr := ss.TopStatements(context.WithoutCancel(ctx), topStatements)
	w, werr := c.run.dir.Log(name)
	if werr != nil {
		c.run.fail("%s %s: %v", c.name(), sc.Name, werr)
		return err
	}
	defer w.Close()
	fmt.Fprintf(w, "# %s %s point %d%s: %s\n# from %s to %s\n", c.name(), sc.Name, i+1, what, pt.Describe(),
		start.Format(time.RFC3339), time.Now().UTC().Format(time.RFC3339))
	if serr != nil {
		fmt.Fprintf(w, "unknown (%v)\n", serr)
	} else {
		io.WriteString(w, text)
	}
	return err
}

func (c *cell) serverLogName() string {
	return fmt.Sprintf("server-%s-%s", c.pc.Scale.Name, c.pc.Backend.Name)
}

// followServerLog remembers where the server's log ends now; the returned
// function copies what the server logged since into logs/. A server that
// is not local, or whose log is not readable, leaves the reason in
// serverLogErr (env.txt's server_log line).
func (c *cell) followServerLog(ctx context.Context) func() {
	sl, ok := c.be.(drivers.ServerLog)
	if !ok {
		return func() {}
	}
	path, err := sl.ServerLogPath(ctx)
	var since func(io.Writer) error
	if err == nil {
		if since, err = host.FollowFile(path); err != nil {
			err = fmt.Errorf("the server log is not readable from here: %v", err)
		}
	}
	if err != nil {
		c.serverLogErr = err
		return func() {}
	}
	return func() {
		w, err := c.run.dir.Log(c.serverLogName())
		if err != nil {
			c.run.logf("%s: server log: %v", c.name(), err)
			_ = since(io.Discard)
			return
		}
		defer w.Close()
		fmt.Fprintf(w, "# %s: the server's log lines during this cell, from %s\n", c.name(), path)
		if err := since(w); err != nil {
			c.run.logf("%s: server log: %v", c.name(), err)
		}
	}
}
