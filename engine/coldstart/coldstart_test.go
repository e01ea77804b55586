package coldstart

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/drivers"
)

// Every branch of the cold start: which command runs, what is said done,
// and why the next calls are not cold. Each case declares drop_caches (or
// stops before the page cache), so no test empties the machine's cache.
func TestRun(t *testing.T) {
	boom := errors.New("boom")
	drop := []string{"drop"}
	for _, tc := range []struct {
		name    string
		req     Request
		failing string // the hook that fails
		ran     string // hooks run, in order
		did     string
		notCold string // a substring; "" means cold
		failed  int    // run failures reported
		restart bool
	}{
		{name: "declared restart", req: Request{Restart: []string{"svc", "restart"}, DropCaches: drop},
			ran: "restart,drop_caches", did: "restart command svc restart ran; drop_caches command drop ran", restart: true},
		{name: "declared restart fails", req: Request{Restart: []string{"svc"}, DropCaches: drop}, failing: "restart",
			ran: "restart", notCold: "the restart command failed: boom", failed: 1},
		{name: "backend cannot say", req: Request{ColdErr: errors.New("driver \"x\" cannot say"), DropCaches: drop},
			notCold: "not restarted: driver \"x\" cannot say"},
		{name: "server restarted", req: Request{Cold: drivers.ColdStart{Restart: []string{"pg_ctl"}, Server: "the server"}, DropCaches: drop},
			ran: "restart,drop_caches", did: "restarted the server; drop_caches command drop ran", restart: true},
		{name: "server restart fails", req: Request{Cold: drivers.ColdStart{Restart: []string{"pg_ctl"}, Server: "the server"}, DropCaches: drop}, failing: "restart",
			ran: "restart", notCold: "restarting the server failed: boom"},
		{name: "server not restartable", req: Request{Cold: drivers.ColdStart{NoRestart: "a remote server"}, DropCaches: drop},
			notCold: "the server was not restarted: a remote server"},
		{name: "embedded", req: Request{DropCaches: drop},
			ran: "drop_caches", did: "store closed and reopened; drop_caches command drop ran"},
		{name: "drop_caches fails", req: Request{DropCaches: drop}, failing: "drop_caches",
			ran: "drop_caches", notCold: "the drop_caches command failed: boom", failed: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ran []string
			failed := 0
			r := tc.req
			r.Hook = func(name string, argv []string) error {
				ran = append(ran, name)
				if name == tc.failing {
					return boom
				}
				return nil
			}
			r.Fail = func(error) { failed++ }
			info := Run(r)
			if got := strings.Join(ran, ","); got != tc.ran {
				t.Errorf("hooks run %q, want %q", got, tc.ran)
			}
			if failed != tc.failed {
				t.Errorf("%d failures reported, want %d", failed, tc.failed)
			}
			if info.Restarted != tc.restart {
				t.Errorf("Restarted = %v, want %v", info.Restarted, tc.restart)
			}
			if tc.notCold == "" {
				if info.NotCold != "" || !info.CachesDropped || info.Did != tc.did || Verdict(info) != tc.did {
					t.Errorf("info %+v, want cold with did %q", info, tc.did)
				}
				return
			}
			if !strings.Contains(info.NotCold, tc.notCold) || info.CachesDropped || !strings.HasPrefix(Verdict(info), "NOT COLD: ") {
				t.Errorf("info %+v, want not cold: %q", info, tc.notCold)
			}
		})
	}
}

// A backend that is not a drivers.ColdStarter (or none at all) cannot say
// what to restart, and the error names its driver.
func TestAskWithoutColdStarter(t *testing.T) {
	_, err := Ask(context.Background(), nil, "mystery")
	if err == nil || !strings.Contains(err.Error(), `driver "mystery"`) {
		t.Errorf("Ask = %v", err)
	}
}
