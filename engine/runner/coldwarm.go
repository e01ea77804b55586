package runner

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/drivers/storelock"
	"github.com/mentat-spec/mentat-spec/engine/host"
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
	out, took, err := host.Run(ctx, argv, hookTimeout)
	c.run.logTo("hooks", "%s %s %s %s: %s (%s, err=%v)\n%s\n", time.Now().UTC().Format(time.RFC3339), c.name(), scenario, name,
		strings.Join(argv, " "), took.Round(time.Millisecond), err, out)
	if err != nil {
		return true, fmt.Errorf("%s command %q: %w: %s", name, strings.Join(argv, " "), err, host.LastLine(string(out)))
	}
	return true, nil
}

// maxResident is the share of the store's pages that may still be in the
// page cache after it was emptied: above it the next calls are not cold.
const maxResident = 0.10

// restart makes the store's next opening cold, then reopens it, timing
// the reopening. While the store is still open the backend says what to
// restart and which files hold it (drivers.ColdStarter). Once closed:
//
//   - the restart is the backend's restart command when the spec declares
//     one, else the server the backend names (PostgreSQL: the DSN's own
//     server), else nothing (an embedded store: closing it is its restart);
//   - the page cache is emptied by the drop_caches command when declared,
//     else by evicting the store's files (posix_fadvise DONTNEED: only
//     those files, needing no privilege), else, as root, by dropping the
//     whole page cache;
//   - the store's files are then looked up with mincore: more than
//     maxResident of their pages still cached means not cold.
//
// What could not be done is in info.NotCold (the cold calls are then not
// measured as cold); a declared command that fails also fails the run.
// When the store cannot be reopened the cell is broken: nothing more runs
// on it.
func (c *cell) restart(ctx context.Context, scenario string) (kind.RestartInfo, error) {
	bc := c.pc.Backend
	var info kind.RestartInfo
	var cs drivers.ColdStart
	csErr := fmt.Errorf("driver %q cannot say what to restart or which files hold the store", bc.Driver)
	if st, ok := c.be.(drivers.ColdStarter); ok {
		cs, csErr = st.ColdStart(ctx)
	}
	if c.admin != nil {
		c.admin.Close()
	}
	if c.be != nil {
		c.be.Close()
	}
	c.be, c.admin = nil, nil
	var did []string
	notCold := func(format string, args ...any) { info.NotCold = fmt.Sprintf(format, args...) }
	switch {
	case len(bc.Restart) > 0:
		if _, err := c.runHook(ctx, scenario, "restart", bc.Restart); err != nil {
			c.run.fail("%s %s: %v", c.name(), scenario, err)
			notCold("the restart command failed: %v", err)
		} else {
			info.Restarted = true
			did = append(did, "restart command "+strings.Join(bc.Restart, " ")+" ran")
		}
	case csErr != nil:
		notCold("not restarted: %v", csErr)
	case len(cs.Restart) > 0:
		if _, err := c.runHook(ctx, scenario, "restart", cs.Restart); err != nil {
			notCold("restarting %s failed: %v", cs.Server, err)
		} else {
			info.Restarted = true
			did = append(did, "restarted "+cs.Server)
		}
	case cs.NoRestart != "":
		notCold("the server was not restarted: %s", cs.NoRestart)
	default:
		did = append(did, "store closed and reopened")
	}
	var files []string
	if info.NotCold == "" && len(cs.Files) > 0 {
		var err error
		if files, err = host.StoreFiles(cs.Files); err != nil {
			cs.NoFiles, files = err.Error(), nil
		}
	}
	if info.NotCold == "" {
		var drop func() (string, error)
		if len(bc.DropCaches) > 0 {
			drop = func() (string, error) {
				_, err := c.runHook(ctx, scenario, "drop_caches", bc.DropCaches)
				if err != nil {
					c.run.fail("%s %s: %v", c.name(), scenario, err)
				}
				return "drop_caches command " + strings.Join(bc.DropCaches, " ") + " ran", err
			}
		}
		why := cs.NoFiles
		if csErr != nil {
			why = csErr.Error()
		}
		var nc string
		did, nc = host.EmptyPageCache(did, files, drop, why, maxResident)
		if nc != "" {
			notCold("%s", nc)
		}
	}
	info.CachesDropped = info.NotCold == ""
	info.Did = strings.Join(did, "; ")
	verdict := info.Did
	if info.NotCold != "" {
		verdict = "NOT COLD: " + info.NotCold
	}
	c.run.logTo("hooks", "%s %s %s cold start: %s\n", time.Now().UTC().Format(time.RFC3339), c.name(), scenario, verdict)
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
