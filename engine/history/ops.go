package history

import (
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Add imports the results directory dir. A run already in the history
// (the same files) is left as it is: added is false. A directory that is
// not whole (ErrPartial) is refused.
func (s *Store) Add(dir string) (run Run, added bool, err error) {
	id, err := RunID(dir)
	if err != nil {
		return Run{}, false, err
	}
	legacy, err := legacyRunID(dir)
	if err != nil {
		return Run{}, false, err
	}
	var r Run
	var ok bool
	if err := s.d.retry(func() (err error) { r, ok, err = s.held(id, legacy); return err }); err != nil || ok {
		return r, false, err
	}
	im, err := importDir(dir, id)
	if err != nil {
		return Run{}, false, err
	}
	im.Added = time.Now().UTC()
	var heldBy string
	err = s.d.retry(func() (err error) { heldBy, err = s.insert(im, legacy); return err })
	if err != nil {
		return Run{}, false, fmt.Errorf("history: adding %s: %w", dir, err)
	}
	if heldBy != "" {
		// Another process added the same run meanwhile.
		r, err := s.Run(heldBy)
		return r, false, err
	}
	return im.Run, true, nil
}

// held returns the run stored under id, or under legacy (its identity
// in a store written before identities covered every file).
func (s *Store) held(id, legacy string) (Run, bool, error) {
	for _, k := range []string{id, legacy} {
		r, err := s.Run(k)
		if err == nil {
			return r, true, nil
		}
		if !errors.Is(err, ErrNoRun) {
			return Run{}, false, err
		}
	}
	return Run{}, false, nil
}

// insert adds im in one transaction, which first looks for the run
// again: of two processes adding the same run at once, the second finds
// the first's and adds nothing (heldBy is then its id). On SQLite the
// transaction is IMMEDIATE, so the second waits for the first; on
// PostgreSQL the second's INSERT waits on the first's row and then does
// nothing (ON CONFLICT), which says the run landed meanwhile.
func (s *Store) insert(im *imported, legacy string) (heldBy string, err error) {
	tx, err := s.db.Begin()
	if err != nil {
		return "", err
	}
	defer tx.Rollback()
	err = tx.QueryRow(s.q(`SELECT id FROM runs WHERE id IN (?, ?) LIMIT 1`), im.ID, legacy).Scan(&heldBy)
	switch {
	case err == nil:
		return heldBy, nil
	case !errors.Is(err, sql.ErrNoRows):
		return "", err
	}
	res, err := tx.Exec(s.q(`INSERT INTO runs (id, name, dir, started, revision, machine, machine_fp, added) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO NOTHING`),
		im.ID, im.Name, im.Dir, im.Started.UnixNano(), im.Revision, im.Machine, im.MachineFP, im.Added.UnixNano())
	if err != nil {
		return "", err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return im.ID, err
	}
	if err := s.execEach(tx, `INSERT INTO env (run_id, ord, key, value) VALUES (?, ?, ?, ?)`, len(im.env), func(i int) []any {
		return []any{im.ID, i, im.env[i].Key, im.env[i].Value}
	}); err != nil {
		return "", err
	}
	if err := s.execEach(tx, `INSERT INTO points (run_id, scenario, backend, scale, clients, op, n_datoms, scenario_fp, backend_fp,
		count, p50_ms, p95_ms, p99_ms, max_ms, throughput_ops_s, errors, reps) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		len(im.points), func(i int) []any {
			p := im.points[i]
			m := p.Median
			return []any{im.ID, p.Scenario, p.Backend, p.Scale, p.Clients, p.Op, p.NDatoms, p.ScenarioFP, p.BackendFP,
				m.Count, m.P50Ms, m.P95Ms, m.P99Ms, m.MaxMs, m.Throughput, m.Errors, encodeReps(p.Reps)}
		}); err != nil {
		return "", err
	}
	if err := s.execEach(tx, `INSERT INTO checks (run_id, ord, status, scenario, backend, scale, name, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		len(im.checks), func(i int) []any {
			c := im.checks[i]
			return []any{im.ID, i, c.Status, c.Scenario, c.Backend, c.Scale, c.Name, c.Detail}
		}); err != nil {
		return "", err
	}
	if err := s.execEach(tx, `INSERT INTO loads (run_id, ord, backend, scale, n_datoms, wall_s, datoms_per_s, size_bytes, jobs, ceiling)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, len(im.loads), func(i int) []any {
		l := im.loads[i]
		return []any{im.ID, i, l.Backend, l.Scale, l.NDatoms, l.WallS, l.DatomsPerS, l.SizeBytes, l.Jobs, boolInt(l.Ceiling)}
	}); err != nil {
		return "", err
	}
	if err := s.insertEvidence(tx, im); err != nil {
		return "", err
	}
	return "", tx.Commit()
}

// execEach inserts n rows with query, an INSERT ... VALUES of one row's
// placeholders, batchRows rows per statement: per statement database/sql
// and the driver cost more than per value, and a large run has hundreds
// of thousands of points.
func (s *Store) execEach(tx *sql.Tx, query string, n int, args func(int) []any) error {
	if n == 0 {
		return nil
	}
	const batchRows = 100
	i := strings.LastIndex(query, "VALUES ")
	head, one := query[:i+len("VALUES ")], strings.TrimSpace(query[i+len("VALUES "):])
	prepared := map[int]*sql.Stmt{}
	defer func() {
		for _, st := range prepared {
			st.Close()
		}
	}()
	stmt := func(rows int) (*sql.Stmt, error) {
		if st, ok := prepared[rows]; ok {
			return st, nil
		}
		st, err := tx.Prepare(s.q(head + strings.TrimSuffix(strings.Repeat(one+", ", rows), ", ")))
		if err != nil {
			return nil, err
		}
		prepared[rows] = st
		return st, nil
	}
	var vals []any
	for at := 0; at < n; at += batchRows {
		rows := min(batchRows, n-at)
		st, err := stmt(rows)
		if err != nil {
			return err
		}
		vals = vals[:0]
		for j := at; j < at+rows; j++ {
			vals = append(vals, args(j)...)
		}
		if _, err := st.Exec(vals...); err != nil {
			return err
		}
	}
	return nil
}

// ErrNoRun is returned (wrapped) for a run the history does not hold.
var ErrNoRun = errors.New("no such run in the history")

const runColumns = `r.id, r.name, r.dir, r.started, r.revision, r.machine, r.machine_fp, r.added,
	(SELECT count(*) FROM points p WHERE p.run_id = r.id),
	(SELECT count(*) FROM checks c WHERE c.run_id = r.id AND c.status = 'PASS'),
	(SELECT count(*) FROM checks c WHERE c.run_id = r.id AND c.status = 'FAIL'),
	(SELECT count(*) FROM checks c WHERE c.run_id = r.id AND c.status = 'SKIP'),
	(SELECT count(*) FROM checks c WHERE c.run_id = r.id AND c.status = 'THRESHOLD')`

func scanRun(sc interface{ Scan(...any) error }) (Run, error) {
	var r Run
	var started, added int64
	err := sc.Scan(&r.ID, &r.Name, &r.Dir, &started, &r.Revision, &r.Machine, &r.MachineFP, &added,
		&r.Points, &r.Checks.Pass, &r.Checks.Fail, &r.Checks.Skip, &r.Checks.Threshold)
	r.Started, r.Added = time.Unix(0, started).UTC(), time.Unix(0, added).UTC()
	return r, err
}

// Run returns the run with the given id.
func (s *Store) Run(id string) (Run, error) {
	return s.runIn(s.db, id)
}

func (s *Store) runIn(q queryer, id string) (Run, error) {
	r, err := scanRun(q.QueryRow(s.q(`SELECT `+runColumns+` FROM runs r WHERE r.id = ?`), id))
	if errors.Is(err, sql.ErrNoRows) {
		return Run{}, fmt.Errorf("history: %s: %w", id, ErrNoRun)
	}
	return r, err
}

// Runs returns every run, oldest first (by start, then id).
func (s *Store) Runs() (runs []Run, err error) {
	err = s.read(func(q queryer) (err error) { runs, err = s.runsIn(q); return err })
	return runs, err
}

func (s *Store) runsIn(q queryer) ([]Run, error) {
	rows, err := q.Query(`SELECT ` + runColumns + ` FROM runs r ORDER BY r.started, r.id`)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	defer rows.Close()
	var out []Run
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// Find resolves what a user names a run by: its id or a unique prefix of
// it, its name, or its results directory (by the directory's identity).
func (s *Store) Find(ref string) (Run, error) {
	runs, err := s.Runs()
	if err != nil {
		return Run{}, err
	}
	var match []Run
	for _, r := range runs {
		if r.ID == ref || r.Name == ref {
			return r, nil
		}
		if len(ref) >= 4 && strings.HasPrefix(r.ID, ref) {
			match = append(match, r)
		}
	}
	if len(match) == 1 {
		return match[0], nil
	}
	if len(match) > 1 {
		return Run{}, fmt.Errorf("history: %q names %d runs: give more of the id", ref, len(match))
	}
	if id, err := RunID(ref); err == nil {
		legacy, _ := legacyRunID(ref)
		if r, ok, err := s.held(id, legacy); err != nil || ok {
			return r, err
		}
		return Run{}, fmt.Errorf("history: %s: %w", ref, ErrNoRun)
	}
	return Run{}, fmt.Errorf("history: %q: %w", ref, ErrNoRun)
}

// Remove deletes a run and everything kept of it.
func (s *Store) Remove(id string) error {
	var n int64
	err := s.d.retry(func() error {
		res, err := s.db.Exec(s.q(`DELETE FROM runs WHERE id = ?`), id)
		if err == nil {
			n, err = res.RowsAffected()
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	if n == 0 {
		return fmt.Errorf("history: %s: %w", id, ErrNoRun)
	}
	return nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// storedPoint is a point with the run it belongs to.
type storedPoint struct {
	runID string
	Point
}

// points returns every point of every run, or of the run only.
func (s *Store) points(q queryer, only ...string) ([]storedPoint, error) {
	query := `SELECT run_id, scenario, backend, scale, clients, op, n_datoms, scenario_fp, backend_fp,
		count, p50_ms, p95_ms, p99_ms, max_ms, throughput_ops_s, errors, reps FROM points`
	var args []any
	if len(only) > 0 {
		query, args = query+` WHERE run_id = ?`, []any{only[0]}
	}
	rows, err := q.Query(s.q(query), args...)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	defer rows.Close()
	var out []storedPoint
	for rows.Next() {
		var p storedPoint
		m := &p.Median
		var blob []byte
		if err := rows.Scan(&p.runID, &p.Scenario, &p.Backend, &p.Scale, &p.Clients, &p.Op, &p.NDatoms, &p.ScenarioFP, &p.BackendFP,
			&m.Count, &m.P50Ms, &m.P95Ms, &m.P99Ms, &m.MaxMs, &m.Throughput, &m.Errors, &blob); err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
		m.Scenario, m.Backend, m.Scale, m.Clients, m.Op, m.NDatoms = p.Scenario, p.Backend, p.Scale, p.Clients, p.Op, p.NDatoms
		reps, err := decodeReps(blob)
		if err != nil {
			return nil, fmt.Errorf("%w (run %s, %s)", err, p.runID, p.Key)
		}
		p.Reps = reps
		out = append(out, p)
	}
	return out, rows.Err()
}

// envs returns every run's env.txt as maps.
func (s *Store) envs(q queryer) (map[string]map[string]string, error) {
	rows, err := q.Query(`SELECT run_id, key, value FROM env`)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	defer rows.Close()
	out := map[string]map[string]string{}
	for rows.Next() {
		var id, k, v string
		if err := rows.Scan(&id, &k, &v); err != nil {
			return nil, err
		}
		if out[id] == nil {
			out[id] = map[string]string{}
		}
		out[id][k] = v
	}
	return out, rows.Err()
}
