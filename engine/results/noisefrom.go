package results

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// NoiseFrom reads the rows of dir's noise.csv written from byte offset
// from on: the rows one run wrote, when from is the file's size at its
// start (as ChecksFrom does for checks.txt). No file has none.
func NoiseFrom(dir string, from int64) ([]NoiseRow, error) {
	rows, err := ReadNoise(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	// Rows before from are earlier runs': the lines of the file's first
	// from bytes, its header aside.
	before := 0
	if from > 0 {
		f, err := os.Open(filepath.Join(dir, NoiseFile))
		if err != nil {
			return nil, fmt.Errorf("results: %w", err)
		}
		b := make([]byte, from)
		_, err = io.ReadFull(f, b)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("results: read %s: %w", NoiseFile, err)
		}
		before = max(bytes.Count(b, []byte("\n"))-1, 0)
	}
	if before >= len(rows) {
		return nil, nil
	}
	return rows[before:], nil
}
