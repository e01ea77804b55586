// Package pgwire is what a driver for a database that speaks
// PostgreSQL's wire protocol (PostgreSQL, CockroachDB, YugabyteDB, a
// pooler) needs beyond pgx to measure it: transports that wait for the
// server's reply more cheaply than Go's network poller, and a counted
// fast path for the measured calls. drivers/postgres is built on it.
//
// Transports, each a pgconn.DialFunc (pgx.ConnConfig.DialFunc):
//
//	DialRaw       a blocking socket read and written with raw system calls:
//	              the goroutine keeps its thread and P while the kernel
//	              waits; for sessions only, each counted by
//	              RawSessionOpened and RawSessionClosed (GOMAXPROCS). On
//	              systems without it (RawAvailable false) it dials Go's
//	              poller.
//	DialAuto      waits in the kernel (ppoll, then read) while few() reports
//	              true, through the poller beyond.
//	DialBlocking  plain blocking system calls that hand the P over.
//
// The counted fast path: a Counter per session runs a Statement (a
// prepared one, or Simple for the simple protocol) with its rows counted
// and none decoded, framing Bind, Execute and Sync (or one Query) itself
// on the pgx connection's socket, with no allocation in steady state.
// pgx keeps everything else (connecting, authentication, TLS, prepare,
// collected rows, COPY): call Counter.HandOver before pgx uses the
// connection again. An error that is a *LostError means the connection
// is gone.
//
// Cancellation: CancelHandler is pgx's cancel-request handler, optionally
// followed by QueryGone.Wait, which confirms on pg_stat_activity that a
// cut query no longer runs; a Counter's calls are cancelled alike.
package pgwire
