package sampler

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

type collector struct {
	mu   sync.Mutex
	rows map[string][]results.Sample
}

func (c *collector) emit(s results.Sample) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.rows == nil {
		c.rows = map[string][]results.Sample{}
	}
	c.rows[s.Sampler] = append(c.rows[s.Sampler], s)
}

type fakeQuerier struct{ n int }

func (q *fakeQuerier) Query(context.Context, string) ([]string, [][]any, error) {
	q.n++
	return []string{"n", "blob"}, [][]any{{q.n, []byte("x")}}, nil
}
func (q *fakeQuerier) Close() {}

func TestSamplers(t *testing.T) {
	var c collector
	every := 40 * time.Millisecond
	specs := []Spec{
		{Name: "cmd", Kind: Command, Every: every, Command: []string{"sh", "-c", "echo first; echo second"}},
		{Name: "proc", Kind: Process, Every: every, Processes: []string{"no-such-process-name"}},
		{Name: "sql", Kind: SQL, Every: every, Query: "SELECT 1"},
		{Name: "missing", Kind: Command, Every: every, Command: []string{"no-such-tool-here"}},
		{Name: "nosql", Kind: SQL, Every: every},
	}
	q := &fakeQuerier{}
	g := Start(context.Background(), specs[:4], Env{Emit: c.emit, Open: func(context.Context) (Querier, error) { return q, nil }})
	time.Sleep(100 * time.Millisecond)
	g.Stop()
	Start(context.Background(), specs[4:], Env{Emit: c.emit}).Stop()

	// At start, at 40 and 80 ms, and at the stop: at least 3 samples.
	cmd := c.rows["cmd"]
	if len(cmd) < 6 || cmd[0].Values[3] != "first" || cmd[1].Values[3] != "second" {
		t.Errorf("command rows: %v", cmd)
	}
	if got := strings.Join(cmd[0].Columns, ","); got != "ts,elapsed_s,line,text" {
		t.Errorf("command header %s", got)
	}
	proc := c.rows["proc"]
	if len(proc) < 6 || proc[0].Values[2] != "engine" || proc[1].Values[2] != "no-such-process-name" || proc[1].Values[3] != "0" {
		t.Fatalf("process rows: %v", proc)
	}
	if rss, _ := strconv.Atoi(proc[0].Values[4]); rss <= 0 {
		t.Errorf("engine rss %q", proc[0].Values[4])
	}
	if proc[0].Values[6] != "" || proc[2].Values[6] == "" {
		t.Errorf("cpu_pct: none at the first sample, then a value: %v %v", proc[0].Values, proc[2].Values)
	}
	sql := c.rows["sql"]
	if len(sql) < 3 || sql[0].Values[2] != "1" || sql[0].Values[3] != "x" || q.n != len(sql) {
		t.Errorf("sql rows: %v (%d queries)", sql, q.n)
	}
	for _, name := range []string{"missing", "nosql"} {
		rows := c.rows[name]
		if len(rows) != 1 || !strings.HasPrefix(rows[0].Values[2], "SKIP: ") {
			t.Errorf("%s: want one SKIP row, got %v", name, rows)
		}
	}
}
