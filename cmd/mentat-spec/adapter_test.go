package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAdapterTestExitCodes: adapter test exits 0 on the reference
// adapter, 1 on a faulty one, 2 on a bad command line, 7 when the
// adapter cannot start.
func TestAdapterTestExitCodes(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	ref, _ := filepath.Abs("../../examples/adapters/sqlite_adapter.py")
	bad, _ := filepath.Abs("../../drivers/adapter/testdata/faulty_adapter.py")
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"adapter", "test", "--", "python3", ref}, exitOK, "every check passed"},
		{[]string{"adapter", "test", "-env", "FAULT=version", "--", "python3", bad}, exitCheck, "FAIL hello"},
		{[]string{"adapter", "test"}, exitUsage, "Usage: mentat-spec adapter test"},
		{[]string{"adapter"}, exitUsage, "Usage: mentat-spec adapter test"},
		{[]string{"adapter", "test", "-env", "novalue", "--", "python3", ref}, exitUsage, "want NAME=value"},
		{[]string{"adapter", "test", "--", "/no/such/adapter"}, exitUnfinished, "starting adapter /no/such/adapter"},
	}
	for _, tt := range tests {
		var out strings.Builder
		if code := run(tt.args, &out, &out); code != tt.code || !strings.Contains(out.String(), tt.want) {
			t.Errorf("%v: exit %d, want %d with %q:\n%s", tt.args, code, tt.code, tt.want, out.String())
		}
	}
}

// TestPlanShowsAdapterHello: plan names an adapter backend's command and
// the capabilities its hello declares.
func TestPlanShowsAdapterHello(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	var out, errb strings.Builder
	code := run([]string{"plan", "../../examples/quickstart.hcl", "-var", `backends=["sqlite_adapter"]`}, &out, &errb)
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, errb.String())
	}
	for _, w := range []string{"backend sqlite_adapter (driver adapter):", "examples/adapters/sqlite_adapter.py", "adapter hello: sqlite-python 1.0, protocol 1.1; transactions yes"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("plan lacks %q:\n%s", w, out.String())
		}
	}
}
