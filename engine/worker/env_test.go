package worker

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// Local workers get their share of the CPUs unless GOMAXPROCS is set.
func TestWorkerEnv(t *testing.T) {
	cpus := runtime.NumCPU()
	for _, n := range []int{1, 2, 3, 32} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			t.Setenv("GOMAXPROCS", "") // restored after the test
			os.Unsetenv("GOMAXPROCS")
			env := workerEnviron(n)
			want := "GOMAXPROCS=" + strconv.Itoa(max(1, (cpus+n-1)/n))
			if got := lastGOMAXPROCS(env); got != want {
				t.Errorf("%d workers on %d CPUs: %q, want %q", n, cpus, got, want)
			}
		})
	}
	t.Run("set by the user", func(t *testing.T) {
		t.Setenv("GOMAXPROCS", "7")
		if got := lastGOMAXPROCS(workerEnviron(4)); got != "GOMAXPROCS=7" {
			t.Errorf("got %q, want the user's GOMAXPROCS=7", got)
		}
	})
}

func lastGOMAXPROCS(env []string) string {
	got := ""
	for _, kv := range env {
		if strings.HasPrefix(kv, "GOMAXPROCS=") {
			got = kv
		}
	}
	return got
}
