package truth_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/datagen/datagentest"
	"github.com/mentat-spec/mentat-spec/datagen/truth"
)

// TestCheckErrors: each mistake in a truth declaration is reported, worded
// for the declaration, once the dataset it reads is finished.
func TestCheckErrors(t *testing.T) {
	issues := func() *datagen.Dataset { return datagentest.IssueTracker(datagentest.ScaleXS, false) }
	fleet := func() *datagen.Dataset { return datagentest.Fleet(50) }
	tests := []struct {
		name    string
		dataset func() *datagen.Dataset
		mutate  func(ds *datagen.Dataset)
		want    string
	}{
		{"truth unknown kind", issues, func(ds *datagen.Dataset) { ds.Truth[0].Kind = "median" }, `truth "state_counts": unknown kind "median"`},
		{"truth count_by attr", issues, func(ds *datagen.Dataset) { ds.Truth[0].Attr = "issue/nope" }, `attr "issue/nope" is not an attribute`},
		{"truth filter op", issues, func(ds *datagen.Dataset) { ds.Truth[2].Where[0].Op = "like" }, `unknown op "like"`},
		{"truth filter value", issues, func(ds *datagen.Dataset) { ds.Truth[2].Where[1].Value = "high" }, `filter on "issue/priority": "high" is not a long`},
		{"truth filter kind", issues, func(ds *datagen.Dataset) { ds.Truth[2].Where[1].Attr = "user/name" }, `filter attr "user/name" belongs to entity "user", not "issue"`},
		{"truth sample n", issues, func(ds *datagen.Dataset) { ds.Truth[4].N = 0 }, `truth "issue_samples": n 0 must be in [1, 13000]`},
		{"truth sample n big", issues, func(ds *datagen.Dataset) { ds.Truth[6].N = 201 }, `n 201 must be in [1, 200]`},
		{"truth sample entity", issues, func(ds *datagen.Dataset) { ds.Truth[4].Entity = "bug" }, `entity "bug" is not an entity`},
		{"truth sample attr", issues, func(ds *datagen.Dataset) { ds.Truth[4].Attrs[0] = "user/name" }, `attr "user/name" belongs to entity "user"`},
		{"truth sample mark", issues, func(ds *datagen.Dataset) { ds.Truth[5].AsOf = "t_end" }, `as_of "t_end" is not a mark`},
		{"truth inverse target", issues, func(ds *datagen.Dataset) { ds.Truth[7].Inverse = "issue/labels" }, `inverse "issue/labels" points at "label", not "user"`},
		{"truth inverse type", issues, func(ds *datagen.Dataset) { ds.Truth[7].Inverse = "issue/priority" }, `inverse "issue/priority" is not a ref attribute`},
		{"truth inverse ref attrs", issues, func(ds *datagen.Dataset) { ds.Truth[7].RefAttrs = []string{"user/name"} }, `ref attr "user/name" belongs to entity "user", not "issue"`},
		{"truth changed_since mark", issues, func(ds *datagen.Dataset) { ds.Truth[10].Since = "" }, `since "" is not a mark`},
		{"truth duplicate", issues, func(ds *datagen.Dataset) { ds.Truth[1].Name = "state_counts" }, `truth "state_counts": declared twice`},
		{"path through a non-ref", fleet, func(ds *datagen.Dataset) { ds.Truth[5].Attr = "van/capacity.depot/city" },
			`path "van/capacity.depot/city": "van/capacity" is not a ref`},
		{"reserved truth name", fleet, func(ds *datagen.Dataset) { ds.Truth[0].Name = datagen.IDsKey },
			`truth "ids": the name "ids" is reserved`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds := tt.dataset()
			tt.mutate(ds)
			if err := ds.Finish(); err != nil {
				t.Fatalf("Finish: %v", err)
			}
			err := truth.Check(ds)
			if err == nil {
				t.Fatalf("Check succeeded, want error containing %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %q\ndoes not contain %q", err, tt.want)
			}
		})
	}
}

func TestComputeCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := truth.Compute(ctx, datagentest.Finished(t, datagentest.ScaleXS, false), 2); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled truth: %v", err)
	}
}
