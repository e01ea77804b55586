package kind_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/kind"
)

// script is a RepRun that records what was asked of it.
type script struct {
	count     int
	doneAt    int   // the rep that reports done (0: none)
	failAt    int   // the rep that fails (0: none)
	finishErr error // what Finish returns
	calls     []string
}

var errRep = errors.New("rep failed")

func (s *script) Count() int { return s.count }

func (s *script) Rep(_ context.Context, n int) (bool, error) {
	s.calls = append(s.calls, "rep")
	if n == s.failAt {
		return true, errRep
	}
	return n == s.doneAt, nil
}

func (s *script) Release() error { s.calls = append(s.calls, "release"); return nil }

func (s *script) Finish() error { s.calls = append(s.calls, "finish"); return s.finishErr }

func (s *script) Saved(int) ([]byte, error) { return nil, nil }

func (s *script) Restore([][]byte) error { return nil }

// RunReps is the sequential order: every rep back to back, stopping at the
// first that reports done or fails, and always one Finish after.
func TestRunReps(t *testing.T) {
	errFinish := errors.New("closing workers")
	for _, tc := range []struct {
		name    string
		s       script
		calls   []string
		wantErr []error
	}{
		{"all reps", script{count: 3}, []string{"rep", "rep", "rep", "finish"}, nil},
		{"done at the probe", script{count: 3, doneAt: 1}, []string{"rep", "finish"}, nil},
		{"an error ends the point", script{count: 5, failAt: 2}, []string{"rep", "rep", "finish"}, []error{errRep}},
		{"finish fails too", script{count: 2, failAt: 2, finishErr: errFinish}, []string{"rep", "rep", "finish"}, []error{errRep, errFinish}},
		{"no reps", script{count: 0}, []string{"finish"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := kind.RunReps(context.Background(), &tc.s)
			if !slices.Equal(tc.s.calls, tc.calls) {
				t.Errorf("calls %v, want %v", tc.s.calls, tc.calls)
			}
			if (err != nil) != (len(tc.wantErr) > 0) {
				t.Errorf("error %v, want %v", err, tc.wantErr)
			}
			for _, w := range tc.wantErr {
				if !errors.Is(err, w) {
					t.Errorf("error %v does not wrap %v", err, w)
				}
			}
		})
	}
}
