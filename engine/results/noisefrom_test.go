package results

import (
	"os"
	"path/filepath"
	"testing"
)

// NoiseFrom keeps the rows written from an offset on: those of the run
// that started when noise.csv was that long; no file has none.
func TestNoiseFrom(t *testing.T) {
	dir := t.TempDir()
	if rows, err := NoiseFrom(dir, 0); err != nil || rows != nil {
		t.Fatalf("no noise.csv: %v, %v", rows, err)
	}
	write := func(points ...int) {
		d, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range points {
			if err := d.Emit(NoiseRow{Scenario: "s", Backend: "b", Scale: "xs", Point: p, Rep: 1, Seconds: 1, CPUs: 2}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := d.Close(); err != nil {
			t.Fatal(err)
		}
	}
	size := func() int64 {
		st, err := os.Stat(filepath.Join(dir, NoiseFile))
		if err != nil {
			t.Fatal(err)
		}
		return st.Size()
	}
	write(1, 2)
	first := size()
	write(3, 4, 5)
	for _, tc := range []struct {
		from int64
		want []int
	}{{0, []int{1, 2, 3, 4, 5}}, {first, []int{3, 4, 5}}, {size(), nil}} {
		rows, err := NoiseFrom(dir, tc.from)
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		for _, r := range rows {
			got = append(got, r.Point)
		}
		if len(got) != len(tc.want) || len(got) > 0 && (got[0] != tc.want[0] || got[len(got)-1] != tc.want[len(tc.want)-1]) {
			t.Errorf("from %d: points %v, want %v", tc.from, got, tc.want)
		}
	}
}
