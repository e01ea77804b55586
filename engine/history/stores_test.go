package history

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mentat-spec/mentat-spec/engine/changepoint"
	"github.com/mentat-spec/mentat-spec/engine/history/historytest"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// outputs are what the commands print of a history: its runs (but when
// each was added), the markdown and HTML reports, and every run's check.
func outputs(t *testing.T, s *Store) (runs []Run, md, html, checks string) {
	t.Helper()
	runs, err := s.Runs()
	if err != nil {
		t.Fatal(err)
	}
	for i := range runs {
		runs[i].Added = time.Time{}
	}
	a := analyze(t, s)
	var m, h, c bytes.Buffer
	if err := a.Markdown(&m); err != nil {
		t.Fatal(err)
	}
	if err := a.HTML(&h); err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		if err := a.Check(r.ID).Write(&c); err != nil {
			t.Fatal(err)
		}
	}
	return runs, m.String(), h.String(), c.String()
}

// TestStoresAgree: the same runs added to a SQLite file and to
// PostgreSQL read back the same, and every report of them is identical.
func TestStoresAgree(t *testing.T) {
	kinds := storeKinds(t)
	if len(kinds) < 2 {
		t.Skipf("%s is unset: no PostgreSQL to agree with", historytest.DSNVar)
	}
	dirs, err := historytest.History(t.TempDir(), 30, 5, 0.1, 20, 1.3)
	if err != nil {
		t.Fatal(err)
	}
	var want [4]any
	for i, k := range kinds {
		s := k.open(t)
		addAll(t, s, dirs)
		runs, md, html, checks := outputs(t, s)
		got := [4]any{runs, md, html, checks}
		if i == 0 {
			want = got
			if !strings.Contains(md, "regression**") {
				t.Fatalf("no regression in the markdown:\n%s", md)
			}
			continue
		}
		for j, what := range []string{"runs", "markdown", "HTML", "checks"} {
			if fmt.Sprint(got[j]) != fmt.Sprint(want[j]) {
				t.Errorf("%s: %s differ from %s's:\n%v\n----\n%v", k.name, what, kinds[0].name, got[j], want[j])
			}
		}
	}
}

// TestCopyRoundTrip: every run of a file copied into each store and back
// into a new file: the runs (their identity, start and when they were
// first added included) and every report are unchanged, and copying again
// copies nothing.
func TestCopyRoundTrip(t *testing.T) {
	dirs, err := historytest.History(t.TempDir(), 60, 5, 0.1, 40, 1.15)
	if err != nil {
		t.Fatal(err)
	}
	sqlite := storeKinds(t)[0]
	src := sqlite.open(t)
	addAll(t, src, dirs)
	wantRuns, _ := src.Runs()
	_, md, html, checks := outputs(t, src)
	forStores(t, func(t *testing.T, k storeKind) {
		mid := k.open(t)
		if res, err := Copy(mid, src); err != nil || res != (CopyResult{Copied: 60}) {
			t.Fatalf("copy into %s: %+v %v", k.name, res, err)
		}
		if res, err := Copy(mid, src); err != nil || res != (CopyResult{Present: 60}) {
			t.Fatalf("copy again: %+v %v", res, err)
		}
		back := sqlite.open(t)
		if res, err := Copy(back, mid); err != nil || res.Copied != 60 {
			t.Fatalf("copy back: %+v %v", res, err)
		}
		for _, s := range []*Store{mid, back} {
			runs, _ := s.Runs()
			if fmt.Sprint(runs) != fmt.Sprint(wantRuns) {
				t.Errorf("%s: runs differ after the copy", s.Path())
			}
			_, m, h, c := outputs(t, s)
			if m != md || h != html || c != checks {
				t.Errorf("%s: reports differ after the copy:\n%s\n----\n%s", s.Path(), m, md)
			}
		}
		// A run's env, checks and loads come along: adding its directory
		// to the copy finds it there.
		if _, added, err := back.Add(dirs[7]); err != nil || added {
			t.Errorf("adding a copied run's directory: added %v, %v", added, err)
		}
	})
}

// TestMachinesAndYoungSeries: two machines of one kind feed one series,
// which says so; a third machine of another kind starts young series,
// and checking its fourth run says it is not judged rather than calling
// a doubling after three runs a regression.
func TestMachinesAndYoungSeries(t *testing.T) {
	root := t.TempDir()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	twin := slices.Clone(historytest.Machine)
	twin[0] = results.KV{Key: "hostname", Value: "bench-1b (from uname)"}
	var dirs []string
	for i := range 12 {
		env := historytest.Machine
		if i%2 == 1 {
			env = twin
		}
		r := historytest.Run{Started: start.Add(time.Duration(i) * time.Hour), Revision: historytest.Revision(i), Env: env, Reps: 5, CV: 0.05, Seed: uint64(i + 1)}
		d := filepath.Join(root, fmt.Sprint(i))
		if err := historytest.Write(d, r); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, d)
	}
	// Another kind of machine: three quiet runs, then point_lookup twice
	// as slow.
	for i := range 4 {
		r := historytest.Run{Started: start.Add(time.Duration(20+i) * time.Hour), Revision: historytest.Revision(20 + i), Env: historytest.OtherMachine,
			Reps: 5, CV: 0.01, Seed: uint64(50 + i)}
		if i == 3 {
			r.Shift, r.ShiftScenario = 2, "point_lookup"
		}
		d := filepath.Join(root, fmt.Sprintf("other-%d", i))
		if err := historytest.Write(d, r); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, d)
	}
	forStores(t, func(t *testing.T, k storeKind) {
		s := k.open(t)
		runs := addAll(t, s, dirs)
		a := analyze(t, s)
		if !slices.Equal(a.Hosts, []string{"bench-1", "bench-1b", "bench-2"}) || a.Kinds != 2 {
			t.Errorf("hosts %q, %d kinds", a.Hosts, a.Kinds)
		}
		for _, sr := range a.Series {
			want := []string{"bench-1", "bench-1b"}
			if len(sr.Runs) == 4 {
				want = []string{"bench-2"}
			}
			if !slices.Equal(sr.Hosts, want) {
				t.Errorf("series %s (%d runs): hosts %q, want %q", sr.Key, len(sr.Runs), sr.Hosts, want)
			}
		}
		var md bytes.Buffer
		if err := a.Markdown(&md); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(md.String(), "16 runs from 3 machine(s) of 2 kind(s), 18 series.") || !strings.Contains(md.String(), "not judged") ||
			!strings.Contains(md.String(), "| point_lookup store xs clients=1 read p50_ms | `other-3` |") || strings.Contains(md.String(), "regression**") ||
			!strings.Contains(md.String(), "young series (3 runs before): not judged") {
			t.Errorf("markdown:\n%s", md.String())
		}
		// The detector finds point_lookup's step after three runs; the
		// check does not decide from them.
		young := a.Check(runs[15].ID)
		var b bytes.Buffer
		if err := young.Write(&b); err != nil {
			t.Fatal(err)
		}
		if len(young.Regressions) > 0 || young.Young != 9 || young.Series != 9 || len(young.Unjudged) != 1 ||
			!strings.Contains(b.String(), "  not judged in a young series: point_lookup store xs clients=1 read p50_ms: +") ||
			!strings.Contains(b.String(), "young series: 9 of its 9 series hold fewer than 4 runs before it") ||
			!strings.Contains(b.String(), "not judged") || !strings.Contains(b.String(), "from 1 machine(s): bench-2") {
			t.Errorf("check of a young series' second run: %d regressions, %d young of %d\n%s", len(young.Regressions), young.Young, young.Series, b.String())
		}
		old := a.Check(runs[11].ID)
		b.Reset()
		if err := old.Write(&b); err != nil {
			t.Fatal(err)
		}
		if old.Young != 0 || !strings.Contains(b.String(), "from 2 machine(s): bench-1, bench-1b") || !strings.Contains(b.String(), "in line with its series") {
			t.Errorf("check of run 11:\n%s", b.String())
		}
	})
}

// TestReadDuringAdds: an analysis while runs are being added sees each
// run whole or not at all: every series has every run it lists.
func TestReadDuringAdds(t *testing.T) {
	dirs, err := historytest.History(t.TempDir(), 24, 3, 0.1, -1, 1)
	if err != nil {
		t.Fatal(err)
	}
	forStores(t, func(t *testing.T, k storeKind) {
		loc := k.loc(t)
		s, err := Open(loc)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		var wg sync.WaitGroup
		done := make(chan struct{})
		for first := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				w, err := Open(loc)
				if err != nil {
					t.Error(err)
					return
				}
				defer w.Close()
				for i := first; i < len(dirs); i += 2 {
					if _, _, err := w.Add(dirs[i]); err != nil {
						t.Error(err)
					}
				}
			}()
		}
		go func() { wg.Wait(); close(done) }()
		reads, torn := 0, 0
		for finished := false; !finished; reads++ {
			select {
			case <-done:
				finished = true
			default:
			}
			a, err := s.Analyze(changepoint.Options{})
			if err != nil {
				t.Errorf("read %d: %v", reads, err)
				continue
			}
			for _, sr := range a.Series {
				if len(sr.Runs) != len(a.Runs) && torn == 0 {
					torn++
					t.Errorf("read %d: series %s has %d runs of the %d listed", reads, sr.Key, len(sr.Runs), len(a.Runs))
				}
			}
		}
		if runs, _ := s.Runs(); len(runs) != len(dirs) {
			t.Errorf("%d runs after the adds, want %d", len(runs), len(dirs))
		}
		t.Logf("%d reads during the adds", reads)
	})
}
