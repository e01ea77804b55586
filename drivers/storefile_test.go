package drivers

import (
	"path/filepath"
	"strings"
	"testing"
)

// StoreFile, as both embedded drivers resolve their files: the path
// option inside DataDir, the backend and scale's file name kept inside
// it, unknown options and non-file paths refused.
func TestStoreFile(t *testing.T) {
	opts := []string{"path", "readers"}
	dir := "/data"
	for _, tc := range []struct {
		name    string
		cfg     Config
		refused []string
		want    string // the path, or the error's words
		err     bool
	}{
		{name: "default", cfg: Config{DataDir: dir, Scale: "xs"}, want: filepath.Join(dir, "b-xs.ext")},
		{name: "no scale", cfg: Config{DataDir: dir}, want: filepath.Join(dir, "b.ext")},
		{name: "relative path", cfg: Config{DataDir: dir, Options: map[string]string{"path": "sub/x.db"}}, want: filepath.Join(dir, "sub", "x.db")},
		{name: "absolute path", cfg: Config{DataDir: dir, Options: map[string]string{"path": "/elsewhere/x.db", "readers": "2"}}, want: "/elsewhere/x.db"},
		{name: "unknown option", cfg: Config{DataDir: dir, Options: map[string]string{"dsn": "x"}}, err: true, want: `unknown option "dsn" (known: path, readers)`},
		{name: "no location", cfg: Config{}, err: true, want: "neither the path option nor DataDir"},
		{name: "escaping scale", cfg: Config{DataDir: dir, Scale: "../../x"}, err: true, want: "cannot form a file name inside DataDir"},
		{name: "hidden name", cfg: Config{DataDir: dir, Scale: "x", Backend: ".b"}, err: true, want: "cannot form a file name"},
		{name: "memory", cfg: Config{Options: map[string]string{"path": ":memory:"}}, err: true, want: `(no "?" or ":memory:")`},
		{name: "dsn parameters", cfg: Config{Options: map[string]string{"path": "x.db?mode=ro"}}, err: true, want: "must be a plain file path"},
		{name: "a driver's uri", cfg: Config{Options: map[string]string{"path": "file:x.db"}}, refused: []string{"file:"}, err: true, want: `(no "?", "file:" or ":memory:")`},
		{name: "uri form of another driver", cfg: Config{DataDir: dir, Options: map[string]string{"path": "file:x.db"}}, want: filepath.Join(dir, "file:x.db")},
	} {
		name := "b"
		if tc.cfg.Backend != "" {
			name = tc.cfg.Backend
		}
		got, err := StoreFile(tc.cfg, name, ".ext", opts, tc.refused...)
		switch {
		case tc.err && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %q, %v; want an error saying %q", tc.name, got, err, tc.want)
		case !tc.err && (err != nil || got != tc.want):
			t.Errorf("%s: %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
}
