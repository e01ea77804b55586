package main

import (
	"github.com/mentat-spec/mentat-spec/engine/compare"
	"github.com/mentat-spec/mentat-spec/engine/runner"
)

// Exit codes. Each says one thing happened, so that a script gating a
// release can tell a wrong answer from a slower build, a busy host or a
// run that never finished (the README's table lists them).
const (
	exitOK         = 0 // everything ran, every check and threshold passed
	exitCheck      = 1 // a check failed (a wrong answer); fmt -check: a file to reformat
	exitUsage      = 2 // bad command line or spec (a diagnostic with its place)
	exitChanges    = 3 // plan -diff -detailed-exitcode: the plans differ (Terraform's 2 is this tool's spec error)
	exitThreshold  = 4 // a threshold was crossed
	exitRegression = 5 // compare found a regression
	exitUndecided  = 6 // compare refused two runs, or (with -fail-undecided) could not decide
	exitUnfinished = 7 // the run could not finish (a store that would not open, a load error, a full disk)
	exitAllFailed  = 8 // an operation or query of a point failed every call: no result, however fast
	// exitInterrupted is what shells expect of a process ended by SIGINT
	// (128 + 2).
	exitInterrupted = 130
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
func compareExit(rep compare.Verdict, failUndecided bool) int {
	switch {
	case rep.Refused:
		return exitUndecided
	case rep.Regressed():
		return exitRegression
	case failUndecided && rep.Undecided() > 0:
		return exitUndecided
	}
	return exitOK
}
