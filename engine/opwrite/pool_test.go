package opwrite

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/drivers/drivertest"
	"github.com/mentat-spec/mentat-spec/drivers/sqlite"
	"github.com/mentat-spec/mentat-spec/engine/kind"
	"github.com/mentat-spec/mentat-spec/engine/writetx"
)

// countingSession counts its Close.
type countingSession struct {
	drivers.Session
	closed *int
}

func (s countingSession) Close() error { *s.closed++; return s.Session.Close() }

// The pool's sessions, on a real SQLite store, stay open while a client
// holds the pool and close with the last hold; a session that cannot be
// opened closes those opened before it.
func TestPoolHolds(t *testing.T) {
	ctx := context.Background()
	be := drivertest.Open(t, sqlite.New(), drivers.Config{})
	closed, opened := 0, 0
	open := func(ctx context.Context) (drivers.Session, error) {
		if opened == 2 {
			return nil, errors.New("too many connections")
		}
		s, err := be.Session(ctx)
		opened++
		return countingSession{s, &closed}, err
	}
	prepare := func(context.Context, drivers.Session, kind.Operation) (*writetx.Tx, error) { return nil, nil }
	p, err := OpenPool(ctx, 2, open, prepare)
	if err != nil {
		t.Fatal(err)
	}
	if p.Held() {
		t.Error("a new pool is held")
	}
	p.Hold()
	p.Hold()
	p.Unref()
	if !p.Held() || closed != 0 {
		t.Errorf("one hold left: held %v, %d sessions closed", p.Held(), closed)
	}
	w, err := p.acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p.release(w)
	p.Unref()
	if p.Held() || closed != 2 {
		t.Errorf("no hold left: held %v, %d sessions closed, want 2", p.Held(), closed)
	}
	opened, closed = 1, 0
	if _, err := OpenPool(ctx, 2, open, prepare); err == nil || !strings.Contains(err.Error(), "writer 1: connecting") || closed != 1 {
		t.Errorf("the second session refused: %v, %d closed; want the error and the first closed", err, closed)
	}
}
