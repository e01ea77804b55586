package host

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mentat-spec/mentat-spec/engine/redact"
)

// A command gets the sensitive values in its environment (redact.SetEnv),
// so it never needs one as an argument.
func TestRunGetsSensitiveEnv(t *testing.T) {
	redact.SetEnv("MENTAT_SPEC_VAR_host_test_tok", "env-secret-17")
	out, _, err := Run(context.Background(), []string{"sh", "-c", `printf %s "$MENTAT_SPEC_VAR_host_test_tok"`}, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(out)); got != "env-secret-17" {
		t.Errorf("the command saw %q", got)
	}
}
