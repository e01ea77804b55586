package drivers

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// StoreFile is the file an embedded driver's store for cfg lives in: its
// path option (relative to cfg.DataDir), or <DataDir>/<name>[-<scale>]<ext>
// inside DataDir. options are the driver's option names, path among
// them: any other is refused. A path holding "?", starting with
// ":memory:" or with one of refused (a driver's URI forms) is refused:
// the store is always a plain file, for Size, Drop and the store's lock.
func StoreFile(cfg Config, name, ext string, options []string, refused ...string) (string, error) {
	var path string
	for k, v := range cfg.Options {
		switch {
		case k == "path":
			path = v
		case !slices.Contains(options, k):
			return "", fmt.Errorf("unknown option %q (known: %s)", k, strings.Join(options, ", "))
		}
	}
	if path == "" {
		if cfg.DataDir == "" {
			return "", errors.New("neither the path option nor DataDir is set")
		}
		file := name
		if cfg.Scale != "" {
			file += "-" + cfg.Scale
		}
		// The names come from the spec; keep the file inside DataDir.
		if strings.ContainsAny(file, `/\`) || strings.HasPrefix(file, ".") {
			return "", fmt.Errorf("backend and scale names %q cannot form a file name inside DataDir", file)
		}
		return filepath.Join(cfg.DataDir, file+ext), nil
	}
	bad := strings.ContainsRune(path, '?') || strings.HasPrefix(path, ":memory:")
	forms := []string{`"?"`}
	for _, r := range refused {
		bad = bad || strings.HasPrefix(path, r)
		forms = append(forms, fmt.Sprintf("%q", r))
	}
	if bad {
		return "", fmt.Errorf("path %q: must be a plain file path (no %s or \":memory:\")", path, strings.Join(forms, ", "))
	}
	if !filepath.IsAbs(path) && cfg.DataDir != "" {
		path = filepath.Join(cfg.DataDir, path)
	}
	return path, nil
}
