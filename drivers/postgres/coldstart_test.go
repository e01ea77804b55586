//go:build unix

package postgres

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/mentat-spec/mentat-spec/drivers"
)

// A server on another host is not restarted, and the reason says where it
// runs; nothing is connected to find that out.
func TestColdStartRemoteServer(t *testing.T) {
	cfg, err := pgx.ParseConfig("postgres://u:secret@db.example:5432/x")
	if err != nil {
		t.Fatal(err)
	}
	b := &Backend{connCfg: cfg}
	cs, err := b.ColdStart(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(cs.Restart) > 0 || len(cs.Files) > 0 || !strings.Contains(cs.NoRestart, "runs on db.example, not on this machine") || cs.NoFiles == "" {
		t.Errorf("ColdStart = %+v", cs)
	}
}

func TestSamePostmaster(t *testing.T) {
	dir := t.TempDir()
	write := func(s string) {
		if err := os.WriteFile(filepath.Join(dir, "postmaster.pid"), []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := samePostmaster(dir, 5432); err == nil || !strings.Contains(err.Error(), "postmaster.pid") {
		t.Errorf("no postmaster.pid: %v", err)
	}
	write("123\n" + dir + "\n1700000000\n5433\n/tmp\n127.0.0.1\n")
	if err := samePostmaster(dir, 5432); err == nil || !strings.Contains(err.Error(), "another one") {
		t.Errorf("another port: %v", err)
	}
	if err := samePostmaster(dir, 5433); err != nil {
		t.Errorf("the same server: %v", err)
	}
}

// server_restart = "off" keeps a shared server running: no restart, and
// the reason names the option. A value other than auto or off is refused.
func TestColdStartServerRestartOff(t *testing.T) {
	b := &Backend{serverRestart: "off"}
	cs, err := b.ColdStart(context.Background())
	if err != nil || len(cs.Restart) > 0 || !strings.Contains(cs.NoRestart, "server_restart option is off") {
		t.Errorf("ColdStart = %+v, %v", cs, err)
	}
	for v, ok := range map[string]bool{"auto": true, "off": true, "yes": false} {
		_, err := parseOptions(Name, drivers.Config{Scale: "xs", Options: map[string]string{"dsn": "postgres://u@h/x", "server_restart": v}})
		if (err == nil) != ok {
			t.Errorf("server_restart = %q: %v", v, err)
		}
	}
}
