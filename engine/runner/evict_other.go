//go:build !linux

package runner

import "errors"

type pageCache struct {
	files, pages, resident int64
}

var errNoPageCache = errors.New("evicting files from the page cache is supported on Linux only")

func storeFiles(paths []string) ([]string, error) { return nil, errNoPageCache }
func evict(files []string) error                  { return errNoPageCache }
func residency(files []string) (pageCache, error) { return pageCache{}, errNoPageCache }
func dropAllCaches() error                        { return errNoPageCache }
