package adapter

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mentat-spec/mentat-spec/drivers/adapter/protocol"
)

// TestConformanceCommand: the reference adapter passes every check; each
// faulty one fails the check that names its fault.
func TestConformanceCommand(t *testing.T) {
	needPython(t)
	tests := []struct {
		name     string
		argv     []string
		env      []string
		failures int
		want     string // in the output
	}{
		{"reference", reference(t), nil, 0, "PASS close"},
		{"other major version", faulty(t), []string{"FAULT=version"}, 1, "FAIL hello                  the adapter speaks protocol 2.0, this engine speaks " + protocol.Version},
		{"garbage", faulty(t), []string{"FAULT=garbage_after", "FAULT_N=1"}, 1, `"this is not a reply"; its last stderr lines:`},
		{"exits", faulty(t), []string{"FAULT=exit_after", "FAULT_N=0"}, 1, "faulty: giving up after 0 calls"},
		{"wrong values", faulty(t), []string{"FAULT=wrong_row"}, 3, "FAIL typed values"}, // and the counts it reads
		{"hangs", faulty(t), []string{"FAULT=sleep_once", "FAULT_MARK=" + t.TempDir() + "/m"}, 1, "no reply within 3s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			n, err := Conformance(ctx, ConformanceOptions{Argv: tt.argv, Env: tt.env, Timeout: 3 * time.Second}, &out)
			if err != nil {
				t.Fatal(err)
			}
			if n != tt.failures || !strings.Contains(out.String(), tt.want) {
				t.Errorf("%d failures, want %d, and %q in:\n%s", n, tt.failures, tt.want, out.String())
			}
		})
	}
}
