package storelock

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The test binary holds a lock and sleeps when this is set to a path.
const holdEnv = "STORELOCK_TEST_HOLD"

func TestMain(m *testing.M) {
	if p := os.Getenv(holdEnv); p != "" {
		if _, err := File(context.Background(), p, "test store", Wait{Timeout: -1}); err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println("held")
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// holdInChild starts a process that holds path's lock until killed.
func holdInChild(t *testing.T, path string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), holdEnv+"="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, _ := bufio.NewReader(out).ReadString('\n')
	if strings.TrimSpace(line) != "held" {
		t.Fatalf("child: %q", line)
	}
	return cmd
}

func TestFileLock(t *testing.T) {
	host, _ := os.Hostname()
	for _, tc := range []struct {
		name    string
		wait    Wait
		release time.Duration // the holder releases after this (0: never)
		want    string        // "" : taken
	}{
		{"refuse at once", Wait{Timeout: -1}, 0, "refusing to share it"},
		{"wait, then give up", Wait{Timeout: 300 * time.Millisecond}, 0, "waited"},
		{"wait until released", Wait{Timeout: 5 * time.Second}, 200 * time.Millisecond, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "x.lock")
			first, err := File(context.Background(), path, "store x", Wait{Timeout: -1})
			if err != nil {
				t.Fatal(err)
			}
			defer first.Release()
			if tc.release > 0 {
				go func() { time.Sleep(tc.release); first.Release() }()
			}
			var told []Holder
			tc.wait.Waiting = func(what string, h Holder) { told = append(told, h) }
			second, err := File(context.Background(), path, "store x", tc.wait)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				second.Release()
				if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("the lock file stays after its release: %v", err)
				}
				return
			}
			var held *HeldError
			if !errors.As(err, &held) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
			// The message names the holder: this process, this host.
			if held.Holder.PID != os.Getpid() || held.Holder.Host != host || !strings.Contains(err.Error(), fmt.Sprintf("pid %d on %s", os.Getpid(), host)) {
				t.Errorf("holder %+v in %q", held.Holder, err)
			}
			if tc.wait.Timeout > 0 && len(told) != 1 {
				t.Errorf("told %d times it waits", len(told))
			}
		})
	}
}

// A run killed with SIGKILL holds its lock no longer: the kernel released
// it, and the next run takes it over at once, its pid in the file.
func TestFileLockOfKilledHolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.lock")
	child := holdInChild(t, path)
	if _, err := File(context.Background(), path, "store", Wait{Timeout: -1}); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", child.Process.Pid)) {
		t.Fatalf("while the child holds it: %v", err)
	}
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()
	h := ParseHolder(mustRead(t, path))
	if h.PID != child.Process.Pid || !h.Stale {
		t.Errorf("the killed holder's file reads %+v: want its pid, stale", h)
	}
	t0 := time.Now()
	l, err := File(context.Background(), path, "store", Wait{Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	if time.Since(t0) > time.Second {
		t.Errorf("took %s to take over a dead run's lock", time.Since(t0))
	}
	if h := ParseHolder(mustRead(t, path)); h.PID != os.Getpid() {
		t.Errorf("after the takeover the file names %+v", h)
	}
}

func TestWaitEndsWithContext(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	l, err := File(context.Background(), path, "x", Wait{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := File(ctx, path, "x", Wait{}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v", err)
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
