package main

import (
	"github.com/mentat-spec/mentat-spec/cmd/mentat-spec/internal/exitcode"
	"github.com/mentat-spec/mentat-spec/engine/compare"
	"github.com/mentat-spec/mentat-spec/engine/runner"
)

// Exit codes: the numbers live in exitcode, shared with the subcommands'
// own packages.
const (
	exitOK          = exitcode.OK
	exitCheck       = exitcode.Check
	exitUsage       = exitcode.Usage
	exitChanges     = exitcode.Changes
	exitThreshold   = exitcode.Threshold
	exitRegression  = exitcode.Regression
	exitUndecided   = exitcode.Undecided
	exitUnfinished  = exitcode.Unfinished
	exitAllFailed   = exitcode.AllFailed
	exitInterrupted = exitcode.Interrupted
)

// exitSummary is the one-line list of codes for usage.
const exitSummary = "0 ok, 1 a check failed, 2 usage or spec error, 3 plan -diff: plans differ, 4 a threshold crossed, " +
	"5 a regression, 6 compare refused or undecided, 7 the run could not finish, 8 every call of an op failed, 130 interrupted"

// applyExit is apply's exit code. When several things happened the one
// a caller must act on first wins: an interrupt (the user asked), then a
// wrong answer (no timing of a wrong answer means anything), then an
// unfinished run (the gate saw part of it), then an op whose every call
// failed (a row that measured nothing), then a crossed threshold.
func applyExit(o *runner.Outcome, runErr error, interrupted bool) int {
	switch {
	case interrupted:
		return exitInterrupted
	case o != nil && o.Checks.Fail > 0:
		return exitCheck
	case runErr != nil || o == nil || len(o.Failures) > 0:
		return exitUnfinished
	case len(allCallsFailed(o.Rows)) > 0:
		return exitAllFailed
	case o.Checks.Threshold > 0:
		return exitThreshold
	}
	return exitOK
}

// compareExit is compare's exit code: a regression is a finding, a
// refusal and (when asked) an undecided metric are no verdict at all.
func compareExit(verdict compare.Verdict, failUndecided bool) int {
	switch {
	case verdict.Refused:
		return exitUndecided
	case verdict.Regressed():
		return exitRegression
	case failUndecided && verdict.Undecided() > 0:
		return exitUndecided
	}
	return exitOK
}
