package history

import "testing"

// StoreLocations returns, per store kind this test run reaches (a SQLite
// file; a PostgreSQL schema when there is a server), a function giving
// the location of a fresh, empty history: for package history_test.
func StoreLocations(t testing.TB) map[string]func(testing.TB) string {
	out := map[string]func(testing.TB) string{}
	for _, k := range storeKinds(t) {
		out[k.name] = k.loc
	}
	return out
}
