// Package resolve evaluates a decoded spec (engine/config) for the matrix
// cells it runs in: a dataset block for one scale into datagen's dataset
// and write generators, a backend block for one (scale, backend) cell into
// what the runner sets up and loads, a query into its SQL for the cell's
// dialect with its parameter values, a check into its cases against the
// scale's truth, and the spec's samplers and thresholds. Validate does it
// for every declared cell, so a mistake anywhere is reported at its line
// before anything runs. Nothing here touches a database; engine/planbuild
// builds the run's program (a plan.Plan, whose value types the backend
// and load here are) from what this package returns.
package resolve
