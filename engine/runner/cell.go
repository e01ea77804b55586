package runner

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/params"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/results"
	"github.com/mentat-spec/mentat-spec/engine/sqltext"
	"github.com/zclconf/go-cty/cty"
)

// cell runs one (scale, backend) point of the matrix.
type cell struct {
	run   *run
	sp    *plan.ScalePlan
	cp    *plan.CellPlan
	truth cty.Value

	drv     drivers.Driver
	cfg     drivers.Config
	be      drivers.Backend
	admin   drivers.Session
	queries map[string]*boundQuery
	broken  error // set when the store can no longer be reached
}

// boundQuery is a query resolved for this cell's dialect.
type boundQuery struct {
	name   string
	bound  sqltext.Bound
	values map[string]cty.Value
	binder *params.Binder
}

func (c *cell) name() string { return c.sp.Scale.Name + "/" + c.cp.Cell.Backend.Name }

func (c *cell) execute(ctx context.Context) error {
	bc := c.cp.Backend
	drv, ok := c.run.opts.Registry.Lookup(bc.Driver)
	if !ok {
		return fmt.Errorf("no driver %q", bc.Driver)
	}
	cfg := drivers.Config{Backend: bc.Name, Scale: c.sp.Scale.Name, DataDir: c.run.opts.DataDir, Options: bc.Options, Settings: bc.Settings}
	c.drv, c.cfg = drv, cfg
	be, err := drv.Open(ctx, cfg)
	if err != nil {
		return fmt.Errorf("opening the store: %w", err)
	}
	c.be = be
	defer func() {
		if c.be != nil {
			c.be.Close()
		}
	}()
	if c.admin, err = c.be.Session(ctx); err != nil {
		return fmt.Errorf("connecting: %w", err)
	}
	defer func() {
		if c.admin != nil {
			c.admin.Close()
		}
	}()

	ready, err := c.prepareStore(ctx, drv, cfg)
	if err != nil || !ready {
		return err
	}
	c.envLines(ctx)
	c.recordSize(ctx)
	if err := c.bindQueries(); err != nil {
		return err
	}
	c.explain(ctx)
	for _, sc := range c.cp.Scenarios {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if c.run.opts.Phase != PhaseLoad {
			c.measure(ctx, sc)
		}
		if c.broken != nil {
			return c.broken
		}
		c.check(ctx, sc.Scenario)
	}
	return nil
}

// prepareStore makes sure the store holds the dataset: it reuses a store
// an earlier run loaded with the same data, loads one the driver just
// created, and drops and reloads only stores this tool created. It reports
// whether scenarios can run.
func (c *cell) prepareStore(ctx context.Context, drv drivers.Driver, cfg drivers.Config) (bool, error) {
	bc := c.cp.Backend
	fp := fingerprint(c.sp.Gen, bc)
	state := readMeta(ctx, c.admin)
	if !bc.Load.Declared {
		c.run.logf("%s: no load block: using the store as it is", c.name())
		return true, nil
	}
	if !c.be.Created() && !state.ours {
		return false, fmt.Errorf("the store exists and was not created by %s (no %s table): refusing to load into it or drop it; point the backend at a new database or file", createdBy, metaTable)
	}
	if state.ours && state.loaded && state.fingerprint == fp && !c.run.opts.Reload {
		c.run.logf("%s: reusing the store loaded by an earlier run", c.name())
		return true, nil
	}
	if c.run.opts.Phase == PhaseBench {
		return false, fmt.Errorf("phase bench needs a store loaded with this dataset, and this one is not (run with -phase all or load)")
	}
	if state.ours && !c.be.Created() {
		// Ours, but stale or half loaded: start from an empty store.
		dropper, ok := c.be.(drivers.Dropper)
		if !ok {
			return false, fmt.Errorf("the store holds other data and driver %q cannot drop it", bc.Driver)
		}
		c.admin.Close()
		if err := dropper.Drop(ctx); err != nil {
			return false, fmt.Errorf("dropping the stale store: %w", err)
		}
		c.be.Close()
		be, err := drv.Open(ctx, cfg)
		if err != nil {
			return false, fmt.Errorf("reopening the store: %w", err)
		}
		c.be = be
		if c.admin, err = c.be.Session(ctx); err != nil {
			return false, fmt.Errorf("connecting: %w", err)
		}
		c.run.logf("%s: dropped the stale store it had created", c.name())
	}
	return c.load(ctx, fp)
}

func (c *cell) load(ctx context.Context, fp string) (bool, error) {
	bc := c.cp.Backend
	if err := writeMeta(ctx, c.admin, map[string]string{"created_by": createdBy, "fingerprint": fp, "loaded": "0"}); err != nil {
		return false, err
	}
	if err := execStatements(ctx, c.admin, bc.Setup); err != nil {
		return false, fmt.Errorf("setup: %w", err)
	}
	bl, ok := c.be.(drivers.BulkLoader)
	if !ok {
		return false, fmt.Errorf("driver %q has no bulk loader", bc.Driver)
	}
	capDur := secs(c.run.plan.Spec.Sampling.Values.LoadMax)
	c.run.logf("%s: loading %s datoms (%d job(s))", c.name(), plan.Thousands(c.sp.Stats.Datoms), bc.Load.Jobs)
	res, err := bulkLoad(ctx, bl, c.sp.Gen, bc.Load, capDur)
	if err != nil {
		return false, fmt.Errorf("bulk load: %w", err)
	}
	row := results.LoadRow{Backend: bc.Name, Scale: c.sp.Scale.Name, NDatoms: c.sp.Stats.Datoms,
		WallS: res.elapsed.Seconds(), DatomsPerS: float64(res.datoms) / res.elapsed.Seconds(), Jobs: bc.Load.Jobs}
	if res.capped {
		row.Ceiling = true
		if err := c.run.dir.AppendLoad(row); err != nil {
			return false, err
		}
		c.run.logf("%s: load cap of %s hit after %s datoms: scenarios skipped", c.name(), capDur, plan.Thousands(res.datoms))
		return false, nil
	}
	timed := func(texts []string, what string) (*float64, error) {
		if len(texts) == 0 {
			return nil, nil
		}
		t0 := time.Now()
		if err := execStatements(ctx, c.admin, texts); err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		s := time.Since(t0).Seconds()
		return &s, nil
	}
	if row.PostLoadS, err = timed(bc.AfterLoad, "after_load"); err != nil {
		return false, err
	}
	if row.AnalyzeS, err = timed(bc.Analyze, "analyze"); err != nil {
		return false, err
	}
	if row.VacuumS, err = timed(bc.Vacuum, "vacuum"); err != nil {
		return false, err
	}
	if sz, ok := c.be.(drivers.Sizer); ok {
		if n, err := sz.Size(ctx); err == nil {
			row.SizeBytes = &n
		}
	}
	if err := c.run.dir.AppendLoad(row); err != nil {
		return false, err
	}
	if err := writeMeta(ctx, c.admin, map[string]string{"loaded": "1", "loaded_at": time.Now().UTC().Format(time.RFC3339)}); err != nil {
		return false, err
	}
	c.run.logf("%s: loaded %s datoms in %.2fs (%s datoms/s)", c.name(), plan.Thousands(res.datoms), res.elapsed.Seconds(),
		plan.Thousands(int64(row.DatomsPerS)))
	return true, nil
}

func secs(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }

// bindQueries resolves every query for the backend's dialect.
func (c *cell) bindQueries() error {
	spec := c.run.plan.Spec
	ctx := spec.CellContext(c.cp.Cell, c.truth)
	c.queries = map[string]*boundQuery{}
	for _, q := range spec.Queries {
		rq, diags := q.Resolve(ctx, c.be.Dialect())
		if diags.HasErrors() {
			return fmt.Errorf("query %s: %s", q.Name, diags.Error())
		}
		b, err := sqltext.Bind(rq.SQL, c.be.Placeholder)
		if err != nil {
			return fmt.Errorf("query %s: %w", q.Name, err)
		}
		bq := &boundQuery{name: q.Name, bound: b, values: rq.Params}
		// A query only checks use may lack parameters the checks supply.
		if binder, err := params.New(c.sp.Gen, b.Names, rq.Params); err == nil {
			bq.binder = binder
		}
		c.queries[q.Name] = bq
	}
	return nil
}

// explain writes each query's plan into plans/.
func (c *cell) explain(ctx context.Context) {
	ex, ok := c.admin.(drivers.Explainer)
	if !ok {
		if ex, ok = c.be.(drivers.Explainer); !ok {
			return
		}
	}
	names := make([]string, 0, len(c.queries))
	for n := range c.queries {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		q := c.queries[n]
		if q.binder == nil {
			continue
		}
		// Some drivers explain by running the query (DuckDB's EXPLAIN
		// ANALYZE): a query past the ceiling must not stall the run here.
		ectx, cancel := context.WithTimeout(ctx, c.explainCap(n))
		text, err := ex.Explain(ectx, q.bound.SQL, q.binder.Client(1, 0).Next())
		cancel()
		if err != nil {
			text = "EXPLAIN failed: " + err.Error()
		}
		ext := "txt"
		if strings.HasPrefix(strings.TrimSpace(text), "[") || strings.HasPrefix(strings.TrimSpace(text), "{") {
			ext = "json"
		}
		w, err := c.run.dir.Plan(fmt.Sprintf("%s-%s-%s.%s", c.sp.Scale.Name, c.cp.Cell.Backend.Name, n, ext))
		if err != nil {
			continue
		}
		fmt.Fprintln(w, text)
		w.Close()
	}
}

// recordSize appends the store's size (and buffer cache) to sizes.txt.
func (c *cell) recordSize(ctx context.Context) {
	sz, ok := c.be.(drivers.Sizer)
	if !ok {
		return
	}
	n, err := sz.Size(ctx)
	if err != nil {
		c.run.logf("%s: store size: %v", c.name(), err)
		return
	}
	row := results.SizeRow{Scale: c.sp.Scale.Name, Backend: c.cp.Cell.Backend.Name, Bytes: n}
	if cs, ok := c.be.(drivers.CacheSizer); ok {
		if sb, err := cs.CacheSize(ctx); err == nil {
			row.SharedBuffers = sb
		}
	}
	if err := c.run.dir.AppendSize(row); err != nil {
		c.run.fail("writing sizes.txt: %v", err)
	}
}

// explainCap is the smallest probe ceiling of the scenarios that run a
// query: explaining it may run it.
func (c *cell) explainCap(query string) time.Duration {
	limit := c.run.plan.Spec.Sampling.Values.ProbeS
	for _, sp := range c.cp.Scenarios {
		for _, st := range sp.Scenario.Streams {
			for _, qn := range st.MixNames {
				if qn == query && sp.Scenario.Sampling.ProbeS < limit {
					limit = sp.Scenario.Sampling.ProbeS
				}
			}
		}
	}
	return secs(limit)
}

// envLines appends the backend's version and settings in force to env.txt.
func (c *cell) envLines(ctx context.Context) {
	bc := c.cp.Backend
	prefix := fmt.Sprintf("backend.%s.%s.", bc.Name, c.sp.Scale.Name)
	kv := []results.KV{{Key: prefix + "driver", Value: bc.Driver}}
	if v, ok := c.admin.(drivers.Versioner); ok {
		if s, err := v.Version(ctx); err == nil {
			kv = append(kv, results.KV{Key: prefix + "version", Value: s})
		}
	} else if v, ok := c.be.(drivers.Versioner); ok {
		if s, err := v.Version(ctx); err == nil {
			kv = append(kv, results.KV{Key: prefix + "version", Value: s})
		}
	}
	names := make([]string, 0, len(bc.Settings))
	for n := range bc.Settings {
		names = append(names, n)
	}
	sort.Strings(names)
	var reader drivers.SettingsReader
	if r, ok := c.admin.(drivers.SettingsReader); ok {
		reader = r
	} else if r, ok := c.be.(drivers.SettingsReader); ok {
		reader = r
	}
	if reader != nil && len(names) > 0 {
		if got, err := reader.ReadSettings(ctx, names); err == nil {
			for _, n := range names {
				kv = append(kv, results.KV{Key: prefix + "setting." + n, Value: got[n]})
			}
		} else {
			kv = append(kv, results.KV{Key: prefix + "settings_error", Value: err.Error()})
		}
	}
	optNames := make([]string, 0, len(bc.Options))
	for n := range bc.Options {
		optNames = append(optNames, n)
	}
	sort.Strings(optNames)
	for _, n := range optNames {
		kv = append(kv, results.KV{Key: prefix + "option." + n, Value: bc.Options[n]})
	}
	_ = c.run.dir.WriteEnvLines(kv, func(key string) bool {
		return strings.HasSuffix(key, ".option.dsn") || strings.Contains(key, "password")
	})
}
