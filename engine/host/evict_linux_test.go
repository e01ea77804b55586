package host

import (
	"os"
	"path/filepath"
	"testing"
)

// Evict empties the page cache of exactly the files it is given, as
// Residency (mincore) sees it, without privileges.
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
	files, err := StoreFiles([]string{dir, filepath.Join(dir, "missing")})
	if err != nil || len(files) != 2 {
		t.Fatalf("StoreFiles = %v, %v", files, err)
	}
	before, err := Residency(files)
	if err != nil {
		t.Fatal(err)
	}
	if before.Pages != 2*int64(len(data)/os.Getpagesize()) || before.Resident < before.Pages/2 {
		t.Fatalf("before eviction: %+v; the files were just written and read", before)
	}
	if err := Evict(files[:1]); err != nil {
		t.Fatal(err)
	}
	one, _ := Residency(files[:1])
	other, _ := Residency(files[1:])
	if one.Resident > one.Pages/10 {
		t.Errorf("evicted file still cached: %+v", one)
	}
	if other.Resident < other.Pages/2 {
		t.Errorf("the file not evicted left the cache too: %+v", other)
	}
}
