package drivers

import "context"

// Evidence is one fact a database's own instruments report about a
// stretch of work (one point, or one rep of it): a statement's calls and
// times from pg_stat_statements, a share of wait-event samples, a cache's
// hits. Values are numbers in Unit; Query is the statement's text on one
// line, or "" for facts of the whole session or server.
type Evidence struct {
	Source string // the instrument: "pg_stat_statements", "pg_stat_activity", ...
	Query  string
	Name   string // the counter: "calls", "exec_ms", "wait:LWLock:WALWrite", ...
	Value  float64
	Unit   string // "calls", "ms", "blocks", "bytes", "share", ...
}

// EvidenceCollector is implemented by backends whose database can say
// what it did during a point. The engine calls StartEvidence after the
// point's setup and Stop after its timed calls; what either does runs
// outside the timed calls or is sampled from another connection.
type EvidenceCollector interface {
	StartEvidence(ctx context.Context) (EvidenceProbe, error)
}

// EvidenceProbe is one stretch's collection under way.
type EvidenceProbe interface {
	// Stop ends the collection and returns its facts: counters as deltas
	// over the stretch, samples as shares. An error says why there are
	// none (the instrument is not available) and is recorded as such.
	Stop(ctx context.Context) ([]Evidence, error)
}

// EvidenceRebaser is implemented by probes that can start their deltas
// again from now. The engine calls Rebase once per stretch, when its
// clients have made their warmup calls and wait at the barrier (no call
// in flight), so that a point's counters and times are its timed calls'
// and not the warmup's (a session's first call, slow with empty caches).
type EvidenceRebaser interface {
	Rebase(ctx context.Context) error
}

// Names of the counters the engine reads to split a point's latency;
// a collector reports them per statement (Query set) when it can.
const (
	EvidenceCalls  = "calls"   // calls of the statement
	EvidenceExecMs = "exec_ms" // total server execution time, ms
	EvidencePlanMs = "plan_ms" // total planning time, ms
	// The run's own calls that wrote, the denominator of a server's
	// counters of writing (a WAL flush per write) when they can be
	// attributed to the run.
	EvidenceOwnWrites = "own_writes"
)

// AnalyzeExplainer is implemented by backends that can show what one
// execution of a statement did: the plan with actual rows, buffers or
// per-operator times (PostgreSQL's EXPLAIN (ANALYZE, BUFFERS), DuckDB's
// profiler). It runs the statement once; a statement that writes is
// rolled back, or refused where it cannot be.
type AnalyzeExplainer interface {
	ExplainAnalyze(ctx context.Context, sql string, args []any) (string, error)
}
