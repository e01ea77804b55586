//go:build unix

package postgres

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5"
	"github.com/mentat-spec/mentat-spec/drivers"
)

var _ drivers.ColdStarter = (*Backend)(nil)

// ColdStart implements drivers.ColdStarter for the server the DSN points
// at, whoever started it: when it runs on this machine and its data
// directory is readable here, the restart is pg_ctl of the server's major
// version, run as the data directory's owner (through runuser when this
// process is root), and the files are the benchmark database's directory.
// Otherwise NoRestart and NoFiles say why not.
func (b *Backend) ColdStart(ctx context.Context) (drivers.ColdStart, error) {
	var cs drivers.ColdStart
	not := func(why string) (drivers.ColdStart, error) {
		cs.NoRestart, cs.NoFiles = why, why
		return cs, nil
	}
	if b.serverRestart == "off" {
		return not("the backend's server_restart option is off")
	}
	host, port := b.connCfg.Host, b.connCfg.Port
	if !isLocal(host) {
		return not(fmt.Sprintf("the server runs on %s, not on this machine", host))
	}
	var versionNum int
	var dbOID uint32
	err := b.withMeta(ctx, "cold start", func(c *pgx.Conn) error {
		return c.QueryRow(ctx, `SELECT current_setting('server_version_num')::int,
			(SELECT oid FROM pg_database WHERE datname = current_database())`).Scan(&versionNum, &dbOID)
	})
	if err != nil {
		return cs, err
	}
	var dir string
	if err := b.withMeta(ctx, "data_directory", func(c *pgx.Conn) error {
		return c.QueryRow(ctx, "SHOW data_directory").Scan(&dir)
	}); err != nil {
		return not("this role cannot read the server's data_directory (it needs superuser or pg_read_all_settings)")
	}
	if err := samePostmaster(dir, port); err != nil {
		return not(err.Error())
	}
	db := filepath.Join(dir, "base", strconv.FormatUint(uint64(dbOID), 10))
	if _, err := os.ReadDir(db); err != nil {
		cs.NoFiles = fmt.Sprintf("cannot read the database's files in %s: %v", db, err)
	} else {
		cs.Files = []string{db}
	}
	argv, server, why := restartCommand(dir, port, versionNum/10000)
	cs.Restart, cs.Server, cs.NoRestart = argv, server, why
	return cs, nil
}

// samePostmaster makes sure the data directory on this machine is the
// server the DSN reaches: its postmaster.pid names the DSN's port.
func samePostmaster(dir string, port uint16) error {
	b, err := os.ReadFile(filepath.Join(dir, "postmaster.pid"))
	if err != nil {
		return fmt.Errorf("cannot read the server's postmaster.pid in %s: %v", dir, err)
	}
	lines := strings.Split(string(b), "\n")
	if len(lines) < 4 || strings.TrimSpace(lines[3]) != strconv.Itoa(int(port)) {
		return fmt.Errorf("the server of %s does not listen on port %d: the DSN's server is another one", dir, port)
	}
	return nil
}

// restartCommand is pg_ctl restart of dir, run as the directory's owner,
// or why there is none.
func restartCommand(dir string, port uint16, major int) (argv []string, server, why string) {
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, "", fmt.Sprintf("cannot read the data directory %s: %v", dir, err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil, "", "cannot tell who owns the data directory " + dir
	}
	pgctl, err := findPgCtl(major)
	if err != nil {
		return nil, "", err.Error()
	}
	// The server's early output goes to a log file of its own: pg_ctl's
	// pipe would otherwise stay open in the server.
	logPath := filepath.Join(os.TempDir(), fmt.Sprintf("mentat-spec-pg-restart-%d.log", port))
	if f, err := os.OpenFile(logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644); err == nil {
		f.Close()
		_ = os.Chown(logPath, int(st.Uid), int(st.Gid))
	}
	argv = []string{pgctl, "restart", "-D", dir, "-m", "fast", "-w", "-t", "120", "-l", logPath}
	server = fmt.Sprintf("the PostgreSQL %d server of %s (pg_ctl restart)", major, dir)
	euid := os.Geteuid()
	switch {
	case euid == int(st.Uid):
		return argv, server, ""
	case euid == 0:
		u, err := user.LookupId(strconv.Itoa(int(st.Uid)))
		if err != nil {
			return nil, "", fmt.Sprintf("the data directory's owner (uid %d) has no user name: %v", st.Uid, err)
		}
		runuser, err := exec.LookPath("runuser")
		if err != nil {
			return nil, "", "the server runs as " + u.Username + ", and runuser is not installed to restart it as that user"
		}
		return append([]string{runuser, "-u", u.Username, "--"}, argv...), server + " as " + u.Username, ""
	}
	return nil, "", fmt.Sprintf("no permission: the data directory %s belongs to uid %d and this process runs as uid %d", dir, st.Uid, euid)
}

var pgCtlVersion = regexp.MustCompile(`\(PostgreSQL\) (\d+)`)

// findPgCtl finds the pg_ctl of a major version: Debian's and the PGDG
// packages' directories, pg_config's, then the PATH.
func findPgCtl(major int) (string, error) {
	cands := []string{
		fmt.Sprintf("/usr/lib/postgresql/%d/bin/pg_ctl", major),
		fmt.Sprintf("/usr/pgsql-%d/bin/pg_ctl", major),
	}
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		cands = append(cands, filepath.Join(strings.TrimSpace(string(out)), "pg_ctl"))
	}
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		cands = append(cands, p)
	}
	var seen []string
	for _, c := range cands {
		out, err := exec.Command(c, "--version").Output()
		if err != nil {
			continue
		}
		m := pgCtlVersion.FindSubmatch(bytes.TrimSpace(out))
		if m != nil && string(m[1]) == strconv.Itoa(major) {
			return c, nil
		}
		seen = append(seen, fmt.Sprintf("%s (%s)", c, bytes.TrimSpace(out)))
	}
	if len(seen) == 0 {
		return "", errors.New("no pg_ctl found to restart the server (looked in /usr/lib/postgresql/*/bin, pg_config --bindir and PATH)")
	}
	return "", fmt.Errorf("no pg_ctl of PostgreSQL %d found to restart the server (found %s)", major, strings.Join(seen, ", "))
}
