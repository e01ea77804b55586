package runner

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/mentat-spec/mentat-spec/engine/kind"
)

// hookTimeout bounds a restart or drop_caches command.
const hookTimeout = 5 * time.Minute

// runHook runs one of the backend's commands (restart, drop_caches),
// logging its output to logs/hooks.log. An empty command does nothing.
func (c *cell) runHook(ctx context.Context, scenario, name string, argv []string) (bool, error) {
	if len(argv) == 0 {
		return false, nil
	}
	hctx, cancel := context.WithTimeout(ctx, hookTimeout)
	defer cancel()
	start := time.Now()
	out, err := exec.CommandContext(hctx, argv[0], argv[1:]...).CombinedOutput()
	c.run.logTo("hooks", "%s %s %s %s: %s (%s, err=%v)\n%s\n", time.Now().UTC().Format(time.RFC3339), c.name(), scenario, name,
		strings.Join(argv, " "), time.Since(start).Round(time.Millisecond), err, out)
	if err != nil {
		return true, fmt.Errorf("%s command %q: %w: %s", name, strings.Join(argv, " "), err, strings.TrimSpace(lastLine(string(out))))
	}
	return true, nil
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// restart closes every connection and the backend, runs the restart and
// drop_caches commands and reopens the store, timing the reopening. When
// the store cannot be reopened the cell is broken: nothing more runs on it.
func (c *cell) restart(ctx context.Context, scenario string) (kind.RestartInfo, error) {
	bc := c.pc.Backend
	var info kind.RestartInfo
	if c.admin != nil {
		c.admin.Close()
	}
	if c.be != nil {
		c.be.Close()
	}
	c.be, c.admin = nil, nil
	ran, hookErr := c.runHook(ctx, scenario, "restart", bc.Restart)
	info.Restarted = ran && hookErr == nil
	if hookErr == nil {
		ran, hookErr = c.runHook(ctx, scenario, "drop_caches", bc.DropCaches)
		info.CachesDropped = ran && hookErr == nil
	}
	start := time.Now()
	be, err := c.drv.Open(ctx, c.cfg)
	if err == nil {
		c.be = be
		c.admin, err = c.be.Session(ctx)
	}
	if err == nil {
		err = c.applySettings(ctx) // the store is ours: prepareStore said so
	}
	if err != nil {
		if c.be != nil {
			c.be.Close()
		}
		c.be, c.admin = nil, nil
		c.broken = fmt.Errorf("%s: reopening the store after the restart: %w", scenario, err)
		return info, c.broken
	}
	info.Open = time.Since(start)
	return info, hookErr
}
