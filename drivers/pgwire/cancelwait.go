package pgwire

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

// CancelHandler returns pgx's context watcher handler for a connection
// config (pgconn.Config.BuildContextWatcherHandler): a cancelled context
// sends a cancel request, and the socket's deadline is moved to delay from
// then (past it the call fails and the connection is gone). With gone
// set, the cut call then runs gone with the connection's backend pid
// before it returns (QueryGone.Wait: the server still runs the query when
// the deadline passed before the cancel request landed).
func CancelHandler(delay time.Duration, gone func(pid uint32)) func(*pgconn.PgConn) ctxwatch.Handler {
	return func(c *pgconn.PgConn) ctxwatch.Handler {
		h := pgconn.CancelRequestContextWatcherHandler{Conn: c, DeadlineDelay: delay}
		if gone == nil {
			return &h
		}
		return &confirmedCancel{CancelRequestContextWatcherHandler: h, gone: gone}
	}
}

// confirmedCancel is pgx's cancel-request handler that, before the cut
// call returns, runs gone for the connection's backend.
type confirmedCancel struct {
	pgconn.CancelRequestContextWatcherHandler
	gone func(pid uint32)
	pid  uint32
}

func (h *confirmedCancel) HandleCancel(ctx context.Context) {
	h.pid = h.Conn.PID()
	h.CancelRequestContextWatcherHandler.HandleCancel(ctx)
}

func (h *confirmedCancel) HandleUnwatchAfterCancel() {
	h.CancelRequestContextWatcherHandler.HandleUnwatchAfterCancel()
	h.gone(h.pid)
}

// QueryGone confirms that a cut query is gone from the server before its
// call returns, so that it never overlaps what runs next: it reads
// pg_stat_activity on a connection of its own, made with Config (the
// zero value confirms nothing). Close it with its backend.
type QueryGone struct {
	Config *pgx.ConnConfig

	mu sync.Mutex
	c  *pgx.Conn
}

// Close closes the connection Wait opened.
func (w *QueryGone) Close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.c != nil {
		closeQuietly(w.c)
		w.c = nil
	}
}

// Wait polls pg_stat_activity until pid runs no query, asking the server
// again to cancel it meanwhile. It gives up after cancelConfirmLimit: it
// cannot fail the call, which has already failed with its cut.
func (w *QueryGone) Wait(pid uint32) {
	if pid == 0 || w.Config == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), cancelConfirmLimit)
	defer cancel()
	w.mu.Lock()
	defer w.mu.Unlock()
	for {
		if w.c == nil || w.c.IsClosed() {
			c, err := pgx.ConnectConfig(ctx, w.Config)
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

// closeQuietly closes c, which is discarded either way.
func closeQuietly(c *pgx.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = c.Close(ctx)
}
