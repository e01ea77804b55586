package postgres

import (
	"context"
	"fmt"
	"hash/fnv"
	"os"
	"regexp"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/drivers/storelock"
)

var _ drivers.StoreLocker = pgDriver{}

// lockClass is the first key of the advisory locks this driver takes
// ("ment"), so that they do not meet an application's own.
const lockClass = 0x6d656e74

// lockKey is the second key: the benchmark database's name, hashed.
func lockKey(database string) int32 {
	h := fnv.New32a()
	h.Write([]byte(database))
	return int32(h.Sum32() & 0x7fffffff)
}

// LockStore takes a session-level advisory lock keyed by the benchmark
// database's name, on a session of the DSN's own database held until
// Release: the server releases it when that session ends, also when the
// run is killed. The session's application_name says who holds it.
func (d pgDriver) LockStore(ctx context.Context, cfg drivers.Config, w storelock.Wait) (storelock.Lock, error) {
	o, err := parseOptions(d.name, cfg)
	if err != nil {
		return nil, err
	}
	secrets := dsnSecrets(o.dsn)
	ccfg, err := pgx.ParseConfig(o.dsn)
	if err != nil {
		return nil, dsnParseError(d.name, o.dsn, err, secrets)
	}
	if ccfg.Password != "" {
		secrets = append(secrets, ccfg.Password)
	}
	if ccfg.ConnectTimeout == 0 {
		ccfg.ConnectTimeout = 10 * time.Second
	}
	host, _ := os.Hostname()
	ccfg.RuntimeParams["application_name"] = fmt.Sprintf("mentat-spec lock pid=%d host=%s", os.Getpid(), host)
	conn, err := pgx.ConnectConfig(ctx, ccfg)
	if err != nil {
		return nil, redact(fmt.Errorf("%s: locking database %q: connect to database %q: %w", o.name, o.database, ccfg.Database, err), secrets)
	}
	key := lockKey(o.database)
	what := fmt.Sprintf("PostgreSQL database %q", o.database)
	l, err := storelock.Poll(ctx, what, w, func() (storelock.Lock, *storelock.Holder, error) {
		var got bool
		if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock($1, $2)", int32(lockClass), key).Scan(&got); err != nil {
			return nil, nil, fmt.Errorf("%s: locking database %q: %w", o.name, o.database, err)
		}
		if got {
			return &pgLock{name: d.name, conn: conn, key: key}, nil, nil
		}
		h := lockHolder(ctx, conn, key)
		return nil, &h, nil
	})
	if err != nil {
		closeQuietly(conn)
		return nil, redact(err, secrets)
	}
	return l, nil
}

var holderName = regexp.MustCompile(`^mentat-spec lock pid=(\d+) host=(.*)$`)

// lockHolder reads who holds key from the holding session's
// application_name (and its client address when it is not ours).
func lockHolder(ctx context.Context, conn *pgx.Conn, key int32) storelock.Holder {
	var app, addr string
	var pid int
	var since time.Time
	err := conn.QueryRow(ctx, `SELECT coalesce(a.application_name, ''), coalesce(host(a.client_addr), 'local'), a.pid, coalesce(a.backend_start, now())
		FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
		WHERE l.locktype = 'advisory' AND l.granted AND l.classid::bigint = $1 AND l.objid::bigint = $2 AND l.objsubid = 2
		  AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`, int64(lockClass), int64(key)).Scan(&app, &addr, &pid, &since)
	if err != nil {
		return storelock.Holder{}
	}
	if m := holderName.FindStringSubmatch(app); m != nil {
		p, _ := strconv.Atoi(m[1])
		return storelock.Holder{PID: p, Host: m[2], Since: since}
	}
	return storelock.Holder{PID: pid, Host: "server backend of " + addr, Since: since}
}

type pgLock struct {
	name string // the driver's
	conn *pgx.Conn
	key  int32
}

// Held implements storelock.Checker: the lock's session still holds it.
// A server restart (cold_warm) ends the session, and the lock with it.
func (l *pgLock) Held(ctx context.Context) bool {
	if l.conn == nil {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var n int
	err := l.conn.QueryRow(ctx, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = $1 AND objid = $2 AND pid = pg_backend_pid() AND granted",
		int64(uint32(lockClass)), int64(uint32(l.key))).Scan(&n)
	return err == nil && n > 0
}

func (l *pgLock) Release() error {
	if l.conn == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := l.conn.Exec(ctx, "SELECT pg_advisory_unlock($1, $2)", int32(lockClass), l.key)
	err2 := l.conn.Close(ctx)
	l.conn = nil
	if err != nil {
		return fmt.Errorf("%s: releasing the store's lock: %w", l.name, err)
	}
	return err2
}
