package plan_test

import (
	"path/filepath"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/config"
)

// TestWritesNote: plan says how a stream's writes reach each database:
// SQLite's one writing session, the stream's writers past it named.
func TestWritesNote(t *testing.T) {
	ycsb := []string{filepath.Join("..", "..", "examples", "ycsb")}
	for _, tc := range []struct {
		name string
		vars []config.VarArg
		want string
	}{
		{"default", nil, "one writing session shared by the clients (sqlite runs one writing transaction at a time)"},
		{"writers asked", []config.VarArg{{Name: "writers", Value: "2"}},
			"one writing session shared by the clients (sqlite runs one writing transaction at a time; writers = 2 asked)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := build(t, ycsb, tc.vars)
			c := p.Scales[0].Cells[0]
			if got := scenario(t, c, "workload_a").WritesNote; got != tc.want {
				t.Errorf("%s: %q, want %q", c.Name(), got, tc.want)
			}
		})
	}
}
