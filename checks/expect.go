// Package checks compares a query's rows with the answer the generator
// knows. It holds nothing specific to any workload: the spec says which
// query, which samples, what to compare and how.
package checks

// Expect is what one check case wants of a query's rows. Every set field
// must hold; an Expect with no field set is rejected by the spec loader.
type Expect struct {
	// Rows is the exact number of rows.
	Rows *int64
	// Values: every row has these column values, and there is at least one row.
	Values map[string]any
	// Set: the rows, projected on Columns, equal Rows as a multiset.
	Set *Set
	// List: the rows, projected on Columns, equal Rows in order (a scan's
	// records in key order).
	List *Set
	// Map: the rows as Key column -> Value column equal Want exactly.
	Map *Map
	// Sum: the Column adds up to Want.
	Sum *Sum
	// IDs: the distinct values of a column are exactly a set of entity ids.
	IDs *IDs
}

// Set is an exact multiset of tuples over some columns.
type Set struct {
	Columns []string
	Rows    [][]any
}

// Map is a key column mapped to a value column.
type Map struct {
	Key, Value string
	Want       map[string]any
}

// Sum is a column total.
type Sum struct {
	Column string
	Want   float64
}
