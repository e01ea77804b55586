package datagen

// ExactStatsWork lets the external tests lower the work up to which
// EstimateStats counts exactly.
var ExactStatsWork = &exactStatsWork
