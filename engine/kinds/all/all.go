// Package all registers the scenario kinds the project ships in
// kind.Default. Import it for its side effect.
package all

import (
	"github.com/mentat-spec/mentat-spec/engine/kind"
	"github.com/mentat-spec/mentat-spec/engine/kinds/capacity"
	"github.com/mentat-spec/mentat-spec/engine/kinds/closedloop"
	"github.com/mentat-spec/mentat-spec/engine/kinds/coldwarm"
	"github.com/mentat-spec/mentat-spec/engine/kinds/openloop"
	"github.com/mentat-spec/mentat-spec/engine/kinds/sustained"
	"github.com/mentat-spec/mentat-spec/engine/kinds/writemixed"
)

func init() {
	Register(kind.Default)
}

// Register adds the shipped kinds to r; closed_loop is the kind of
// scenarios that do not name one.
func Register(r *kind.Registry) {
	r.MustRegister(closedloop.Kind{})
	r.MustRegister(coldwarm.Kind{})
	r.MustRegister(sustained.Kind{})
	r.MustRegister(openloop.Kind{})
	r.MustRegister(writemixed.Kind{})
	r.MustRegister(capacity.Kind{})
	r.SetDefault(closedloop.Name)
}
