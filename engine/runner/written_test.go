package runner_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/results"
	"github.com/mentat-spec/mentat-spec/engine/runner"
)

// A scenario that writes marks the store: the next run never reuses it as
// a clean store (it reloads the store it created), and -phase bench
// refuses it with the reason.
func TestWrittenStoreIsNeverReusedAsClean(t *testing.T) {
	writes := `
query "touch" {
  sql = "UPDATE cur_int SET v = v WHERE e = -1"
}

scenario "writer" {
  write {
    query = query.touch
  }
}
`
	specPath, dataDir := tinyQuickstart(t)
	clean, err := os.ReadFile(specPath)
	if err != nil {
		t.Fatal(err)
	}
	writerPath := filepath.Join(filepath.Dir(specPath), "writer.hcl")
	if err := os.WriteFile(writerPath, append(append([]byte{}, clean...), writes...), 0o644); err != nil {
		t.Fatal(err)
	}
	data := config.VarArg{Name: "data_dir", Value: dataDir}

	var log bytes.Buffer
	o, _ := apply(t, specPath, runner.Options{Log: &log}, data)
	if o.Failed() {
		t.Fatalf("first run: %v", o.Failures)
	}
	// Same dataset, not written: reused.
	log.Reset()
	if o, _ = apply(t, specPath, runner.Options{Log: &log}, data); o.Failed() || !strings.Contains(log.String(), "reusing the store") {
		t.Fatalf("a clean store was not reused: %v\n%s", o.Failures, log.String())
	}
	// The writer writes to the store.
	if o, _ = apply(t, writerPath, runner.Options{Log: &log}, data); o.Failed() {
		t.Fatalf("writer run: %v", o.Failures)
	}
	// -phase bench refuses the written store.
	o, _ = apply(t, specPath, runner.Options{Phase: runner.PhaseBench}, data)
	if !o.Failed() || len(o.Failures) == 0 || !strings.Contains(o.Failures[0], "written to by scenario writer") {
		t.Fatalf("phase bench measured a written store: %v", o.Failures)
	}
	// A normal run reloads it before measuring, and every check passes.
	log.Reset()
	o, dir := apply(t, specPath, runner.Options{Log: &log}, data)
	if o.Failed() || o.Checks.Fail > 0 {
		t.Fatalf("run after the writes: %v %+v", o.Failures, o.Checks)
	}
	if !strings.Contains(log.String(), "written to by writer") || strings.Contains(log.String(), "reusing the store") {
		t.Errorf("the written store was not reloaded:\n%s", log.String())
	}
	if loads := readCSV(t, filepath.Join(dir, results.LoadsFile)); len(loads) != 2 {
		t.Errorf("loads.csv has %d rows, want the header and one reload", len(loads))
	}
}
