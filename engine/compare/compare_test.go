package compare

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs:\n%s\nwant:\n%s", name, got, want)
	}
}

// seedRule compares as the seed suite's compare.py did: the threshold method.
func seedRule(oldDir, newDir string, thresholdPct float64) (Verdict, error) {
	return Dirs(oldDir, newDir, Options{Method: MethodThreshold, ThresholdPct: thresholdPct})
}

// withoutEnvNotes drops the notes that no env.txt was there to check
// (the fixtures of the seed suite's rule have none).
func withoutEnvNotes(s string) string {
	for _, side := range []string{"OLD", "NEW"} {
		s = strings.Replace(s, "note: "+side+" has no env.txt: cannot check that the runs are comparable\n", "", 1)
	}
	return s
}

func TestCompare(t *testing.T) {
	oldDir, newDir := filepath.Join("testdata", "compare", "old"), filepath.Join("testdata", "compare", "new")
	verdict, err := seedRule(oldDir, newDir, 10)
	if err != nil {
		t.Fatal(err)
	}
	type kw struct{ kind, what string }
	var got []kw
	for _, f := range verdict.Findings {
		got = append(got, kw{f.Kind, f.What})
	}
	want := []kw{
		{KindP50, "point_lookup postgres s clients=1 read"},
		{KindThroughput, "point_lookup postgres s clients=1 read"},
		{KindP99, "pull postgres s clients=1 read"},
		{KindCeiling, "aggregate postgres l"},
		{KindErrors, "write_mixed postgres s clients=1 write"},
		{KindMissing, "write_mixed postgres s clients=8 read"},
		{KindLoadRate, "bulk_load postgres s"},
		{KindLoadCeiling, "bulk_load duckdb m"},
	}
	if len(got) != len(want) {
		t.Fatalf("findings:\n%v\nwant:\n%v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("finding %d: %v, want %v", i, got[i], want[i])
		}
	}
	if !verdict.Regressed() || verdict.Compared != 5 || verdict.OnlyNew != 2 {
		t.Errorf("regressed %v compared %d only-new %d, want true 5 2", verdict.Regressed(), verdict.Compared, verdict.OnlyNew)
	}
	golden(t, "compare.golden.txt", []byte(withoutEnvNotes(verdict.String())))
}

func TestCompareThresholds(t *testing.T) {
	oldDir, newDir := filepath.Join("testdata", "compare", "old"), filepath.Join("testdata", "compare", "new")
	tests := []struct {
		name      string
		old, new  string
		threshold float64
		regressed bool
		kinds     int // findings
		err       string
	}{
		{"same run", oldDir, oldDir, 10, false, 0, ""},
		// At 50% only the non-metric findings remain.
		{"loose threshold", oldDir, newDir, 50, true, 4, ""},
		{"negative threshold", oldDir, newDir, -1, false, 0, "threshold"},
		{"missing dir", oldDir, filepath.Join("testdata", "nope"), 10, false, 0, "not a results directory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			verdict, err := seedRule(tc.old, tc.new, tc.threshold)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if verdict.Regressed() != tc.regressed || len(verdict.Findings) != tc.kinds {
				t.Errorf("regressed %v with %d findings, want %v %d:\n%s", verdict.Regressed(), len(verdict.Findings), tc.regressed, tc.kinds, verdict)
			}
			if !tc.regressed && !strings.Contains(verdict.String(), "no regressions") {
				t.Errorf("report does not say so:\n%s", verdict)
			}
		})
	}
}

// loadRun loads the results directory dir.
func loadRun(t *testing.T, dir string) *results.Run {
	t.Helper()
	r, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
