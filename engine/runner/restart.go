package runner

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mentat-spec/mentat-spec/drivers/storelock"
	"github.com/mentat-spec/mentat-spec/engine/coldstart"
	"github.com/mentat-spec/mentat-spec/engine/host"
	"github.com/mentat-spec/mentat-spec/engine/kind"
)

// runHook runs one of the backend's commands (restart, drop_caches),
// logging its output to logs/hooks.log. An empty command does nothing.
func (c *cell) runHook(ctx context.Context, scenario, name string, argv []string) (bool, error) {
	if len(argv) == 0 {
		return false, nil
	}
	out, took, err := host.Run(ctx, argv, coldstart.HookTimeout)
	c.run.logTo("hooks", "%s %s %s %s: %s (%s, err=%v)\n%s\n", time.Now().UTC().Format(time.RFC3339), c.name(), scenario, name,
		strings.Join(argv, " "), took.Round(time.Millisecond), err, out)
	if err != nil {
		return true, fmt.Errorf("%s command %q: %w: %s", name, strings.Join(argv, " "), err, host.LastLine(string(out)))
	}
	return true, nil
}

// restart makes the store's next opening cold (coldstart.Run, between
// closing the store and reopening it), timing the reopening. When the
// store cannot be reopened the cell is broken: nothing more runs on it.
func (c *cell) restart(ctx context.Context, scenario string) (kind.RestartInfo, error) {
	bc := c.pc.Backend
	cs, csErr := coldstart.Ask(ctx, c.be, bc.Driver) // while the store is still open
	if c.admin != nil {
		c.admin.Close()
	}
	if c.be != nil {
		c.be.Close()
	}
	c.be, c.admin = nil, nil
	info := coldstart.Run(coldstart.Request{
		Restart: bc.Restart, DropCaches: bc.DropCaches, Cold: cs, ColdErr: csErr,
		Hook: func(name string, argv []string) error {
			_, err := c.runHook(ctx, scenario, name, argv)
			return err
		},
		Fail: func(err error) { c.run.fail("%s %s: %v", c.name(), scenario, err) },
	})
	c.run.logTo("hooks", "%s %s %s cold start: %s\n", time.Now().UTC().Format(time.RFC3339), c.name(), scenario, coldstart.Verdict(info))
	if err := c.relock(ctx); err != nil {
		c.broken = fmt.Errorf("%s: after the restart: %w", scenario, err)
		return info, c.broken
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
	return info, nil
}

// relock takes the store's lock again when the restart lost it (an
// advisory lock ends with its session when the server restarts), at once
// or not at all: another run that took the store meanwhile owns it now,
// and this cell stops rather than share it.
func (c *cell) relock(ctx context.Context) error {
	ck, ok := c.lock.(storelock.Checker)
	if !ok || ck.Held(ctx) {
		return nil
	}
	c.lock.Release()
	lock, err := c.locker.LockStore(ctx, c.cfg, storelock.Wait{Timeout: -1})
	if err != nil {
		c.lock = nopLock{}
		return fmt.Errorf("the store's lock was lost with the server and another run holds it now: %w", err)
	}
	c.lock = lock
	c.run.logf("%s: the store's lock, lost with the restarted server, taken again", c.name())
	return nil
}

// nopLock is a lock given up.
type nopLock struct{}

func (nopLock) Release() error { return nil }
