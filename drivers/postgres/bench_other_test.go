//go:build !unix

package postgres

// dropFixture has nothing to drop: the benchmarks need unix.
func dropFixture() {}
