package store_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/mentat-spec/mentat-spec/drivers"
	_ "github.com/mentat-spec/mentat-spec/drivers/all"
	"github.com/mentat-spec/mentat-spec/engine/store"
)

// session opens a real SQLite store of the test's own.
func session(t *testing.T, init []string) drivers.Session {
	t.Helper()
	ctx := context.Background()
	drv, ok := drivers.Default.Lookup("sqlite")
	if !ok {
		t.Fatal("no sqlite driver")
	}
	be, err := drv.Open(ctx, drivers.Config{Backend: "sqlite", Scale: "xs", Init: init,
		Options: map[string]string{"path": filepath.Join(t.TempDir(), "meta.sqlite")}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { be.Close() })
	s, err := be.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// A store is the engine's only when its meta table says so; what the
// engine writes there reads back; a store with no meta table is a user's.
func TestMeta(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		init  []string
		write map[string]string
		want  store.State
	}{
		{"a user's store", nil, nil, store.State{}},
		{"created, not loaded", store.MetaInit(), nil, store.State{Ours: true}},
		{"loaded", store.MetaInit(), map[string]string{"fingerprint": "abc", "loaded": "1"},
			store.State{Ours: true, Fingerprint: "abc", Loaded: true}},
		{"written after its load", store.MetaInit(), map[string]string{"loaded": "1", "written": "write_mixed"},
			store.State{Ours: true, Loaded: true, Written: "write_mixed"}},
		{"a quote in a value", store.MetaInit(), map[string]string{"written": "it's"}, store.State{Ours: true, Written: "it's"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := session(t, tc.init)
			if tc.write != nil {
				if err := store.WriteMeta(ctx, s, tc.write); err != nil {
					t.Fatal(err)
				}
			}
			if got := store.ReadMeta(ctx, s); got != tc.want {
				t.Errorf("ReadMeta = %+v, want %+v", got, tc.want)
			}
		})
	}
}
