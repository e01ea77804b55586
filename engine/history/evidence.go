package history

import (
	"database/sql"
	"fmt"
	"math"
	"strings"

	"github.com/mentat-spec/mentat-spec/engine/evidence"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// What the history keeps of a run's evidence, so that a change point is
// explained after the results directories are gone: evidence.csv's facts,
// latency-split.csv's splits and each query's plan as its operator tree's
// lines. A change point ranks them between the runs either side of it
// through the one ranking (evidence.Rank).

// schemaV2 adds the evidence's tables; a run imported before them has
// none, and its change points say so.
var schemaV2 = []string{
	`CREATE TABLE IF NOT EXISTS evidence_facts (run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
		scenario TEXT NOT NULL, backend TEXT NOT NULL, scale TEXT NOT NULL, point INTEGER NOT NULL, rep INTEGER NOT NULL,
		source TEXT NOT NULL, query TEXT NOT NULL, name TEXT NOT NULL, value REAL, unit TEXT NOT NULL)`,
	`CREATE INDEX IF NOT EXISTS evidence_facts_run ON evidence_facts (run_id, scenario, backend, scale)`,
	`CREATE TABLE IF NOT EXISTS evidence_splits (run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
		scenario TEXT NOT NULL, backend TEXT NOT NULL, scale TEXT NOT NULL, point INTEGER NOT NULL, rep INTEGER NOT NULL,
		clients INTEGER NOT NULL, calls INTEGER NOT NULL, observed_ms REAL, server_exec_ms REAL, planning_ms REAL,
		round_trip_floor_ms REAL, rest_ms REAL, rest_includes TEXT NOT NULL, engine_cpu_ms REAL)`,
	`CREATE INDEX IF NOT EXISTS evidence_splits_run ON evidence_splits (run_id, scenario, backend, scale)`,
	`CREATE TABLE IF NOT EXISTS evidence_plans (run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
		scenario TEXT NOT NULL, backend TEXT NOT NULL, scale TEXT NOT NULL, query TEXT NOT NULL,
		shape TEXT NOT NULL, -- the operator tree's lines, one per node
		PRIMARY KEY (run_id, scenario, backend, scale, query))`,
}

// planRow is one query's plan shape as the history keeps it.
type planRow struct {
	scenario, backend, scale, query string
	shape                           []string
}

// evidenceOf reads the evidence of a loaded run for the history: its
// facts, its splits and, per cell and scenario that has a split, the
// plans of its queries.
func evidenceOf(r *results.Run) ([]results.EvidenceRow, []results.SplitRow, []planRow, error) {
	l := evidence.Of(r)
	var plans []planRow
	seen := map[[3]string]bool{}
	for _, s := range l.Splits {
		k := [3]string{s.Scenario, s.Backend, s.Scale}
		if seen[k] {
			continue
		}
		seen[k] = true
		shapes, err := evidence.PlanShapes(r.Dir, s.Scale, s.Backend, s.Scenario)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("history: plans of %s %s %s: %w", s.Scenario, s.Backend, s.Scale, err)
		}
		for q, sh := range shapes {
			plans = append(plans, planRow{s.Scenario, s.Backend, s.Scale, q, sh})
		}
	}
	return l.Facts, l.Splits, plans, nil
}

// null is v, NULL when it was not measured (NaN).
func null(v float64) any {
	if math.IsNaN(v) {
		return nil
	}
	return v
}

func nanOf(v sql.NullFloat64) float64 {
	if !v.Valid {
		return math.NaN()
	}
	return v.Float64
}

// insertEvidence adds im's evidence in the run's transaction.
func (s *Store) insertEvidence(tx *sql.Tx, im *imported) error {
	if err := s.execEach(tx, `INSERT INTO evidence_facts (run_id, scenario, backend, scale, point, rep, source, query, name, value, unit)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, len(im.facts), func(i int) []any {
		f := im.facts[i]
		return []any{im.ID, f.Scenario, f.Backend, f.Scale, f.Point, f.Rep, f.Source, f.Query, f.Name, null(f.Value), f.Unit}
	}); err != nil {
		return err
	}
	if err := s.execEach(tx, `INSERT INTO evidence_splits (run_id, scenario, backend, scale, point, rep, clients, calls, observed_ms,
		server_exec_ms, planning_ms, round_trip_floor_ms, rest_ms, rest_includes, engine_cpu_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		len(im.splits), func(i int) []any {
			p := im.splits[i]
			return []any{im.ID, p.Scenario, p.Backend, p.Scale, p.Point, p.Rep, p.Clients, p.Calls, null(p.ObservedMs),
				null(p.ServerExecMs), null(p.PlanningMs), null(p.RoundTripMs), null(p.RestMs), p.RestIncludes, null(p.EngineCPUMs)}
		}); err != nil {
		return err
	}
	return s.execEach(tx, `INSERT INTO evidence_plans (run_id, scenario, backend, scale, query, shape) VALUES (?, ?, ?, ?, ?, ?)`,
		len(im.plans), func(i int) []any {
			p := im.plans[i]
			return []any{im.ID, p.scenario, p.backend, p.scale, p.query, strings.Join(p.shape, "\n")}
		})
}

// loadEvidence reads back what the store keeps of run id's evidence (for
// a copy into another store).
func (s *Store) loadEvidence(q queryer, im *imported) error {
	facts, splits, plans, err := s.evidenceIn(q, im.ID, "", "", "")
	im.facts, im.splits, im.plans = facts, splits, plans
	return err
}

// evidenceIn reads run id's evidence, of one (scenario, backend, scale)
// or, with scenario "", all of it.
func (s *Store) evidenceIn(q queryer, id, scenario, backend, scale string) ([]results.EvidenceRow, []results.SplitRow, []planRow, error) {
	where, args := ` WHERE run_id = ?`, []any{id}
	if scenario != "" {
		where += ` AND scenario = ? AND backend = ? AND scale = ?`
		args = append(args, scenario, backend, scale)
	}
	var facts []results.EvidenceRow
	rows, err := q.Query(s.q(`SELECT scenario, backend, scale, point, rep, source, query, name, value, unit FROM evidence_facts`+where), args...)
	if err != nil {
		return nil, nil, nil, err
	}
	for rows.Next() {
		var f results.EvidenceRow
		var v sql.NullFloat64
		if err := rows.Scan(&f.Scenario, &f.Backend, &f.Scale, &f.Point, &f.Rep, &f.Source, &f.Query, &f.Name, &v, &f.Unit); err != nil {
			rows.Close()
			return nil, nil, nil, err
		}
		f.Value = nanOf(v)
		facts = append(facts, f)
	}
	if err := closeRows(rows); err != nil {
		return nil, nil, nil, err
	}
	var splits []results.SplitRow
	rows, err = q.Query(s.q(`SELECT scenario, backend, scale, point, rep, clients, calls, observed_ms, server_exec_ms, planning_ms,
		round_trip_floor_ms, rest_ms, rest_includes, engine_cpu_ms FROM evidence_splits`+where), args...)
	if err != nil {
		return nil, nil, nil, err
	}
	for rows.Next() {
		var p results.SplitRow
		var v [6]sql.NullFloat64
		if err := rows.Scan(&p.Scenario, &p.Backend, &p.Scale, &p.Point, &p.Rep, &p.Clients, &p.Calls, &v[0], &v[1], &v[2], &v[3], &v[4], &p.RestIncludes, &v[5]); err != nil {
			rows.Close()
			return nil, nil, nil, err
		}
		p.ObservedMs, p.ServerExecMs, p.PlanningMs, p.RoundTripMs, p.RestMs, p.EngineCPUMs = nanOf(v[0]), nanOf(v[1]), nanOf(v[2]), nanOf(v[3]), nanOf(v[4]), nanOf(v[5])
		splits = append(splits, p)
	}
	if err := closeRows(rows); err != nil {
		return nil, nil, nil, err
	}
	var plans []planRow
	rows, err = q.Query(s.q(`SELECT scenario, backend, scale, query, shape FROM evidence_plans`+where+` ORDER BY scenario, backend, scale, query`), args...)
	if err != nil {
		return nil, nil, nil, err
	}
	for rows.Next() {
		var p planRow
		var shape string
		if err := rows.Scan(&p.scenario, &p.backend, &p.scale, &p.query, &shape); err != nil {
			rows.Close()
			return nil, nil, nil, err
		}
		if shape != "" {
			p.shape = strings.Split(shape, "\n")
		}
		plans = append(plans, p)
	}
	return facts, splits, plans, closeRows(rows)
}

// side is run id's evidence at point k (its clients: evidence is per
// point, not per op), and whether the store keeps any of it.
func (s *Store) side(q queryer, id string, k results.Key) (evidence.Side, bool, error) {
	facts, splits, plans, err := s.evidenceIn(q, id, k.Scenario, k.Backend, k.Scale)
	if err != nil {
		return evidence.Side{}, false, err
	}
	l := &evidence.Loaded{Facts: facts, Splits: splits}
	sd, err := evidence.KeySide(l, k, "")
	if err != nil {
		return sd, false, err
	}
	if len(plans) > 0 {
		sd.Plans = map[string][]string{}
		for _, p := range plans {
			sd.Plans[p.query] = p.shape
		}
	}
	return sd, len(sd.Splits) > 0, nil
}

// explainChanges fills each change point's Why: what moved between the
// runs either side of it at its point, ranked; asked once per pair of
// runs and point, whatever the metric.
func (s *Store) explainChanges(a *Analysis) error {
	type pair struct {
		before, run string
		key         results.Key
	}
	type why struct {
		reasons []string
		kept    bool
	}
	done := map[pair]why{}
	return s.read(func(q queryer) error {
		for _, sr := range a.Series {
			for i := range sr.Changes {
				cp := &sr.Changes[i]
				p := pair{cp.Before.ID, cp.Run.ID, sr.Key.Key}
				w, ok := done[p]
				if !ok {
					b, bk, err := s.side(q, p.before, p.key)
					if err != nil {
						return fmt.Errorf("history: evidence of run %s: %w", p.before, err)
					}
					n, nk, err := s.side(q, p.run, p.key)
					if err != nil {
						return fmt.Errorf("history: evidence of run %s: %w", p.run, err)
					}
					w = why{kept: bk && nk}
					if w.kept {
						w.reasons = evidence.Rank(b, n, "")
					}
					done[p] = w
				}
				cp.Why, cp.WhyKept = w.reasons, w.kept
			}
		}
		return nil
	})
}

// WhySay is a change point's reasons in one line: ranked and numbered,
// "no evidence moved", or that the history keeps no evidence of a side.
func (c ChangePoint) WhySay() string {
	switch {
	case !c.WhyKept:
		return "evidence not kept for both runs"
	case len(c.Why) == 0:
		return evidence.NoEvidenceMoved
	}
	var parts []string
	for i, r := range c.Why {
		parts = append(parts, fmt.Sprintf("%d. %s", i+1, r))
	}
	return strings.Join(parts, " ")
}
