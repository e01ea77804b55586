//go:build !linux

package host

import "errors"

type PageCache struct {
	Files, Pages, Resident int64
}

var ErrNoPageCache = errors.New("evicting files from the page cache is supported on Linux only")

func StoreFiles(paths []string) ([]string, error) { return nil, ErrNoPageCache }
func Evict(files []string) error                  { return ErrNoPageCache }
func Residency(files []string) (PageCache, error) { return PageCache{}, ErrNoPageCache }
func DropAllCaches() error                        { return ErrNoPageCache }
