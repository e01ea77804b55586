package report

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

// csvTable is one CSV file of a run as read, without its types: its header
// and rows, each of the header's width. A torn row (a run stopped
// mid-write) and a header repeated by a later invocation are left out,
// as the typed readers leave them.
type csvTable struct {
	File   string // its path in the run directory, with '/'
	Header []string
	Rows   [][]string
}

// tables reads every CSV file of the run directory dir, at its top and
// in logs/, except those named in skip, sorted by path: what a reader
// that knows no file's type (results.json) shows of each.
func tables(dir string, skip ...string) ([]csvTable, error) {
	var names []string
	for _, sub := range []string{"", results.LogsDir} {
		ents, err := os.ReadDir(filepath.Join(dir, sub))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("report: the run's tables: %w", err)
		}
		for _, e := range ents {
			name := strings.TrimPrefix(sub+"/"+e.Name(), "/")
			if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".csv") && !slices.Contains(skip, name) {
				names = append(names, name)
			}
		}
	}
	slices.Sort(names)
	var out []csvTable
	for _, name := range names {
		t, err := readTable(dir, name)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// readTable reads its header, then its rows through results.ReadCSV,
// which leaves out torn rows and repeated headers as every reader does.
func readTable(dir, name string) (csvTable, error) {
	t := csvTable{File: name}
	f, err := os.Open(filepath.Join(dir, filepath.FromSlash(name)))
	if err != nil {
		return t, fmt.Errorf("report: %w", err)
	}
	head, err := csv.NewReader(bufio.NewReader(f)).Read()
	f.Close()
	if errors.Is(err, io.EOF) {
		return t, nil
	}
	if err != nil {
		return t, fmt.Errorf("report: %s: %w", name, err)
	}
	for i := range head {
		head[i] = strings.TrimSpace(head[i]) // as results' readers key columns
	}
	t.Header = head
	err = results.ReadCSV(dir, name, strings.Join(head, ","), func(r results.Fields) {
		row := make([]string, len(head))
		for i, h := range head {
			row[i] = r.Str(h)
		}
		t.Rows = append(t.Rows, row)
	})
	return t, err
}
