package report

import "github.com/mentat-spec/mentat-spec/engine/results"

// CheckWhy is why a crossed threshold was crossed, from the loaded run's
// evidence: Against says what it is set against (the nearest point that
// passed, or the point's own split), Reasons the evidence, ranked.
type CheckWhy struct {
	Against string
	Reasons []string
}

// CheckExplainer explains the THRESHOLD lines of a loaded run. The
// evidence package registers it, as it owns the evidence's files.
type CheckExplainer func(r *results.Run) map[results.CheckLine]CheckWhy

var checkExplainer CheckExplainer

// RegisterCheckExplainer sets what explains crossed thresholds beside
// their lines in summary.md and report.html. A second registration is a
// programming error: it panics, at init.
func RegisterCheckExplainer(e CheckExplainer) {
	if checkExplainer != nil {
		panic("report: check explainer registered twice")
	}
	checkExplainer = e
}

// checkWhys are the reasons beside r's crossed thresholds (none without
// an explainer or evidence).
func checkWhys(r *results.Run) map[results.CheckLine]CheckWhy {
	if checkExplainer == nil {
		return nil
	}
	return checkExplainer(r)
}

// NoEvidenceMoved is said of a crossed threshold none of whose evidence
// moved against the point it is set against.
const NoEvidenceMoved = "no evidence moved"
