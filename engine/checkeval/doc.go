// Package checkeval evaluates what a check says into typed values: its
// attributes (params, for_each, expect_*) into cases with their
// expectations, and a query's or check's parameter values into
// params.Spec. It reads HCL expressions in a given context and knows
// nothing of the decoded spec, so a plan can carry a check prepared at
// build time and evaluate it against the truth at run time.
package checkeval
