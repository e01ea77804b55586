package tracker

import (
	"errors"
	"sort"
	"testing"
)

func TestSet(t *testing.T) {
	var s Set[int]
	for _, c := range []int{1, 2, 3} {
		if err := s.Add(c); err != nil {
			t.Fatal(err)
		}
	}
	s.Remove(2)
	open, first := s.Close()
	sort.Ints(open)
	if !first || len(open) != 2 || open[0] != 1 || open[1] != 3 {
		t.Fatalf("Close = %v, %v; want [1 3], true", open, first)
	}
	if open, first := s.Close(); first || len(open) != 0 {
		t.Errorf("second Close = %v, %v; want nothing", open, first)
	}
	if err := s.Add(4); !errors.Is(err, ErrClosed) {
		t.Errorf("Add after Close = %v, want ErrClosed", err)
	}
	s.Remove(1) // removing after Close is harmless
}
