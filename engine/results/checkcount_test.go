package results

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The checks of a run resumed are read from its start, TOTAL lines
// aside, and carried: Close writes the TOTAL line of the whole file even
// when the resumed part adds no check, and returns the run's counts.
func TestCarriedChecksGetTheirTotal(t *testing.T) {
	earlier := "PASS a b xs c: d\nTOTAL 1 PASS, 0 FAIL, 0 SKIP\n"
	interrupted := "PASS q sqlite xs names: ok\nFAIL q sqlite xs other: wrong\nSKIP r sqlite xs slow: no answer\nTHRESHOLD q sqlite xs p99: crossed\n"
	for _, tc := range []struct {
		name   string
		from   int64
		want   CheckCounts
		total  string
		noFile bool
	}{
		{"after an earlier run", int64(len(earlier)), CheckCounts{Pass: 1, Fail: 1, Skip: 1, Threshold: 1}, "TOTAL 2 PASS, 1 FAIL, 1 SKIP, 1 THRESHOLD", false},
		{"alone in the file", 0, CheckCounts{Pass: 1, Fail: 1, Skip: 1, Threshold: 1}, "TOTAL 1 PASS, 1 FAIL, 1 SKIP, 1 THRESHOLD", false},
		{"no checks.txt", 0, CheckCounts{}, "TOTAL 0 PASS, 0 FAIL, 0 SKIP", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			text := interrupted
			if tc.from > 0 {
				text = earlier + interrupted
			}
			if !tc.noFile {
				if err := os.WriteFile(filepath.Join(dir, ChecksFile), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			lines, err := ChecksFrom(dir, tc.from)
			if got := Count(lines); err != nil || got != tc.want {
				t.Fatalf("ChecksFrom: %+v, %v; want %+v", got, err, tc.want)
			}
			got := Count(lines)
			d, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			d.Carry(got)
			counts, err := d.Close()
			if err != nil || counts != tc.want {
				t.Errorf("Close: %+v, %v; want %+v", counts, err, tc.want)
			}
			b, err := os.ReadFile(filepath.Join(dir, ChecksFile))
			if err != nil {
				t.Fatal(err)
			}
			written := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
			if last := written[len(written)-1]; last != tc.total {
				t.Errorf("checks.txt ends with %q, want %q", last, tc.total)
			}
		})
	}
}
