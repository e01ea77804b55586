package runner

import (
	"context"
	"fmt"
	"testing"

	"github.com/mentat-spec/mentat-spec/drivers"
)

// A worker's connections have the spec's settings, as the coordinator's
// do: the process client model must not measure SQLite with its default
// page cache where the goroutine model has the spec's 256 MiB.
func TestWorkerCellHasTheSpecsSettings(t *testing.T) {
	t.Setenv("MENTAT_SPEC_BENCH_SCALE", "xs")
	c := loadedCell(t, "sqlite", nil)
	want := c.pc.Backend.Settings["cache_size"]
	if want == "" {
		t.Fatal("the bench spec's sqlite backend sets no cache_size")
	}
	ctx := context.Background()
	for _, reader := range []bool{false, true} {
		w, err := OpenWorkerCell(ctx, c.pc, drivers.Default, c.run.opts.DataDir, false, reader)
		if err != nil {
			t.Fatal(err)
		}
		var s drivers.Session
		if rs, ok := w.c.be.(drivers.ReaderSessions); ok && reader {
			s, err = rs.ReaderSession(ctx)
		} else {
			s, err = w.c.be.Session(ctx)
		}
		if err != nil {
			t.Fatal(err)
		}
		st, err := s.Prepare(ctx, "PRAGMA cache_size")
		if err != nil {
			t.Fatal(err)
		}
		var rows [][]any
		if _, err := st.Query(ctx, nil, &rows); err != nil {
			t.Fatal(err)
		}
		st.Close()
		s.Close()
		w.Close()
		if len(rows) != 1 || len(rows[0]) != 1 || fmt.Sprint(rows[0][0]) != want {
			t.Errorf("reader=%v: a worker's connection has cache_size %v, the spec says %s", reader, rows, want)
		}
	}
}
