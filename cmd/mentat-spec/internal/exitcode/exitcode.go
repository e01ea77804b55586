// Package exitcode holds the command's exit codes, so that its
// subcommands' own packages return the same numbers as main (the README's
// table lists them).
package exitcode

// Each code says one thing happened, so that a script gating a release
// can tell a wrong answer from a slower build, a busy host or a run that
// never finished.
const (
	OK         = 0 // everything ran, every check and threshold passed
	Check      = 1 // a check failed (a wrong answer); fmt -check: a file to reformat
	Usage      = 2 // bad command line or spec (a diagnostic with its place)
	Changes    = 3 // plan -diff -detailed-exitcode: the plans differ (Terraform's 2 is this tool's spec error)
	Threshold  = 4 // a threshold was crossed
	Regression = 5 // compare found a regression
	Undecided  = 6 // compare refused two runs, or (with -fail-undecided) could not decide
	Unfinished = 7 // the run could not finish (a store that would not open, a load error, a full disk)
	AllFailed  = 8 // an operation or query of a point failed every call: no result, however fast
	// Interrupted is what shells expect of a process ended by SIGINT
	// (128 + 2).
	Interrupted = 130
)
