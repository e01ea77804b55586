package postgres

import (
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/drivers/storelock"
)

// A store's advisory lock is held while its session lives, and says so
// once the session is gone (a server restart ends it), so the runner can
// take it again.
func TestLockHeldUntilItsSessionEnds(t *testing.T) {
	dsn, ctx := testDSN(t), testCtx(t)
	cfg := drivers.Config{Backend: "postgres", Scale: "xs", Options: map[string]string{"dsn": dsn, "database": testDBName(t)}}
	l, err := pgDriver{name: Name}.LockStore(ctx, cfg, storelock.Wait{Timeout: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	ck, ok := l.(storelock.Checker)
	if !ok || !ck.Held(ctx) {
		t.Fatal("a lock just taken is held")
	}
	if _, err := (pgDriver{name: Name}).LockStore(ctx, cfg, storelock.Wait{Timeout: -1}); err == nil {
		t.Fatal("a second lock of the same store was granted")
	}
	// The lock's session ends, as it does when the server restarts.
	other, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(ctx)
	pid := l.(*pgLock).conn.PgConn().PID()
	if _, err := other.Exec(ctx, "SELECT pg_terminate_backend($1)", int32(pid)); err != nil {
		t.Fatal(err)
	}
	if ck.Held(ctx) {
		t.Fatal("a lock whose session ended still reads as held")
	}
	again, err := pgDriver{name: Name}.LockStore(ctx, cfg, storelock.Wait{Timeout: -1})
	if err != nil {
		t.Fatalf("the lost lock cannot be taken again: %v", err)
	}
	again.Release()
}
