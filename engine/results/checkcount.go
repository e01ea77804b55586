package results

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ChecksFrom reads the check lines of dir's checks.txt from byte offset
// from on (TOTAL lines are not checks): the verdicts one run wrote, when
// from is the file's size at its start. No file has none.
func ChecksFrom(dir string, from int64) ([]CheckLine, error) {
	f, err := os.Open(filepath.Join(dir, ChecksFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	defer f.Close()
	if _, err := f.Seek(from, io.SeekStart); err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	var out []CheckLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		if c, ok := parseCheck(strings.TrimRight(sc.Text(), "\r")); ok {
			out = append(out, c)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("results: read %s: %w", ChecksFile, err)
	}
	return out, nil
}

// Count counts lines' verdicts.
func Count(lines []CheckLine) CheckCounts {
	var c CheckCounts
	for _, l := range lines {
		c.Add(l.Status)
	}
	return c
}

// Carry counts checks written by an earlier part of this run (the run a
// -resume continues) as added through d: Close then writes the TOTAL
// line and returns them with the ones added since.
func (d *Dir) Carry(c CheckCounts) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.added.Pass += c.Pass
	d.added.Fail += c.Fail
	d.added.Skip += c.Skip
	d.added.Threshold += c.Threshold
}
