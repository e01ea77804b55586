package evidence

// Explain is explain, for the injected-cause tests of package
// evidence_test (which import the runner, itself an importer of this
// package).
var Explain = explain
