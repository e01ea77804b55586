// Package sampler runs a scenario's samplers: every few seconds, on its
// own connection or process, each one records a sample with a timestamp
// into logs/sampler-<name>.csv. An sql sampler runs a query (pg_stat_*
// views), a command sampler runs a program and keeps its output lines
// (iostat, vmstat), a process sampler reads the resident memory and CPU
// time of the engine and of the database server's processes from /proc.
// A sampler that cannot run (no such program, no such view) writes one
// SKIP row with the reason and stops.
package sampler

import (
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mentat-spec/mentat-spec/engine/redact"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// Kinds of samplers.
const (
	SQL     = "sql"
	Command = "command"
	Process = "process"
)

// Spec is one declared sampler.
type Spec struct {
	Name      string
	Kind      string
	Every     time.Duration
	Query     string   // sql
	Command   []string // command: argv
	Processes []string // process: names (comm) of server processes
	// PIDQuery (process) returns the pid of the server process serving
	// the sampler's session; the sampler then follows the server: that
	// process's parent and all of the parent's children.
	PIDQuery string
}

// Querier runs a query on a connection of its own.
type Querier interface {
	Query(ctx context.Context, sql string) (columns []string, rows [][]any, err error)
	Close()
}

// Env is what samplers need from the run.
type Env struct {
	// Open opens a connection for an sql sampler; nil when the backend
	// has none.
	Open func(ctx context.Context) (Querier, error)
	Emit func(results.Sample)
}

// Group is the samplers of one scenario run.
type Group struct {
	cancel context.CancelFunc
	stop   chan struct{}
	wg     sync.WaitGroup
}

// Start starts specs: each samples at once, every Every, and once more
// at Stop.
func Start(ctx context.Context, specs []Spec, env Env) *Group {
	ctx, cancel := context.WithCancel(ctx)
	g := &Group{cancel: cancel, stop: make(chan struct{})}
	t0 := time.Now()
	for _, s := range specs {
		g.wg.Add(1)
		go func() {
			defer g.wg.Done()
			run(ctx, s, env, t0, g.stop)
		}()
	}
	return g
}

// Stop takes the last samples and waits for the samplers.
func (g *Group) Stop() {
	close(g.stop)
	g.wg.Wait()
	g.cancel()
}

type sampleFn func(ctx context.Context) (cols []string, rows [][]string, err error)

func run(ctx context.Context, s Spec, env Env, t0 time.Time, stop <-chan struct{}) {
	skip := func(reason string) {
		env.Emit(results.Sample{Sampler: s.Name, Columns: []string{"ts", "elapsed_s", "status"},
			Values: []string{time.Now().UTC().Format(time.RFC3339Nano), secs(time.Since(t0)), "SKIP: " + reason}})
	}
	var fn sampleFn
	switch s.Kind {
	case SQL:
		if env.Open == nil {
			skip("the backend has no SQL connection")
			return
		}
		q, err := env.Open(ctx)
		if err != nil {
			skip("connecting: " + err.Error())
			return
		}
		defer q.Close()
		fn = func(ctx context.Context) ([]string, [][]string, error) {
			cols, rows, err := q.Query(ctx, s.Query)
			return cols, strRows(rows), err
		}
	case Command:
		if len(s.Command) == 0 {
			skip("no command")
			return
		}
		if _, err := exec.LookPath(s.Command[0]); err != nil {
			skip(fmt.Sprintf("%s is not installed here: %v", s.Command[0], err))
			return
		}
		fn = func(ctx context.Context) ([]string, [][]string, error) { return command(ctx, s.Command, s.Every) }
	case Process:
		p, err := newProcs(s.Processes)
		if err != nil {
			skip(err.Error())
			return
		}
		if s.PIDQuery != "" {
			pid, err := serverPID(ctx, env, s.PIDQuery)
			if err != nil {
				skip(err.Error())
				return
			}
			p.server = pid
		}
		fn = p.sample
	default:
		skip("unknown sampler kind " + s.Kind)
		return
	}
	every := s.Every
	if every <= 0 {
		every = 10 * time.Second
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	header := false
	for last := false; ; {
		at := time.Now()
		cols, rows, err := fn(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			skip(err.Error())
			return
		}
		if !header {
			cols = append([]string{"ts", "elapsed_s"}, cols...)
			header = true
		}
		for _, r := range rows {
			env.Emit(results.Sample{Sampler: s.Name, Columns: cols, Values: append([]string{at.UTC().Format(time.RFC3339Nano), secs(at.Sub(t0))}, r...)})
		}
		if last {
			return
		}
		select {
		case <-tick.C:
		case <-stop:
			last = true
		case <-ctx.Done():
			return
		}
	}
}

func secs(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', 3, 64) }

func strRows(rows [][]any) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		for _, v := range r {
			switch x := v.(type) {
			case nil:
				out[i] = append(out[i], "")
			case []byte:
				out[i] = append(out[i], string(x))
			case time.Time:
				out[i] = append(out[i], x.UTC().Format(time.RFC3339Nano))
			default:
				out[i] = append(out[i], fmt.Sprint(x))
			}
		}
	}
	return out
}

// command runs argv once (cut after every) and returns its output lines.
func command(ctx context.Context, argv []string, every time.Duration) ([]string, [][]string, error) {
	cctx, cancel := context.WithTimeout(ctx, max(every, time.Second))
	defer cancel()
	cmd := exec.CommandContext(cctx, argv[0], argv[1:]...)
	cmd.Env = redact.Environ() // sensitive values come from there, never argv
	out, err := cmd.Output()
	if err != nil && cctx.Err() == nil {
		return nil, nil, fmt.Errorf("%s: %w", strings.Join(argv, " "), err)
	}
	var rows [][]string
	for i, l := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		rows = append(rows, []string{strconv.Itoa(i), l})
	}
	return []string{"line", "text"}, rows, nil
}

// serverPID runs the pid query on a session of its own and returns the
// parent of the process it names: the server's main process.
func serverPID(ctx context.Context, env Env, query string) (int, error) {
	if env.Open == nil {
		return 0, fmt.Errorf("pid_query needs an SQL connection, and the backend has none")
	}
	q, err := env.Open(ctx)
	if err != nil {
		return 0, fmt.Errorf("connecting: %w", err)
	}
	defer q.Close()
	_, rows, err := q.Query(ctx, query)
	if err != nil {
		return 0, fmt.Errorf("pid_query: %w", err)
	}
	if len(rows) != 1 || len(rows[0]) != 1 {
		return 0, fmt.Errorf("pid_query must return one value, got %d rows", len(rows))
	}
	pid, err := strconv.Atoi(fmt.Sprint(rows[0][0]))
	if err != nil {
		return 0, fmt.Errorf("pid_query returned %v, not a pid", rows[0][0])
	}
	ppid, err := parentOf(pid)
	if err != nil {
		return 0, fmt.Errorf("the server process %d: %w (is the server on another machine?)", pid, err)
	}
	return ppid, nil
}
