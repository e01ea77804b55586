package duckdb

import (
	"context"
	"errors"

	"github.com/duckdb/duckdb-go/v2/mapping"
	"github.com/mentat-spec/mentat-spec/drivers"
)

var _ drivers.AnalyzeExplainer = (*backend)(nil)

// ExplainAnalyze is the profiler's per-operator times and cardinalities
// of one run of a query (EXPLAIN ANALYZE); a statement that is not a
// query is not run, as it would write.
func (b *backend) ExplainAnalyze(ctx context.Context, sql string, args []any) (string, error) {
	typ, err := b.statementType(ctx, sql)
	if err != nil {
		return "", err
	}
	if typ != mapping.StatementTypeSelect {
		return "", b.wrap("explain analyze", sql, errors.New("not run: the statement is not a query and would write"))
	}
	return b.Explain(ctx, sql, args)
}
