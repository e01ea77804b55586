// Package sizeguard keeps every non-test Go package of the module under a
// line budget, checked by its test, so that a limit is kept by a test that
// fails rather than by memory.
package sizeguard

// MaxLines is the most non-test .go lines one package directory may hold.
const MaxLines = 3000
