package during

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mentat-spec/mentat-spec/checks"
)

func TestTallyVerdict(t *testing.T) {
	for _, tc := range []struct {
		runs   [][2]any // bad, ok of each run
		status checks.Status
		detail string
	}{
		{nil, checks.Skip, "the scenario ended before a run completed"},
		{[][2]any{{"", false}}, checks.Skip, "the scenario ended before a run completed"},
		{[][2]any{{"", true}, {"", true}, {"", false}}, checks.Pass, "2 runs during the scenario, all as expected"},
		{[][2]any{{"", true}, {"case 1: got 3", true}, {"case 2: got 4", true}, {"x", false}}, checks.Fail,
			"2 of 3 runs during the scenario wrong; first: case 1: got 3"},
	} {
		var ta Tally
		for _, r := range tc.runs {
			ta.add(r[0].(string), r[1].(bool))
		}
		if s, d := ta.Verdict(); s != tc.status || d != tc.detail {
			t.Errorf("%v: %s %q, want %s %q", tc.runs, s, d, tc.status, tc.detail)
		}
	}
}

// Start runs each check at once and again after its interval until stop;
// stop waits for the run in progress and returns the tallies in order; a
// cut-short run counts for nothing.
func TestStartRunsUntilStop(t *testing.T) {
	var fast, slow atomic.Int64
	stop := Start(context.Background(), []Check{
		{Every: time.Millisecond, Run: func(context.Context) (string, bool) { fast.Add(1); return "", true }},
		{Every: time.Hour, Run: func(ctx context.Context) (string, bool) {
			if slow.Add(1) == 1 {
				return "wrong", true
			}
			return "", true
		}},
		{Every: time.Millisecond, Run: func(context.Context) (string, bool) { return "", false }}, // always cut short
	})
	for fast.Load() < 3 {
		time.Sleep(time.Millisecond)
	}
	tallies := stop()
	n := fast.Load()
	time.Sleep(5 * time.Millisecond)
	if fast.Load() != n {
		t.Error("a check ran after stop returned")
	}
	if tallies[0].Runs != int(n) || tallies[0].Failed != 0 {
		t.Errorf("fast: %+v after %d runs", tallies[0], n)
	}
	if tallies[1].Runs != 1 || tallies[1].Failed != 1 || tallies[1].First != "wrong" {
		t.Errorf("hourly: %+v, want its one run, wrong", tallies[1])
	}
	if tallies[2].Runs != 0 {
		t.Errorf("cut short: %+v, want no run counted", tallies[2])
	}
}
