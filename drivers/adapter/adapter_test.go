package adapter

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/drivers/adapter/protocol"
	"github.com/mentat-spec/mentat-spec/drivers/drivertest"
)

func needPython(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
}

func abs(t *testing.T, rel string) string {
	t.Helper()
	p, err := filepath.Abs(rel)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func jsonOf(t testing.TB, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// open opens a backend on a fresh store through the adapter argv with
// extra environment.
func open(t *testing.T, argv []string, env map[string]string) drivers.Backend {
	t.Helper()
	needPython(t)
	opts := map[string]string{
		"command": jsonOf(t, argv),
		"path":    filepath.Join(t.TempDir(), "store.sqlite"),
		"dialect": "sqlite",
	}
	if env != nil {
		opts["env"] = jsonOf(t, env)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b, err := New().Open(ctx, drivers.Config{Backend: "t", Scale: "xs", Options: opts, Settings: map[string]string{"journal_mode": "WAL"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

func reference(t *testing.T) []string {
	return []string{"python3", abs(t, "../../examples/adapters/sqlite_adapter.py")}
}

func faulty(t *testing.T) []string {
	return []string{"python3", abs(t, "testdata/faulty_adapter.py")}
}

// TestConformance runs the suite every driver passes, through the
// reference adapter.
func TestConformance(t *testing.T) {
	drivertest.Run(t, drivertest.Fixtures{
		SlowQuery:    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000000) SELECT count(*) FROM c",
		KnownSetting: "journal_mode",
	}, func(t *testing.T) drivers.Backend { return open(t, reference(t), nil) })
}

func prepared(t *testing.T, b drivers.Backend, sql string) (drivers.Session, drivers.Stmt) {
	t.Helper()
	s, err := b.Session(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	st, err := s.Prepare(context.Background(), sql)
	if err != nil {
		t.Fatal(err)
	}
	return s, st
}

// TestCutCallServedByFreshAdapter: a call past its deadline is cut, the
// adapter killed and counted, and the next call on the same statement is
// answered by a fresh adapter.
func TestCutCallServedByFreshAdapter(t *testing.T) {
	mark := filepath.Join(t.TempDir(), "slept")
	b := open(t, faulty(t), map[string]string{"FAULT": "sleep_once", "FAULT_MARK": mark})
	_, st := prepared(t, b, "SELECT ? + 1")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := st.Query(ctx, []any{int64(1)}, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("cut call: err = %v, want one wrapping context.DeadlineExceeded", err)
	}
	if errors.Is(err, drivers.ErrConnLost) {
		t.Fatalf("a cut call lost its session: %v", err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Fatalf("the cut took %v", d)
	}
	var rows [][]any
	if _, err := st.Query(context.Background(), []any{int64(41)}, &rows); err != nil {
		t.Fatalf("call after the cut: %v", err)
	}
	if len(rows) != 1 || !drivertest.Equal(rows[0][0], int64(42)) {
		t.Fatalf("call after the cut: rows %v, want [[42]]", rows)
	}
	be := b.(*backend)
	if be.timeouts.Load() != 1 || be.restarts.Load() != 1 {
		t.Errorf("timeouts %d, restarts %d; want 1 and 1", be.timeouts.Load(), be.restarts.Load())
	}
	top, _ := be.TopStatements(context.Background(), 5)
	if !strings.Contains(top, "cut by probe_s: 1") {
		t.Errorf("statement stats do not count the cut:\n%s", top)
	}
}

// TestBrokenAdapterLosesOnlyItsSession: an adapter that exits mid-point,
// or writes a line that is not a reply, fails its own session with its
// stderr quoted; the other sessions go on.
func TestBrokenAdapterLosesOnlyItsSession(t *testing.T) {
	tests := []struct {
		fault string
		want  []string // in the error
	}{
		{"exit_after", []string{"faulty: giving up after 2 calls", "exit status 3"}},
		{"garbage_after", []string{"faulty: about to write garbage", `"this is not a reply"`}},
	}
	for _, tt := range tests {
		t.Run(tt.fault, func(t *testing.T) {
			b := open(t, faulty(t), map[string]string{"FAULT": tt.fault, "FAULT_N": "2"})
			_, other := prepared(t, b, "SELECT 7")
			_, st := prepared(t, b, "SELECT 1")
			for i := 0; i < 2; i++ {
				if _, err := st.Query(context.Background(), nil, nil); err != nil {
					t.Fatalf("call %d: %v", i+1, err)
				}
			}
			done := make(chan error, 1)
			go func() {
				_, err := st.Query(context.Background(), nil, nil)
				done <- err
			}()
			var err error
			select {
			case err = <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("the call on a broken adapter hangs")
			}
			if !errors.Is(err, drivers.ErrConnLost) || !errors.Is(err, ErrAdapter) {
				t.Fatalf("err = %v, want a lost session", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not quote %q:\n%v", w, err)
				}
			}
			if _, err2 := st.Query(context.Background(), nil, nil); err2 == nil || err2.Error() != err.Error() {
				t.Errorf("next call on the lost session: %v, want the same error", err2)
			}
			// The other session has its own adapter, which counts its own
			// calls: it goes on.
			if _, err := other.Query(context.Background(), nil, nil); err != nil {
				t.Errorf("another session failed too: %v", err)
			}
		})
	}
}

// TestOtherMajorVersionRefused: an adapter of protocol 2 is refused at
// open, saying which versions the two speak.
func TestOtherMajorVersionRefused(t *testing.T) {
	needPython(t)
	opts := map[string]string{"command": jsonOf(t, faulty(t)), "env": `{"FAULT":"version"}`, "path": filepath.Join(t.TempDir(), "x.sqlite")}
	_, err := New().Open(context.Background(), drivers.Config{Backend: "t", Options: opts})
	if err == nil || !strings.Contains(err.Error(), "speaks protocol 2.0, this engine speaks "+protocol.Version) {
		t.Fatalf("err = %v, want the versions named", err)
	}
}

// TestMissingCommand: an adapter that cannot start is an error at open.
func TestMissingCommand(t *testing.T) {
	for _, opts := range []map[string]string{
		{},
		{"command": `[]`},
		{"command": `["/no/such/adapter"]`},
	} {
		_, err := New().Open(context.Background(), drivers.Config{Backend: "t", Options: opts})
		if err == nil {
			t.Errorf("options %v: Open succeeded", opts)
		}
	}
}

// TestStoreTimeBesideRoundTrip: the statement stats show the adapter's
// store time and the pipe's share.
func TestStoreTimeBesideRoundTrip(t *testing.T) {
	b := open(t, reference(t), nil)
	_, st := prepared(t, b, "SELECT 1")
	for i := 0; i < 20; i++ {
		if _, err := st.Query(context.Background(), nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	top, err := b.(drivers.StatementStats).TopStatements(context.Background(), 5)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(top, "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[1], "20 ") || strings.Contains(lines[1], " - ") {
		t.Errorf("want 20 calls with a store time:\n%s", top)
	}
}

// TestDescribe: plan's lines for an adapter backend name its command and
// its hello; one that does not start says why, without failing.
func TestDescribe(t *testing.T) {
	needPython(t)
	d := New().(drivers.Describer)
	lines := strings.Join(d.Describe(context.Background(), map[string]string{"command": jsonOf(t, reference(t))}), "\n")
	if !strings.Contains(lines, "adapter hello: sqlite-python 1.0, protocol 1.1; transactions yes, writers 1") {
		t.Errorf("lines:\n%s", lines)
	}
	lines = strings.Join(d.Describe(context.Background(), map[string]string{"command": `["/no/such/adapter"]`}), "\n")
	if !strings.Contains(lines, "adapter hello: starting adapter /no/such/adapter") {
		t.Errorf("lines:\n%s", lines)
	}
}

// TestHangingStartFails: an adapter that never answers its hello fails
// the open after the start's timeout, quoting its stderr, and is not
// started again and again.
func TestHangingStartFails(t *testing.T) {
	needPython(t)
	old := startTimeout
	startTimeout = 2 * time.Second
	defer func() { startTimeout = old }()
	opts := map[string]string{"command": jsonOf(t, faulty(t)), "env": `{"FAULT":"hang_hello"}`, "path": filepath.Join(t.TempDir(), "x.sqlite")}
	done := make(chan error, 1)
	go func() {
		_, err := New().Open(context.Background(), drivers.Config{Backend: "t", Options: opts})
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "hello: no reply before the adapter's start was cut") || !strings.Contains(err.Error(), "faulty: not answering hello") {
			t.Fatalf("err = %v", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("Open hangs on an adapter that does not answer")
	}
}

// TestCancelKeepsSession: an adapter that declares cancel and answers
// the interrupt keeps its process; the cut is counted, nothing restarts.
func TestCancelKeepsSession(t *testing.T) {
	b := open(t, faulty(t), map[string]string{"FAULT": "cancel"})
	s, slow := prepared(t, b, "SELECT 'sleep'")
	pid := s.(*session).p.cmd.Process.Pid
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := slow.Query(ctx, nil, nil); !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("err = %v", err)
	}
	fast, err := s.Prepare(context.Background(), "SELECT 1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fast.Query(context.Background(), nil, nil); err != nil {
		t.Fatalf("call after the interrupt: %v", err)
	}
	be := b.(*backend)
	if s.(*session).p.cmd.Process.Pid != pid || be.timeouts.Load() != 1 || be.restarts.Load() != 0 {
		t.Errorf("pid %d -> %d, timeouts %d, restarts %d; want the same process, 1 and 0", pid, s.(*session).p.cmd.Process.Pid, be.timeouts.Load(), be.restarts.Load())
	}
}

// TestNoTransactionsRefusesBegin: a write on an adapter without
// transactions fails with why, before anything is sent.
func TestNoTransactionsRefusesBegin(t *testing.T) {
	b := open(t, faulty(t), map[string]string{"FAULT": "no_tx"})
	s, _ := prepared(t, b, "SELECT 1")
	if err := s.Exec(context.Background(), "BEGIN"); err == nil || !strings.Contains(err.Error(), "says it has no transactions") {
		t.Fatalf("err = %v", err)
	}
	if err := s.Exec(context.Background(), "CREATE TABLE t (x)"); err != nil {
		t.Fatalf("exec after the refusal: %v", err)
	}
}

// TestSessionRoles: each session opens its adapter with the role the
// engine gave it (drivers.WithRole), the backend's opening as admin, a
// context without a role as client.
func TestSessionRoles(t *testing.T) {
	log := filepath.Join(t.TempDir(), "roles")
	b := open(t, faulty(t), map[string]string{"OPEN_LOG": log})
	ctx := context.Background()
	for _, r := range []drivers.Role{"", drivers.RoleReader, drivers.RoleWriter, drivers.RoleLoader, drivers.RoleChecker, "sampler"} {
		c := ctx
		if r != "" {
			c = drivers.WithRole(ctx, r)
		}
		s, err := b.Session(c)
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
	}
	rs, err := b.(drivers.ReaderSessions).ReaderSession(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rs.Close()
	l, err := b.(drivers.BulkLoader).NewLoader(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	want := []string{"admin", "client", "reader", "writer", "loader", "checker", "client", "reader", "loader"}
	got, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, l := range strings.Split(strings.TrimSpace(string(got)), "\n") {
		roles = append(roles, strings.Fields(l)[0])
	}
	if strings.Join(roles, " ") != strings.Join(want, " ") {
		t.Errorf("roles opened: %v, want %v", roles, want)
	}
}

// TestWritingConnectionsFromHello: the write limit is the hello's
// writers (0: no limit), named with the adapter; an adapter that does
// not start gets one writing session and the reason.
func TestWritingConnectionsFromHello(t *testing.T) {
	needPython(t)
	tests := []struct {
		argv []string
		env  string
		n    int
		why  string
	}{
		{reference(t), "", 1, "adapter sqlite-python 1.0 says writers = 1 at hello"},
		{faulty(t), `{"FAULT":"writers","FAULT_N":"3"}`, 3, "adapter sqlite-python 1.0 says writers = 3 at hello"},
		{faulty(t), `{"FAULT":"writers","FAULT_N":"0"}`, 0, "says writers = 0 (any number) at hello"},
		{[]string{"/no/such/adapter"}, "", 1, "the adapter did not answer its hello"},
	}
	for _, tt := range tests {
		opts := map[string]string{"command": jsonOf(t, tt.argv)}
		if tt.env != "" {
			opts["env"] = tt.env
		}
		n, why := drivers.WriteLimit(New(), opts)
		if n != tt.n || !strings.Contains(why, tt.why) {
			t.Errorf("%v %s: %d, %q; want %d, %q", tt.argv, tt.env, n, why, tt.n, tt.why)
		}
	}
}
