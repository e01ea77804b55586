package postgres

import (
	"context"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
)

// cancelConfirmLimit bounds how long a cut call waits for the server to
// confirm its query is gone; cancelConfirmPoll is how often it asks.
var (
	cancelConfirmLimit = 10 * time.Second
	cancelConfirmPoll  = 10 * time.Millisecond
)

// confirmedCancel is pgx's cancel-request handler that, before the cut
// call returns, waits until the server shows no active query for the
// connection's backend. When the connection's deadline passes before the
// cancel request lands, pgx gives up on the connection while the server
// still runs the query; without this wait it would overlap the next point.
type confirmedCancel struct {
	pgconn.CancelRequestContextWatcherHandler
	b   *Backend
	pid uint32
}

func (b *Backend) cancelHandler(c *pgconn.PgConn) ctxwatch.Handler {
	return &confirmedCancel{CancelRequestContextWatcherHandler: pgconn.CancelRequestContextWatcherHandler{Conn: c, DeadlineDelay: cancelDeadlineDelay}, b: b}
}

func (h *confirmedCancel) HandleCancel(ctx context.Context) {
	h.pid = h.Conn.PID()
	h.CancelRequestContextWatcherHandler.HandleCancel(ctx)
}

func (h *confirmedCancel) HandleUnwatchAfterCancel() {
	h.CancelRequestContextWatcherHandler.HandleUnwatchAfterCancel()
	h.b.waitQueryGone(h.pid)
}

// watchConn is a connection to the DSN's own database, apart from the
// sessions and the meta connection (whose own cut calls come here too), for
// reading pg_stat_activity.
type watchConn struct {
	mu sync.Mutex
	c  *pgx.Conn
}

func (w *watchConn) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.c != nil {
		closeQuietly(w.c)
		w.c = nil
	}
}

// waitQueryGone polls pg_stat_activity until pid runs no query, asking the
// server again to cancel it meanwhile. It gives up after
// cancelConfirmLimit: it cannot fail the call, which has already failed
// with its cut.
func (b *Backend) waitQueryGone(pid uint32) {
	if pid == 0 || b.adminCfg == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), cancelConfirmLimit)
	defer cancel()
	w := &b.watch
	w.mu.Lock()
	defer w.mu.Unlock()
	for {
		if w.c == nil || w.c.IsClosed() {
			c, err := pgx.ConnectConfig(ctx, b.adminCfg)
			if err != nil {
				return
			}
			w.c = c
		}
		var active bool
		err := w.c.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND state NOT IN ('idle', 'idle in transaction', 'idle in transaction (aborted)'))`, int64(pid)).Scan(&active)
		if err != nil || !active {
			return
		}
		if _, err := w.c.Exec(ctx, "SELECT pg_cancel_backend($1)", int64(pid)); err != nil {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(cancelConfirmPoll):
		}
	}
}
