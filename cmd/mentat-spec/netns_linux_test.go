package main

import (
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/worker"
)

// netnsOverride puts the run on a database of this test's own.
const netnsOverride = `
backend "postgres" {
  database = "%s_${scale.name}"
}
`

// ipCmd runs ip(8) and fails the test on error.
func ipCmd(t *testing.T, args ...string) {
	t.Helper()
	if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
		t.Fatalf("ip %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// netnsPair makes namespace ns joined to this (the coordinator's)
// namespace by a veth pair: host is this side's address, peer the
// namespace's, and everything else the namespace reaches goes through
// host. It returns the name of this side's link.
func netnsPair(t *testing.T, ns, link, host, peer string) string {
	t.Helper()
	ipCmd(t, "netns", "add", ns)
	t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", ns).Run() })
	ipCmd(t, "link", "add", link+"h", "type", "veth", "peer", "name", link+"n")
	t.Cleanup(func() { _ = exec.Command("ip", "link", "del", link+"h").Run() })
	ipCmd(t, "link", "set", link+"n", "netns", ns)
	ipCmd(t, "addr", "add", host+"/30", "dev", link+"h")
	ipCmd(t, "link", "set", link+"h", "up")
	ipCmd(t, "-n", ns, "addr", "add", peer+"/30", "dev", link+"n")
	ipCmd(t, "-n", ns, "link", "set", link+"n", "up")
	ipCmd(t, "-n", ns, "link", "set", "lo", "up")
	ipCmd(t, "-n", ns, "route", "add", "default", "via", host)
	return link + "h"
}

// proxy forwards connections to ln to target (PostgreSQL, which listens
// on 127.0.0.1 only) until the test ends, then closes every one of them.
func proxy(t *testing.T, ln net.Listener, target string) {
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	go func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			out, err := net.DialTimeout("tcp", target, 5*time.Second)
			if err != nil {
				in.Close()
				continue
			}
			mu.Lock()
			conns = append(conns, in, out)
			mu.Unlock()
			go func() { _, _ = io.Copy(out, in); out.Close() }()
			go func() { _, _ = io.Copy(in, out); in.Close() }()
		}
	}()
}

// Across real network boundaries: the coordinator and PostgreSQL in this
// namespace, two workers each in a namespace of its own behind a veth
// pair, TLS and the secret on. The link of one worker is cut in the
// middle of the 2-client point: the point's row reports the lost worker
// within a bounded time, and the run goes on to the 1-client point on
// the other worker.
func TestNetnsWorkerLinkCut(t *testing.T) {
	if testing.Short() {
		t.Skip("makes network namespaces")
	}
	if os.Geteuid() != 0 {
		t.Skip("network namespaces need root")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("no ip(8) to make network namespaces with")
	}
	pgDSN := os.Getenv("MENTAT_SPEC_PG_DSN")
	if pgDSN == "" {
		t.Skip("MENTAT_SPEC_PG_DSN is unset: run `make test`, which starts a throwaway PostgreSQL")
	}
	probe := fmt.Sprintf("msp%d", os.Getpid())
	if out, err := exec.Command("ip", "netns", "add", probe).CombinedOutput(); err != nil {
		t.Skipf("cannot make a network namespace here: %v %s", err, out)
	}
	_ = exec.Command("ip", "netns", "del", probe).Run()

	pid := os.Getpid()
	k := pid % 250
	coordAddr := fmt.Sprintf("10.213.%d.1", k)
	nsA, nsB := fmt.Sprintf("msa%d", pid), fmt.Sprintf("msb%d", pid)
	netnsPair(t, nsA, fmt.Sprintf("vma%d", pid), coordAddr, fmt.Sprintf("10.213.%d.2", k))
	cut := netnsPair(t, nsB, fmt.Sprintf("vmb%d", pid), fmt.Sprintf("10.213.%d.5", k), fmt.Sprintf("10.213.%d.6", k))

	// PostgreSQL, as the workers reach it: at the coordinator's address.
	u, err := url.Parse(pgDSN)
	if err != nil {
		t.Fatal(err)
	}
	db := fmt.Sprintf("mentat_netns_%d", pid)
	t.Cleanup(func() { dropDatabase(t, pgDSN, db+"_xs") })
	pgLn, err := net.Listen("tcp", coordAddr+":0")
	if err != nil {
		t.Fatal(err)
	}
	proxy(t, pgLn, u.Host)
	u.Host = pgLn.Addr().String()
	dsn := u.String()

	ln, err := net.Listen("tcp", coordAddr+":0")
	if err != nil {
		t.Fatal(err)
	}
	listen := ln.Addr().String()
	ln.Close()
	t.Setenv(asCLI, "1")
	secret := "netns-test-secret-0123456789abcdef"
	t.Setenv(worker.EnvSecret, secret)
	dir := t.TempDir()
	override := filepath.Join(dir, "netns_override.hcl")
	if err := os.WriteFile(override, []byte(fmt.Sprintf(netnsOverride, db)), 0o644); err != nil {
		t.Fatal(err)
	}

	var workers []*exec.Cmd
	for _, ns := range []string{nsA, nsB} {
		cmd := exec.Command("ip", "netns", "exec", ns, os.Args[0], "worker", "-connect", listen, "-loop", "-wait", "60s")
		cmd.Env = append(os.Environ(), config.EnvVarPrefix+"pg_dsn="+dsn)
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		workers = append(workers, cmd)
	}

	// Cut worker B's link once the 2-client point's workers are measuring.
	workersLog := filepath.Join(dir, "out", "logs", "workers.log")
	cutAt, nextAt := make(chan time.Time, 1), make(chan time.Time, 1)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			if b, _ := os.ReadFile(workersLog); strings.Contains(string(b), "point=0 workers=2") {
				time.Sleep(400 * time.Millisecond)
				_ = exec.Command("ip", "link", "set", cut, "down").Run()
				cutAt <- time.Now()
				break
			}
		}
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			if b, _ := os.ReadFile(workersLog); strings.Contains(string(b), "point=1 workers=1") {
				nextAt <- time.Now()
				return
			}
		}
	}()
	args := []string{"apply", fullSpec, override, "-var", `scales=["xs"]`, "-var", `backends=["postgres"]`,
		"-var", `scenarios=["concurrency_sweep"]`, "-var", "clients=[2,1]", "-var", `client_model="process"`,
		"-var", "min_s=1", "-var", "max_s=2", "-var", "reps=1", "-var", "probe_s=1", "-var", "pg_dsn=" + dsn,
		"-var", "data_dir=" + filepath.Join(dir, "data"), "-worker-listen", listen, "-o", filepath.Join(dir, "out"), "-q"}
	type result struct {
		code           int
		stdout, stderr string
	}
	done := make(chan result, 1)
	go func() {
		code, stdout, stderr := runT(t, args...)
		done <- result{code, stdout, stderr}
	}()
	var r result
	select {
	case r = <-done:
	case <-time.After(150 * time.Second):
		t.Fatal("the run did not end within 150s")
	}
	var cutTime time.Time
	select {
	case cutTime = <-cutAt:
	default:
		t.Fatalf("the link was never cut\nstdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	}
	// The point failed (a worker was lost), the run went on: exit 1.
	if r.code != exitUnfinished {
		t.Fatalf("exit %d, want 1 (one point lost a worker)\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	rows := readCSV(t, filepath.Join(dir, "out", "timings.csv"))
	if len(rows) != 2 {
		t.Fatalf("timings.csv: %v\nstderr:\n%s", rows, r.stderr)
	}
	lost, next := rows[0], rows[1]
	if lost["clients"] != "2" || lost["errors"] == "0" || lost["count"] == "0" {
		t.Errorf("the cut point's row: %v", lost)
	}
	if next["clients"] != "1" || next["errors"] != "0" || next["count"] == "0" {
		t.Errorf("the point after the cut: %v", next)
	}
	errLog, _ := os.ReadFile(filepath.Join(dir, "out", "logs", "errors.log"))
	if !strings.Contains(string(errLog), "worker 1") && !strings.Contains(string(errLog), "worker 0") {
		t.Errorf("errors.log does not name the lost worker:\n%s", errLog)
	}
	// Bounded: the point's max_s plus the coordinator's grace after its
	// stop (2 x 5s + 5s with probe_s = 1), and the next point's start.
	select {
	case at := <-nextAt:
		t.Logf("the lost worker reported and the next point started %s after the cut", at.Sub(cutTime).Round(time.Millisecond))
		if at.Sub(cutTime) > 30*time.Second {
			t.Errorf("%s from the cut to the next point, want under 30s", at.Sub(cutTime))
		}
	default:
		wl, _ := os.ReadFile(workersLog)
		t.Errorf("workers.log has no 1-client point after the cut:\n%s", wl)
	}
	t.Logf("errors.log:\n%s", errLog)
}
