package main

import (
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mentat-spec/mentat-spec/engine/worker"
)

// TestApplyWorkersPastIdleStrangers is the case: a stranger holds
// 70 idle connections on the workers' port (past its 64 authenticating
// at once) through the run, opening another as soon as one is closed. The run's two -loop workers still serve
// every point, the run exits 0, and the workers exit 0 when it says the
// run is over; before, their redials failed, they took that for the end
// of the run and exited 0 at once, and the run was left without workers.
func TestApplyWorkersPastIdleStrangers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs worker processes")
	}
	t.Setenv(asCLI, "1")
	t.Setenv(worker.EnvSecret, "0123456789abcdef0123456789abcdef")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	dir := t.TempDir()
	args := append(sweepArgs(dir, "sqlite", "[1,2,1,2]", "-worker-listen", addr), "-var", "min_s=0.3", "-var", "max_s=0.6", "-var", "reps=1")
	type result struct {
		code           int
		stdout, stderr string
	}
	done := make(chan result, 1)
	go func() {
		code, stdout, stderr := runT(t, args...)
		done <- result{code, stdout, stderr}
	}()
	for deadline := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			break
		}
		if time.Since(deadline) > 20*time.Second {
			t.Fatal(err)
		}
	}
	stop := make(chan struct{})
	var held sync.WaitGroup
	defer func() { close(stop); held.Wait() }()
	opened := make(chan struct{}, 70)
	for range 70 {
		held.Add(1)
		go func() {
			defer held.Done()
			for {
				c, err := net.DialTimeout("tcp", addr, time.Second)
				if err != nil {
					select {
					case <-stop:
						return
					case <-time.After(50 * time.Millisecond):
						continue
					}
				}
				select {
				case opened <- struct{}{}:
				default:
				}
				closed := make(chan struct{})
				go func() { _, _ = io.Copy(io.Discard, c); close(closed) }()
				select {
				case <-stop:
					c.Close()
					return
				case <-closed: // the coordinator closed it: open another
					c.Close()
				}
			}
		}()
	}
	for range 70 {
		<-opened
	}
	var cmds []*exec.Cmd
	for range 2 {
		cmd := exec.Command(os.Args[0], "worker", "-connect", addr, "-loop", "-wait", "30s")
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill() })
		cmds = append(cmds, cmd)
	}
	var r result
	select {
	case r = <-done:
	case <-time.After(120 * time.Second):
		t.Fatal("apply did not end")
	}
	if r.code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("worker %d: %v", cmd.Process.Pid, err)
		}
	}
	rows := readCSV(t, filepath.Join(dir, "out", "timings.csv"))
	if len(rows) != 4 {
		t.Fatalf("timings.csv: %v", rows)
	}
	for _, row := range rows {
		if row["errors"] != "0" || row["count"] == "0" {
			t.Errorf("row %v", row)
		}
	}
	log, _ := os.ReadFile(filepath.Join(dir, "out", "logs", "auth.log"))
	if n := strings.Count(string(log), "\n"); n > 20 {
		t.Errorf("auth.log has %d lines for one address:\n%s", n, log)
	}
}
