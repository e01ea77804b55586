package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

func TestTimedSummary(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		results.WindowsFile:  results.WindowsHeader + "\nsustained,sqlite,xs,2,read,0,0,10,10000,0,0,1,0,1000,0,0\nsustained,sqlite,xs,2,read,1,10,20,9000,0,0,2,0,900,0,0\n",
		results.OpenLoopFile: results.OpenLoopHeader + "\nsustained,sqlite,xs,2,read,500,4999,499.9,3,1,0\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	if err := SummaryMD(r, &sb); err != nil {
		t.Fatal(err)
	}
	if s := sb.String(); !strings.Contains(s, "throughput 1,000 -> 900.0 ops/s (-10.0%), p99 1.000 -> 2.000 ms (+100.0%)") {
		t.Errorf("summary lacks the drift line:\n%s", s)
	}
	if s := sb.String(); !strings.Contains(s, "| sustained | sqlite | xs | 2 | read@500 | 500.0 | 499.9 | 4999 | 3 | 1 | 0 |") {
		t.Errorf("summary lacks the open-loop row:\n%s", s)
	}
}
