package sqlite

/*
struct sqlite3;
struct sqlite3_stmt;
int sqlite3_stmt_status(struct sqlite3_stmt*, int, int);
int sqlite3_db_status(struct sqlite3*, int, int*, int*, int);
*/
import "C"

import (
	"context"
	"sort"
	"strings"
	"sync"

	"github.com/mentat-spec/mentat-spec/drivers"
)

var _ drivers.EvidenceCollector = (*backend)(nil)

// The counters SQLite keeps per statement (sqlite3_stmt_status) and per
// connection (sqlite3_db_status), by the names evidence.csv gives them.
var stmtCounters = []struct {
	op         C.int
	name, unit string
}{
	{6, drivers.EvidenceCalls, "calls"}, // SQLITE_STMTSTATUS_RUN
	{1, "fullscan_steps", "steps"},      // SQLITE_STMTSTATUS_FULLSCAN_STEP
	{2, "sorts", "sorts"},               // SQLITE_STMTSTATUS_SORT
	{3, "autoindex_rows", "rows"},       // SQLITE_STMTSTATUS_AUTOINDEX
	{4, "vm_steps", "steps"},            // SQLITE_STMTSTATUS_VM_STEP
}

var dbCounters = []struct {
	op   C.int
	name string
}{
	{7, "cache_hit"},  // SQLITE_DBSTATUS_CACHE_HIT
	{8, "cache_miss"}, // SQLITE_DBSTATUS_CACHE_MISS
}

// evidenceState keeps the sessions whose counters a point's evidence
// reads, and the counters of the statements and sessions closed since
// the backend opened, so that a point whose clients close before its end
// still counts them.
type evidenceState struct {
	mu       sync.Mutex
	sessions map[*session]struct{}
	closed   map[string]float64 // by key (see counterKey)
}

// counterKey names one counter of a statement's text ("" for the
// connection's) in a snapshot.
func counterKey(sql, name string) string { return sql + "\x00" + name }

func (e *evidenceState) add(s *session) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.sessions == nil {
		e.sessions = map[*session]struct{}{}
	}
	e.sessions[s] = struct{}{}
}

// foldStmt keeps st's counters before it is finalized; the caller holds
// its session's mu.
func (e *evidenceState) foldStmt(st *stmt) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed == nil {
		e.closed = map[string]float64{}
	}
	readStmt(st, e.closed)
}

// foldSession keeps s's statements' and connection's counters before it
// closes, and forgets it; the caller holds s.mu.
func (e *evidenceState) foldSession(s *session) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed == nil {
		e.closed = map[string]float64{}
	}
	for st := range s.stmts {
		readStmt(st, e.closed)
	}
	readConn(s, e.closed)
	delete(e.sessions, s)
}

func readStmt(st *stmt, into map[string]float64) {
	st.run.Lock()
	defer st.run.Unlock()
	if st.st == nil {
		return
	}
	h := stmtHandle(st.st)
	if h == nil {
		return
	}
	for _, c := range stmtCounters {
		into[counterKey(st.sql, c.name)] += float64(C.sqlite3_stmt_status((*C.struct_sqlite3_stmt)(h), c.op, 0))
	}
}

func readConn(s *session, into map[string]float64) {
	if s.conn == nil {
		return
	}
	db := dbHandle(s.conn)
	if db == nil {
		return
	}
	for _, c := range dbCounters {
		var cur, hi C.int
		if C.sqlite3_db_status((*C.struct_sqlite3)(db), c.op, &cur, &hi, 0) == 0 {
			into[counterKey("", c.name)] += float64(cur)
		}
	}
}

// snapshot is every counter now: the live sessions' and the closed ones'.
func (e *evidenceState) snapshot() map[string]float64 {
	e.mu.Lock()
	ss := make([]*session, 0, len(e.sessions))
	for s := range e.sessions {
		ss = append(ss, s)
	}
	out := make(map[string]float64, len(e.closed))
	for k, v := range e.closed {
		out[k] = v
	}
	e.mu.Unlock()
	for _, s := range ss {
		s.mu.Lock()
		for st := range s.stmts {
			readStmt(st, out)
		}
		readConn(s, out)
		s.mu.Unlock()
	}
	return out
}

// StartEvidence snapshots the counters SQLite keeps for this backend's
// sessions and statements; reading them costs nothing in the calls.
func (b *backend) StartEvidence(context.Context) (drivers.EvidenceProbe, error) {
	return &sqliteProbe{b: b, before: b.ev.snapshot()}, nil
}

var _ drivers.EvidenceRebaser = (*sqliteProbe)(nil)

// Rebase takes the counters again.
func (p *sqliteProbe) Rebase(context.Context) error {
	p.before = p.b.ev.snapshot()
	return nil
}

type sqliteProbe struct {
	b      *backend
	before map[string]float64
}

// Stop returns the counters' deltas: per statement text, and the page
// cache's hits and misses of all the sessions.
func (p *sqliteProbe) Stop(context.Context) ([]drivers.Evidence, error) {
	after := p.b.ev.snapshot()
	keys := make([]string, 0, len(after))
	for k := range after {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	units := map[string]string{"cache_hit": "pages", "cache_miss": "pages"}
	for _, c := range stmtCounters {
		units[c.name] = c.unit
	}
	var out []drivers.Evidence
	calls := map[string]float64{}
	for _, k := range keys {
		sql, name, _ := strings.Cut(k, "\x00")
		if name == drivers.EvidenceCalls {
			calls[sql] = after[k] - p.before[k]
		}
	}
	for _, k := range keys {
		sql, name, _ := strings.Cut(k, "\x00")
		if sql != "" && calls[sql] <= 0 {
			continue // a statement the stretch did not run
		}
		src := "sqlite3_stmt_status"
		if sql == "" {
			src = "sqlite3_db_status"
		}
		out = append(out, drivers.Evidence{Source: src, Query: strings.Join(strings.Fields(sql), " "), Name: name,
			Value: after[k] - p.before[k], Unit: units[name]})
	}
	return out, nil
}
