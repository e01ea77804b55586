package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/history/historytest"
)

// TestHistoryAddConcurrent is the case through the command: four
// `history add` processes at once into a new history file, six times. Each
// exits 0 and every run is in the history; before, in 3 of 6 tries some
// exited 7 with "creating the schema: table meta already exists".
func TestHistoryAddConcurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("runs processes")
	}
	root := t.TempDir()
	dirs, err := historytest.History(filepath.Join(root, "runs"), 4, 3, 0.1, -1, 1)
	if err != nil {
		t.Fatal(err)
	}
	for try := range 6 {
		db := filepath.Join(root, fmt.Sprintf("try%d", try), "history.db")
		var wg sync.WaitGroup
		outs := make([]string, len(dirs))
		errs := make([]error, len(dirs))
		for i, d := range dirs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cmd := exec.Command(os.Args[0], "history", "add", "-db", db, d)
				cmd.Env = append(os.Environ(), asCLI+"=1")
				b, err := cmd.CombinedOutput()
				outs[i], errs[i] = string(b), err
			}()
		}
		wg.Wait()
		for i := range dirs {
			if errs[i] != nil || !strings.HasPrefix(outs[i], "added ") {
				t.Errorf("try %d: add %d: %v\n%s", try, i, errs[i], outs[i])
			}
		}
		code, out, errOut := historyCLI(t, "history", "ls", "-db", db)
		if code != exitOK || strings.Count(out, "run-") != len(dirs) {
			t.Errorf("try %d: ls exit %d, want %d runs:\n%s%s", try, code, len(dirs), out, errOut)
		}
	}
}
