package datagen

import "testing"

func TestFileOf(t *testing.T) {
	for _, n := range []int64{0, 1, 5, 7, 100, 13000} {
		for _, files := range []int{1, 2, 3, 7, 9, 200} {
			h := &histComp{n: n, files: files}
			for f := 0; f < files; f++ {
				lo, end := fileRange(n, files, f)
				for id := lo; id < end; id++ {
					if got := h.fileOf(id); got != f {
						t.Fatalf("n=%d files=%d id=%d: file %d, want %d", n, files, id, got, f)
					}
				}
			}
		}
	}
}
