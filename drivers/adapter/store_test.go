package adapter

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/drivers/storelock"
)

func TestStorePath(t *testing.T) {
	wd, _ := os.Getwd()
	tests := []struct {
		cfg     drivers.Config
		want    string
		wantErr bool
	}{
		{drivers.Config{Backend: "b", Options: map[string]string{"path": "data/x.db"}}, filepath.Join(wd, "data/x.db"), false},
		{drivers.Config{Backend: "b", Scale: "xs", DataDir: "/d"}, "/d/b-xs", false},
		{drivers.Config{Backend: "b"}, "", false},
		{drivers.Config{Backend: "../b", DataDir: "/d"}, "", true},
	}
	for _, tt := range tests {
		got, err := storePath(tt.cfg)
		if got != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("%+v: %q, %v; want %q", tt.cfg, got, err, tt.want)
		}
	}
}

// TestOneRunPerStore: a second run's lock on the same adapter store is
// refused while the first holds it.
func TestOneRunPerStore(t *testing.T) {
	cfg := drivers.Config{Backend: "b", Options: map[string]string{"path": filepath.Join(t.TempDir(), "s.db")}}
	sl := New().(drivers.StoreLocker)
	l, err := sl.LockStore(context.Background(), cfg, storelock.Wait{Timeout: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	if l2, err := sl.LockStore(context.Background(), cfg, storelock.Wait{Timeout: -1}); err == nil {
		l2.Release()
		t.Fatal("a second lock on the same store was granted")
	}
}
