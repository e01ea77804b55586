package history

import (
	"database/sql"
	"fmt"
	"time"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

// CopyResult counts what Copy did.
type CopyResult struct {
	Copied, Present int
}

// Copy copies every run of src that dst does not hold into dst, whole
// (its env.txt, points with every rep, checks and loads, its identity,
// start and the time it was first added), each run in one transaction of
// dst: a team's server history can start from what one machine kept, or
// a file be taken from the server. A run dst holds already is left as it
// is; copying again copies nothing.
func Copy(dst, src *Store) (CopyResult, error) {
	var res CopyResult
	runs, err := src.Runs()
	if err != nil {
		return res, err
	}
	for _, r := range runs {
		var held bool
		if err := dst.d.retry(func() (err error) { _, held, err = dst.held(r.ID, ""); return err }); err != nil {
			return res, err
		}
		if held {
			res.Present++
			continue
		}
		var im *imported
		if err := src.read(func(q queryer) (err error) { im, err = src.load(q, r); return err }); err != nil {
			return res, fmt.Errorf("history: reading run %s of %s: %w", r.ID, src.Path(), err)
		}
		var heldBy string
		if err := dst.d.retry(func() (err error) { heldBy, err = dst.insert(im, ""); return err }); err != nil {
			return res, fmt.Errorf("history: copying run %s into %s: %w", r.ID, dst.Path(), err)
		}
		if heldBy != "" {
			res.Present++ // added to dst meanwhile
			continue
		}
		res.Copied++
	}
	return res, nil
}

// load reads everything the store keeps of run r back as an import.
func (s *Store) load(q queryer, r Run) (*imported, error) {
	im := &imported{Run: r}
	rows, err := q.Query(s.q(`SELECT key, value FROM env WHERE run_id = ? ORDER BY ord`), r.ID)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var kv results.KV
		if err := rows.Scan(&kv.Key, &kv.Value); err != nil {
			rows.Close()
			return nil, err
		}
		im.env = append(im.env, kv)
	}
	if err := closeRows(rows); err != nil {
		return nil, err
	}
	pts, err := s.points(q, r.ID)
	if err != nil {
		return nil, err
	}
	for _, p := range pts {
		im.points = append(im.points, p.Point)
	}
	rows, err = q.Query(s.q(`SELECT status, scenario, backend, scale, name, detail FROM checks WHERE run_id = ? ORDER BY ord`), r.ID)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var c results.CheckLine
		if err := rows.Scan(&c.Status, &c.Scenario, &c.Backend, &c.Scale, &c.Name, &c.Detail); err != nil {
			rows.Close()
			return nil, err
		}
		im.checks = append(im.checks, c)
	}
	if err := closeRows(rows); err != nil {
		return nil, err
	}
	rows, err = q.Query(s.q(`SELECT backend, scale, n_datoms, wall_s, datoms_per_s, size_bytes, jobs, ceiling FROM loads WHERE run_id = ? ORDER BY ord`), r.ID)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var l results.LoadRow
		var size sql.NullInt64
		var ceiling int
		if err := rows.Scan(&l.Backend, &l.Scale, &l.NDatoms, &l.WallS, &l.DatomsPerS, &size, &l.Jobs, &ceiling); err != nil {
			rows.Close()
			return nil, err
		}
		if size.Valid {
			l.SizeBytes = &size.Int64
		}
		l.Ceiling = ceiling != 0
		im.loads = append(im.loads, l)
	}
	if err := closeRows(rows); err != nil {
		return nil, err
	}
	if err := s.loadEvidence(q, im); err != nil {
		return nil, err
	}
	if len(im.points) != r.Points {
		return nil, fmt.Errorf("%d points read, the run has %d", len(im.points), r.Points)
	}
	im.Added = r.Added
	if im.Added.IsZero() {
		im.Added = time.Now().UTC()
	}
	return im, nil
}

func closeRows(rows *sql.Rows) error {
	err := rows.Err()
	if cerr := rows.Close(); err == nil {
		err = cerr
	}
	return err
}
