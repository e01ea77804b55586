// Package gather collects, around each point a cell measures, what the
// database says it did: its statement statistics into logs/, its
// evidence and the point's latency split (evidence.csv, split.csv), and
// over the whole cell the server's log lines. Nothing it does runs inside
// the timed calls. It knows no plan and no scenario kind: the runner
// hands it the point's names and the cell's store.
package gather

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/host"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// topStatements is how many statements each point's statistics file keeps.
const topStatements = 20

// Cell gathers around the points of one (scale, backend) cell.
type Cell struct {
	Name, Scale, Backend string // the cell's name in logs, its scale and backend
	// Store is the cell's store now: a restart reopens it.
	Store func() drivers.Backend
	Dir   *results.Dir
	Emit  func(results.Record)
	Logf  func(format string, args ...any)
	Fail  func(format string, args ...any) // the results directory failed
	Tap   *Tap                             // the run's raw rows

	floorDone    bool
	floor        time.Duration   // the round-trip floor; negative when unknown
	noted        map[string]bool // unavailability already logged
	statsErr     error           // why the server keeps no statement statistics
	serverLogErr error           // why the server's log is not copied into logs/

	openMu sync.Mutex
	open   []*stretch // the stretches under way, innermost last
}

// Point is one point, or one rep of it, as the files name it.
type Point struct {
	Scenario string
	Index    int // in the scenario's points, from 0
	Rep      int // 0: all its reps
	Describe string
	Evidence bool // the scenario's sampling asks for evidence
}

// Facts returns what the backend reports of itself beyond the
// spec's settings (EnvReporter) and whether its server log is kept, each
// under prefix; a fact that cannot be read says why.
func (c *Cell) Facts(ctx context.Context, prefix string) []results.KV {
	var kv []results.KV
	if r, ok := c.Store().(drivers.EnvReporter); ok {
		facts, err := r.EnvFacts(ctx)
		if err != nil {
			kv = append(kv, results.KV{Key: prefix + "facts", Value: "unknown (" + err.Error() + ")"})
		}
		for _, f := range facts {
			kv = append(kv, results.KV{Key: prefix + f.Key, Value: f.Value})
		}
	}
	if _, ok := c.Store().(drivers.StatementStats); ok {
		kv = append(kv, results.KV{Key: prefix + "statement_stats", Value: c.statsNote()})
	}
	if _, ok := c.Store().(drivers.ServerLog); ok {
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
func (c *Cell) statsNote() string {
	if c.statsErr != nil {
		return "SKIP (" + c.statsErr.Error() + ")"
	}
	return fmt.Sprintf("logs/statements-%s-%s-<scenario>-<point>.log per point (top %d by total time)",
		c.Scale, c.Backend, topStatements)
}

// ProbeStats learns, before any point runs, whether the server keeps
// statement statistics.
func (c *Cell) ProbeStats(ctx context.Context) {
	if ss, ok := c.Store().(drivers.StatementStats); ok {
		c.statsErr = ss.ResetStatementStats(ctx)
	}
}

// Around runs fn, point p, between a reset of the server's statement
// statistics and a snapshot of them appended to the point's file in
// logs/, with the point's evidence collected around it.
func (c *Cell) Around(ctx context.Context, p Point, fn func() error) error {
	fn = c.withEvidence(ctx, p, fn)
	what := ""
	if p.Rep > 0 {
		what = fmt.Sprintf(" rep %d", p.Rep)
	}
	ss, ok := c.Store().(drivers.StatementStats)
	if !ok || c.statsErr != nil {
		return fn()
	}
	if err := ss.ResetStatementStats(ctx); err != nil {
		c.Logf("%s %s: resetting statement statistics: %v", c.Name, p.Scenario, err)
	}
	start := time.Now().UTC()
	err := fn()
	name := fmt.Sprintf("statements-%s-%s-%s-%02d", c.Scale, c.Backend, p.Scenario, p.Index+1)
	text, serr := ss.TopStatements(context.WithoutCancel(ctx), topStatements)
	w, werr := c.Dir.Log(name)
	if werr != nil {
		c.Fail("%s %s: %v", c.Name, p.Scenario, werr)
		return err
	}
	defer w.Close()
	fmt.Fprintf(w, "# %s %s point %d%s: %s\n# from %s to %s\n", c.Name, p.Scenario, p.Index+1, what, p.Describe,
		start.Format(time.RFC3339), time.Now().UTC().Format(time.RFC3339))
	if serr != nil {
		fmt.Fprintf(w, "unknown (%v)\n", serr)
	} else {
		io.WriteString(w, text)
	}
	return err
}

func (c *Cell) serverLogName() string {
	return fmt.Sprintf("server-%s-%s", c.Scale, c.Backend)
}

// FollowServerLog remembers where the server's log ends now; the returned
// function copies what the server logged since into logs/. A server that
// is not local, or whose log is not readable, leaves the reason in
// serverLogErr (Facts' server_log line).
func (c *Cell) FollowServerLog(ctx context.Context) func() {
	sl, ok := c.Store().(drivers.ServerLog)
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
		w, err := c.Dir.Log(c.serverLogName())
		if err != nil {
			c.Logf("%s: server log: %v", c.Name, err)
			_ = since(io.Discard)
			return
		}
		defer w.Close()
		fmt.Fprintf(w, "# %s: the server's log lines during this cell, from %s\n", c.Name, path)
		if err := since(w); err != nil {
			c.Logf("%s: server log: %v", c.Name, err)
		}
	}
}
