package history

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/history/historytest"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// copyRun copies a results directory and applies change to the copy.
func copyRun(t *testing.T, src string, change func(dir string)) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "copy")
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	if change != nil {
		change(dst)
	}
	return dst
}

func rewrite(t *testing.T, path string, f func([]byte) []byte) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, f(b), 0o644); err != nil {
		t.Fatal(err)
	}
}

// cutLines keeps the first n lines of b.
func cutLines(b []byte, n int) []byte {
	lines := strings.SplitAfter(string(b), "\n")
	return []byte(strings.Join(lines[:n], ""))
}

// TestPartialCopiesRefused: a copy of a run that is not whole is refused
// naming the file, and the complete run goes in after it; before, a raw.csv
// cut in half went in (and then the complete run was "already in the
// history"), a timings.csv cut mid-row went in as a second run, and empty
// files went in as 0 points.
func TestPartialCopiesRefused(t *testing.T) {
	forStores(t, func(t *testing.T, k storeKind) {
		dirs, err := historytest.History(t.TempDir(), 1, 5, 0.1, -1, 1)
		if err != nil {
			t.Fatal(err)
		}
		whole := dirs[0]
		cases := []struct {
			name   string
			change func(dir string)
			file   string
		}{
			{"raw.csv cut in half mid-row", func(d string) {
				rewrite(t, filepath.Join(d, results.RawFile), func(b []byte) []byte { return b[:len(b)/2] })
			}, results.RawFile},
			{"raw.csv cut at a row's end", func(d string) {
				rewrite(t, filepath.Join(d, results.RawFile), func(b []byte) []byte { return cutLines(b, 1+5*len(historytest.Scenarios)/2) })
			}, results.RawFile},
			{"raw.csv its header only", func(d string) {
				rewrite(t, filepath.Join(d, results.RawFile), func(b []byte) []byte { return cutLines(b, 1) })
			}, results.RawFile},
			{"timings.csv cut mid-row", func(d string) {
				rewrite(t, filepath.Join(d, results.TimingsFile), func(b []byte) []byte { return b[:len(b)-7] })
			}, results.TimingsFile},
			{"timings.csv empty", func(d string) {
				rewrite(t, filepath.Join(d, results.TimingsFile), func([]byte) []byte { return nil })
			}, results.TimingsFile},
			{"timings.csv its header only", func(d string) {
				rewrite(t, filepath.Join(d, results.TimingsFile), func(b []byte) []byte { return cutLines(b, 1) })
			}, results.TimingsFile},
			{"timings.csv missing", func(d string) {
				if err := os.Remove(filepath.Join(d, results.TimingsFile)); err != nil {
					t.Fatal(err)
				}
			}, results.TimingsFile},
			{"env.txt empty", func(d string) {
				rewrite(t, filepath.Join(d, results.EnvFile), func([]byte) []byte { return nil })
			}, results.EnvFile},
			{"checks.txt cut mid-line", func(d string) {
				rewrite(t, filepath.Join(d, results.ChecksFile), func(b []byte) []byte { return b[:len(b)-3] })
			}, results.ChecksFile},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				s := k.open(t)
				torn := copyRun(t, whole, c.change)
				_, added, err := s.Add(torn)
				if !errors.Is(err, ErrPartial) || added {
					t.Fatalf("added %v, err %v: want it refused as partial", added, err)
				}
				if want := filepath.Join(torn, c.file); !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not name %s", err, want)
				}
				if runs, _ := s.Runs(); len(runs) != 0 {
					t.Errorf("%d runs kept after a refusal", len(runs))
				}
				r, added, err := s.Add(whole)
				if err != nil || !added || r.Points != len(historytest.Scenarios) {
					t.Fatalf("the whole run after the partial one: added %v, %+v, %v", added, r, err)
				}
			})
		}
	})
}

// TestIdentityCoversEveryFile: a copy differing in any measured file is
// another run; the same files from another path, or with the rendered
// reports regenerated, are the same run.
func TestIdentityCoversEveryFile(t *testing.T) {
	forStores(t, func(t *testing.T, k storeKind) {
		dirs, err := historytest.History(t.TempDir(), 1, 3, 0.1, -1, 1)
		if err != nil {
			t.Fatal(err)
		}
		whole := dirs[0]
		s := k.open(t)
		addAll(t, s, dirs)
		same := copyRun(t, whole, func(d string) {
			for _, f := range []string{"report.html", ".lock", ".report.html.tmp"} {
				if err := os.WriteFile(filepath.Join(d, f), []byte("<p>regenerated</p>\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
		if _, added, err := s.Add(same); err != nil || added {
			t.Errorf("the same run with its report regenerated: added %v, %v", added, err)
		}
		for _, f := range []string{results.RawFile, "fingerprints.json", "logs/run.log"} {
			other := copyRun(t, whole, func(d string) {
				p := filepath.Join(d, f)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				b, _ := os.ReadFile(p)
				if f == results.RawFile {
					b = []byte(strings.Replace(string(b), ",1000,", ",1001,", 1))
				} else {
					b = append(b, "\n"...)
				}
				if err := os.WriteFile(p, b, 0o644); err != nil {
					t.Fatal(err)
				}
			})
			if _, added, err := s.Add(other); err != nil || !added {
				t.Errorf("a run differing in %s: added %v, %v", f, added, err)
			}
		}
	})
}

// TestLegacyIdentity: a run added by a store of the earlier identity
// (env.txt and timings.csv) is still recognised.
func TestLegacyIdentity(t *testing.T) {
	forStores(t, func(t *testing.T, k storeKind) {
		dirs, err := historytest.History(t.TempDir(), 1, 3, 0.1, -1, 1)
		if err != nil {
			t.Fatal(err)
		}
		s := k.open(t)
		legacy, err := legacyRunID(dirs[0])
		if err != nil {
			t.Fatal(err)
		}
		im, err := importDir(dirs[0], legacy)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.insert(im, legacy); err != nil {
			t.Fatal(err)
		}
		r, added, err := s.Add(dirs[0])
		if err != nil || added || r.ID != legacy {
			t.Errorf("added %v, run %s, %v: want the legacy run %s", added, r.ID, err, legacy)
		}
		if r, err := s.Find(dirs[0]); err != nil || r.ID != legacy {
			t.Errorf("find by directory: %s %v", r.ID, err)
		}
	})
}

// TestConcurrentAdds: processes adding into a new history file at once
// all succeed (before, "creating the schema: table meta already exists"
// made some exit 7 with their runs not added), and the same run added
// twice at once lands once.
func TestConcurrentAdds(t *testing.T) {
	forStores(t, func(t *testing.T, k storeKind) {
		dirs, err := historytest.History(t.TempDir(), 4, 3, 0.1, -1, 1)
		if err != nil {
			t.Fatal(err)
		}
		for try := range 6 {
			path := k.loc(t)
			// Four distinct runs and the first one twice more: six adders.
			adds := append(append([]string(nil), dirs...), dirs[0], dirs[0])
			var wg sync.WaitGroup
			errs := make([]error, len(adds))
			added := make([]bool, len(adds))
			start := make(chan struct{})
			for i, d := range adds {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					// Each its own Open, as separate processes are.
					s, err := Open(path)
					if err != nil {
						errs[i] = err
						return
					}
					defer s.Close()
					_, added[i], errs[i] = s.Add(d)
				}()
			}
			close(start)
			wg.Wait()
			nAdded := 0
			for i, err := range errs {
				if err != nil {
					t.Errorf("try %d: adder %d: %v", try, i, err)
				}
				if added[i] {
					nAdded++
				}
			}
			s, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			runs, err := s.Runs()
			s.Close()
			if err != nil {
				t.Fatal(err)
			}
			if len(runs) != len(dirs) || nAdded != len(dirs) {
				t.Errorf("try %d: %d runs in the history, %d adds said added; want %d", try, len(runs), nAdded, len(dirs))
			}
		}
	})
}
