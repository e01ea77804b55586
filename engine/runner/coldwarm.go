package runner

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/measure"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// hookTimeout bounds a restart or drop_caches command.
const hookTimeout = 5 * time.Minute

// runHook runs one of the backend's commands (restart, drop_caches),
// logging its output. An empty command does nothing.
func (c *cell) runHook(ctx context.Context, name string, argv []string) error {
	if len(argv) == 0 {
		return nil
	}
	hctx, cancel := context.WithTimeout(ctx, hookTimeout)
	defer cancel()
	start := time.Now()
	out, err := exec.CommandContext(hctx, argv[0], argv[1:]...).CombinedOutput()
	if w, lerr := c.run.dir.Log("hooks"); lerr == nil {
		fmt.Fprintf(w, "%s %s %s: %s (%s, err=%v)\n%s\n", time.Now().UTC().Format(time.RFC3339), c.name(), name,
			strings.Join(argv, " "), time.Since(start).Round(time.Millisecond), err, out)
		w.Close()
	}
	if err != nil {
		return fmt.Errorf("%s command %q: %w: %s", name, strings.Join(argv, " "), err, strings.TrimSpace(lastLine(string(out))))
	}
	return nil
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// coldWarm closes every connection and the backend, runs the restart and
// drop_caches commands, reopens the store (timed as op "open"), then times
// each query's first call (cold_<query>) and the next WarmCalls calls
// (warm_<query>) on the same connection.
func (c *cell) coldWarm(ctx context.Context, sc *config.Scenario, samp measure.Sampling) {
	bc := c.cp.Backend
	c.admin.Close()
	c.be.Close()
	hookErr := c.runHook(ctx, "restart", bc.Restart)
	if hookErr == nil {
		hookErr = c.runHook(ctx, "drop_caches", bc.DropCaches)
	}
	start := time.Now()
	c.be, c.admin = nil, nil
	be, err := c.drv.Open(ctx, c.cfg)
	if err == nil {
		c.be = be
		c.admin, err = c.be.Session(ctx)
	}
	if err != nil {
		// Nothing more can run on this cell.
		if c.be != nil && be != nil {
			c.be.Close()
		}
		c.be, c.admin = nil, nil
		c.broken = fmt.Errorf("%s: reopening the store after the restart: %w", sc.Name, err)
		return
	}
	open := time.Since(start)
	if hookErr != nil {
		c.run.fail("%s %s: %v", c.name(), sc.Name, hookErr)
		return
	}
	c.writeRow(results.CeilingRow(c.rowBase(sc.Name), 1, open), "open")
	seen := map[string]bool{}
	for _, st := range sc.Streams {
		for _, qn := range st.MixNames {
			if seen[qn] {
				continue
			}
			seen[qn] = true
			if err := c.coldWarmQuery(ctx, sc, samp, qn); err != nil {
				c.run.fail("%s %s %s: %v", c.name(), sc.Name, qn, err)
			}
		}
	}
}

func (c *cell) coldWarmQuery(ctx context.Context, sc *config.Scenario, samp measure.Sampling, qn string) error {
	cl, err := c.openClient(ctx, []string{qn}, 0, c.sp.Gen.Seed)
	if err != nil {
		return err
	}
	defer cl.close()
	elapsed, exceeded, err := measure.Probe(ctx, cl.call, samp.Probe)
	cold := results.CeilingRow(c.rowBase(sc.Name), 1, elapsed)
	switch {
	case exceeded:
		c.writeRow(cold, "ceiling")
		return nil
	case err != nil:
		cold.Count, cold.Errors = 0, 1
		c.writeRow(cold, "cold_"+qn)
		return err
	}
	c.writeRow(cold, "cold_"+qn)
	warm := samp
	warm.Warmup, warm.MinDuration, warm.MinSamples = 0, 0, sc.WarmCalls
	res, err := measure.RunPoint(ctx, warm, []measure.Stream{{Op: "warm_" + qn, Calls: []measure.Call{cl.call}}})
	if err != nil {
		return err
	}
	row := results.FromResult(c.rowBase(sc.Name), res[0])
	row.Rep, row.Reps = 1, 1
	c.writeRow(row, row.Op)
	if res[0].Errors > 0 {
		c.logError(sc.Name, res[0])
	}
	return nil
}

// writeRow writes a one-rep row as op to raw.csv and timings.csv.
func (c *cell) writeRow(row results.Row, op string) {
	row.Op = op
	if err := c.run.dir.AppendRaw(row); err != nil {
		c.run.fail("writing raw.csv: %v", err)
	}
	if err := c.run.dir.AppendTiming(row); err != nil {
		c.run.fail("writing timings.csv: %v", err)
	}
	c.run.out.Rows = append(c.run.out.Rows, row)
	c.run.logf("%s %-16s %-14s p50 %8.3f ms  n %d", c.name(), row.Scenario, row.Op, row.P50Ms, row.Count)
}
