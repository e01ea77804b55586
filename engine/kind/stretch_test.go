package kind_test

import (
	"context"
	"errors"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/kind"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// stretchEnv is an Env that gathers a stretch's evidence: it hands back
// one fact per row fn returned.
type stretchEnv struct {
	kind.Env
	ran int
}

func (e *stretchEnv) Stretch(ctx context.Context, fn func() ([]results.Row, error)) (kind.Evidence, error) {
	e.ran++
	rows, err := fn()
	var ev kind.Evidence
	for range rows {
		ev.Facts = append(ev.Facts, results.EvidenceRow{Source: "test", Name: "row"})
	}
	return ev, err
}

// kind.Stretch gathers through an Env that can, and otherwise only runs
// fn; fn's error comes back either way.
func TestStretch(t *testing.T) {
	ctx := context.Background()
	want := errors.New("window failed")
	rows := func() ([]results.Row, error) { return []results.Row{{Op: "read"}, {Op: "write"}}, nil }
	failing := func() ([]results.Row, error) { return nil, want }
	cases := []struct {
		name      string
		env       kind.Env
		fn        func() ([]results.Row, error)
		facts     int
		err       error
		gathering bool
	}{
		{"gathers", &stretchEnv{}, rows, 2, nil, true},
		{"gathers, fn fails", &stretchEnv{}, failing, 0, want, true},
		{"cannot gather", struct{ kind.Env }{}, rows, 0, nil, false},
		{"cannot gather, fn fails", struct{ kind.Env }{}, failing, 0, want, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ev, err := kind.Stretch(ctx, c.env, c.fn)
			if !errors.Is(err, c.err) || len(ev.Facts) != c.facts {
				t.Errorf("got %d facts, %v; want %d, %v", len(ev.Facts), err, c.facts, c.err)
			}
			if s, ok := c.env.(*stretchEnv); ok != c.gathering || ok && s.ran != 1 {
				t.Errorf("gathered through the env: %v", ok)
			}
		})
	}
}
