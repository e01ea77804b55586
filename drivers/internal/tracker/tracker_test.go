package tracker

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

// thing records its interrupt and Close, and removes itself on Close as
// a session does.
type thing struct {
	id  int
	set *Set[*thing]
	log *[]string
	err error
}

func (t *thing) Close() error {
	*t.log = append(*t.log, fmt.Sprint("close ", t.id))
	t.set.Remove(t)
	return t.err
}

func TestSet(t *testing.T) {
	var s Set[*thing]
	var log []string
	things := map[int]*thing{}
	for _, id := range []int{1, 2, 3} {
		things[id] = &thing{id: id, set: &s, log: &log}
		if err := s.Track(things[id], "test", func() { t.Fatal("undo of an accepted thing") }); err != nil {
			t.Fatal(err)
		}
	}
	things[2].Close() // closes itself: Close leaves it alone
	things[3].err = errors.New("three")
	log = nil
	first, err := s.Close(func(c *thing) { log = append(log, fmt.Sprint("interrupt ", c.id)) })
	slices.Sort(log)
	want := []string{"close 1", "close 3", "interrupt 1", "interrupt 3"}
	if !first || !slices.Equal(log, want) || err == nil || err.Error() != "three" {
		t.Fatalf("Close = %v, %v with %q; want true, three with %q", first, err, log, want)
	}
	log = nil
	if first, err := s.Close(nil); first || err != nil || len(log) != 0 {
		t.Errorf("second Close = %v, %v, closing %q; want nothing", first, err, log)
	}
	undone := false
	late := &thing{id: 4, set: &s, log: &log}
	undo := func() { late.Close(); undone = true } // Close calls Remove
	if err := s.Track(late, `backend "x"`, undo); !errors.Is(err, ErrClosed) || err.Error() != `backend "x": backend is closed` || !undone {
		t.Errorf("Track after Close = %v (undone %v), want ErrClosed after the name, undone", err, undone)
	}
	things[1].Close() // removing after Close is harmless
}
