package host

import (
	"context"
	"os/exec"
	"strings"
	"time"

	"github.com/mentat-spec/mentat-spec/engine/redact"
)

// Run runs argv within timeout and returns its output (stdout and stderr
// together) and how long it took.
func Run(ctx context.Context, argv []string, timeout time.Duration) ([]byte, time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := time.Now()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = redact.Environ() // sensitive values come from there, never argv
	out, err := cmd.CombinedOutput()
	return out, time.Since(start), err
}

// LastLine is the last non-empty line of a command's output, for an
// error message.
func LastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return strings.TrimSpace(s[i+1:])
	}
	return s
}
