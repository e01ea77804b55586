package runner

import (
	"context"
	"fmt"
	"strings"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/resolve"
	"github.com/mentat-spec/mentat-spec/engine/results"
	"github.com/mentat-spec/mentat-spec/engine/sqltext"
)

// driverConfig is what the driver opens pc's store with: the same for the
// run's own backend and every worker process's, so each session the
// engine opens has the backend's extensions and session setup.
func driverConfig(pc *plan.Cell, dataDir string, options map[string]string) drivers.Config {
	bc := pc.Backend
	return drivers.Config{Backend: bc.Name, Scale: pc.Scale.Name, DataDir: dataDir, Options: options, Settings: bc.Settings,
		Extensions: bc.Extensions, AllowUnsignedExtensions: bc.AllowUnsignedExtensions, SessionSetup: bc.SessionSetup}
}

// checkExtensions asks the driver of every cell with extensions whether
// they load, before any store is opened: a missing file or a wrong entry
// point stops the run before anything is loaded. It reports whether all
// of them do.
func (r *run) checkExtensions(ctx context.Context) bool {
	ok := true
	seen := map[string]bool{}
	for _, sp := range r.plan.Scales {
		for _, pc := range sp.Cells {
			bc := pc.Backend
			if len(bc.Extensions) == 0 || seen[bc.Name] {
				continue
			}
			seen[bc.Name] = true
			ec, is := r.driver(pc).(drivers.ExtensionChecker)
			if !is {
				continue
			}
			if err := ec.CheckExtensions(ctx, driverConfig(pc, r.opts.DataDir, bc.Options)); err != nil {
				r.fail("%v; the run stops before loading anything", err)
				ok = false
			}
		}
	}
	return ok
}

// extensionFacts are the env.txt lines of the extensions in force.
func (c *cell) extensionFacts(ctx context.Context, prefix string) []results.KV {
	er, ok := c.be.(drivers.ExtensionReporter)
	if !ok || len(c.pc.Backend.Extensions) == 0 {
		return nil
	}
	facts, err := er.ExtensionFacts(ctx)
	kv := make([]results.KV, 0, len(facts)+1)
	if err != nil {
		kv = append(kv, results.KV{Key: prefix + "extensions_error", Value: err.Error()})
	}
	for _, f := range facts {
		kv = append(kv, results.KV{Key: prefix + f.Key, Value: f.Value})
	}
	return kv
}

// explainStatement runs the backend's explain statement for query q on
// the admin session: :q bound to the query's text (its edn when it has one), every other parameter
// to the value args gives it in the query. The rows come back one line
// each, their columns separated by tabs.
func (c *cell) explainStatement(ctx context.Context, q *boundQuery, args []any) (string, error) {
	b, err := sqltext.Bind(c.pc.Backend.Explain, c.be.Placeholder)
	if err != nil {
		return "", fmt.Errorf("the explain statement: %w", err)
	}
	// A query with an `edn` text is explained by it: a store's own
	// explain (mentat_explain) takes the Datalog, not the SQL calling it.
	text := c.pc.Queries[q.name].SQL
	if e := c.pc.Queries[q.name].EDN; e != "" {
		text = e
	}
	vals := map[string]any{resolve.ExplainQueryParam: text}
	for i, n := range q.bound.Names {
		if i < len(args) {
			vals[n] = args[i]
		}
	}
	eargs := make([]any, len(b.Names))
	for i, n := range b.Names {
		v, ok := vals[n]
		if !ok {
			return "", fmt.Errorf("the explain statement binds :%s, which query %s does not", n, q.name)
		}
		eargs[i] = v
	}
	st, err := c.admin.Prepare(ctx, b.SQL)
	if err != nil {
		return "", err
	}
	defer st.Close()
	var rows [][]any
	if _, err := st.Query(ctx, eargs, &rows); err != nil {
		return "", err
	}
	var sb strings.Builder
	for i, row := range rows {
		if i > 0 {
			sb.WriteByte('\n')
		}
		for j, v := range row {
			if j > 0 {
				sb.WriteByte('\t')
			}
			switch x := v.(type) {
			case nil:
			case []byte:
				sb.Write(x)
			default:
				fmt.Fprint(&sb, x)
			}
		}
	}
	return sb.String(), nil
}
