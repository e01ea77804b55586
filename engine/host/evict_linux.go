package host

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"unsafe"

	"golang.org/x/sys/unix"
)

// PageCache evicts and inspects files in the OS page cache.
type PageCache struct {
	Files, Pages, Resident int64 // what Residency last counted
}

// StoreFiles lists the regular files under paths (directories walked);
// paths that do not exist are left out.
func StoreFiles(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		err := filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				return err
			}
			if d.Type().IsRegular() {
				out = append(out, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Evict writes back and drops the files' pages from the page cache
// (posix_fadvise DONTNEED needs no privilege: only read access to the
// file). Dirty pages are written first, since DONTNEED keeps them.
func Evict(files []string) error {
	var errs []error
	for _, f := range files {
		fd, err := unix.Open(f, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			if !errors.Is(err, unix.ENOENT) {
				errs = append(errs, &os.PathError{Op: "open", Path: f, Err: err})
			}
			continue
		}
		if err := unix.Fdatasync(fd); err != nil {
			errs = append(errs, &os.PathError{Op: "fdatasync", Path: f, Err: err})
		}
		if err := unix.Fadvise(fd, 0, 0, unix.FADV_DONTNEED); err != nil {
			errs = append(errs, &os.PathError{Op: "posix_fadvise", Path: f, Err: err})
		}
		unix.Close(fd)
	}
	return errors.Join(errs...)
}

// Residency counts the files' pages and how many of them are in the page
// cache (mincore over a read-only mapping, which reads nothing).
func Residency(files []string) (pc PageCache, err error) {
	page := int64(os.Getpagesize())
	for _, f := range files {
		fd, err := unix.Open(f, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			if errors.Is(err, unix.ENOENT) {
				continue
			}
			return pc, &os.PathError{Op: "open", Path: f, Err: err}
		}
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil || st.Size == 0 {
			unix.Close(fd)
			continue
		}
		m, err := unix.Mmap(fd, 0, int(st.Size), unix.PROT_READ, unix.MAP_SHARED)
		unix.Close(fd)
		if err != nil {
			return pc, &os.PathError{Op: "mmap", Path: f, Err: err}
		}
		vec := make([]byte, (st.Size+page-1)/page)
		err = mincore(m, vec)
		unix.Munmap(m)
		if err != nil {
			return pc, &os.PathError{Op: "mincore", Path: f, Err: err}
		}
		pc.Files++
		pc.Pages += int64(len(vec))
		for _, v := range vec {
			pc.Resident += int64(v & 1)
		}
	}
	return pc, nil
}

// DropAllCaches is the root way: write back everything, then drop the
// whole page cache (and dentries and inodes).
func DropAllCaches() error {
	unix.Sync()
	return os.WriteFile("/proc/sys/vm/drop_caches", []byte("3\n"), 0)
}

// mincore fills vec with the Residency of m's pages (bit 0 of each byte).
func mincore(m, vec []byte) error {
	_, _, e := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)), uintptr(unsafe.Pointer(&vec[0])))
	if e != 0 {
		return e
	}
	return nil
}
