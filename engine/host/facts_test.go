package host

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBracketed(t *testing.T) {
	dir := t.TempDir()
	tests := []struct{ content, want string }{
		{"always [madvise] never\n", "madvise"},
		{"[always] madvise never", "always"},
		{"performance\n", "performance"},
	}
	for _, tc := range tests {
		p := filepath.Join(dir, "f")
		if err := os.WriteFile(p, []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		if got, err := bracketed(p); err != nil || got != tc.want {
			t.Errorf("bracketed(%q) = %q, %v; want %q", tc.content, got, err, tc.want)
		}
	}
	if _, err := bracketed(filepath.Join(dir, "missing")); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("a missing file: err = %v, want one naming the path", err)
	}
}

func TestWithinAndUnescape(t *testing.T) {
	tests := []struct {
		dir, point string
		want       bool
	}{
		{"/data/x", "/", true},
		{"/data/x", "/data", true},
		{"/data", "/data", true},
		{"/database", "/data", false},
		{"/other", "/data", false},
	}
	for _, tc := range tests {
		if got := within(tc.dir, tc.point); got != tc.want {
			t.Errorf("within(%q, %q) = %v", tc.dir, tc.point, got)
		}
	}
	if got := unescapeMount(`/mnt/my\040disk`); got != "/mnt/my disk" {
		t.Errorf("unescapeMount = %q", got)
	}
}

// Every fact of the machine is there: with its source, or unknown with
// the reason.
func TestMachineTuningNeverLeavesAFactOut(t *testing.T) {
	kv := Tuning(t.TempDir())
	keys := map[string]string{}
	for _, x := range kv {
		keys[x.Key] = x.Value
	}
	for _, k := range []string{"mentat_spec_revision", "instance_type", "sockets", "numa_nodes", "hugepages",
		"transparent_hugepage_enabled", "transparent_hugepage_defrag", "cpu_governor", "vm_swappiness",
		"data_dir", "data_fs", "data_fs_options", "data_fs_space"} {
		v, ok := keys[k]
		if !ok {
			t.Errorf("no %s line", k)
			continue
		}
		if k == "data_dir" {
			continue
		}
		if !strings.HasPrefix(v, "unknown (") && !strings.Contains(v, " (from ") {
			t.Errorf("%s = %q: neither a source nor unknown (reason)", k, v)
		}
	}
	// A data directory that does not exist yet is described by the
	// filesystem that will hold it.
	kv = Tuning(filepath.Join(t.TempDir(), "not", "yet"))
	for _, x := range kv {
		if x.Key == "data_fs" && strings.HasPrefix(x.Value, "unknown") && strings.Contains(x.Value, "no mount") {
			t.Errorf("data_fs of a future directory: %s", x.Value)
		}
	}
}
