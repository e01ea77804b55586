package host

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// fullMessages are the C library's words for a full disk or a file size
// limit, which errors quoting them carry without an errno. A database's
// own words are its driver's (drivers.ErrorDiskFull).
var fullMessages = []string{
	"no space left on device", // ENOSPC
	"file too large",          // EFBIG
	"disk quota exceeded",     // EDQUOT
}

// DiskFull reports whether err says a file could not grow: a full disk,
// a quota or a file size limit.
func DiskFull(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EFBIG) {
		return true
	}
	msg := strings.ToLower(err.Error())
	for _, m := range fullMessages {
		if strings.Contains(msg, m) {
			return true
		}
	}
	return false
}

// ExistingDir is dir or its nearest existing parent.
func ExistingDir(dir string) string {
	for {
		if st, err := os.Stat(dir); err == nil && st.IsDir() {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return dir
		}
		dir = parent
	}
}

var errNoStatfs = errors.New("free space unknown on this system")
