package sqlite

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/drivers/drivertest"
)

// TestReadersOption: with readers = "immutable" a reader session reads
// the checkpointed file alone (it does not see a later write, which sits
// in the WAL, and cannot write); with "locking" (the default) it is an
// ordinary session; another value is refused naming the option.
func TestReadersOption(t *testing.T) {
	for _, tc := range []struct {
		value     string
		immutable bool
		wantErr   bool
	}{
		{"", false, false},
		{"locking", false, false},
		{"immutable", true, false},
		{"lockless", false, true},
	} {
		t.Run("readers="+tc.value, func(t *testing.T) {
			ctx := context.Background()
			dir := filepath.Join(t.TempDir(), "a dir?with#odd%chars")
			opts := map[string]string{}
			if tc.value != "" {
				opts["readers"] = tc.value
			}
			cfg := drivers.Config{Backend: "test", DataDir: dir, Options: opts}
			be, err := New().Open(ctx, cfg)
			if tc.wantErr {
				if err == nil || !strings.Contains(err.Error(), "readers") {
					if be != nil {
						be.Close()
					}
					t.Fatalf("want an error naming readers, got %v", err)
				}
				if _, refuse := (sqliteDriver{}).ReadersRefuseWrites(opts); refuse {
					t.Error("a bad value must not make the plan refuse writes: Open reports it")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b := be.(*backend)
			t.Cleanup(func() { b.Close() })
			if _, refuse := (sqliteDriver{}).ReadersRefuseWrites(opts); refuse != tc.immutable {
				t.Errorf("ReadersRefuseWrites = %v, want %v", refuse, tc.immutable)
			}
			w := drivertest.Session(t, b)
			drivertest.Exec(t, w, `CREATE TABLE t (x INTEGER)`)
			drivertest.Exec(t, w, `INSERT INTO t VALUES (1), (2), (3)`)

			r, err := b.ReaderSession(ctx)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { r.Close() })
			// An immutable reader reads the file alone: it sees the rows
			// only because they were checkpointed into it before it opened.
			if got := count(t, r); got != 3 {
				t.Fatalf("reader sees %d rows before the write, want 3", got)
			}
			drivertest.Exec(t, w, `INSERT INTO t VALUES (4)`)
			if got := count(t, w); got != 4 {
				t.Fatalf("writer sees %d rows, want 4", got)
			}
			want := int64(4)
			if tc.immutable {
				want = 3 // no change detection: the write is in the WAL, the reader reads the file
			}
			if got := count(t, r); got != want {
				t.Errorf("reader sees %d rows after the write, want %d", got, want)
			}
			err = r.Exec(ctx, `INSERT INTO t VALUES (5)`)
			switch {
			case tc.immutable && (err == nil || !strings.Contains(err.Error(), "readonly")):
				t.Errorf("a write through an immutable reader: got %v, want a read-only error", err)
			case !tc.immutable && err != nil:
				t.Errorf("a write through an ordinary session: %v", err)
			}
		})
	}
}

func count(t *testing.T, s drivers.Session) int64 {
	t.Helper()
	rows := drivertest.Rows(t, s, `SELECT count(*) FROM t`)
	if len(rows) != 1 || len(rows[0]) != 1 {
		t.Fatalf("count: %v", rows)
	}
	n, _ := rows[0][0].(int64)
	return n
}

// The workers of a point open their immutable readers at the same moment,
// each checkpointing through its own connection: a checkpoint that finds
// another in progress waits for it instead of failing the point.
func TestImmutableReadersOpenTogether(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	opts := map[string]string{"readers": "immutable"}
	first := openT(t, drivers.Config{DataDir: dir, Options: opts})
	w := drivertest.Session(t, first)
	drivertest.Exec(t, w, `CREATE TABLE t (x INTEGER)`)
	for i := 0; i < 50; i++ {
		drivertest.Exec(t, w, `INSERT INTO t VALUES (1), (2), (3)`) // frames in the WAL
	}
	const workers = 16
	type opened struct {
		b   drivers.Backend
		r   drivers.Session
		err error
	}
	out := make(chan opened, workers)
	for i := 0; i < workers; i++ {
		go func() {
			b, err := New().Open(ctx, drivers.Config{Backend: "test", DataDir: dir, Options: opts})
			if err != nil {
				out <- opened{err: err}
				return
			}
			r, err := b.(*backend).ReaderSession(ctx)
			out <- opened{b, r, err}
		}()
	}
	for i := 0; i < workers; i++ {
		o := <-out
		if o.b != nil {
			t.Cleanup(func() { o.b.Close() })
		}
		if o.err != nil {
			t.Error(o.err)
			continue
		}
		if n := count(t, o.r); n != 150 {
			t.Errorf("a reader sees %d rows, want 150", n)
		}
		o.r.Close()
	}
}
