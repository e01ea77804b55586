package export

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/datagen/datagentest"
)

func writeTo(t *testing.T, ds *datagen.Dataset, shards int, edn bool) string {
	t.Helper()
	dir := t.TempDir()
	if err := Write(context.Background(), ds, dir, Options{Shards: shards, EDN: edn, Workers: 3}); err != nil {
		t.Fatalf("Write(%d shards): %v", shards, err)
	}
	return dir
}

func TestExportDeterministic(t *testing.T) {
	for _, extra := range []bool{false, true} {
		t.Run(fmt.Sprintf("extra=%v", extra), func(t *testing.T) {
			patterns := []string{"datoms-text-*.csv", "datoms-int-*.csv", "datoms-real-*.csv", "tx-*.edn", "tx.csv", "schema.csv", "truth.json"}
			ref := writeTo(t, datagentest.Finished(t, datagentest.ScaleXS, extra), 1, true)
			for _, shards := range []int{1, 3, 7} {
				dir := writeTo(t, datagentest.Finished(t, datagentest.ScaleXS, extra), shards, true)
				for _, p := range patterns {
					a, b := datagentest.Concat(t, ref, p), datagentest.Concat(t, dir, p)
					if len(a) == 0 && p != "datoms-real-*.csv" {
						t.Fatalf("%s: empty", p)
					}
					if !bytes.Equal(a, b) {
						t.Errorf("%d shards: %s differs from the 1-shard run", shards, p)
					}
				}
				if n, _ := filepath.Glob(filepath.Join(dir, "datoms-int-*.csv")); len(n) != shards {
					t.Errorf("%d shards: %d int files", shards, len(n))
				}
			}
			other := datagentest.IssueTracker(datagentest.ScaleXS, extra)
			other.Seed = 43
			if err := other.Finish(); err != nil {
				t.Fatal(err)
			}
			if bytes.Equal(datagentest.Concat(t, ref, "datoms-int-*.csv"), datagentest.Concat(t, writeTo(t, other, 2, false), "datoms-int-*.csv")) {
				t.Error("seed 43 gives the same int datoms as seed 42")
			}
		})
	}
}

func TestExportRemovesStaleShards(t *testing.T) {
	ds := datagentest.Finished(t, datagentest.ScaleXS, false)
	dir := t.TempDir()
	keep := filepath.Join(dir, "datoms-notes.csv")
	if err := os.WriteFile(keep, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, opt := range []Options{{Shards: 7, EDN: true}, {Shards: 3}} {
		if err := Write(context.Background(), ds, dir, opt); err != nil {
			t.Fatal(err)
		}
	}
	for p, want := range map[string]int{"datoms-*-*.csv": 9, "tx-*.edn": 0} {
		if n, _ := filepath.Glob(filepath.Join(dir, p)); len(n) != want {
			t.Errorf("%s: %d files, want %d: %v", p, len(n), want, n)
		}
	}
	if _, err := os.Stat(keep); err != nil {
		t.Errorf("a file not written by Export was removed: %v", err)
	}
}

func TestWriteCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ds := datagentest.Finished(t, datagentest.ScaleXS, false)
	if err := Write(ctx, ds, t.TempDir(), Options{Shards: 2}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled write: %v", err)
	}
}
