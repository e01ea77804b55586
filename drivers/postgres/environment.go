package postgres

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/jackc/pgx/v5"
	"github.com/mentat-spec/mentat-spec/drivers"
)

var (
	_ drivers.EnvReporter    = (*Backend)(nil)
	_ drivers.StatementStats = (*Backend)(nil)
	_ drivers.ServerLog      = (*Backend)(nil)
)

// EnvFacts returns every setting not at its built-in default, as the
// benchmark's sessions see it (so the spec's settings show with source
// "client" or "database"), and whether pg_stat_statements is loaded.
func (b *Backend) EnvFacts(ctx context.Context) ([]drivers.Fact, error) {
	var facts []drivers.Fact
	err := b.withMeta(ctx, "non-default settings", func(c *pgx.Conn) error {
		rows, err := c.Query(ctx, `SELECT name, current_setting(name), source FROM pg_settings
			WHERE source <> 'default' ORDER BY name`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var name, value, source string
			if err := rows.Scan(&name, &value, &source); err != nil {
				return err
			}
			facts = append(facts, drivers.Fact{Key: "pg_setting." + name, Value: value + " (source: " + source + ")"})
		}
		return rows.Err()
	})
	if err != nil {
		return nil, err
	}
	pss := "loaded"
	if err := b.statementsReady(ctx); err != nil {
		pss = "unavailable (" + err.Error() + ")"
	}
	facts = append(facts, drivers.Fact{Key: "pg_stat_statements", Value: pss})
	return facts, nil
}

// errNotPreloaded says why there are no statement statistics.
var errNotPreloaded = errors.New("pg_stat_statements is not in shared_preload_libraries; add it there and restart the server to keep statement statistics per point")

// statementsReady reports why pg_stat_statements cannot be used, creating
// the extension in the benchmark database when the server has it loaded.
func (b *Backend) statementsReady(ctx context.Context) error {
	var libs string
	if err := b.withMeta(ctx, "pg_stat_statements", func(c *pgx.Conn) error {
		return c.QueryRow(ctx, "SELECT current_setting('shared_preload_libraries')").Scan(&libs)
	}); err != nil {
		return err
	}
	loaded := false
	for _, l := range strings.Split(libs, ",") {
		loaded = loaded || strings.Trim(strings.TrimSpace(l), `"`) == "pg_stat_statements"
	}
	if !loaded {
		return errNotPreloaded
	}
	return b.withMeta(ctx, "pg_stat_statements", func(c *pgx.Conn) error {
		var n int
		if err := c.QueryRow(ctx, "SELECT count(*) FROM pg_extension WHERE extname = 'pg_stat_statements'").Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return nil
		}
		if _, err := c.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements"); err != nil {
			return fmt.Errorf("creating the pg_stat_statements extension in %q: %w", b.database, err)
		}
		return nil
	})
}

// ResetStatementStats clears this database's statement statistics.
func (b *Backend) ResetStatementStats(ctx context.Context) error {
	if err := b.statementsReady(ctx); err != nil {
		return err
	}
	return b.withMeta(ctx, "pg_stat_statements_reset", func(c *pgx.Conn) error {
		_, err := c.Exec(ctx, `SELECT pg_stat_statements_reset(0,
			(SELECT oid FROM pg_database WHERE datname = current_database()), 0)`)
		return err
	})
}

// TopStatements lists the n statements of this database with the largest
// total execution time, leaving out the statistics queries themselves.
func (b *Backend) TopStatements(ctx context.Context, n int) (string, error) {
	var sb strings.Builder
	err := b.withMeta(ctx, "pg_stat_statements", func(c *pgx.Conn) error {
		rows, err := c.Query(ctx, `SELECT calls, total_exec_time, mean_exec_time, max_exec_time, rows,
				shared_blks_hit, shared_blks_read, temp_blks_written, query
			FROM pg_stat_statements
			WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
				AND query NOT LIKE '%pg_stat_statements%'
			ORDER BY total_exec_time DESC LIMIT $1`, n)
		if err != nil {
			return err
		}
		defer rows.Close()
		tw := tabwriter.NewWriter(&sb, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "calls\ttotal_ms\tmean_ms\tmax_ms\trows\tshared_hit\tshared_read\ttemp_written\tquery")
		for rows.Next() {
			var calls, nrows, hit, read, temp int64
			var total, mean, max float64
			var query string
			if err := rows.Scan(&calls, &total, &mean, &max, &nrows, &hit, &read, &temp, &query); err != nil {
				return err
			}
			fmt.Fprintf(tw, "%d\t%.3f\t%.3f\t%.3f\t%d\t%d\t%d\t%d\t%s\n", calls, total, mean, max, nrows, hit, read, temp,
				strings.Join(strings.Fields(query), " "))
		}
		if err := rows.Err(); err != nil {
			return err
		}
		return tw.Flush()
	})
	return sb.String(), err
}

// ServerLogPath is the file the server logs to, when the server runs on
// this machine and its logging collector writes one.
func (b *Backend) ServerLogPath(ctx context.Context) (string, error) {
	if !isLocal(b.connCfg.Host) {
		return "", fmt.Errorf("the server runs on %s, not on this machine", b.connCfg.Host)
	}
	var file, dataDir *string
	err := b.withMeta(ctx, "server log", func(c *pgx.Conn) error {
		return c.QueryRow(ctx, "SELECT pg_current_logfile(), current_setting('data_directory', true)").Scan(&file, &dataDir)
	})
	if err != nil {
		return "", err
	}
	if file == nil {
		return "", errors.New("the server's logging_collector is off: its log goes wherever it was started")
	}
	path := *file
	if !filepath.IsAbs(path) {
		if dataDir == nil {
			return "", errors.New("data_directory is not readable by this role (needs pg_read_all_settings)")
		}
		path = filepath.Join(*dataDir, path)
	}
	return path, nil
}

// isLocal reports whether host is a loopback address or a unix socket.
func isLocal(host string) bool {
	if strings.HasPrefix(host, "/") || host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// DetailedKeys: every non-default pg_settings row is a line of its own.
func (pgDriver) DetailedKeys() []string { return []string{"pg_setting."} }
func (pgDriver) DetailedName() string   { return "PostgreSQL's non-default pg_settings" }
