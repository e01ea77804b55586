package noise

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestReadStat(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name, text string
		ok         bool
		want       proc
	}{
		{"plain", "42 (postgres) S 7 42 42 0 -1 4194560 1 0 0 0 10 5 3 2 20 0 1 0", true, proc{ppid: 7, comm: "postgres", cpu: 20}},
		{"a comm with spaces and parentheses", "43 (a (b) c) R 1 1 1 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0", true, proc{ppid: 1, comm: "a (b) c", cpu: 3}},
		{"torn", "44 (x) S 1", false, proc{}},
	} {
		p := filepath.Join(dir, tt.name)
		if err := os.WriteFile(p, []byte(tt.text), 0o644); err != nil {
			t.Fatal(err)
		}
		got, ok := readStat(p)
		if ok != tt.ok || got != tt.want {
			t.Errorf("%s: %+v %v, want %+v %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}

func TestBetween(t *testing.T) {
	t0 := time.Unix(0, 0)
	a := Sample{At: t0, Total: 1000, Idle: 500, Steal: 10, Own: 100, Servers: 50, MHz: 2000}
	b := Sample{At: t0.Add(time.Second), Total: 1200, Idle: 540, Steal: 30, Own: 180, Servers: 70, Load1: 3.5, MHz: 2200}
	iv := Between(a, b)
	// 200 ticks: 40 idle (20%), 20 stolen (10%), 80 ours (40%), 20 the
	// servers' (10%), the other 20%.
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"busy", iv.BusyPct, 70}, {"own", iv.OwnPct, 40}, {"servers", iv.ServerPct, 10},
		{"other", iv.OtherPct, 20}, {"steal", iv.StealPct, 10}, {"mhz", iv.MHz, 2100}, {"load", iv.Load1, 3.5},
	} {
		if c.got < c.want-1e-9 || c.got > c.want+1e-9 {
			t.Errorf("%s %v, want %v", c.name, c.got, c.want)
		}
	}
	if iv := Between(b, b); iv.Err == nil {
		t.Error("no time passed, and no error")
	}
}

// TestOtherProcesses: a busy loop that is not a descendant of this
// process (its parent shell exited) is noise; a busy goroutine of this
// process is the run's own CPU.
func TestOtherProcesses(t *testing.T) {
	if _, err := os.Stat("/proc/stat"); err != nil {
		t.Skip("no /proc")
	}
	s := New(nil)
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
		}
	}()
	a := s.Take()
	time.Sleep(300 * time.Millisecond)
	own := Between(a, s.Take())
	close(stop)
	if own.Err != nil || own.OwnPct <= 0 {
		t.Fatalf("a busy goroutine: %+v", own)
	}

	out, err := exec.Command("sh", "-c", "(while :; do :; done) >/dev/null 2>&1 & echo $!").Output()
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(pid, syscall.SIGKILL)
	time.Sleep(100 * time.Millisecond)
	a = s.Take()
	time.Sleep(500 * time.Millisecond)
	other := Between(a, s.Take())
	// One busy CPU of the machine's, less what scheduling takes from it.
	if want := 100 / float64(other.CPUs) / 2; other.OtherPct < want {
		t.Errorf("a busy process outside the run: other %.1f%%, want at least %.1f%% (%+v)", other.OtherPct, want, other)
	}
}
