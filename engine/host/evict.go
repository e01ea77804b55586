package host

import (
	"fmt"
	"os"
	"strings"
)

// EmptyPageCache empties the OS page cache of a store's files: with drop
// when the spec declares a command for it (drop says what ran), else by
// evicting the files, else, as root, by dropping the whole cache; then it
// checks with mincore that at most maxResident of the files' pages stayed.
// did is done (what the cold start did before) with what this did;
// notCold, when not "", why the next reads of the store are not cold
// (why: what kept its files from being named).
func EmptyPageCache(done, files []string, drop func() (string, error), why string, maxResident float64) (did []string, notCold string) {
	did = done
	switch {
	case drop != nil:
		what, err := drop()
		if err != nil {
			return did, fmt.Sprintf("the drop_caches command failed: %v", err)
		}
		did = append(did, what)
	case len(files) > 0:
		if err := Evict(files); err != nil {
			return did, fmt.Sprintf("evicting the store's files from the page cache: %v", err)
		}
		did = append(did, fmt.Sprintf("page cache of its %d file(s) evicted (posix_fadvise DONTNEED)", len(files)))
	case os.Geteuid() == 0:
		if err := DropAllCaches(); err != nil {
			return did, fmt.Sprintf("dropping the OS page cache: %v", err)
		}
		did = append(did, "OS page cache dropped (/proc/sys/vm/drop_caches)")
	default:
		return did, fmt.Sprintf("the OS page cache was not dropped: no drop_caches command, not root, and no store files to evict (%s)", why)
	}
	if len(files) == 0 {
		return did, ""
	}
	pc, err := Residency(files)
	switch {
	case err != nil:
		did = append(did, fmt.Sprintf("page cache not verified: %v", err))
	case pc.Pages > 0 && float64(pc.Resident) > maxResident*float64(pc.Pages):
		return did, fmt.Sprintf("%d of the store's %d pages (%.0f%%) were still in the page cache after: %s", pc.Resident, pc.Pages,
			100*float64(pc.Resident)/float64(pc.Pages), strings.Join(did, "; "))
	default:
		did = append(did, fmt.Sprintf("%d of %d pages left in the page cache", pc.Resident, pc.Pages))
	}
	return did, ""
}
