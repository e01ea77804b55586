package runner

import (
	"os"
	"path/filepath"
	"testing"
)

// evict empties the page cache of exactly the files it is given, as
// residency (mincore) sees it, without privileges.
func TestEvictEmptiesThePageCacheOfTheFiles(t *testing.T) {
	dir := t.TempDir()
	data := make([]byte, 4<<20)
	for i := range data {
		data[i] = byte(i * 7)
	}
	a, b := filepath.Join(dir, "store"), filepath.Join(dir, "sub", "other")
	if err := os.MkdirAll(filepath.Dir(b), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{a, b} {
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := os.ReadFile(p); err != nil { // cached now
			t.Fatal(err)
		}
	}
	files, err := storeFiles([]string{dir, filepath.Join(dir, "missing")})
	if err != nil || len(files) != 2 {
		t.Fatalf("storeFiles = %v, %v", files, err)
	}
	before, err := residency(files)
	if err != nil {
		t.Fatal(err)
	}
	if before.pages != 2*int64(len(data)/os.Getpagesize()) || before.resident < before.pages/2 {
		t.Fatalf("before eviction: %+v; the files were just written and read", before)
	}
	if err := evict(files[:1]); err != nil {
		t.Fatal(err)
	}
	one, _ := residency(files[:1])
	other, _ := residency(files[1:])
	if one.resident > one.pages/10 {
		t.Errorf("evicted file still cached: %+v", one)
	}
	if other.resident < other.pages/2 {
		t.Errorf("the file not evicted left the cache too: %+v", other)
	}
}
