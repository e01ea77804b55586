package history

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mentat-spec/mentat-spec/engine/report"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// rendered are the files `mentat-spec report` regenerates from the
// others: they say nothing the measured files do not, and a run whose
// report was regenerated (by a newer build, say) is the same run.
func rendered() map[string]bool {
	out := map[string]bool{}
	for _, f := range report.Formats() {
		out[f.File] = true
	}
	return out
}

// RunID is the identity of the results directory dir: a digest of the
// name and content of every regular file it holds (but the rendered
// reports and hidden files), so the same run added twice, from any path, is one run, and
// a copy that differs in any file (a raw.csv cut in half) is another.
func RunID(dir string) (string, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return "", fmt.Errorf("history: %w", err)
	}
	if !st.IsDir() {
		return "", fmt.Errorf("history: %s is not a directory", dir)
	}
	if !exists(filepath.Join(dir, results.EnvFile)) && !exists(filepath.Join(dir, results.TimingsFile)) {
		return "", fmt.Errorf("history: %s has neither %s nor %s: not a results directory", dir, results.EnvFile, results.TimingsFile)
	}
	skip := rendered()
	h := sha256.New()
	var size [8]byte
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if path != dir && strings.HasPrefix(d.Name(), ".") {
			// The engine's transient files (the run's .lock, a report's
			// .tmp) are not the run's.
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil // directories are walked; links and devices are not the run's
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if skip[rel] {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			return err
		}
		// Name and length before the bytes: no two directories' streams
		// can be the same by moving bytes from one file to the next.
		h.Write([]byte(rel))
		h.Write([]byte{0})
		binary.LittleEndian.PutUint64(size[:], uint64(fi.Size()))
		h.Write(size[:])
		n, err := io.Copy(h, f)
		if err == nil && n != fi.Size() {
			err = fmt.Errorf("%s changed while it was read", rel)
		}
		return err
	})
	if err != nil {
		return "", fmt.Errorf("history: reading %s: %w", dir, err)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// legacyRunID is the identity schema 1's stores gave a run before it
// covered every file: a digest of env.txt and timings.csv. A run added
// then is still recognised by it.
func legacyRunID(dir string) (string, error) {
	h := sha256.New()
	for _, name := range []string{results.EnvFile, results.TimingsFile} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("history: %w", err)
		}
		h.Write(b)
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// ErrPartial is returned (wrapped, naming the file) for a results
// directory that is not whole: a file cut mid-row, an empty file, fewer
// reps in raw.csv than timings.csv records. Such a copy is refused
// rather than kept as a run, or it would stand for the whole one.
var ErrPartial = errors.New("a partial copy of a run")

func partial(dir, name, format string, args ...any) error {
	return fmt.Errorf("history: %s: %s: %w", filepath.Join(dir, name), fmt.Sprintf(format, args...), ErrPartial)
}

// checkFiles refuses a results directory whose files are torn: every
// line-oriented file the run measured into (the CSV files, env.txt,
// checks.txt, hdr/*.hlog) ends with a newline, since each is written a
// whole line at a time, and none of them is empty (each CSV starts with
// its header). timings.csv must be there: it is what a history keeps.
func checkFiles(dir string) error {
	if !exists(filepath.Join(dir, results.TimingsFile)) {
		return partial(dir, results.TimingsFile, "missing: no point to add")
	}
	var names []string
	for _, n := range []string{results.EnvFile, results.ChecksFile} {
		if exists(filepath.Join(dir, n)) {
			names = append(names, n)
		}
	}
	for _, pattern := range []string{"*.csv", results.HdrDir + "/*.hlog"} {
		m, err := filepath.Glob(filepath.Join(dir, pattern))
		if err != nil {
			return fmt.Errorf("history: %w", err)
		}
		for _, p := range m {
			rel, _ := filepath.Rel(dir, p)
			names = append(names, rel)
		}
	}
	for _, n := range names {
		if err := checkWhole(dir, n); err != nil {
			return err
		}
	}
	return nil
}

// checkWhole checks one file's last byte is a newline.
func checkWhole(dir, name string) error {
	f, err := os.Open(filepath.Join(dir, name))
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	if fi.Size() == 0 {
		return partial(dir, name, "empty")
	}
	last := make([]byte, 1)
	if _, err := f.ReadAt(last, fi.Size()-1); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	if last[0] != '\n' {
		return partial(dir, name, "its last line is cut (no newline at its end)")
	}
	return nil
}

// checkReps refuses a run whose raw.csv holds fewer rows of a point than
// the reps its timings.csv row records (a raw.csv cut at a row's end),
// and one with no point at all. Without raw.csv (the seed suite's
// directories may have none) a point's median is its one rep.
func checkReps(dir string, r *results.Run) error {
	timings := r.Points()
	if len(timings) == 0 {
		return partial(dir, results.TimingsFile, "holds no point")
	}
	if !exists(filepath.Join(dir, results.RawFile)) {
		return nil
	}
	rows := make(map[results.Key]int, len(timings))
	for _, row := range r.Raw {
		rows[row.Key()]++
	}
	for _, t := range timings {
		if n := rows[t.Key()]; n < t.Reps {
			return partial(dir, results.RawFile, "%d row(s) of %s where %s records %d reps", n, describeKey(t.Key()), results.TimingsFile, t.Reps)
		}
	}
	return nil
}

func describeKey(k results.Key) string {
	return fmt.Sprintf("%s %s %s clients=%d %s", k.Scenario, k.Backend, k.Scale, k.Clients, k.Op)
}
