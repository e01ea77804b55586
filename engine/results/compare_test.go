package results

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestCompare(t *testing.T) {
	oldDir, newDir := filepath.Join("testdata", "compare", "old"), filepath.Join("testdata", "compare", "new")
	rep, err := Compare(oldDir, newDir, 10)
	if err != nil {
		t.Fatal(err)
	}
	type kw struct{ kind, what string }
	var got []kw
	for _, f := range rep.Findings {
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
	if !rep.Regressed() || rep.Compared != 5 || rep.OnlyNew != 2 {
		t.Errorf("regressed %v compared %d only-new %d, want true 5 2", rep.Regressed(), rep.Compared, rep.OnlyNew)
	}
	golden(t, "compare.golden.txt", []byte(rep.String()))
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
		{"missing dir", oldDir, filepath.Join("testdata", "nope"), 10, false, 0, "compare NEW"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := Compare(tc.old, tc.new, tc.threshold)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if rep.Regressed() != tc.regressed || len(rep.Findings) != tc.kinds {
				t.Errorf("regressed %v with %d findings, want %v %d:\n%s", rep.Regressed(), len(rep.Findings), tc.regressed, tc.kinds, rep)
			}
			if !tc.regressed && !strings.Contains(rep.String(), "no regressions") {
				t.Errorf("report does not say so:\n%s", rep)
			}
		})
	}
}
