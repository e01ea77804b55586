// Package compare decides whether two results directories may be
// compared and, where they may, whether NEW regressed against OLD.
//
// Comparability comes from two records a run writes: env.txt (the spec's
// hash, dataset, scales, variables, each backend's driver, version and
// settings: Differences) and fingerprints.json (what each cell's rows were
// measured with: Unchanged). Dirs then matches the points of both runs,
// judges each metric (MetricVerdict) and weighs the machine's noise; the
// Verdict prints as text (String) or as a page (HTML).
package compare
