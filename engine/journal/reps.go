package journal

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// repsDir holds what each recorded rep of a point not yet whole left for
// the point's summary (its rows and histograms, as the kind saves them):
// a resumed run gives them back to the point and measures only the reps
// after them. A point's files go once the point is recorded.
const repsDir = "logs/reps"

// repPrefix names the saved reps of the point with key: a digest, since
// the names in a key may hold any character a file name cannot.
func repPrefix(root, key string) string {
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(root, repsDir, hex.EncodeToString(sum[:8]))
}

func repFile(root, key string, n int) string {
	return repPrefix(root, key) + "-" + strconv.Itoa(n) + ".rep"
}

// Rep records that rep n of a point is on disk: saved, what the point's
// summary needs of the rep, is written first, then the record.
func (j *Journal) Rep(scale, backend, scenario string, index, n int, saved []byte) error {
	if j == nil {
		return nil
	}
	j.mu.Lock()
	off := j.off
	j.mu.Unlock()
	if off {
		return nil
	}
	if err := writeSynced(repFile(j.root, pointKey(scale, backend, scenario, index), n), saved); err != nil {
		// A later record would cover this rep's rows with no record of
		// it: the journal stops here.
		j.mu.Lock()
		j.off = true
		j.mu.Unlock()
		return fmt.Errorf("journal: saving rep %d of %s %s %s point %d: %w", n, scale, backend, scenario, index, err)
	}
	return j.record(strings.Join([]string{"rep", scale, backend, scenario, strconv.Itoa(index), strconv.Itoa(n)}, "\t"))
}

// Reps returns what the resumed run saved of the reps it recorded of a
// point it did not record whole, rep 1 first: the point goes on with the
// rep after them.
func (j *Journal) Reps(scale, backend, scenario string, index int) [][]byte {
	if j == nil {
		return nil
	}
	return j.saved[pointKey(scale, backend, scenario, index)]
}

// loadReps reads the saved reps of every point the resumed run left with
// reps recorded: without one of them the point could neither go on nor
// start again (its earlier reps' rows stay), so the resume is refused.
func (j *Journal) loadReps() error {
	j.saved = map[string][][]byte{}
	keep := map[string]bool{}
	for key, n := range j.reps {
		for i := 1; i <= n; i++ {
			path := repFile(j.root, key, i)
			b, err := os.ReadFile(path)
			if err != nil {
				return fmt.Errorf("resume: rep %d of %s was recorded, but what it saved cannot be read: %w", i, strings.ReplaceAll(strings.TrimPrefix(key, "point\t"), "\t", " "), err)
			}
			j.saved[key] = append(j.saved[key], b)
			keep[path] = true
		}
	}
	// The rest are of reps the journal does not record (cut short by the
	// interrupt) or of points recorded whole before their files went.
	names, _ := filepath.Glob(filepath.Join(j.root, repsDir, "*.rep"))
	for _, n := range names {
		if !keep[n] {
			os.Remove(n)
		}
	}
	return nil
}

// dropReps removes a whole point's saved reps; one left behind is only
// read if a rep record names it.
func (j *Journal) dropReps(key string) {
	if j == nil {
		return
	}
	names, _ := filepath.Glob(repPrefix(j.root, key) + "-*.rep")
	for _, n := range names {
		os.Remove(n)
	}
}

// clearReps removes the saved reps of an earlier run into root.
func clearReps(root string) error {
	names, err := filepath.Glob(filepath.Join(root, repsDir, "*.rep"))
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	for _, n := range names {
		if err := os.Remove(n); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("journal: %w", err)
		}
	}
	return nil
}

// writeSynced writes path whole or not at all, on disk when it returns.
func writeSynced(path string, b []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(b)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
