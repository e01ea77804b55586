package explain

import (
	"context"
	"fmt"
	"strings"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/resolve"
	"github.com/mentat-spec/mentat-spec/engine/sqltext"
)

// Statement runs the backend's explain statement stmt for query q on
// sess: :q bound to q.Text, every other parameter to the value q.Args
// gives it in the query. The rows come back one line each, their columns
// separated by tabs.
func Statement(ctx context.Context, sess drivers.Session, placeholder func(int) string, stmt string, q Query) (string, error) {
	b, err := sqltext.Bind(stmt, placeholder)
	if err != nil {
		return "", fmt.Errorf("the explain statement: %w", err)
	}
	vals := map[string]any{resolve.ExplainQueryParam: q.Text}
	for i, n := range q.Names {
		if i < len(q.Args) {
			vals[n] = q.Args[i]
		}
	}
	eargs := make([]any, len(b.Names))
	for i, n := range b.Names {
		v, ok := vals[n]
		if !ok {
			return "", fmt.Errorf("the explain statement binds :%s, which query %s does not", n, q.Name)
		}
		eargs[i] = v
	}
	st, err := sess.Prepare(ctx, b.SQL)
	if err != nil {
		return "", err
	}
	defer st.Close()
	var rows [][]any
	if _, err := st.Query(ctx, eargs, &rows); err != nil {
		return "", err
	}
	var sb strings.Builder
	for i, row := range rows {
		if i > 0 {
			sb.WriteByte('\n')
		}
		for j, v := range row {
			if j > 0 {
				sb.WriteByte('\t')
			}
			switch x := v.(type) {
			case nil:
			case []byte:
				sb.Write(x)
			default:
				fmt.Fprint(&sb, x)
			}
		}
	}
	return sb.String(), nil
}
