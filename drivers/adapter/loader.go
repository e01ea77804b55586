package adapter

import (
	"context"
	"fmt"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/drivers/adapter/protocol"
)

// loadBatch is how many rows one load message carries.
const loadBatch = 2000

// NewLoader implements drivers.BulkLoader: a loader adapter of its own,
// fed rows of datoms per table in load messages; flush commits them.
func (b *backend) NewLoader(ctx context.Context, tables []drivers.TableSpec) (drivers.Loader, error) {
	if b.hello != nil && !b.hello.Capabilities.Load {
		return nil, fmt.Errorf("adapter backend %q: the adapter %s says it cannot load (capabilities.load is false)", b.name, b.hello.Name)
	}
	s, err := b.openSession(ctx, protocol.RoleLoader)
	if err != nil {
		return nil, err
	}
	return &loader{s: s, tables: tables, pending: make([][][]any, len(tables))}, nil
}

type loader struct {
	s       *session
	tables  []drivers.TableSpec
	pending [][][]any // rows per table not yet sent
}

func (l *loader) Append(table int, row []any) error {
	if table < 0 || table >= len(l.tables) {
		return fmt.Errorf("adapter backend %q: loader: no table %d", l.s.b.name, table)
	}
	l.pending[table] = append(l.pending[table], append([]any(nil), row...))
	if len(l.pending[table]) >= loadBatch {
		return l.send(context.Background(), table)
	}
	return nil
}

func (l *loader) send(ctx context.Context, table int) error {
	rows := l.pending[table]
	if len(rows) == 0 {
		return nil
	}
	for _, r := range rows {
		for i, v := range r {
			j, _, err := protocol.Param(v)
			if err != nil {
				return fmt.Errorf("adapter backend %q: loader: %s.%s: %w", l.s.b.name, l.tables[table].Name, l.tables[table].Columns[i], err)
			}
			r[i] = j
		}
	}
	t := l.tables[table]
	_, err := l.s.request(ctx, protocol.Request{Op: "load", Table: t.Name, Columns: t.Columns, Data: rows})
	l.pending[table] = rows[:0]
	return l.s.wrap("load", err)
}

func (l *loader) Flush(ctx context.Context) error {
	for i := range l.tables {
		if err := l.send(ctx, i); err != nil {
			return err
		}
	}
	_, err := l.s.request(ctx, protocol.Request{Op: "flush"})
	return l.s.wrap("flush", err)
}

func (l *loader) Close() error { return l.s.Close() }
