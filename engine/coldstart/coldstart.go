// Package coldstart makes a store's next opening cold: once the store is
// closed it restarts what holds it and empties the page cache of its
// files, then says what was done or why the next calls are not cold. The
// runner closes and reopens the store around it.
package coldstart

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/host"
	"github.com/mentat-spec/mentat-spec/engine/kind"
)

// HookTimeout bounds a restart or drop_caches command.
const HookTimeout = 5 * time.Minute

// maxResident is the share of the store's pages that may still be in the
// page cache after it was emptied: above it the next calls are not cold.
const maxResident = 0.10

// Ask is what the backend, still open, says about restarting it
// (drivers.ColdStarter); a driver that cannot say gives the error.
func Ask(ctx context.Context, be drivers.Backend, driver string) (drivers.ColdStart, error) {
	if st, ok := be.(drivers.ColdStarter); ok {
		return st.ColdStart(ctx)
	}
	return drivers.ColdStart{}, fmt.Errorf("driver %q cannot say what to restart or which files hold the store", driver)
}

// Request is one cold start of a closed store.
type Request struct {
	Restart    []string // the backend's declared restart command, if any
	DropCaches []string // the backend's declared drop_caches command, if any
	Cold       drivers.ColdStart
	ColdErr    error // why the backend could not say (Ask's error)
	// Hook runs one command (name is "restart" or "drop_caches"), logging
	// its output; Fail fails the run for a declared command that failed.
	Hook func(name string, argv []string) error
	Fail func(err error)
}

// Run restarts and empties the page cache once the store is closed:
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
func Run(r Request) kind.RestartInfo {
	var info kind.RestartInfo
	cs, csErr := r.Cold, r.ColdErr
	var did []string
	notCold := func(format string, args ...any) { info.NotCold = fmt.Sprintf(format, args...) }
	switch {
	case len(r.Restart) > 0:
		if err := r.Hook("restart", r.Restart); err != nil {
			r.Fail(err)
			notCold("the restart command failed: %v", err)
		} else {
			info.Restarted = true
			did = append(did, "restart command "+strings.Join(r.Restart, " ")+" ran")
		}
	case csErr != nil:
		notCold("not restarted: %v", csErr)
	case len(cs.Restart) > 0:
		if err := r.Hook("restart", cs.Restart); err != nil {
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
		if len(r.DropCaches) > 0 {
			drop = func() (string, error) {
				err := r.Hook("drop_caches", r.DropCaches)
				if err != nil {
					r.Fail(err)
				}
				return "drop_caches command " + strings.Join(r.DropCaches, " ") + " ran", err
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
	return info
}

// Verdict is the log line's account of info: what was done, or why the
// next calls are not cold.
func Verdict(info kind.RestartInfo) string {
	if info.NotCold != "" {
		return "NOT COLD: " + info.NotCold
	}
	return info.Did
}
