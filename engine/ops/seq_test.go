package ops

import (
	"sync"
	"testing"
)

// The visible count of an inserted kind is the number of leading ks all
// finished, whatever order they finish in and whether they committed.
func TestAckWindow(t *testing.T) {
	for _, tc := range []struct {
		name  string
		marks []int64
		want  int64
	}{
		{"none", nil, 0},
		{"in order", []int64{0, 1, 2}, 3},
		{"a gap", []int64{0, 2, 3}, 1},
		{"gap filled", []int64{2, 3, 0, 1}, 4},
		{"twice", []int64{0, 0, 1}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var w ackWindow
			for _, k := range tc.marks {
				w.mark(k)
			}
			if w.base != tc.want {
				t.Errorf("base %d, want %d", w.base, tc.want)
			}
		})
	}
}

// Writes from many clients: every k is handed out once, the journal holds
// exactly the committed ones, failures leave holes, and the visible
// count only passes a k once every earlier one finished.
func TestWriteSeqConcurrent(t *testing.T) {
	var s Seq
	const clients, each = 8, 500
	var wg sync.WaitGroup
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				k := s.Next()
				if k%7 == 3 {
					s.Fail(k)
				} else {
					s.Commit(k, 1000+k)
				}
			}
		}()
	}
	wg.Wait()
	commits, doubt := s.Snapshot()
	seen := map[int64]bool{}
	for _, c := range commits {
		if seen[c.K] || c.K%7 == 3 || c.E != 1000+c.K {
			t.Fatalf("commit %+v: handed out twice, a failed write, or the wrong entity", c)
		}
		seen[c.K] = true
	}
	total := int64(clients * each)
	if int64(len(commits))+s.Failed() != total || len(doubt) != 0 {
		t.Errorf("%d commits + %d failed, want %d writes", len(commits), s.Failed(), total)
	}
	if s.Visible() != total {
		t.Errorf("visible %d, want %d", s.Visible(), total)
	}
}
